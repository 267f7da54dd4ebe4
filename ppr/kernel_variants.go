package ppr

import (
	"math"

	"github.com/authppr/authppr/internal/cpu"
)

// An explicit math.FMA pull and an eight-accumulator pull were measured
// and are no level (docs/benchmarks.md, "ppr: pull kernels").

// pullSet is the pull kernels of one CPU level (internal/cpu): weighted
// for graphs with weights, pattern for graphs whose every weight is 1
// (csr.Graph.UnitWeights), which read no weight array.
type pullSet struct {
	level cpu.Level
	// weighted and weighted32 are the same kernel on weights stored as
	// float64 and as float32 (csr.Weights).
	weighted   func(offsets []int, nbr []uint32, wt []float64, factor, next []float64, d float64) float64
	weighted32 func(offsets []int, nbr []uint32, wt []float32, factor, next []float64, d float64) float64
	pattern    func(offsets []int, nbr []uint32, factor, next []float64, d float64) float64
	// b8 are the batched sweeps' kernels in the narrow layout; b16, when
	// not nil, in the wide one, which SolveBatch then uses for more than
	// batchWidth queries (when nil it makes passes of batchWidth).
	b8  batchKernels[[batchWidth]float64]
	b16 *batchKernels[[2 * batchWidth]float64]
}

// pullSetFor returns the kernels of level l. Every level must match the
// Generic one to rounding (TestPullKernelsMatchReference,
// TestSweepEveryLevel).
func pullSetFor(l cpu.Level) pullSet {
	switch l {
	case cpu.AVX2, cpu.AVX512:
		if s, ok := simdBatchSet(l); ok {
			return s
		}
		panic("ppr: pull level " + l.String() + " is not in this build (amd64 assembly, not purego)")
	case cpu.Unchecked:
		if s, ok := uncheckedSet(); ok {
			return s
		}
		panic("ppr: pull level unchecked is not in this build (purego)")
	case cpu.Unrolled:
		return pullSet{l, pullUnmasked[float64], pullUnmasked[float32], pullPattern, unrolledBatch(), nil}
	}
	return pullSet{cpu.Generic, pullUnmaskedReference[float64], pullUnmaskedReference[float32], pullPatternReference, referenceKernels[[batchWidth]float64](), nil}
}

// unrolledBatch returns the narrow batch kernels of Unrolled and
// Unchecked: the references with the pull's eight accumulators.
func unrolledBatch() batchKernels[[batchWidth]float64] {
	k := referenceKernels[[batchWidth]float64]()
	k.pull, k.pull32 = pullBatch[float64], pullBatch[float32]
	return k
}

// pullUnmaskedReference is pullReference over every arc.
func pullUnmaskedReference[W weight](offsets []int, nbr []uint32, wt []W, factor, next []float64, d float64) float64 {
	return pullReference(offsets, nbr, wt, nil, nil, factor, next, d)
}

// pullPatternReference is pullReference over every arc with every weight 1:
// the specification of pullPattern.
func pullPatternReference(offsets []int, nbr []uint32, factor, next []float64, d float64) float64 {
	l1 := 0.0
	for v := range next {
		acc := 0.0
		for p := offsets[v]; p < offsets[v+1]; p++ {
			acc += factor[nbr[p]]
		}
		next[v] = d * acc
		l1 += math.Abs(next[v])
	}
	return l1
}

// pullPattern is pullUnmasked for graphs whose every weight is 1
// (csr.Graph.UnitWeights): it reads no weight array, so a sweep streams 4
// bytes per arc instead of 8 (float32 weights) or 12. It must match pullReference with wt all ones
// to rounding (TestPullKernelsMatchReference).
func pullPattern(offsets []int, nbr []uint32, factor, next []float64, d float64) float64 {
	n := len(next)
	offsets = offsets[:n+1]
	l1 := 0.0
	lo, his := offsets[0], offsets[1:]
	next = next[:len(his)]
	for v, hi := range his {
		ns := nbr[lo:hi]
		lo = hi
		var a0, a1, a2, a3 float64
		for len(ns) >= 4 {
			a0 += factor[ns[0]]
			a1 += factor[ns[1]]
			a2 += factor[ns[2]]
			a3 += factor[ns[3]]
			ns = ns[4:]
		}
		for _, u := range ns {
			a0 += factor[u]
		}
		x := d * ((a0 + a1) + (a2 + a3))
		next[v] = x
		l1 += math.Abs(x)
	}
	return l1
}
