//go:build amd64 && !purego

#include "textflag.h"

// func argmaxAVX2(v []float64) int
//
// Returns the index of the first maximum of v (len(v) >= 1), or -1 if v
// holds a NaN (the caller then takes the scalar path). Pass 1: four
// 4-lane running maxima (VMAXPD) and a NaN flag (VCMPPD unordered); pass 2:
// the first index whose value compares equal to the maximum (so -0 and +0
// are equal, as in the scalar comparison). VEX encodings only; ends with
// VZEROUPPER.
TEXT ·argmaxAVX2(SB), NOSPLIT, $0-32
	MOVQ v_base+0(FP), SI
	MOVQ v_len+8(FP), CX
	VBROADCASTSD (SI), Y0
	VMOVAPD Y0, Y1
	VMOVAPD Y0, Y2
	VMOVAPD Y0, Y3
	VXORPD  Y4, Y4, Y4           // NaN flags
	XORQ    AX, AX               // i
	MOVQ    CX, DX
	ANDQ    $-16, DX             // end of the 16-wide loop

max16:
	CMPQ    AX, DX
	JGE     max4setup
	VMOVUPD (SI)(AX*8), Y5
	VMOVUPD 32(SI)(AX*8), Y6
	VMOVUPD 64(SI)(AX*8), Y7
	VMOVUPD 96(SI)(AX*8), Y8
	VCMPPD  $3, Y5, Y5, Y9
	VORPD   Y9, Y4, Y4
	VCMPPD  $3, Y6, Y6, Y9
	VORPD   Y9, Y4, Y4
	VCMPPD  $3, Y7, Y7, Y9
	VORPD   Y9, Y4, Y4
	VCMPPD  $3, Y8, Y8, Y9
	VORPD   Y9, Y4, Y4
	VMAXPD  Y0, Y5, Y0
	VMAXPD  Y1, Y6, Y1
	VMAXPD  Y2, Y7, Y2
	VMAXPD  Y3, Y8, Y3
	ADDQ    $16, AX
	JMP     max16

max4setup:
	MOVQ    CX, DX
	ANDQ    $-4, DX

max4:
	CMPQ    AX, DX
	JGE     maxreduce
	VMOVUPD (SI)(AX*8), Y5
	VCMPPD  $3, Y5, Y5, Y9
	VORPD   Y9, Y4, Y4
	VMAXPD  Y0, Y5, Y0
	ADDQ    $4, AX
	JMP     max4

maxreduce:
	VMAXPD       Y0, Y1, Y0
	VMAXPD       Y2, Y3, Y2
	VMAXPD       Y0, Y2, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPD       X0, X1, X0
	VPERMILPD    $1, X0, X1
	VMAXSD       X0, X1, X0      // the maximum of the first len&^3 entries (and v[0])

max1:
	CMPQ    AX, CX
	JGE     nancheck
	VMOVSD  (SI)(AX*8), X5
	VUCOMISD X5, X5
	JPS     hasnan
	VMAXSD  X0, X5, X0
	INCQ    AX
	JMP     max1

nancheck:
	VPTEST  Y4, Y4
	JNZ     hasnan

	// Pass 2: first index equal to the maximum.
	VBROADCASTSD X0, Y10
	XORQ    AX, AX

find4:
	CMPQ    AX, DX
	JGE     find1
	VCMPPD  $0, (SI)(AX*8), Y10, Y11
	VMOVMSKPD Y11, BX
	TESTQ   BX, BX
	JNZ     found4
	ADDQ    $4, AX
	JMP     find4

found4:
	BSFQ    BX, BX
	ADDQ    BX, AX
	JMP     done

find1:
	CMPQ    AX, CX
	JGE     hasnan               // unreachable: the maximum is an entry
	VMOVSD  (SI)(AX*8), X5
	VUCOMISD X5, X0
	JEQ     done
	INCQ    AX
	JMP     find1

hasnan:
	MOVQ    $-1, AX

done:
	VZEROUPPER
	MOVQ    AX, ret+24(FP)
	RET
