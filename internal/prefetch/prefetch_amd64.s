//go:build amd64 && !purego

#include "textflag.h"

// func Pair(a, b unsafe.Pointer)
TEXT ·Pair(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 (BX)
	RET

// func Indexed(a, b unsafe.Pointer, idx []uint32)
TEXT ·Indexed(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ idx_base+16(FP), SI
	MOVQ idx_len+24(FP), CX
	TESTQ CX, CX
	JE done
loop:
	MOVLQZX (SI), DX
	PREFETCHT0 (AX)(DX*8)
	PREFETCHT0 (BX)(DX*8)
	ADDQ $4, SI
	DECQ CX
	JNE loop
done:
	RET
