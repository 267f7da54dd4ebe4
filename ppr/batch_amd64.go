//go:build amd64 && !purego

package ppr

import (
	"fmt"

	"github.com/authppr/authppr/internal/cpu"
)

// The batched kernels in amd64 assembly (batch_amd64.s), on 256-bit (AVX2)
// or 512-bit (AVX-512F) vectors. Each lane does its reference's operations
// in its reference's order (pullBatchReference, pushBatchReference,
// l1BatchReference), a multiply then an add (VMULPD, VADDPD; never FMA,
// which rounds once and would change the bits; a GOAMD64=v1 build of the
// reference does not fuse either), so the results are the reference's bits
// (TestPullBatchMatchesReference, TestPushBatchMatchesReference,
// TestSolveBatchMatchesSolve, TestSolveBatchGaussSeidel at every level,
// both layouts). A GOAMD64=v3 build may fuse the Go loops' multiply-adds
// (the spec allows it), and then the references, the single-vector
// engine and these kernels agree only to rounding: bit identity is a
// property of v1/v2 builds (on main, TestPullBatchMatchesReference and
// TestPushUntilMatchesReference already fail under v3).
//
// Why: in Go (the Unchecked level) a batched sweep spends nearly all its
// time in the arc loops, which with the interleaved lines in L3 are
// instruction-bound: eight scalar multiply-adds and their loads and
// stores per arc, which the kernels do in two (AVX2), one (AVX-512) or,
// wide, two ZMM operations. Lanes converging at different speeds cost
// little. The profile and the batch's cost against single queries, at
// every level and layout: docs/benchmarks.md, "ppr: batched solves".
//
// Memory safety does not rest on the graph: the wrappers check the lengths
// and the arc window [offsets[0], offsets[n]] within nbr and wt in O(1);
// the assembly clamps every row's arcs into that window (with
// non-decreasing offsets, which csr.validate guarantees, the clamp changes
// nothing) and compares every neighbour id with the number of vector lines
// before it gathers or scatters, returning 1 if one is out of range (a
// graph whose arrays do not belong together: a programmer error, which the
// wrappers turn into a panic).

//go:noescape
func pullBatchAVX2(offsets []int, nbr []uint32, wt []float64, factor, next [][batchWidth]float64, arcLo, arcEnd int, d float64, l1 *[batchWidth]float64) (bad int)

//go:noescape
func pullBatchAVX512(offsets []int, nbr []uint32, wt []float64, factor, next [][batchWidth]float64, arcLo, arcEnd int, d float64, l1 *[batchWidth]float64) (bad int)

//go:noescape
func pushBatchAVX2(offsets []int, nbr []uint32, wt, w []float64, x, r [][batchWidth]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[batchWidth]float64) (bad int)

//go:noescape
func pushBatchAVX512(offsets []int, nbr []uint32, wt, w []float64, x, r [][batchWidth]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[batchWidth]float64) (bad int)

//go:noescape
func l1BatchAVX2(r [][batchWidth]float64, l1 *[batchWidth]float64)

//go:noescape
func l1BatchAVX512(r [][batchWidth]float64, l1 *[batchWidth]float64)

//go:noescape
func factorBatchAVX2(r, x, factor [][batchWidth]float64, inv []float64, dangling *[batchWidth]float64)

//go:noescape
func factorBatchAVX512(r, x, factor [][batchWidth]float64, inv []float64, dangling *[batchWidth]float64)

//go:noescape
func pullBatch16AVX512(offsets []int, nbr []uint32, wt []float64, factor, next [][2 * batchWidth]float64, arcLo, arcEnd int, d float64, l1 *[2 * batchWidth]float64) (bad int)

//go:noescape
func pushBatch16AVX512(offsets []int, nbr []uint32, wt, w []float64, x, r [][2 * batchWidth]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[2 * batchWidth]float64) (bad int)

//go:noescape
func l1Batch16AVX512(r [][2 * batchWidth]float64, l1 *[2 * batchWidth]float64)

//go:noescape
func factorBatch16AVX512(r, x, factor [][2 * batchWidth]float64, inv []float64, dangling *[2 * batchWidth]float64)

// The float32-weight twins (batch32_amd64.s, generated from batch_amd64.s
// by TestBatch32AsmGenerated: only the weight read differs, a float32
// broadcast and widened exactly), for graphs that store float32 weights
// (csr.Weights); they must match the references bit for bit as the
// float64 kernels do (TestPullBatchMatchesReference,
// TestPushBatchMatchesReference, TestFloat32StorageSameBits).
//
// They cost one more step per arc than the float64 kernels (the widening:
// VCVTPS2PD, two uops, where the float64 read was a broadcast load or was
// folded into the multiply), and these loops are instruction-bound, so
// they save memory, not time (docs/benchmarks.md, "ppr: float32
// weights"). A caller that wants the float64 kernels' speed for batches
// stores the graph as float64 (csr.ReadOptions.Float64Weights), at 4 more bytes per
// arc.
//
//go:generate go test -run TestBatch32AsmGenerated -update-batch32

//go:noescape
func pullBatchAVX2F32(offsets []int, nbr []uint32, wt []float32, factor, next [][batchWidth]float64, arcLo, arcEnd int, d float64, l1 *[batchWidth]float64) (bad int)

//go:noescape
func pullBatchAVX512F32(offsets []int, nbr []uint32, wt []float32, factor, next [][batchWidth]float64, arcLo, arcEnd int, d float64, l1 *[batchWidth]float64) (bad int)

//go:noescape
func pushBatchAVX2F32(offsets []int, nbr []uint32, wt []float32, w []float64, x, r [][batchWidth]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[batchWidth]float64) (bad int)

//go:noescape
func pushBatchAVX512F32(offsets []int, nbr []uint32, wt []float32, w []float64, x, r [][batchWidth]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[batchWidth]float64) (bad int)

//go:noescape
func pullBatch16AVX512F32(offsets []int, nbr []uint32, wt []float32, factor, next [][2 * batchWidth]float64, arcLo, arcEnd int, d float64, l1 *[2 * batchWidth]float64) (bad int)

//go:noescape
func pushBatch16AVX512F32(offsets []int, nbr []uint32, wt []float32, w []float64, x, r [][2 * batchWidth]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[2 * batchWidth]float64) (bad int)

// arcWindow checks that offsets has rows+1 entries, wt as many weights as
// nbr has neighbours, and that [offsets[0], offsets[rows]] lies within the
// arcs; it returns that window. A failure is a programmer error.
func arcWindow(kernel string, offsets []int, nbr, wt, rows int) (lo, end int) {
	if len(offsets) != rows+1 || wt != nbr {
		panic(fmt.Sprintf("ppr: %s: %d offsets, %d neighbours and %d weights for %d rows; want rows+1 offsets and as many weights as neighbours",
			kernel, len(offsets), nbr, wt, rows))
	}
	lo, end = offsets[0], offsets[rows]
	if lo < 0 || end < lo || end > nbr {
		panic(fmt.Sprintf("ppr: %s: arc window [%d, %d) outside the %d arcs", kernel, lo, end, nbr))
	}
	return lo, end
}

// simdBatchSet returns the kernels of level l (cpu.AVX2 or cpu.AVX512):
// the Unchecked single-vector kernels and the assembly batch kernels, wide
// ones (two ZMM registers per node) at AVX512 only.
func simdBatchSet(l cpu.Level) (pullSet, bool) {
	s, ok := uncheckedSet()
	if !ok {
		return pullSet{}, false
	}
	switch l {
	case cpu.AVX2:
		s.b8 = asmKernels(pullBatchAVX2, pullBatchAVX2F32, pushBatchAVX2, pushBatchAVX2F32, l1BatchAVX2, factorBatchAVX2)
	case cpu.AVX512:
		s.b8 = asmKernels(pullBatchAVX512, pullBatchAVX512F32, pushBatchAVX512, pushBatchAVX512F32, l1BatchAVX512, factorBatchAVX512)
		wide := asmKernels(pullBatch16AVX512, pullBatch16AVX512F32, pushBatch16AVX512, pushBatch16AVX512F32, l1Batch16AVX512, factorBatch16AVX512)
		s.b16 = &wide
	default:
		return pullSet{}, false
	}
	s.level = l
	return s, true
}

// asmKernels wraps assembly kernels of one layout with the O(1) checks
// their memory safety rests on (see above).
func asmKernels[L lanes](
	pull func(offsets []int, nbr []uint32, wt []float64, factor, next []L, arcLo, arcEnd int, d float64, l1 *L) int,
	pull32 func(offsets []int, nbr []uint32, wt []float32, factor, next []L, arcLo, arcEnd int, d float64, l1 *L) int,
	push func(offsets []int, nbr []uint32, wt, w []float64, x, r []L, lo, hi, arcLo, arcEnd int, d float64, dangling *L) int,
	push32 func(offsets []int, nbr []uint32, wt []float32, w []float64, x, r []L, lo, hi, arcLo, arcEnd int, d float64, dangling *L) int,
	l1 func(r []L, l1 *L),
	factor func(r, x, factor []L, inv []float64, dangling *L),
) batchKernels[L] {
	return batchKernels[L]{
		pull: func(offsets []int, nbr []uint32, wt []float64, f, next []L, d float64) L {
			return asmPull(pull, offsets, nbr, wt, f, next, d)
		},
		pull32: func(offsets []int, nbr []uint32, wt []float32, f, next []L, d float64) L {
			return asmPull(pull32, offsets, nbr, wt, f, next, d)
		},
		push: func(offsets []int, nbr []uint32, wt, w []float64, x, r []L, lo, hi int, d float64, dangling *L) {
			asmPush(push, offsets, nbr, wt, w, x, r, lo, hi, d, dangling)
		},
		push32: func(offsets []int, nbr []uint32, wt []float32, w []float64, x, r []L, lo, hi int, d float64, dangling *L) {
			asmPush(push32, offsets, nbr, wt, w, x, r, lo, hi, d, dangling)
		},
		l1: func(r []L) L {
			var sum L
			l1(r, &sum)
			return sum
		},
		factor: func(r, x, f []L, inv []float64, dangling *L) {
			if n := len(r); len(x) != n || len(f) != n || len(inv) != n {
				panic(fmt.Sprintf("ppr: batch factor: %d r, %d x, %d factor lines and %d inverse weights; want one of each per node",
					n, len(x), len(f), len(inv)))
			}
			factor(r, x, f, inv, dangling)
		},
	}
}

// asmPull runs an assembly pull after the O(1) checks its memory safety
// rests on (see above), for weights of either storage.
func asmPull[L lanes, W weight](
	pull func(offsets []int, nbr []uint32, wt []W, factor, next []L, arcLo, arcEnd int, d float64, l1 *L) int,
	offsets []int, nbr []uint32, wt []W, f, next []L, d float64,
) L {
	lo, end := arcWindow("batch pull", offsets, len(nbr), len(wt), len(next))
	var sum L
	if pull(offsets, nbr, wt, f, next, lo, end, d, &sum) != 0 {
		panic(fmt.Sprintf("ppr: batch pull: a neighbour id is not below the %d factor lines", len(f)))
	}
	return sum
}

// asmPush runs an assembly push after the O(1) checks its memory safety
// rests on (see above), for weights of either storage.
func asmPush[L lanes, W weight](
	push func(offsets []int, nbr []uint32, wt []W, w []float64, x, r []L, lo, hi, arcLo, arcEnd int, d float64, dangling *L) int,
	offsets []int, nbr []uint32, wt []W, w []float64, x, r []L, lo, hi int, d float64, dangling *L,
) {
	n := len(r)
	arcLo, arcEnd := arcWindow("batch push", offsets, len(nbr), len(wt), n)
	if len(w) != n || len(x) != n || lo < 0 || hi < lo || hi > n {
		panic(fmt.Sprintf("ppr: batch push: nodes [%d, %d) with %d out-weights, %d x and %d r lines; want one of each per node",
			lo, hi, len(w), len(x), n))
	}
	if push(offsets, nbr, wt, w, x, r, lo, hi, arcLo, arcEnd, d, dangling) != 0 {
		panic(fmt.Sprintf("ppr: batch push: a neighbour id is not below the %d residual lines", n))
	}
}
