//go:build amd64 && !purego

#include "textflag.h"

// The AVX2/FMA kernel of the ziggurat's fast path; zigFastGo
// (ziggurat.go) defines its results, which it reproduces bit for bit.
//
// Only VEX-encoded instructions touch the vector registers (VMOVQ, not
// MOVQ, for AX -> X14): on the build machine (Zen 3 under a hypervisor) a
// legacy-SSE instruction executed while the upper halves of ymm registers
// are in use costs about 120 ns, as much as a whole call.

// func zigFastAVX2(z []float64, s *[16]uint64, rej []RejStep, t *[zigLayers]zigEntry) int
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
// (position, rejection mask, the eight draws: RejStep, 40 bytes) to
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
