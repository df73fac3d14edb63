//go:build amd64 && !purego

#include "textflag.h"

// AVX2 kernels of MT19937's refill (mt.go's twistGo and temperGo define
// their results, which these reproduce bit for bit), eight words at a
// time.

// func twistAVX2(dst, next, far *uint32, n int)
//
// For j < n (a multiple of 8): y = dst[j]&0x80000000 | next[j]&0x7fffffff,
// dst[j] = far[j] ^ y>>1 ^ (y&1)*0x9908b0df. Eight words are read (dst
// and next) before they are written, so next = dst + 1 is allowed.
TEXT ·twistAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ next+8(FP), SI
	MOVQ far+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL $0x80000000, AX
	VMOVQ AX, X13
	VPBROADCASTD X13, Y13 // upper
	MOVL $0x7fffffff, AX
	VMOVQ AX, X14
	VPBROADCASTD X14, Y14 // lower
	MOVL $0x9908b0df, AX
	VMOVQ AX, X15
	VPBROADCASTD X15, Y15 // matrix A
	SHRQ $3, CX
	JZ twistdone

twistloop:
	VMOVDQU (DI), Y0
	VMOVDQU (SI), Y1
	VPAND   Y13, Y0, Y0
	VPAND   Y14, Y1, Y1
	VPOR    Y1, Y0, Y0  // y
	VPSLLD  $31, Y0, Y2
	VPSRAD  $31, Y2, Y2 // all ones where y is odd
	VPAND   Y15, Y2, Y2
	VPSRLD  $1, Y0, Y0
	VPXOR   (DX), Y0, Y0
	VPXOR   Y2, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     twistloop

twistdone:
	VZEROUPPER
	RET

// func temperAVX2(out, mt *[624]uint32)
//
// out[i] = MT19937's tempering of mt[i]:
// y ^= y>>11; y ^= y<<7 & 0x9d2c5680; y ^= y<<15 & 0xefc60000; y ^= y>>18.
TEXT ·temperAVX2(SB), NOSPLIT, $0-16
	MOVQ out+0(FP), DI
	MOVQ mt+8(FP), SI
	MOVL $0x9d2c5680, AX
	VMOVQ AX, X14
	VPBROADCASTD X14, Y14
	MOVL $0xefc60000, AX
	VMOVQ AX, X15
	VPBROADCASTD X15, Y15
	MOVQ $78, CX // 624 / 8

temperloop:
	VMOVDQU (SI), Y0
	VPSRLD  $11, Y0, Y1
	VPXOR   Y1, Y0, Y0
	VPSLLD  $7, Y0, Y1
	VPAND   Y14, Y1, Y1
	VPXOR   Y1, Y0, Y0
	VPSLLD  $15, Y0, Y1
	VPAND   Y15, Y1, Y1
	VPXOR   Y1, Y0, Y0
	VPSRLD  $18, Y0, Y1
	VPXOR   Y1, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	DECQ    CX
	JNZ     temperloop
	VZEROUPPER
	RET

// func polarAVX2(dst, x1, x2, r2 *float64, n int, tab *[93][3]float64, c *[polarConsts]uint64) (undecided uint64)
//
// For pairs j < n (a multiple of 4, at most 64), four at a time: y =
// logFast(r2[j]) (every operation of logFast, in its order, none fused
// that logFast does not fuse), f = sqrt(-2 y / r2[j]), dst[2j] = f x2[j],
// dst[2j+1] = f x1[j]; bit j of the result is set where logFast is
// undecided (dst's pair is then to be recomputed). r2[j] must be a polar
// method's r2, in (0, 1). c holds the constants (polarConstTable).
TEXT ·polarAVX2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ x1+8(FP), SI
	MOVQ x2+16(FP), DX
	MOVQ r2+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ tab+40(FP), R8
	MOVQ c+48(FP), R9
	XORQ AX, AX  // undecided bits
	MOVQ $1, R11  // 2^(4 group): the place of this group's bits
	SHRQ $2, CX
	JZ polardone

polarloop:
	VMOVUPD (BX), Y0              // x
	VPSRLQ  $52, Y0, Y1
	VBROADCASTSD 16(R9), Y8
	VPOR    Y8, Y1, Y1
	VBROADCASTSD 24(R9), Y8
	VSUBPD  Y8, Y1, Y1            // e = field - 1023
	VBROADCASTSD 0(R9), Y8
	VPAND   Y8, Y0, Y2
	VBROADCASTSD 8(R9), Y8
	VPOR    Y8, Y2, Y2            // m in [1, 2)
	VBROADCASTSD 32(R9), Y8
	VCMPPD  $0x0d, Y8, Y2, Y3     // m >= sqrt2
	VBROADCASTSD 40(R9), Y8
	VMULPD  Y8, Y2, Y4
	VBLENDVPD Y3, Y4, Y2, Y2      // m *= 0.5 there
	VBROADCASTSD 48(R9), Y8
	VANDPD  Y8, Y3, Y4
	VADDPD  Y4, Y1, Y1            // e++ there
	VBROADCASTSD 56(R9), Y8
	VMULPD  Y8, Y2, Y5
	VBROADCASTSD 40(R9), Y8
	VADDPD  Y8, Y5, Y5
	VROUNDPD $3, Y5, Y5           // k = trunc(m*128 + 0.5)
	VBROADCASTSD 64(R9), Y8
	VMULPD  Y8, Y5, Y6            // c
	VSUBPD  Y6, Y2, Y7            // d = m - c
	VCVTTPD2DQY Y5, X8
	VPBROADCASTD 208(R9), X12
	VPSUBD  X12, X8, X8
	VPADDD  X8, X8, X13
	VPADDD  X8, X13, X8           // 3 (k - 90): the row of tab
	VPCMPEQQ Y12, Y12, Y12
	VGATHERDPD Y12, (R8)(X8*8), Y9   // log(c) high
	VPCMPEQQ Y12, Y12, Y12
	VGATHERDPD Y12, 8(R8)(X8*8), Y10 // log(c) low
	VPCMPEQQ Y12, Y12, Y12
	VGATHERDPD Y12, 16(R8)(X8*8), Y11 // 1/c
	VMULPD  Y11, Y7, Y2           // rh = d inv
	VFNMADD231PD Y6, Y2, Y7       // d - rh c
	VMULPD  Y11, Y7, Y3           // rl
	VMULPD  Y2, Y2, Y4            // r2
	VMOVAPD Y4, Y5
	VFMSUB231PD Y2, Y2, Y5        // r2l = rh rh - r2
	VMULPD  Y4, Y4, Y6            // r4
	VBROADCASTSD 72(R9), Y7
	VBROADCASTSD 80(R9), Y8
	VFMADD231PD Y8, Y2, Y7        // q01
	VBROADCASTSD 88(R9), Y11
	VBROADCASTSD 96(R9), Y8
	VFMADD231PD Y8, Y2, Y11       // q23
	VBROADCASTSD 104(R9), Y12
	VBROADCASTSD 112(R9), Y8
	VFMADD231PD Y8, Y2, Y12       // q45
	VBROADCASTSD 120(R9), Y13
	VBROADCASTSD 128(R9), Y8
	VFMADD231PD Y8, Y2, Y13       // q67
	VFMADD231PD Y11, Y4, Y7       // r2 q23 + q01
	VFMADD231PD Y13, Y4, Y12      // r2 q67 + q45
	VFMADD231PD Y12, Y6, Y7       // q
	VMULPD  Y2, Y4, Y6            // r3 = r2 rh
	VMULPD  Y6, Y7, Y7            // p = q r3
	VBROADCASTSD 136(R9), Y8
	VMULPD  Y8, Y1, Y11           // eh
	VMOVAPD Y11, Y12
	VFMSUB231PD Y8, Y1, Y12       // fe ln2Hi - eh
	VBROADCASTSD 144(R9), Y8
	VMULPD  Y8, Y1, Y8
	VADDPD  Y8, Y12, Y12          // el
	// s, s1 = twoSum(eh, t0)
	VADDPD  Y9, Y11, Y1
	VSUBPD  Y11, Y1, Y8
	VSUBPD  Y8, Y1, Y13
	VSUBPD  Y13, Y11, Y13
	VSUBPD  Y8, Y9, Y8
	VADDPD  Y8, Y13, Y13
	// h1, s2 = twoSum(s, rh)
	VADDPD  Y2, Y1, Y9
	VSUBPD  Y1, Y9, Y8
	VSUBPD  Y8, Y9, Y11
	VSUBPD  Y11, Y1, Y11
	VSUBPD  Y8, Y2, Y8
	VADDPD  Y8, Y11, Y11
	// h, s3 = twoSum(h1, -0.5 r2)
	VBROADCASTSD 152(R9), Y14
	VMULPD  Y14, Y4, Y4
	VADDPD  Y4, Y9, Y15
	VSUBPD  Y9, Y15, Y8
	VSUBPD  Y8, Y15, Y14
	VSUBPD  Y14, Y9, Y14
	VSUBPD  Y8, Y4, Y8
	VADDPD  Y8, Y14, Y14
	// low = (p + (rl - rl rh)) + ((s1 + s2) + (s3 - 0.5 r2l) + (el + t1))
	VMULPD  Y2, Y3, Y4
	VSUBPD  Y4, Y3, Y4
	VADDPD  Y4, Y7, Y7
	VADDPD  Y11, Y13, Y13
	VBROADCASTSD 40(R9), Y8
	VMULPD  Y8, Y5, Y5
	VSUBPD  Y5, Y14, Y14
	VADDPD  Y14, Y13, Y13
	VADDPD  Y10, Y12, Y12
	VADDPD  Y12, Y13, Y13
	VADDPD  Y13, Y7, Y7           // low
	VADDPD  Y7, Y15, Y4           // y = h + low
	VSUBPD  Y15, Y4, Y8
	VSUBPD  Y8, Y7, Y8            // l = low - (y - h)
	// bound = 2^-50 |r3| + 2^-64 (|s| + |y|); ok = |l| + bound < half ulp(y)
	VBROADCASTSD 160(R9), Y9
	VANDPD  Y9, Y6, Y10
	VBROADCASTSD 168(R9), Y11
	VMULPD  Y11, Y10, Y10
	VANDPD  Y9, Y1, Y12
	VANDPD  Y9, Y4, Y13
	VADDPD  Y13, Y12, Y12
	VBROADCASTSD 176(R9), Y11
	VMULPD  Y11, Y12, Y12
	VADDPD  Y12, Y10, Y10
	VANDPD  Y9, Y8, Y8
	VADDPD  Y10, Y8, Y8
	VBROADCASTSD 184(R9), Y11
	VANDPD  Y11, Y4, Y11
	VBROADCASTSD 192(R9), Y12
	VMULPD  Y12, Y11, Y11
	VCMPPD  $0x01, Y11, Y8, Y8    // |l| + bound < half
	VBROADCASTSD 0(R9), Y12
	VANDPD  Y12, Y4, Y12
	VPXOR   Y13, Y13, Y13
	VPCMPEQQ Y13, Y12, Y12        // y a power of two
	VANDNPD Y8, Y12, Y8
	VMOVMSKPD Y8, R10
	XORQ    $15, R10
	IMULQ   R11, R10
	ORQ     R10, AX
	SHLQ    $4, R11
	// f = sqrt(-2 y / x)
	VBROADCASTSD 200(R9), Y5
	VMULPD  Y5, Y4, Y4
	VDIVPD  Y0, Y4, Y4
	VSQRTPD Y4, Y4
	VMOVUPD (DX), Y5
	VMULPD  Y5, Y4, Y5            // f x2
	VMOVUPD (SI), Y6
	VMULPD  Y6, Y4, Y6            // f x1
	VUNPCKLPD Y6, Y5, Y7          // [o2_0 o1_0 o2_2 o1_2]
	VUNPCKHPD Y6, Y5, Y8          // [o2_1 o1_1 o2_3 o1_3]
	VPERM2F128 $0x20, Y8, Y7, Y9
	VPERM2F128 $0x31, Y8, Y7, Y10
	VMOVUPD Y9, (DI)
	VMOVUPD Y10, 32(DI)
	ADDQ    $32, BX
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $64, DI
	DECQ    CX
	JNZ     polarloop

polardone:
	MOVQ AX, undecided+56(FP)
	VZEROUPPER
	RET
