//go:build amd64 && !purego

#include "textflag.h"

// func prefetchPair(a, b unsafe.Pointer)
TEXT ·prefetchPair(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 (BX)
	RET
