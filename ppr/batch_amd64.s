//go:build amd64 && !purego

#include "textflag.h"

// Register use, both pulls:
//   SI offsets, DI nbr, R8 wt, R9 factor, R10 next, R11 arcLo, R13 arcEnd,
//   R14 len(factor), BX row v, CX rows, AX arc p, DX row end, R12 line offset,
//   Y15/Z15 d, Y11/Z11 0x7FF..F (|x| mask), Y12-Y13/Z12 l1.

// func pullBatchAVX2(offsets []int, nbr []uint32, wt []float64, factor, next [][8]float64, arcLo, arcEnd int, d float64, l1 *[8]float64) (bad int)
TEXT ·pullBatchAVX2(SB), NOSPLIT, $0-160
	MOVQ offsets_base+0(FP), SI
	MOVQ nbr_base+24(FP), DI
	MOVQ wt_base+48(FP), R8
	MOVQ factor_base+72(FP), R9
	MOVQ factor_len+80(FP), R14
	MOVQ next_base+96(FP), R10
	MOVQ next_len+104(FP), CX
	MOVQ arcLo+120(FP), R11
	MOVQ arcEnd+128(FP), R13
	VBROADCASTSD d+136(FP), Y15
	VPCMPEQQ Y11, Y11, Y11
	VPSRLQ $1, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	XORQ BX, BX
	CMPQ BX, CX
	JGE pull2done

pull2row:
	MOVQ (SI)(BX*8), AX
	MOVQ 8(SI)(BX*8), DX
	CMPQ AX, R11
	CMOVQLT R11, AX
	CMPQ DX, R13
	CMOVQGT R13, DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	CMPQ AX, DX
	JGE pull2store

pull2arc:
	MOVL (DI)(AX*4), R12
	CMPQ R12, R14
	JAE pull2bad
	SHLQ $6, R12
	VBROADCASTSD (R8)(AX*8), Y7
	VMULPD (R9)(R12*1), Y7, Y8
	VMULPD 32(R9)(R12*1), Y7, Y9
	VADDPD Y8, Y0, Y0
	VADDPD Y9, Y1, Y1
	INCQ AX
	CMPQ AX, DX
	JLT pull2arc

pull2store:
	VMULPD Y15, Y0, Y0
	VMULPD Y15, Y1, Y1
	MOVQ BX, R12
	SHLQ $6, R12
	VMOVUPD Y0, (R10)(R12*1)
	VMOVUPD Y1, 32(R10)(R12*1)
	VANDPD Y11, Y0, Y0
	VANDPD Y11, Y1, Y1
	VADDPD Y0, Y12, Y12
	VADDPD Y1, Y13, Y13
	INCQ BX
	CMPQ BX, CX
	JLT pull2row

pull2done:
	MOVQ l1+144(FP), AX
	VMOVUPD Y12, (AX)
	VMOVUPD Y13, 32(AX)
	VZEROUPPER
	MOVQ $0, bad+152(FP)
	RET

pull2bad:
	VZEROUPPER
	MOVQ $1, bad+152(FP)
	RET

// func pullBatchAVX512(offsets []int, nbr []uint32, wt []float64, factor, next [][8]float64, arcLo, arcEnd int, d float64, l1 *[8]float64) (bad int)
TEXT ·pullBatchAVX512(SB), NOSPLIT, $0-160
	MOVQ offsets_base+0(FP), SI
	MOVQ nbr_base+24(FP), DI
	MOVQ wt_base+48(FP), R8
	MOVQ factor_base+72(FP), R9
	MOVQ factor_len+80(FP), R14
	MOVQ next_base+96(FP), R10
	MOVQ next_len+104(FP), CX
	MOVQ arcLo+120(FP), R11
	MOVQ arcEnd+128(FP), R13
	VBROADCASTSD d+136(FP), Z15
	VPTERNLOGQ $0xff, Z11, Z11, Z11
	VPSRLQ $1, Z11, Z11
	VPXORQ Z12, Z12, Z12
	XORQ BX, BX
	CMPQ BX, CX
	JGE pull5done

pull5row:
	MOVQ (SI)(BX*8), AX
	MOVQ 8(SI)(BX*8), DX
	CMPQ AX, R11
	CMOVQLT R11, AX
	CMPQ DX, R13
	CMOVQGT R13, DX
	VPXORQ Z0, Z0, Z0
	CMPQ AX, DX
	JGE pull5store

pull5arc:
	MOVL (DI)(AX*4), R12
	CMPQ R12, R14
	JAE pull5bad
	SHLQ $6, R12
	VMOVUPD (R9)(R12*1), Z8
	VMULPD.BCST (R8)(AX*8), Z8, Z8
	VADDPD Z8, Z0, Z0
	INCQ AX
	CMPQ AX, DX
	JLT pull5arc

pull5store:
	VMULPD Z15, Z0, Z0
	MOVQ BX, R12
	SHLQ $6, R12
	VMOVUPD Z0, (R10)(R12*1)
	VPANDQ Z11, Z0, Z0
	VADDPD Z0, Z12, Z12
	INCQ BX
	CMPQ BX, CX
	JLT pull5row

pull5done:
	MOVQ l1+144(FP), AX
	VMOVUPD Z12, (AX)
	VZEROUPPER
	MOVQ $0, bad+152(FP)
	RET

pull5bad:
	VZEROUPPER
	MOVQ $1, bad+152(FP)
	RET

// Register use, both pushes:
//   SI offsets, DI nbr, R8 wt, R9 w, R10 x, R11 r, BX node u, CX hi,
//   R13 arcEnd, R14 len(r), AX arc p (and u's line offset), DX row end,
//   R12 line offset of a neighbour (and arcLo), Y15/Z15 d,
//   Y11/Z11 0x7FF..F, Y12/Z12 zero, Y13-Y14/Z14 dangling,
//   Y0-Y1/Z0 r[u], Y5-Y6/Z5 c.

// func pushBatchAVX2(offsets []int, nbr []uint32, wt, w []float64, x, r [][8]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[8]float64) (bad int)
TEXT ·pushBatchAVX2(SB), NOSPLIT, $0-200
	MOVQ offsets_base+0(FP), SI
	MOVQ nbr_base+24(FP), DI
	MOVQ wt_base+48(FP), R8
	MOVQ w_base+72(FP), R9
	MOVQ x_base+96(FP), R10
	MOVQ r_base+120(FP), R11
	MOVQ r_len+128(FP), R14
	MOVQ lo+144(FP), BX
	MOVQ hi+152(FP), CX
	MOVQ arcEnd+168(FP), R13
	VBROADCASTSD d+176(FP), Y15
	VPCMPEQQ Y11, Y11, Y11
	VPSRLQ $1, Y11, Y11
	VXORPD Y12, Y12, Y12
	MOVQ dangling+184(FP), AX
	VMOVUPD (AX), Y14
	VMOVUPD 32(AX), Y13
	CMPQ BX, CX
	JGE push2done

push2node:
	MOVQ BX, AX
	SHLQ $6, AX
	VMOVUPD (R11)(AX*1), Y0
	VMOVUPD 32(R11)(AX*1), Y1
	// All eight lanes +-0 (== 0, as the reference's val == zero): skip.
	VORPD Y0, Y1, Y2
	VPTEST Y11, Y2
	JZ push2next
	VMOVUPD Y12, (R11)(AX*1)
	VMOVUPD Y12, 32(R11)(AX*1)
	VADDPD (R10)(AX*1), Y0, Y3
	VMOVUPD Y3, (R10)(AX*1)
	VADDPD 32(R10)(AX*1), Y1, Y3
	VMOVUPD Y3, 32(R10)(AX*1)
	VMOVSD (R9)(BX*8), X4
	// w[u] == 0 (ZF set, PF clear: not a NaN) is a dangling node.
	VUCOMISD X12, X4
	JNE push2active
	JPS push2active
	VADDPD Y0, Y14, Y14
	VADDPD Y1, Y13, Y13
	JMP push2next

push2active:
	// c = (d*r[u]) / w[u] per lane.
	VBROADCASTSD X4, Y4
	VMULPD Y0, Y15, Y5
	VDIVPD Y4, Y5, Y5
	VMULPD Y1, Y15, Y6
	VDIVPD Y4, Y6, Y6
	MOVQ (SI)(BX*8), AX
	MOVQ 8(SI)(BX*8), DX
	MOVQ arcLo+160(FP), R12
	CMPQ AX, R12
	CMOVQLT R12, AX
	CMPQ DX, R13
	CMOVQGT R13, DX
	CMPQ AX, DX
	JGE push2next

push2arc:
	MOVL (DI)(AX*4), R12
	CMPQ R12, R14
	JAE push2bad
	SHLQ $6, R12
	VBROADCASTSD (R8)(AX*8), Y7
	VMULPD Y5, Y7, Y8
	VMULPD Y6, Y7, Y9
	VADDPD (R11)(R12*1), Y8, Y8
	VADDPD 32(R11)(R12*1), Y9, Y9
	VMOVUPD Y8, (R11)(R12*1)
	VMOVUPD Y9, 32(R11)(R12*1)
	INCQ AX
	CMPQ AX, DX
	JLT push2arc

push2next:
	INCQ BX
	CMPQ BX, CX
	JLT push2node

push2done:
	MOVQ dangling+184(FP), AX
	VMOVUPD Y14, (AX)
	VMOVUPD Y13, 32(AX)
	VZEROUPPER
	MOVQ $0, bad+192(FP)
	RET

push2bad:
	VZEROUPPER
	MOVQ $1, bad+192(FP)
	RET

// func pushBatchAVX512(offsets []int, nbr []uint32, wt, w []float64, x, r [][8]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[8]float64) (bad int)
TEXT ·pushBatchAVX512(SB), NOSPLIT, $0-200
	MOVQ offsets_base+0(FP), SI
	MOVQ nbr_base+24(FP), DI
	MOVQ wt_base+48(FP), R8
	MOVQ w_base+72(FP), R9
	MOVQ x_base+96(FP), R10
	MOVQ r_base+120(FP), R11
	MOVQ r_len+128(FP), R14
	MOVQ lo+144(FP), BX
	MOVQ hi+152(FP), CX
	MOVQ arcEnd+168(FP), R13
	VBROADCASTSD d+176(FP), Z15
	VPTERNLOGQ $0xff, Z11, Z11, Z11
	VPSRLQ $1, Z11, Z11
	VPXORQ Z12, Z12, Z12
	MOVQ dangling+184(FP), AX
	VMOVUPD (AX), Z14
	CMPQ BX, CX
	JGE push5done

push5node:
	MOVQ BX, AX
	SHLQ $6, AX
	VMOVUPD (R11)(AX*1), Z0
	// K1 = lanes with a bit outside the sign: none means all +-0, skip.
	VPTESTMQ Z11, Z0, K1
	KORTESTW K1, K1
	JZ push5next
	VMOVUPD Z12, (R11)(AX*1)
	VADDPD (R10)(AX*1), Z0, Z3
	VMOVUPD Z3, (R10)(AX*1)
	VMOVSD (R9)(BX*8), X4
	VUCOMISD X12, X4
	JNE push5active
	JPS push5active
	VADDPD Z0, Z14, Z14
	JMP push5next

push5active:
	VBROADCASTSD X4, Z4
	VMULPD Z0, Z15, Z5
	VDIVPD Z4, Z5, Z5
	MOVQ (SI)(BX*8), AX
	MOVQ 8(SI)(BX*8), DX
	MOVQ arcLo+160(FP), R12
	CMPQ AX, R12
	CMOVQLT R12, AX
	CMPQ DX, R13
	CMOVQGT R13, DX
	CMPQ AX, DX
	JGE push5next

push5arc:
	MOVL (DI)(AX*4), R12
	CMPQ R12, R14
	JAE push5bad
	SHLQ $6, R12
	VMULPD.BCST (R8)(AX*8), Z5, Z8
	VADDPD (R11)(R12*1), Z8, Z8
	VMOVUPD Z8, (R11)(R12*1)
	INCQ AX
	CMPQ AX, DX
	JLT push5arc

push5next:
	INCQ BX
	CMPQ BX, CX
	JLT push5node

push5done:
	MOVQ dangling+184(FP), AX
	VMOVUPD Z14, (AX)
	VZEROUPPER
	MOVQ $0, bad+192(FP)
	RET

push5bad:
	VZEROUPPER
	MOVQ $1, bad+192(FP)
	RET

// func l1BatchAVX2(r [][8]float64, l1 *[8]float64)
TEXT ·l1BatchAVX2(SB), NOSPLIT, $0-32
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	SHLQ $6, CX
	ADDQ SI, CX
	VPCMPEQQ Y11, Y11, Y11
	VPSRLQ $1, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	CMPQ SI, CX
	JGE l12done

l12loop:
	VANDPD (SI), Y11, Y0
	VANDPD 32(SI), Y11, Y1
	VADDPD Y0, Y12, Y12
	VADDPD Y1, Y13, Y13
	ADDQ $64, SI
	CMPQ SI, CX
	JLT l12loop

l12done:
	MOVQ l1+24(FP), AX
	VMOVUPD Y12, (AX)
	VMOVUPD Y13, 32(AX)
	VZEROUPPER
	RET

// func l1BatchAVX512(r [][8]float64, l1 *[8]float64)
TEXT ·l1BatchAVX512(SB), NOSPLIT, $0-32
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	SHLQ $6, CX
	ADDQ SI, CX
	VPTERNLOGQ $0xff, Z11, Z11, Z11
	VPSRLQ $1, Z11, Z11
	VPXORQ Z12, Z12, Z12
	CMPQ SI, CX
	JGE l15done

l15loop:
	VPANDQ (SI), Z11, Z0
	VADDPD Z0, Z12, Z12
	ADDQ $64, SI
	CMPQ SI, CX
	JLT l15loop

l15done:
	MOVQ l1+24(FP), AX
	VMOVUPD Z12, (AX)
	VZEROUPPER
	RET

// func factorBatchAVX2(r, x, factor [][8]float64, inv []float64, dangling *[8]float64)
TEXT ·factorBatchAVX2(SB), NOSPLIT, $0-104
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	MOVQ x_base+24(FP), DI
	MOVQ factor_base+48(FP), R8
	MOVQ inv_base+72(FP), R9
	MOVQ dangling+96(FP), AX
	VMOVUPD (AX), Y14
	VMOVUPD 32(AX), Y13
	VXORPD Y12, Y12, Y12
	XORQ BX, BX
	XORQ DX, DX
	CMPQ BX, CX
	JGE fac2done

fac2loop:
	VMOVUPD (SI)(DX*1), Y0
	VMOVUPD 32(SI)(DX*1), Y1
	VBROADCASTSD (R9)(BX*8), Y4
	VMULPD Y4, Y0, Y2
	VMULPD Y4, Y1, Y3
	VMOVUPD Y2, (R8)(DX*1)
	VMOVUPD Y3, 32(R8)(DX*1)
	VADDPD (DI)(DX*1), Y0, Y2
	VADDPD 32(DI)(DX*1), Y1, Y3
	VMOVUPD Y2, (DI)(DX*1)
	VMOVUPD Y3, 32(DI)(DX*1)
	// inv[u] == 0 (ZF set, PF clear): a dangling node.
	VUCOMISD X12, X4
	JNE fac2next
	JPS fac2next
	VADDPD Y0, Y14, Y14
	VADDPD Y1, Y13, Y13

fac2next:
	ADDQ $64, DX
	INCQ BX
	CMPQ BX, CX
	JLT fac2loop

fac2done:
	MOVQ dangling+96(FP), AX
	VMOVUPD Y14, (AX)
	VMOVUPD Y13, 32(AX)
	VZEROUPPER
	RET

// func factorBatchAVX512(r, x, factor [][8]float64, inv []float64, dangling *[8]float64)
TEXT ·factorBatchAVX512(SB), NOSPLIT, $0-104
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	MOVQ x_base+24(FP), DI
	MOVQ factor_base+48(FP), R8
	MOVQ inv_base+72(FP), R9
	MOVQ dangling+96(FP), AX
	VMOVUPD (AX), Z14
	VPXORQ Z12, Z12, Z12
	XORQ BX, BX
	XORQ DX, DX
	CMPQ BX, CX
	JGE fac5done

fac5loop:
	VMOVUPD (SI)(DX*1), Z0
	VMOVSD (R9)(BX*8), X4
	VMULPD.BCST (R9)(BX*8), Z0, Z2
	VMOVUPD Z2, (R8)(DX*1)
	VADDPD (DI)(DX*1), Z0, Z3
	VMOVUPD Z3, (DI)(DX*1)
	VUCOMISD X12, X4
	JNE fac5next
	JPS fac5next
	VADDPD Z0, Z14, Z14

fac5next:
	ADDQ $64, DX
	INCQ BX
	CMPQ BX, CX
	JLT fac5loop

fac5done:
	MOVQ dangling+96(FP), AX
	VMOVUPD Z14, (AX)
	VZEROUPPER
	RET

// The wide layout (16 vectors, two 64-byte lines per node, AVX-512 only):
// the narrow AVX-512 kernels with two ZMM registers per node and line
// offsets of 128 bytes (SHLQ $7).

// func pullBatch16AVX512(offsets []int, nbr []uint32, wt []float64, factor, next [][16]float64, arcLo, arcEnd int, d float64, l1 *[16]float64) (bad int)
TEXT ·pullBatch16AVX512(SB), NOSPLIT, $0-160
	MOVQ offsets_base+0(FP), SI
	MOVQ nbr_base+24(FP), DI
	MOVQ wt_base+48(FP), R8
	MOVQ factor_base+72(FP), R9
	MOVQ factor_len+80(FP), R14
	MOVQ next_base+96(FP), R10
	MOVQ next_len+104(FP), CX
	MOVQ arcLo+120(FP), R11
	MOVQ arcEnd+128(FP), R13
	VBROADCASTSD d+136(FP), Z15
	VPTERNLOGQ $0xff, Z11, Z11, Z11
	VPSRLQ $1, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	XORQ BX, BX
	CMPQ BX, CX
	JGE pull16done

pull16row:
	MOVQ (SI)(BX*8), AX
	MOVQ 8(SI)(BX*8), DX
	CMPQ AX, R11
	CMOVQLT R11, AX
	CMPQ DX, R13
	CMOVQGT R13, DX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	CMPQ AX, DX
	JGE pull16store

pull16arc:
	MOVL (DI)(AX*4), R12
	CMPQ R12, R14
	JAE pull16bad
	SHLQ $7, R12
	VBROADCASTSD (R8)(AX*8), Z7
	VMULPD (R9)(R12*1), Z7, Z8
	VMULPD 64(R9)(R12*1), Z7, Z9
	VADDPD Z8, Z0, Z0
	VADDPD Z9, Z1, Z1
	INCQ AX
	CMPQ AX, DX
	JLT pull16arc

pull16store:
	VMULPD Z15, Z0, Z0
	VMULPD Z15, Z1, Z1
	MOVQ BX, R12
	SHLQ $7, R12
	VMOVUPD Z0, (R10)(R12*1)
	VMOVUPD Z1, 64(R10)(R12*1)
	VPANDQ Z11, Z0, Z0
	VPANDQ Z11, Z1, Z1
	VADDPD Z0, Z12, Z12
	VADDPD Z1, Z13, Z13
	INCQ BX
	CMPQ BX, CX
	JLT pull16row

pull16done:
	MOVQ l1+144(FP), AX
	VMOVUPD Z12, (AX)
	VMOVUPD Z13, 64(AX)
	VZEROUPPER
	MOVQ $0, bad+152(FP)
	RET

pull16bad:
	VZEROUPPER
	MOVQ $1, bad+152(FP)
	RET

// func factorBatch16AVX512(r, x, factor [][16]float64, inv []float64, dangling *[16]float64)
TEXT ·factorBatch16AVX512(SB), NOSPLIT, $0-104
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	MOVQ x_base+24(FP), DI
	MOVQ factor_base+48(FP), R8
	MOVQ inv_base+72(FP), R9
	MOVQ dangling+96(FP), AX
	VMOVUPD (AX), Z14
	VMOVUPD 64(AX), Z13
	VPXORQ Z12, Z12, Z12
	XORQ BX, BX
	XORQ DX, DX
	CMPQ BX, CX
	JGE fac16done

fac16loop:
	VMOVUPD (SI)(DX*1), Z0
	VMOVUPD 64(SI)(DX*1), Z1
	VBROADCASTSD (R9)(BX*8), Z4
	VMULPD Z4, Z0, Z2
	VMULPD Z4, Z1, Z3
	VMOVUPD Z2, (R8)(DX*1)
	VMOVUPD Z3, 64(R8)(DX*1)
	VADDPD (DI)(DX*1), Z0, Z2
	VADDPD 64(DI)(DX*1), Z1, Z3
	VMOVUPD Z2, (DI)(DX*1)
	VMOVUPD Z3, 64(DI)(DX*1)
	VUCOMISD X12, X4
	JNE fac16next
	JPS fac16next
	VADDPD Z0, Z14, Z14
	VADDPD Z1, Z13, Z13

fac16next:
	ADDQ $128, DX
	INCQ BX
	CMPQ BX, CX
	JLT fac16loop

fac16done:
	MOVQ dangling+96(FP), AX
	VMOVUPD Z14, (AX)
	VMOVUPD Z13, 64(AX)
	VZEROUPPER
	RET


// func pushBatch16AVX512(offsets []int, nbr []uint32, wt, w []float64, x, r [][16]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[16]float64) (bad int)
TEXT ·pushBatch16AVX512(SB), NOSPLIT, $0-200
	MOVQ offsets_base+0(FP), SI
	MOVQ nbr_base+24(FP), DI
	MOVQ wt_base+48(FP), R8
	MOVQ w_base+72(FP), R9
	MOVQ x_base+96(FP), R10
	MOVQ r_base+120(FP), R11
	MOVQ r_len+128(FP), R14
	MOVQ lo+144(FP), BX
	MOVQ hi+152(FP), CX
	MOVQ arcEnd+168(FP), R13
	VBROADCASTSD d+176(FP), Z15
	VPTERNLOGQ $0xff, Z11, Z11, Z11
	VPSRLQ $1, Z11, Z11
	VPXORQ Z12, Z12, Z12
	MOVQ dangling+184(FP), AX
	VMOVUPD (AX), Z14
	VMOVUPD 64(AX), Z13
	CMPQ BX, CX
	JGE p16done

p16node:
	MOVQ BX, AX
	SHLQ $7, AX
	VMOVUPD (R11)(AX*1), Z0
	VMOVUPD 64(R11)(AX*1), Z1
	VPORQ Z0, Z1, Z2
	VPTESTMQ Z11, Z2, K1
	KORTESTW K1, K1
	JZ p16next
	VMOVUPD Z12, (R11)(AX*1)
	VMOVUPD Z12, 64(R11)(AX*1)
	VADDPD (R10)(AX*1), Z0, Z3
	VMOVUPD Z3, (R10)(AX*1)
	VADDPD 64(R10)(AX*1), Z1, Z3
	VMOVUPD Z3, 64(R10)(AX*1)
	VMOVSD (R9)(BX*8), X4
	VUCOMISD X12, X4
	JNE p16active
	JPS p16active
	VADDPD Z0, Z14, Z14
	VADDPD Z1, Z13, Z13
	JMP p16next

p16active:
	VBROADCASTSD X4, Z4
	VMULPD Z0, Z15, Z5
	VDIVPD Z4, Z5, Z5
	VMULPD Z1, Z15, Z6
	VDIVPD Z4, Z6, Z6
	MOVQ (SI)(BX*8), AX
	MOVQ 8(SI)(BX*8), DX
	MOVQ arcLo+160(FP), R12
	CMPQ AX, R12
	CMOVQLT R12, AX
	CMPQ DX, R13
	CMOVQGT R13, DX
	CMPQ AX, DX
	JGE p16next

p16arc:
	MOVL (DI)(AX*4), R12
	CMPQ R12, R14
	JAE p16bad
	SHLQ $7, R12
	VBROADCASTSD (R8)(AX*8), Z7
	VMULPD Z5, Z7, Z8
	VMULPD Z6, Z7, Z9
	VADDPD (R11)(R12*1), Z8, Z8
	VADDPD 64(R11)(R12*1), Z9, Z9
	VMOVUPD Z8, (R11)(R12*1)
	VMOVUPD Z9, 64(R11)(R12*1)
	INCQ AX
	CMPQ AX, DX
	JLT p16arc

p16next:
	INCQ BX
	CMPQ BX, CX
	JLT p16node

p16done:
	MOVQ dangling+184(FP), AX
	VMOVUPD Z14, (AX)
	VMOVUPD Z13, 64(AX)
	VZEROUPPER
	MOVQ $0, bad+192(FP)
	RET

p16bad:
	VZEROUPPER
	MOVQ $1, bad+192(FP)
	RET

// func l1Batch16AVX512(r [][16]float64, l1 *[16]float64)
TEXT ·l1Batch16AVX512(SB), NOSPLIT, $0-32
	MOVQ r_base+0(FP), SI
	MOVQ r_len+8(FP), CX
	SHLQ $7, CX
	ADDQ SI, CX
	VPTERNLOGQ $0xff, Z11, Z11, Z11
	VPSRLQ $1, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	CMPQ SI, CX
	JGE l16done

l16loop:
	VPANDQ (SI), Z11, Z0
	VPANDQ 64(SI), Z11, Z1
	VADDPD Z0, Z12, Z12
	VADDPD Z1, Z13, Z13
	ADDQ $128, SI
	CMPQ SI, CX
	JLT l16loop

l16done:
	MOVQ l1+24(FP), AX
	VMOVUPD Z12, (AX)
	VMOVUPD Z13, 64(AX)
	VZEROUPPER
	RET
