//go:build amd64 && !purego

#include "textflag.h"

// AVX2/FMA kernels of the synthetic contexts; zigFastGo and normalizeGo
// (normal.go) define their results, which these reproduce bit for bit.
//
// Only VEX-encoded instructions touch the vector registers (VMOVQ, not
// MOVQ, for AX -> X14): on the build machine (Zen 3 under a hypervisor) a
// legacy-SSE instruction executed while the upper halves of ymm registers
// are in use costs about 120 ns, as much as a whole call.

// func zigFastAVX2(z []float64, s *[16]uint64, rej []zigRejStep, t *[zigLayers]zigEntry) int
//
// Y0-Y3 hold the xoshiro256++ words s0..s3 of the four lanes. Each step:
// Y4 = the four 64-bit outputs = eight 32-bit draws (draw k is dword k).
// The layers, as byte offsets 16*(draw & 0x3FF) into t (zigLayers = 1024,
// 16-byte entries {w, k}), go through general registers: draws 0-1 in AX
// (low and high halves), 2-3 in BX, 4-5 in CX, 6-7 in DX. Each entry is
// loaded whole, two per ymm (VMOVUPD + VINSERTF128: [e0 | e2] and
// [e1 | e3]), and VUNPCKLPD/VUNPCKHPD split the pair into the widths
// [w0 w1 w2 w3] and thresholds [k0 k1 k2 k3]; likewise for draws 4-7.
// j = draw >> 10 (arithmetic, zigBits = 10) is converted to float64 (Y14
// draws 0-3, Y15 draws 4-7); z = float64(j) * w; accepted = |float64(j)|
// < k (exact: integers below 2^22). Every step writes its record
// (position, rejection mask, the eight draws: zigRejStep, 40 bytes) to
// the next free slot of rej, which advances only if the mask is nonzero:
// rejections are rare (3.4% of steps), and a branch on them mispredicts
// late, after the loads, at a cost of about 0.7 ns per step.
//
// Registers: DI z (current step), SI steps left, R9 rej's next free slot,
// R11 position of the step's draw 0, R13 t; AX BX CX DX R8 R12 layer
// offsets; Y11 the offset mask 0x3FF0 (dwords), Y12 the float64 sign
// mask's complement (|x| = x AND Y12).
TEXT ·zigFastAVX2(SB), NOSPLIT, $0-72
	MOVQ z_base+0(FP), DI
	MOVQ z_len+8(FP), SI
	SHRQ $3, SI              // steps
	MOVQ s+24(FP), R8
	MOVQ rej_base+32(FP), R9
	MOVQ t+56(FP), R13
	XORQ R11, R11            // position of the step's draw 0
	VMOVDQU 0(R8), Y0
	VMOVDQU 32(R8), Y1
	VMOVDQU 64(R8), Y2
	VMOVDQU 96(R8), Y3
	MOVL    $0x3FF0, AX
	VMOVQ    AX, X11
	VPBROADCASTD X11, Y11     // offset mask
	MOVQ    $0x7FFFFFFFFFFFFFFF, AX
	VMOVQ    AX, X12
	VPBROADCASTQ X12, Y12     // abs mask
	TESTQ SI, SI
	JZ done

loop:
	// Y4 = rotl(s0 + s3, 23) + s0
	VPADDQ Y0, Y3, Y4
	VPSLLQ $23, Y4, Y5
	VPSRLQ $41, Y4, Y4
	VPOR   Y5, Y4, Y4
	VPADDQ Y0, Y4, Y4

	// t = s1 << 17; s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t;
	// s3 = rotl(s3, 45)
	VPSLLQ $17, Y1, Y5
	VPXOR  Y0, Y2, Y2
	VPXOR  Y1, Y3, Y3
	VPXOR  Y2, Y1, Y1
	VPXOR  Y3, Y0, Y0
	VPXOR  Y5, Y2, Y2
	VPSLLQ $45, Y3, Y5
	VPSRLQ $19, Y3, Y3
	VPOR   Y5, Y3, Y3

	// Entry offsets 16*(draw & 0x3FF) of draws 0-1 in AX, 2-3 in BX,
	// 4-5 in CX, 6-7 in DX (low and high halves).
	VPSLLD       $4, Y4, Y5
	VPAND        Y11, Y5, Y5
	VMOVQ        X5, AX
	VPEXTRQ      $1, X5, BX
	VEXTRACTI128 $1, Y5, X5
	VMOVQ        X5, CX
	VPEXTRQ      $1, X5, DX

	// Draws 0-3: Y8 = widths, Y9 = thresholds.
	MOVL        AX, R8
	SHRQ        $32, AX
	MOVL        BX, R12
	SHRQ        $32, BX
	VMOVUPD     (R13)(R8*1), X6
	VINSERTF128 $1, (R13)(R12*1), Y6, Y6  // [e0 | e2]
	VMOVUPD     (R13)(AX*1), X7
	VINSERTF128 $1, (R13)(BX*1), Y7, Y7   // [e1 | e3]
	VUNPCKLPD   Y7, Y6, Y8
	VUNPCKHPD   Y7, Y6, Y9

	// Draws 4-7: Y10 = widths, Y13 = thresholds.
	MOVL        CX, R8
	SHRQ        $32, CX
	MOVL        DX, R12
	SHRQ        $32, DX
	VMOVUPD     (R13)(R8*1), X6
	VINSERTF128 $1, (R13)(R12*1), Y6, Y6  // [e4 | e6]
	VMOVUPD     (R13)(CX*1), X7
	VINSERTF128 $1, (R13)(DX*1), Y7, Y7   // [e5 | e7]
	VUNPCKLPD   Y7, Y6, Y10
	VUNPCKHPD   Y7, Y6, Y13

	// z = float64(j) * w; accepted = |float64(j)| < k.
	VPSRAD       $10, Y4, Y5
	VCVTDQ2PD    X5, Y14
	VEXTRACTI128 $1, Y5, X5
	VCVTDQ2PD    X5, Y15
	VMULPD       Y8, Y14, Y6
	VMULPD       Y10, Y15, Y7
	VMOVUPD      Y6, (DI)
	VMOVUPD      Y7, 32(DI)
	VANDPD       Y12, Y14, Y14
	VANDPD       Y12, Y15, Y15
	VCMPPD       $1, Y9, Y14, Y14        // |j| < k, draws 0-3
	VCMPPD       $1, Y13, Y15, Y15       // draws 4-7

	// The step's record; R9 advances if a draw is rejected.
	VMOVMSKPD Y14, R8
	VMOVMSKPD Y15, AX
	SHLL      $4, AX
	ORL       AX, R8
	XORL      $0xFF, R8          // bit k: draw k rejected
	MOVL      R11, 0(R9)         // pos
	MOVL      R8, 4(R9)          // mask
	VMOVDQU   Y4, 8(R9)          // draws
	LEAQ      40(R9), AX
	TESTL     R8, R8
	CMOVQNE   AX, R9

	ADDQ $64, DI
	ADDQ $8, R11
	DECQ SI
	JNZ  loop

done:
	MOVQ    s+24(FP), R8
	VMOVDQU Y0, 0(R8)
	VMOVDQU Y1, 32(R8)
	VMOVDQU Y2, 64(R8)
	VMOVDQU Y3, 96(R8)
	VZEROUPPER
	MOVQ R9, AX                  // records = (R9 - rej_base) / 40
	SUBQ rej_base+32(FP), AX
	XORL DX, DX
	MOVQ $40, CX
	DIVQ CX
	MOVQ AX, ret+64(FP)
	RET

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
