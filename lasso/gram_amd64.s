//go:build amd64 && !purego

#include "textflag.h"

// func gramTileAVX2(c []float64, ldc int, a, b []float64, rows int)
//
// The 4x8 tile of c lives in Y0..Y7 (row k in Y(2k), Y(2k+1)). Each packed
// row r loads b[8r:8r+8] into Y8, Y9, broadcasts a[8r+k] and adds the
// products with one VFMADD231PD per 4 entries: per entry, the same fused
// multiply-add chain as gramTileGo.
TEXT ·gramTileAVX2(SB), NOSPLIT, $0-88
	MOVQ c_base+0(FP), DI
	MOVQ ldc+24(FP), DX
	SHLQ $3, DX                // row stride of c in bytes
	MOVQ a_base+32(FP), SI
	MOVQ b_base+56(FP), BX
	MOVQ rows+80(FP), CX

	LEAQ (DI)(DX*1), R8        // c row 1
	LEAQ (DI)(DX*2), R9        // c row 2
	LEAQ (R8)(DX*2), R10       // c row 3
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD (R8), Y2
	VMOVUPD 32(R8), Y3
	VMOVUPD (R9), Y4
	VMOVUPD 32(R9), Y5
	VMOVUPD (R10), Y6
	VMOVUPD 32(R10), Y7

loop:
	VMOVUPD      (BX), Y8
	VMOVUPD      32(BX), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         $64, SI       // next packed row (8 values)
	ADDQ         $64, BX
	DECQ         CX
	JNZ          loop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, (R8)
	VMOVUPD Y3, 32(R8)
	VMOVUPD Y4, (R9)
	VMOVUPD Y5, 32(R9)
	VMOVUPD Y6, (R10)
	VMOVUPD Y7, 32(R10)
	VZEROUPPER
	RET
