//go:build amd64 && !purego

#include "textflag.h"

// The per-observation learner kernels: addObsAVX2 (addObsGo) and
// learnAVX2 (addObsGo then rlsUpdateGo) in AVX2/FMA. Both perform exactly the operations of their
// Go versions in the same order (see the Go doc comments), four entries
// per ymm register, so the results are bit-identical. The Go/assembly
// FMA correspondence used throughout: math.FMA(a, b, c) is
// VFMADD231 b, a, c (Intel: c = a*b + c), as in the compiled Go.

// rlsMask<>: entry r (32 bytes at 32r, r = 0..4) has lanes l < r all ones:
// the lanes of a 4-column chunk that lie inside the d columns.
DATA rlsMask<>+0(SB)/8, $0
DATA rlsMask<>+8(SB)/8, $0
DATA rlsMask<>+16(SB)/8, $0
DATA rlsMask<>+24(SB)/8, $0
DATA rlsMask<>+32(SB)/8, $-1
DATA rlsMask<>+40(SB)/8, $0
DATA rlsMask<>+48(SB)/8, $0
DATA rlsMask<>+56(SB)/8, $0
DATA rlsMask<>+64(SB)/8, $-1
DATA rlsMask<>+72(SB)/8, $-1
DATA rlsMask<>+80(SB)/8, $0
DATA rlsMask<>+88(SB)/8, $0
DATA rlsMask<>+96(SB)/8, $-1
DATA rlsMask<>+104(SB)/8, $-1
DATA rlsMask<>+112(SB)/8, $-1
DATA rlsMask<>+120(SB)/8, $0
DATA rlsMask<>+128(SB)/8, $-1
DATA rlsMask<>+136(SB)/8, $-1
DATA rlsMask<>+144(SB)/8, $-1
DATA rlsMask<>+152(SB)/8, $-1
GLOBL rlsMask<>(SB), RODATA|NOPTR, $160

// rlsConst<>: the sign bit (-0.0; negation by XOR, as Go negates), 0.5, 1.0.
DATA rlsConst<>+0(SB)/8, $0x8000000000000000
DATA rlsConst<>+8(SB)/8, $0x3FE0000000000000
DATA rlsConst<>+16(SB)/8, $0x3FF0000000000000
GLOBL rlsConst<>(SB), RODATA|NOPTR, $24

// func addObsAVX2(w, u, x []float64, y float64)
//
// Row i of the packed w (n = d-i entries from the diagonal) gets
// w_ij = fma(x_i, x_j, w_ij): 4 entries per step, the last n mod 4 one by
// one; then u_i = fma(x_i, y, u_i).
//
// Registers:
//	DI  row i of w (its diagonal entry)   SI  x_i    R8  u_i
//	DX  n = d-i    AX  n rounded down to a multiple of 4    CX  k, entry in the row
//	Y0  x_i broadcast    Y1  w entries    X2  y    X3  u_i
TEXT ·addObsAVX2(SB), NOSPLIT, $0-80
	MOVQ   w_base+0(FP), DI
	MOVQ   u_base+24(FP), R8
	MOVQ   x_base+48(FP), SI
	MOVQ   x_len+56(FP), DX
	VMOVSD y+72(FP), X2

obsrow:
	VBROADCASTSD (SI), Y0
	VMOVSD       (R8), X3
	VFMADD231SD  X2, X0, X3
	VMOVSD       X3, (R8)
	MOVQ         DX, AX
	ANDQ         $-4, AX
	XORQ         CX, CX
	CMPQ         CX, AX
	JGE          obstail

obsquad:
	VMOVUPD     (DI)(CX*8), Y1
	VFMADD231PD (SI)(CX*8), Y0, Y1
	VMOVUPD     Y1, (DI)(CX*8)
	ADDQ        $4, CX
	CMPQ        CX, AX
	JLT         obsquad

obstail:
	CMPQ        CX, DX
	JGE         obsnext
	VMOVSD      (DI)(CX*8), X1
	VFMADD231SD (SI)(CX*8), X0, X1
	VMOVSD      X1, (DI)(CX*8)
	INCQ        CX
	JMP         obstail

obsnext:
	LEAQ (DI)(DX*8), DI
	ADDQ $8, SI
	ADDQ $8, R8
	DECQ DX
	JNZ  obsrow
	VZEROUPPER
	RET

// rlsGE<>: entry k (32 bytes at 32k, k = 0..3) has lanes l >= k all ones:
// the lanes of a diagonal block's row k that lie on or right of the
// diagonal.
DATA rlsGE<>+0(SB)/8, $-1
DATA rlsGE<>+8(SB)/8, $-1
DATA rlsGE<>+16(SB)/8, $-1
DATA rlsGE<>+24(SB)/8, $-1
DATA rlsGE<>+32(SB)/8, $0
DATA rlsGE<>+40(SB)/8, $-1
DATA rlsGE<>+48(SB)/8, $-1
DATA rlsGE<>+56(SB)/8, $-1
DATA rlsGE<>+64(SB)/8, $0
DATA rlsGE<>+72(SB)/8, $0
DATA rlsGE<>+80(SB)/8, $-1
DATA rlsGE<>+88(SB)/8, $-1
DATA rlsGE<>+96(SB)/8, $0
DATA rlsGE<>+104(SB)/8, $0
DATA rlsGE<>+112(SB)/8, $0
DATA rlsGE<>+120(SB)/8, $-1
GLOBL rlsGE<>(SB), RODATA|NOPTR, $128

// CHUNKMASK sets Y15 to the mask of the lanes of the 4 columns from CX
// that lie inside d (rlsMask<> entry min(d-CX, 4)). Clobbers AX, SI.
#define CHUNKMASK \
	MOVQ    DX, AX; \
	SUBQ    CX, AX; \
	MOVQ    $4, SI; \
	CMPQ    AX, SI; \
	CMOVQGT SI, AX; \
	SHLQ    $5, AX; \
	LEAQ    rlsMask<>(SB), SI; \
	VMOVDQU (SI)(AX*1), Y15

// DIAGROW does row k = 1, 2, 3 (base Rb, x_i broadcast in Yx, row sums
// Ys) of a diagonal block: T takes the multiply-add in the lanes l >= k
// only (computed in all lanes into Y11, blended in by imm), and the row sum
// takes fma(P', X', Ys) with P and X cleared in the lanes l < k (0*0 adds
// +0, which leaves a row sum unchanged: it starts at +0 and so is never
// -0). The lanes l < k of P read the previous row's last entries (inside
// p).
#define DIAGROW(Rb, Yx, Ys, k, imm) \
	VMASKMOVPD  (Rb)(CX*8), Y15, Y12; \
	VMOVAPD     Y10, Y11; \
	VFMADD231PD Yx, Y12, Y11; \
	VBLENDPD    $imm, Y11, Y10, Y10; \
	VANDPD      rlsGE<>+(32*k)(SB), Y12, Y12; \
	VANDPD      rlsGE<>+(32*k)(SB), Y13, Y11; \
	VFMADD231PD Y11, Y12, Ys

// OFFROW does row k (base Rb, x_i broadcast in Yx, row sums Ys) of an
// off-diagonal block: every lane.
#define OFFROW(Rb, Yx, Ys) \
	VMASKMOVPD  (Rb)(CX*8), Y15, Y12; \
	VFMADD231PD Yx, Y12, Y10; \
	VFMADD231PD Y13, Y12, Ys

// func learnAVX2(w, u, p, theta, x []float64, y float64, g []float64)
//
// addObsGo(w, u, x, y) then rlsUpdateGo(p, theta, x, y, g), fused: the
// steps of rlsUpdateGo, with the entries of w and u updated in step 3
// alongside theta's and p's (every entry of w and u is one independent
// fused multiply-add of x and y, so the order does not matter).
//
//  1. g = A x by 4 x 4 blocks (see rlsUpdateGo). A row block sets up the
//     bases of its rows (R10, R12, R13, R14: p_ij is at base + 8j) and
//     broadcasts their x_i (Y4-Y7), then walks its column blocks from the
//     diagonal one (CX = first column). A block loads each row's 4 entries
//     with the mask of the columns inside d (Y15; masked lanes read 0),
//     accumulates the column sums T (Y10) and the row sums (Y0-Y3) and
//     stores T into g (row block 0) or adds it. Only the last row block
//     can have fewer than 4 rows, and it has no off-diagonal blocks. After
//     the walk the row sums are reduced by a transpose into one vector
//     (lane k: row k's sum), g_i = 0.5 (g_i + s_i) is stored (lanes past d
//     cleared: g is padded to a multiple of 4), and x.g, x.theta
//     accumulate in Y8, Y9.
//  2. x.g (X13), x.theta (X14), c (X5) and f (X7).
//  3. theta and u, 4 entries per step; then row by row p and w (see
//     rows: below).
//
// Registers in step 1:
//	BX  x    R8  g    R9  theta    DX  d    R11 i0 = 4r, the row block's first row
//	DI  base of the next row    R10, R12, R13, R14  bases of rows i0..i0+3
//	CX  first column of the block    AX, SI  scratch
//	Y0-Y3 row sums    Y4-Y7 x_i broadcasts    Y8 x.g lanes    Y9 x.theta lanes
//	Y10 T    Y11, Y12 (entries P), Y13 (x of the block's columns) working
//	Y14 1.0 in every lane    Y15 mask of the columns inside d
//
// In step 3, R10 and DI walk the rows of p and w (from the diagonal), SI
// and R13 x_i and g_i, AX is n = d-i; X5 holds c, X7 f, X8 -0.0 (the sign
// bit), X10 y.
//
// The sums and products of two computed values are fused multiply-adds
// a*1 + b and a*b + (-0), as addPinned and mulPinned in the Go version.
TEXT ·learnAVX2(SB), NOSPLIT, $0-160
	MOVQ p_base+48(FP), DI
	MOVQ theta_base+72(FP), R9
	MOVQ x_base+96(FP), BX
	MOVQ x_len+104(FP), DX
	MOVQ g_base+128(FP), R8

	VBROADCASTSD rlsConst<>+16(SB), Y14
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         R11, R11

rowblock:
	// Rows i0..i0+3 below d: bases (DI moves d-i-1 entries per row) and
	// x_i broadcasts; row sums 0.
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3
	MOVQ         DI, R10
	VBROADCASTSD (BX)(R11*8), Y4
	MOVQ         DX, AX
	SUBQ         R11, AX
	LEAQ         -8(DI)(AX*8), DI
	CMPQ         AX, $1
	JLE          diag
	MOVQ         DI, R12
	VBROADCASTSD 8(BX)(R11*8), Y5
	LEAQ         -16(DI)(AX*8), DI
	CMPQ         AX, $2
	JLE          diag
	MOVQ         DI, R13
	VBROADCASTSD 16(BX)(R11*8), Y6
	LEAQ         -24(DI)(AX*8), DI
	CMPQ         AX, $3
	JLE          diag
	MOVQ         DI, R14
	VBROADCASTSD 24(BX)(R11*8), Y7
	LEAQ         -32(DI)(AX*8), DI

diag:
	// The diagonal block, columns i0..i0+3. Row 0: T = P x_i0 + (-0).
	MOVQ         R11, CX
	CHUNKMASK
	VMASKMOVPD   (BX)(CX*8), Y15, Y13
	VMASKMOVPD   (R10)(CX*8), Y15, Y12
	VBROADCASTSD rlsConst<>+0(SB), Y10
	VFMADD231PD  Y4, Y12, Y10
	VFMADD231PD  Y13, Y12, Y0
	MOVQ         DX, AX
	SUBQ         R11, AX
	CMPQ         AX, $1
	JLE          diagdone
	DIAGROW(R12, Y5, Y1, 1, 0x0E)
	CMPQ         AX, $2
	JLE          diagdone
	DIAGROW(R13, Y6, Y2, 2, 0x0C)
	CMPQ         AX, $3
	JLE          diagdone
	DIAGROW(R14, Y7, Y3, 3, 0x08)

diagdone:
	// g_j = T_j in row block 0, else g_j*1 + T_j: the column sums of
	// columns i0..i0+3 are complete.
	TESTQ       R11, R11
	JZ          diagstore
	VMOVUPD     (R8)(CX*8), Y11
	VFMADD231PD Y14, Y11, Y10

diagstore:
	VMOVUPD Y10, (R8)(CX*8)

offblock:
	// The off-diagonal blocks, columns CX..CX+3 > i0+3, all 4 rows.
	ADDQ         $4, CX
	CMPQ         CX, DX
	JGE          reduce
	CHUNKMASK
	VMASKMOVPD   (BX)(CX*8), Y15, Y13
	VMASKMOVPD   (R10)(CX*8), Y15, Y12
	VBROADCASTSD rlsConst<>+0(SB), Y10
	VFMADD231PD  Y4, Y12, Y10
	VFMADD231PD  Y13, Y12, Y0
	OFFROW(R12, Y5, Y1)
	OFFROW(R13, Y6, Y2)
	OFFROW(R14, Y7, Y3)
	TESTQ        R11, R11
	JZ           offstore
	VMOVUPD      (R8)(CX*8), Y11
	VFMADD231PD  Y14, Y11, Y10

offstore:
	VMOVUPD Y10, (R8)(CX*8)
	JMP     offblock

reduce:
	// Transpose-reduce: lane k of Y13 = (s_k0 + s_k2) + (s_k1 + s_k3).
	VPERM2F128  $0x20, Y1, Y0, Y10
	VPERM2F128  $0x31, Y1, Y0, Y11
	VFMADD231PD Y14, Y10, Y11
	VPERM2F128  $0x20, Y3, Y2, Y10
	VPERM2F128  $0x31, Y3, Y2, Y12
	VFMADD231PD Y14, Y10, Y12
	VUNPCKLPD   Y12, Y11, Y10
	VUNPCKHPD   Y12, Y11, Y13
	VFMADD231PD Y14, Y10, Y13
	VPERMPD     $0xD8, Y13, Y13

	// g_i = 0.5 * (g_i*1 + s_i), lanes past d cleared; x.g, x.theta lanes.
	MOVQ         R11, CX
	CHUNKMASK
	VMOVUPD      (R8)(R11*8), Y10
	VFMADD231PD  Y14, Y10, Y13
	VBROADCASTSD rlsConst<>+8(SB), Y10
	VMULPD       Y10, Y13, Y13
	VANDPD       Y15, Y13, Y13
	VMOVUPD      Y13, (R8)(R11*8)
	VMASKMOVPD   (BX)(R11*8), Y15, Y10
	VFMADD231PD  Y13, Y10, Y8
	VMASKMOVPD   (R9)(R11*8), Y15, Y11
	VFMADD231PD  Y11, Y10, Y9
	ADDQ         $4, R11
	CMPQ         R11, DX
	JLT          rowblock

	// Step 2: x.g = (xg_0 + xg_2) + (xg_1 + xg_3) in X13, x.theta in X14;
	// c = 1/(1 + x.g), f = c * (y - x.theta).
	VEXTRACTF128 $1, Y8, X10
	VFMADD231PD  X14, X8, X10
	VPERMILPD    $1, X10, X13
	VFMADD231SD  X14, X10, X13
	VEXTRACTF128 $1, Y9, X10
	VFMADD231PD  X14, X9, X10
	VPERMILPD    $1, X10, X12
	VFMADD231SD  X14, X10, X12
	VMOVAPD      X12, X14
	VMOVSD       X13, xVx+152(FP)
	VMOVSD rlsConst<>+16(SB), X4
	VADDSD X13, X4, X4
	VMOVSD rlsConst<>+16(SB), X5
	VDIVSD X4, X5, X5
	VMOVSD      y+120(FP), X6
	VSUBSD      X14, X6, X6
	VMOVSD      rlsConst<>+0(SB), X8
	VMOVAPD     X8, X7
	VFMADD231SD X6, X5, X7


	// Step 3. theta = fma(f, g, theta) and u = fma(x, y, u), 4 entries per
	// step, the tail one by one.
	VMOVSD       y+120(FP), X10
	VBROADCASTSD X7, Y11
	VBROADCASTSD X10, Y12
	MOVQ         u_base+24(FP), SI
	MOVQ         DX, AX
	ANDQ         $-4, AX
	XORQ         CX, CX

tuquad:
	CMPQ        CX, AX
	JGE         tutail
	VMOVUPD     (R9)(CX*8), Y1
	VFMADD231PD (R8)(CX*8), Y11, Y1
	VMOVUPD     Y1, (R9)(CX*8)
	VMOVUPD     (BX)(CX*8), Y3
	VMOVUPD     (SI)(CX*8), Y2
	VFMADD231PD Y12, Y3, Y2
	VMOVUPD     Y2, (SI)(CX*8)
	ADDQ        $4, CX
	JMP         tuquad

tutail:
	CMPQ        CX, DX
	JGE         rows
	VMOVSD      (R9)(CX*8), X1
	VFMADD231SD (R8)(CX*8), X11, X1
	VMOVSD      X1, (R9)(CX*8)
	VMOVSD      (BX)(CX*8), X3
	VMOVSD      (SI)(CX*8), X2
	VFMADD231SD X12, X3, X2
	VMOVSD      X2, (SI)(CX*8)
	INCQ        CX
	JMP         tutail

rows:
	// Row i of p and w, n = d-i entries from the diagonal (p_ij at
	// (R10)(k*8), g_j at (R13)(k*8), w_ij at (DI)(k*8), x_j at (SI)(k*8),
	// j = i+k): p_ij = fma(coef_j, g_j, p_ij) with coef = -cg on the
	// diagonal, -(2 cg) off it; w_ij = fma(x_i, x_j, w_ij). A row of n >= 4
	// entries goes by 4-entry chunks at k = 0, 4, ... below n-4 and a last
	// chunk at n-4, which overlaps the one before unless 4 divides n: it is
	// loaded and computed first and stored last, so the overlapped entries
	// get the same values twice. Rows of n < 4 go one entry at a time.
	MOVQ p_base+48(FP), R10
	MOVQ w_base+0(FP), DI
	MOVQ BX, SI
	MOVQ R8, R13
	MOVQ DX, AX

rowupd:
	CMPQ AX, $4
	JLT  smallrows
	// Y1 = -(2 cg) in every lane, Y3 = (-cg, -(2 cg) x 3), Y4 = x_i.
	VMOVSD       (R13), X0
	VMOVAPD      X8, X2
	VFMADD231SD  X0, X5, X2
	VXORPD       X8, X2, X3
	VADDSD       X2, X2, X1
	VXORPD       X8, X1, X1
	VBROADCASTSD X1, Y1
	VBROADCASTSD X3, Y3
	VBLENDPD     $0x01, Y3, Y1, Y3
	VBROADCASTSD (SI), Y4
	// The last chunk, at CX = n-4 (coefficients Y3 if that is the
	// diagonal), into Y7 (p) and Y9 (w).
	LEAQ         -4(AX), CX
	VMOVAPD      Y1, Y6
	TESTQ        CX, CX
	JNZ          lastchunk
	VMOVAPD      Y3, Y6

lastchunk:
	VMOVUPD     (R10)(CX*8), Y7
	VFMADD231PD (R13)(CX*8), Y6, Y7
	VMOVUPD     (DI)(CX*8), Y9
	VFMADD231PD (SI)(CX*8), Y4, Y9
	// The chunks below n-4: the first (the diagonal's) with Y3.
	TESTQ       CX, CX
	JZ          rowstore
	VMOVUPD     (R10), Y2
	VFMADD231PD (R13), Y3, Y2
	VMOVUPD     Y2, (R10)
	VMOVUPD     (DI), Y2
	VFMADD231PD (SI), Y4, Y2
	VMOVUPD     Y2, (DI)
	MOVQ        $4, R14

chunk:
	CMPQ        R14, CX
	JGE         rowstore
	VMOVUPD     (R10)(R14*8), Y2
	VFMADD231PD (R13)(R14*8), Y1, Y2
	VMOVUPD     Y2, (R10)(R14*8)
	VMOVUPD     (DI)(R14*8), Y2
	VFMADD231PD (SI)(R14*8), Y4, Y2
	VMOVUPD     Y2, (DI)(R14*8)
	ADDQ        $4, R14
	JMP         chunk

rowstore:
	VMOVUPD Y7, (R10)(CX*8)
	VMOVUPD Y9, (DI)(CX*8)
	LEAQ    (R10)(AX*8), R10
	LEAQ    (DI)(AX*8), DI
	ADDQ    $8, SI
	ADDQ    $8, R13
	DECQ    AX
	JMP     rowupd

smallrows:
	// n = 3, 2, 1: the diagonal with -cg, the rest with -(2 cg).
	TESTQ        AX, AX
	JZ           done
	VMOVSD       (R13), X0
	VMOVAPD      X8, X2
	VFMADD231SD  X0, X5, X2
	VXORPD       X8, X2, X3
	VMOVSD       (R10), X1
	VFMADD231SD  X0, X3, X1
	VMOVSD       X1, (R10)
	VMOVSD       (SI), X4
	VMOVSD       (DI), X1
	VFMADD231SD  X4, X4, X1
	VMOVSD       X1, (DI)
	VADDSD       X2, X2, X3
	VXORPD       X8, X3, X3
	MOVQ         $1, CX

smallentry:
	CMPQ        CX, AX
	JGE         smallnext
	VMOVSD      (R10)(CX*8), X1
	VFMADD231SD (R13)(CX*8), X3, X1
	VMOVSD      X1, (R10)(CX*8)
	VMOVSD      (DI)(CX*8), X1
	VFMADD231SD (SI)(CX*8), X4, X1
	VMOVSD      X1, (DI)(CX*8)
	INCQ        CX
	JMP         smallentry

smallnext:
	LEAQ (R10)(AX*8), R10
	LEAQ (DI)(AX*8), DI
	ADDQ $8, SI
	ADDQ $8, R13
	DECQ AX
	JMP  smallrows

done:
	VZEROUPPER
	RET
