package ppr

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPullKernels compares the pull kernels on one in-adjacency shaped
// like a memory graph (power-law in-degrees, 2M arcs, 250k nodes). Compare
// with benchstat across kernels of the same run.
func BenchmarkPullKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 250000
	zipf := rand.NewZipf(rng, 1.1, 4, n-1)
	degrees := make([]int, n)
	for range 2000000 {
		degrees[zipf.Uint64()]++
	}
	offsets, nbr, wt, eid, bits, factor := kernelCase(rng, degrees, 0.01)
	var nodes []uint32
	var arcs []int
	for v := range degrees {
		for p := offsets[v]; p < offsets[v+1]; p++ {
			if bits[p/64]&(1<<(p%64)) != 0 {
				nodes = append(nodes, uint32(v))
				arcs = append(arcs, p)
			}
		}
	}
	next := make([]float64, n)
	arcsPerOp := float64(len(nbr))
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(12 * len(nbr)))
			for range b.N {
				f()
			}
			b.ReportMetric(arcsPerOp*float64(b.N)/b.Elapsed().Seconds(), "arcs/s")
		})
	}
	run("unmasked/reference", func() { pullReference(offsets, nbr, wt, eid, nil, factor, next, 0.85) })
	run("unmasked/fast", func() { pullUnmasked(offsets, nbr, wt, factor, next, 0.85) })
	run("masked1pct/reference", func() { pullReference(offsets, nbr, wt, eid, bits, factor, next, 0.85) })
	run("masked1pct/bits", func() { pullMasked(offsets, nbr, wt, eid, bits, factor, next, 0.85) })
	run("masked1pct/subtract", func() {
		l1 := pullUnmasked(offsets, nbr, wt, factor, next, 0.85)
		subtractArcs(nodes, arcs, nbr, wt, factor, next, 0.85, l1)
	})
}
