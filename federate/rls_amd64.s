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

// NEXTROW moves R10 from column c0 of row i to column c0 of row i+1
// (d-i-1 entries further: row i+1 starts d-i entries after row i, one
// column further right) and increments i.
#define NEXTROW \
	MOVQ DX, AX; \
	SUBQ R11, AX; \
	LEAQ -8(R10)(AX*8), R10; \
	INCQ R11

// DIAGROW does row i = c0+k (k = 1, 2, 3) of a chunk's diagonal block if
// i < d: only lanes l >= k (columns j >= i) take the multiply-add, which
// is computed for all lanes into Y3 and blended in by the immediate (bit
// l set for l >= k). Lanes l < k read the previous row's last entries
// (inside p) and are discarded.
#define DIAGROW(imm) \
	CMPQ         R11, DX; \
	JGE          colstore; \
	VMASKMOVPD   (R10), Y15, Y1; \
	VBROADCASTSD (BX)(R11*8), Y2; \
	VMOVAPD      Y0, Y3; \
	VFMADD231PD  Y2, Y1, Y3; \
	VBLENDPD     $imm, Y3, Y0, Y0; \
	NEXTROW

// func learnAVX2(w, u, p, theta, x []float64, y float64, g []float64)
//
// addObsGo(w, u, x, y) then rlsUpdateGo(p, theta, x, y, g), fused: the
// four steps of rlsUpdateGo, with the entries of w and u updated in step
// 4's row loop alongside p's (every entry of w and u is one independent
// fused multiply-add of x and y, so the order does not matter):
//
//  1. Column sums, one chunk of 4 columns c0..c0+3 at a time in Y0 (lane l
//     is g_(c0+l)): rows i = 0..c0 add p_i,(c0+l) x_i to every lane
//     (masked load: lanes past column d-1 read as 0 and are not stored),
//     rows c0+1..c0+3 (below d) only to the lanes at or right of the
//     diagonal (DIAGROW). R10 walks p_i,c0 down the rows.
//  2. Row sums: row i's entries against x_i.. in Y0 (4 accumulators),
//     combined (s0+s2)+(s1+s3), the tail by scalar FMAs; then g_i, x.g
//     (X13) and x.theta (X14).
//  3. c (X5) and f (X7).
//  4. theta_i and u_i, then row i of p and w: the diagonals by scalar
//     FMAs, the rest 4 entries per step (p with -(2 cg) broadcast in Y3, w
//     with x_i broadcast in Y4), the tail one by one.
//
// Registers (steps 1-3):
//	SI  p    BX  x    R8  g    R9  theta    DX  d
//	R10 current position in p    R11 i    CX  c0 (step 1) or k, entry in a row
//	R12 d-c0 clamped to 4 (step 1), x_i (step 2), p_i,i+1 (step 4)
//	R13 mask table (step 1), n rounded down to 4 (step 2), g_i+1 (step 4)
//	R14 off-diagonal entries rounded down to 4 (step 4)    AX  scratch, n
//	Y15 mask of the chunk's lanes inside d    Y0-Y3 working registers
//	X5  c    X7  f    X8  sign bit = -0.0    Y9  1.0 in every lane
//	X13 x.g    X14 x.theta
//
// Step 4 moves SI to x_i, BX to u_i and DI to w's row i (R10 is p's);
// R12, R13 are p_i,i+1 and g_i+1; X10 holds y.
//
// The sums and products of two computed values are fused multiply-adds
// a*1 + b and a*b + (-0), as addPinned and mulPinned in the Go version.
TEXT ·learnAVX2(SB), NOSPLIT, $0-152
	MOVQ p_base+48(FP), SI
	MOVQ theta_base+72(FP), R9
	MOVQ x_base+96(FP), BX
	MOVQ x_len+104(FP), DX
	MOVQ g_base+128(FP), R8

	// Step 1: column sums.
	XORQ CX, CX

col:
	MOVQ       DX, R12
	SUBQ       CX, R12
	CMPQ       R12, $4
	JLE        colmask
	MOVQ       $4, R12

colmask:
	MOVQ       R12, AX
	SHLQ       $5, AX
	LEAQ       rlsMask<>(SB), R13
	VMOVDQU    (R13)(AX*1), Y15
	VXORPD     Y0, Y0, Y0
	LEAQ       (SI)(CX*8), R10
	XORQ       R11, R11

colrow:
	// Rows 0..c0: every lane is at or right of the diagonal.
	VMASKMOVPD   (R10), Y15, Y1
	VBROADCASTSD (BX)(R11*8), Y2
	VFMADD231PD  Y2, Y1, Y0
	NEXTROW
	CMPQ         R11, CX
	JLE          colrow

	DIAGROW(0x0E)
	DIAGROW(0x0C)
	DIAGROW(0x08)

colstore:
	CMPQ       R12, $4
	JLT        colpartial
	VMOVUPD    Y0, (R8)(CX*8)
	JMP        colnext

colpartial:
	VMASKMOVPD Y0, Y15, (R8)(CX*8)

colnext:
	ADDQ $4, CX
	CMPQ CX, DX
	JLT  col

	// Step 2: row sums, g, x.g and x.theta.
	VXORPD       X13, X13, X13
	VXORPD       X14, X14, X14
	VBROADCASTSD rlsConst<>+16(SB), Y9
	MOVQ   SI, R10
	XORQ   R11, R11

rowsum:
	MOVQ   DX, AX
	SUBQ   R11, AX
	MOVQ   AX, R13
	ANDQ   $-4, R13
	LEAQ   (BX)(R11*8), R12
	VXORPD Y0, Y0, Y0
	XORQ   CX, CX
	CMPQ   CX, R13
	JGE    reduce

rquad:
	VMOVUPD     (R10)(CX*8), Y1
	VFMADD231PD (R12)(CX*8), Y1, Y0
	ADDQ        $4, CX
	CMPQ        CX, R13
	JLT         rquad

reduce:
	// X0 = (s0 + s2) + (s1 + s3), each sum a*1 + b (addPinned).
	VEXTRACTF128 $1, Y0, X1
	VFMADD231PD  X9, X0, X1
	VPERMILPD    $1, X1, X0
	VFMADD231SD  X9, X1, X0

rtail:
	CMPQ        CX, AX
	JGE         rdone
	VMOVSD      (R10)(CX*8), X1
	VFMADD231SD (R12)(CX*8), X1, X0
	INCQ        CX
	JMP         rtail

rdone:
	// g_i = 0.5 * (g_i*1 + s); x.g, x.theta.
	VMOVSD      (R8)(R11*8), X2
	VFMADD231SD X9, X2, X0
	VMULSD      rlsConst<>+8(SB), X0, X2
	VMOVSD      X2, (R8)(R11*8)
	VMOVSD      (R12), X3
	VFMADD231SD X2, X3, X13
	VFMADD231SD (R9)(R11*8), X3, X14
	LEAQ        (R10)(AX*8), R10
	INCQ        R11
	CMPQ        R11, DX
	JLT         rowsum

	// Step 3: c = 1/(1 + x.g), f = c * (y - x.theta).
	VMOVSD rlsConst<>+16(SB), X4
	VADDSD X13, X4, X4
	VMOVSD rlsConst<>+16(SB), X5
	VDIVSD X4, X5, X5
	VMOVSD      y+120(FP), X6
	VSUBSD      X14, X6, X6
	VMOVSD      rlsConst<>+0(SB), X8
	VMOVAPD     X8, X7
	VFMADD231SD X6, X5, X7

	// Step 4: theta, u and the rows of p (Sherman-Morrison downdate) and
	// w (plus x_i x).
	VMOVSD y+120(FP), X10
	MOVQ   SI, R10
	MOVQ   BX, SI
	MOVQ   w_base+0(FP), DI
	MOVQ   u_base+24(FP), BX
	XORQ   R11, R11

upd:
	// theta_i = fma(f, g_i, theta_i); cg = c g_i; p_ii = fma(-cg, g_i, p_ii).
	VMOVSD       (R8)(R11*8), X0
	VMOVSD       (R9)(R11*8), X1
	VFMADD231SD  X0, X7, X1
	VMOVSD       X1, (R9)(R11*8)
	VMOVAPD      X8, X2
	VFMADD231SD  X0, X5, X2
	VXORPD       X8, X2, X3
	VMOVSD       (R10), X1
	VFMADD231SD  X0, X3, X1
	VMOVSD       X1, (R10)
	// w_ii = fma(x_i, x_i, w_ii); u_i = fma(x_i, y, u_i).
	VBROADCASTSD (SI), Y4
	VMOVSD       (DI), X1
	VFMADD231SD  X4, X4, X1
	VMOVSD       X1, (DI)
	VMOVSD       (BX), X1
	VFMADD231SD  X10, X4, X1
	VMOVSD       X1, (BX)
	// Y3 = -(2 cg) in every lane.
	VADDSD       X2, X2, X3
	VXORPD       X8, X3, X3
	VBROADCASTSD X3, Y3
	MOVQ         DX, AX
	SUBQ         R11, AX
	DECQ         AX
	LEAQ         8(R10), R12
	LEAQ         8(R8)(R11*8), R13
	MOVQ         AX, R14
	ANDQ         $-4, R14
	XORQ         CX, CX
	CMPQ         CX, R14
	JGE          utail

uquad:
	VMOVUPD     (R12)(CX*8), Y1
	VFMADD231PD (R13)(CX*8), Y3, Y1
	VMOVUPD     Y1, (R12)(CX*8)
	VMOVUPD     8(DI)(CX*8), Y2
	VFMADD231PD 8(SI)(CX*8), Y4, Y2
	VMOVUPD     Y2, 8(DI)(CX*8)
	ADDQ        $4, CX
	CMPQ        CX, R14
	JLT         uquad

utail:
	CMPQ        CX, AX
	JGE         unext
	VMOVSD      (R12)(CX*8), X1
	VFMADD231SD (R13)(CX*8), X3, X1
	VMOVSD      X1, (R12)(CX*8)
	VMOVSD      8(DI)(CX*8), X2
	VFMADD231SD 8(SI)(CX*8), X4, X2
	VMOVSD      X2, 8(DI)(CX*8)
	INCQ        CX
	JMP         utail

unext:
	LEAQ 8(R10)(AX*8), R10
	LEAQ 8(DI)(AX*8), DI
	ADDQ $8, SI
	ADDQ $8, BX
	INCQ R11
	CMPQ R11, DX
	JLT  upd
	VZEROUPPER
	RET
