//go:build amd64 && !purego

#include "textflag.h"

// The AVX2/FMA kernel of Normalize; normalizeGo (normalize.go) defines
// its results, which it reproduces bit for bit.
//
// Only VEX-encoded instructions touch the vector registers: on the build
// machine (Zen 3 under a hypervisor) a legacy-SSE instruction executed
// while the upper halves of ymm registers are in use costs about 120 ns,
// as much as a whole call.

// func normalizeAVX2(x, mu, z []float64, nb int, theta []float64)
//
// normalizeGo's operations in its order, for the four lanes of a block at
// once (one lane per 64-bit element of a ymm): ss by a chain of
// VFMADD231PD, inv = 1/sqrt(ss) by VSQRTPD and VDIVPD, then u = z*inv,
// m = fma(u, theta_j, m), x = u*invSqrt2. Each block's chains are serial,
// so the work is split in two passes over the blocks, each taking four
// independent blocks at a time (the last nb%4 blocks one at a time): pass
// 1 parks every block's inv in mu, pass 2 reads it back and writes x and
// the means over it.
//
// Registers: DI x, SI mu, DX z (current block), CX blocks left, R8 theta,
// R10 d-1, R12 z stride 32(d-1), R13 3*32(d-1), BX x stride 32d, R15
// 3*32d; Y15 invSqrt2, Y14 1.0, Y13 theta[d-1]. d >= 2.
TEXT ·normalizeAVX2(SB), NOSPLIT, $0-104
	MOVQ mu_base+24(FP), SI
	MOVQ z_base+48(FP), DX
	MOVQ nb+72(FP), CX
	MOVQ theta_len+88(FP), R10
	DECQ R10
	MOVQ R10, R12
	SHLQ $5, R12
	LEAQ (R12)(R12*2), R13
	MOVQ $0x3FF0000000000000, AX  // 1.0
	VMOVQ AX, X14
	VBROADCASTSD X14, Y14

p1quad:
	CMPQ CX, $4
	JLT  p1single
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   R10, R14

p1qss:
	VMOVUPD     (DX), Y8
	VMOVUPD     (DX)(R12*1), Y9
	VMOVUPD     (DX)(R12*2), Y10
	VMOVUPD     (DX)(R13*1), Y11
	VFMADD231PD Y8, Y8, Y0
	VFMADD231PD Y9, Y9, Y1
	VFMADD231PD Y10, Y10, Y2
	VFMADD231PD Y11, Y11, Y3
	ADDQ        $32, DX
	DECQ        R14
	JNZ         p1qss

	VSQRTPD Y0, Y0
	VSQRTPD Y1, Y1
	VSQRTPD Y2, Y2
	VSQRTPD Y3, Y3
	VDIVPD  Y0, Y14, Y0
	VDIVPD  Y1, Y14, Y1
	VDIVPD  Y2, Y14, Y2
	VDIVPD  Y3, Y14, Y3
	VMOVUPD Y0, (SI)
	VMOVUPD Y1, 32(SI)
	VMOVUPD Y2, 64(SI)
	VMOVUPD Y3, 96(SI)
	ADDQ    $128, SI
	ADDQ    R13, DX                // DX was at block 1's z
	SUBQ    $4, CX
	JMP     p1quad

p1single:
	TESTQ CX, CX
	JZ    pass2
	VXORPD Y0, Y0, Y0
	MOVQ   R10, R14

p1sss:
	VMOVUPD     (DX), Y8
	VFMADD231PD Y8, Y8, Y0
	ADDQ        $32, DX
	DECQ        R14
	JNZ         p1sss

	VSQRTPD Y0, Y0
	VDIVPD  Y0, Y14, Y0
	VMOVUPD Y0, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JMP     p1single

pass2:
	MOVQ x_base+0(FP), DI
	MOVQ mu_base+24(FP), SI
	MOVQ z_base+48(FP), DX
	MOVQ nb+72(FP), CX
	MOVQ theta_base+80(FP), R8
	MOVQ theta_len+88(FP), R9
	MOVQ R9, BX
	SHLQ $5, BX
	LEAQ (BX)(BX*2), R15
	MOVQ $0x3FE6A09E667F3BCD, AX  // invSqrt2
	VMOVQ AX, X15
	VBROADCASTSD X15, Y15
	VBROADCASTSD -8(R8)(R9*8), Y13 // theta[d-1]

p2quad:
	CMPQ CX, $4
	JLT  p2single
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VXORPD  Y4, Y4, Y4
	VXORPD  Y5, Y5, Y5
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	MOVQ    R8, AX
	MOVQ    R10, R14

p2qu:
	VBROADCASTSD (AX), Y12
	VMULPD       (DX), Y0, Y8
	VMULPD       (DX)(R12*1), Y1, Y9
	VMULPD       (DX)(R12*2), Y2, Y10
	VMULPD       (DX)(R13*1), Y3, Y11
	VFMADD231PD  Y12, Y8, Y4
	VFMADD231PD  Y12, Y9, Y5
	VFMADD231PD  Y12, Y10, Y6
	VFMADD231PD  Y12, Y11, Y7
	VMULPD       Y15, Y8, Y8
	VMULPD       Y15, Y9, Y9
	VMULPD       Y15, Y10, Y10
	VMULPD       Y15, Y11, Y11
	VMOVUPD      Y8, (DI)
	VMOVUPD      Y9, (DI)(BX*1)
	VMOVUPD      Y10, (DI)(BX*2)
	VMOVUPD      Y11, (DI)(R15*1)
	ADDQ         $32, DX
	ADDQ         $32, DI
	ADDQ         $8, AX
	DECQ         R14
	JNZ          p2qu

	// Last coordinate and means; DI is at row d-1 of block 0.
	VMOVUPD Y15, (DI)
	VMOVUPD Y15, (DI)(BX*1)
	VMOVUPD Y15, (DI)(BX*2)
	VMOVUPD Y15, (DI)(R15*1)
	VADDPD  Y13, Y4, Y4
	VADDPD  Y13, Y5, Y5
	VADDPD  Y13, Y6, Y6
	VADDPD  Y13, Y7, Y7
	VMOVUPD Y4, (SI)
	VMOVUPD Y5, 32(SI)
	VMOVUPD Y6, 64(SI)
	VMOVUPD Y7, 96(SI)
	ADDQ    $128, SI
	LEAQ    32(DI)(R15*1), DI      // start of block 4
	ADDQ    R13, DX                // DX was at block 1's z
	SUBQ    $4, CX
	JMP     p2quad

p2single:
	TESTQ CX, CX
	JZ    ndone
	VMOVUPD (SI), Y0
	VXORPD  Y4, Y4, Y4
	MOVQ    R8, AX
	MOVQ    R10, R14

p2su:
	VBROADCASTSD (AX), Y12
	VMULPD       (DX), Y0, Y8
	VFMADD231PD  Y12, Y8, Y4
	VMULPD       Y15, Y8, Y8
	VMOVUPD      Y8, (DI)
	ADDQ         $32, DX
	ADDQ         $32, DI
	ADDQ         $8, AX
	DECQ         R14
	JNZ          p2su

	VMOVUPD Y15, (DI)
	ADDQ    $32, DI
	VADDPD  Y13, Y4, Y4
	VMOVUPD Y4, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JMP     p2single

ndone:
	VZEROUPPER
	RET
