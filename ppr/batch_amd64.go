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
// TestSolveBatchMatchesSolve, TestSolveBatchGaussSeidel at every level).
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
// the Unchecked single-vector kernels and the assembly batch kernels.
func simdBatchSet(l cpu.Level) (pullSet, bool) {
	s, ok := uncheckedSet()
	if !ok {
		return pullSet{}, false
	}
	pull, push, l1, factor := pullBatchAVX2, pushBatchAVX2, l1BatchAVX2, factorBatchAVX2
	switch l {
	case cpu.AVX2:
	case cpu.AVX512:
		pull, push, l1, factor = pullBatchAVX512, pushBatchAVX512, l1BatchAVX512, factorBatchAVX512
	default:
		return pullSet{}, false
	}
	s.level = l
	s.batch = func(offsets []int, nbr []uint32, wt []float64, factor, next [][batchWidth]float64, d float64) [batchWidth]float64 {
		lo, end := arcWindow("batch pull", offsets, len(nbr), len(wt), len(next))
		var sum [batchWidth]float64
		if pull(offsets, nbr, wt, factor, next, lo, end, d, &sum) != 0 {
			panic(fmt.Sprintf("ppr: batch pull: a neighbour id is not below the %d factor lines", len(factor)))
		}
		return sum
	}
	s.batchPush = func(offsets []int, nbr []uint32, wt, w []float64, x, r [][batchWidth]float64, lo, hi int, d float64, dangling *[batchWidth]float64) {
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
	s.batchL1 = func(r [][batchWidth]float64) [batchWidth]float64 {
		var sum [batchWidth]float64
		l1(r, &sum)
		return sum
	}
	s.batchFactor = func(r, x, f [][batchWidth]float64, inv []float64, dangling *[batchWidth]float64) {
		if n := len(r); len(x) != n || len(f) != n || len(inv) != n {
			panic(fmt.Sprintf("ppr: batch factor: %d r, %d x, %d factor lines and %d inverse weights; want one of each per node",
				n, len(x), len(f), len(inv)))
		}
		factor(r, x, f, inv, dangling)
	}
	return s, true
}
