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
