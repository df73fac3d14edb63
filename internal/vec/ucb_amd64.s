//go:build amd64 && !purego

#include "textflag.h"

// ucbScoresAVX2 is ucbScoresGo (ucb.go) in AVX2/FMA: one ymm register
// holds one quantity for the 4 actions (lanes) of a block, and every lane
// performs exactly the fused multiply-adds of the scalar code in the same
// order, so the results are bit-identical.
//
// Blocks go in groups of 4 (virtual blocks v = 0..3 of a group starting at
// block g read and write real block g+min(v, c-1), c = min(4, nb-g) the
// group's real blocks: a short last group repeats its last block, writing
// the same values twice). A group walks the rows of the width form two at a
// time; a step j broadcasts the two rows' coefficients once and feeds 8
// independent FMA chains (2 rows x 4 blocks), enough to keep both FMA pipes
// busy (4-cycle latency) with 2 broadcasts + 4 loads per 8 FMAs:
//
//	row pair (theta, p_0):   m_v, s_0v over j = 0..d-1 (both start at 0)
//	row pair (p_r, p_r+1):   s_rv = fma(p_rr, x_r, 0) alone, then
//	                         s_rv, s_(r+1)v over j = r+1..d-1,  r = 1, 3, ...
//	last row p_(d-1) alone:  when d is even
//
// and after each pair w_v = fma(x_r, s_r, w_v), then fma(x_(r+1), s_(r+1),
// w_v): i ascending, as in ucbScoresGo. m is parked in the frame until the
// end: u = fma(beta, sqrt(max(w, 0)), m).
//
// Each row pair also prefetches one cache line of each block of the next
// group (rows r, r+1), so that the next group is in L1 when it starts: an
// LTR query's panel (about 55 KB at d = 57) is usually not in cache. The
// prefetches past the last group are harmless hints (they never fault).
//
// Requires nb >= 1, d >= 1 and the slices' lengths checked by the caller
// (ucbScoresAsm).
//
// Registers:
//	AX  x of virtual block 0 of the group     R8, R9, R10  x offsets of virtual blocks 1, 2, 3
//	BX  g, the group's first block            DI  dst of block g
//	DX  d                                     SI  x_r of virtual block 0 (row pair)
//	R11 n = d-r-1, steps of the pair's joint loop
//	R12, R13  end of row a's and row b's joint segment; R12 = p_rr at a pair's start
//	R14 x_j of virtual block 0 in the joint loop;  CX  -(steps left), or a prefetch address
//	Y0-Y3 row a (theta or p_r) accumulators, Y4-Y7 row b (p_0 or p_r+1), of v = 0..3
//	Y8-Y11 w of v = 0..3;  Y12, Y13 broadcast coefficients;  Y14 x_j;  Y15 zero
//	0(SP)..127(SP)  m of v = 0..3

// JOINT_STEP does step j of a row pair: Y0-Y3 += p_a[j] x_j, Y4-Y7 +=
// p_b[j] x_j for the 4 virtual blocks.
#define JOINT_STEP \
	VBROADCASTSD (R12)(CX*8), Y12; \
	VBROADCASTSD (R13)(CX*8), Y13; \
	VMOVUPD      (R14), Y14; \
	VFMADD231PD  Y14, Y12, Y0; \
	VFMADD231PD  Y14, Y13, Y4; \
	VMOVUPD      (R14)(R8*1), Y14; \
	VFMADD231PD  Y14, Y12, Y1; \
	VFMADD231PD  Y14, Y13, Y5; \
	VMOVUPD      (R14)(R9*1), Y14; \
	VFMADD231PD  Y14, Y12, Y2; \
	VFMADD231PD  Y14, Y13, Y6; \
	VMOVUPD      (R14)(R10*1), Y14; \
	VFMADD231PD  Y14, Y12, Y3; \
	VFMADD231PD  Y14, Y13, Y7

// ZERO8 clears the row accumulators Y0-Y7.
#define ZERO8 \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// func ucbScoresAVX2(dst, x []float64, nb, d int, p, theta []float64, beta float64)
TEXT ·ucbScoresAVX2(SB), NOSPLIT, $128-120
	MOVQ d+56(FP), DX
	XORQ BX, BX

group:
	// k = min(4, nb-g) - 1; offsets of virtual blocks 1..3:
	// min(S, kS), min(2S, kS), kS with S = 32d bytes per block.
	MOVQ    nb+48(FP), R10
	SUBQ    BX, R10
	CMPQ    R10, $4
	JLE     clamped
	MOVQ    $4, R10

clamped:
	DECQ    R10
	MOVQ    DX, R13
	SHLQ    $5, R13
	IMULQ   R13, R10
	MOVQ    R13, R8
	CMPQ    R8, R10
	CMOVQGT R10, R8
	LEAQ    (R13)(R13*1), R9
	CMPQ    R9, R10
	CMOVQGT R10, R9
	MOVQ    BX, AX
	IMULQ   R13, AX
	ADDQ    x_base+24(FP), AX
	MOVQ    BX, DI
	SHLQ    $5, DI
	ADDQ    dst_base+0(FP), DI

	// Row pair (theta, p_0) over j = 0..d-1.
	// Prefetch the next group's cache line of rows 0, 1 (x + 4S..7S).
	LEAQ       (AX)(R9*2), CX
	PREFETCHT0 (CX)
	PREFETCHT0 (CX)(R8*1)
	PREFETCHT0 (CX)(R9*1)
	PREFETCHT0 (CX)(R10*1)
	ZERO8
	MOVQ theta_base+88(FP), R12
	LEAQ (R12)(DX*8), R12
	MOVQ p_base+64(FP), R13
	LEAQ (R13)(DX*8), R13
	MOVQ DX, CX
	NEGQ CX
	MOVQ AX, R14

first:
	JOINT_STEP
	ADDQ $32, R14
	INCQ CX
	JNZ  first

	// Park m; w = fma(x_0, s_0, 0).
	VMOVUPD     Y0, 0(SP)
	VMOVUPD     Y1, 32(SP)
	VMOVUPD     Y2, 64(SP)
	VMOVUPD     Y3, 96(SP)
	VXORPD      Y8, Y8, Y8
	VXORPD      Y9, Y9, Y9
	VXORPD      Y10, Y10, Y10
	VXORPD      Y11, Y11, Y11
	VFMADD231PD (AX), Y4, Y8
	VFMADD231PD (AX)(R8*1), Y5, Y9
	VFMADD231PD (AX)(R9*1), Y6, Y10
	VFMADD231PD (AX)(R10*1), Y7, Y11

	// R13 is now p_11, the start of row 1.
	MOVQ R13, R12
	LEAQ 32(AX), SI
	LEAQ -2(DX), R11

pairs:
	// Row pair (p_r, p_r+1) while r+1 <= d-1, i.e. n = d-r-1 >= 1.
	TESTQ R11, R11
	JLE   lastrow
	// Prefetch the next group's cache line of rows r, r+1 (x + 4S..7S).
	LEAQ       (SI)(R9*2), CX
	PREFETCHT0 (CX)
	PREFETCHT0 (CX)(R8*1)
	PREFETCHT0 (CX)(R9*1)
	PREFETCHT0 (CX)(R10*1)
	ZERO8
	VBROADCASTSD (R12), Y12
	VFMADD231PD  (SI), Y12, Y0
	VFMADD231PD  (SI)(R8*1), Y12, Y1
	VFMADD231PD  (SI)(R9*1), Y12, Y2
	VFMADD231PD  (SI)(R10*1), Y12, Y3

	// Joint segments: row r from p_r,r+1, row r+1 from p_r+1,r+1 (which
	// is where row r ends), n steps each, indexed by CX = -n..-1.
	LEAQ 8(R12)(R11*8), R12
	LEAQ (R12)(R11*8), R13
	MOVQ R11, CX
	NEGQ CX
	LEAQ 32(SI), R14

joint:
	JOINT_STEP
	ADDQ $32, R14
	INCQ CX
	JNZ  joint

	VFMADD231PD (SI), Y0, Y8
	VFMADD231PD (SI)(R8*1), Y1, Y9
	VFMADD231PD (SI)(R9*1), Y2, Y10
	VFMADD231PD (SI)(R10*1), Y3, Y11
	VFMADD231PD 32(SI), Y4, Y8
	VFMADD231PD 32(SI)(R8*1), Y5, Y9
	VFMADD231PD 32(SI)(R9*1), Y6, Y10
	VFMADD231PD 32(SI)(R10*1), Y7, Y11

	// R13 is now p_(r+2)(r+2).
	MOVQ R13, R12
	ADDQ $64, SI
	SUBQ $2, R11
	JMP  pairs

lastrow:
	// d even: row d-1 is the single coefficient p_(d-1)(d-1).
	JNZ          finish
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3
	VBROADCASTSD (R12), Y12
	VFMADD231PD  (SI), Y12, Y0
	VFMADD231PD  (SI)(R8*1), Y12, Y1
	VFMADD231PD  (SI)(R9*1), Y12, Y2
	VFMADD231PD  (SI)(R10*1), Y12, Y3
	VFMADD231PD  (SI), Y0, Y8
	VFMADD231PD  (SI)(R8*1), Y1, Y9
	VFMADD231PD  (SI)(R9*1), Y2, Y10
	VFMADD231PD  (SI)(R10*1), Y3, Y11

finish:
	// u = fma(beta, sqrt(max(w, 0)), m). VMAXPD Y15, Yw, Yw is Intel's
	// VMAXPD Yw, Yw, Y15 = (w > 0) ? w : 0, which returns the second
	// source, +0, when w is NaN or either zero: nonNeg.
	VXORPD       Y15, Y15, Y15
	VBROADCASTSD beta+112(FP), Y14
	VMAXPD       Y15, Y8, Y8
	VMAXPD       Y15, Y9, Y9
	VMAXPD       Y15, Y10, Y10
	VMAXPD       Y15, Y11, Y11
	VSQRTPD      Y8, Y8
	VSQRTPD      Y9, Y9
	VSQRTPD      Y10, Y10
	VSQRTPD      Y11, Y11
	VMOVUPD      0(SP), Y0
	VMOVUPD      32(SP), Y1
	VMOVUPD      64(SP), Y2
	VMOVUPD      96(SP), Y3
	VFMADD231PD  Y8, Y14, Y0
	VFMADD231PD  Y9, Y14, Y1
	VFMADD231PD  Y10, Y14, Y2
	VFMADD231PD  Y11, Y14, Y3

	// dst offsets of virtual blocks 1..3: min(32, 32k), min(64, 32k), 32k.
	MOVQ    nb+48(FP), R13
	SUBQ    BX, R13
	CMPQ    R13, $4
	JLE     clamped2
	MOVQ    $4, R13

clamped2:
	DECQ    R13
	SHLQ    $5, R13
	MOVQ    $32, R12
	CMPQ    R12, R13
	CMOVQGT R13, R12
	MOVQ    $64, CX
	CMPQ    CX, R13
	CMOVQGT R13, CX
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (DI)(R12*1)
	VMOVUPD Y2, (DI)(CX*1)
	VMOVUPD Y3, (DI)(R13*1)

	ADDQ $4, BX
	CMPQ BX, nb+48(FP)
	JLT  group
	VZEROUPPER
	RET
