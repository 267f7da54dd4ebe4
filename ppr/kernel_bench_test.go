package ppr

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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
	run("unmasked/pattern", func() { pullPattern(offsets, nbr, factor, next, 0.85) })
	run("masked1pct/reference", func() { pullReference(offsets, nbr, wt, eid, bits, factor, next, 0.85) })
	run("masked1pct/bits", func() { pullMasked(offsets, nbr, wt, eid, bits, factor, next, 0.85) })
	run("masked1pct/subtract", func() {
		l1 := pullUnmasked(offsets, nbr, wt, factor, next, 0.85)
		subtractArcs(nodes, arcs, nbr, wt, factor, next, 0.85, l1)
	})
}

// BenchmarkPullKernelsInterleaved runs every unmasked pull kernel once per
// iteration, in turn, so that the load of a shared machine drifts over all
// of them alike, and reports each kernel's median time relative to
// pullUnmasked (x/fast: below 1 is faster). Sizes: the memory-graph shape
// of BenchmarkPullKernels (x fits in cache) and R-MAT scale 20's (1M nodes,
// 16M arcs, Zipf in-degrees: x is 8 MiB). The unchecked kernels join when
// the build has them (not purego).
func BenchmarkPullKernelsInterleaved(b *testing.B) {
	for _, size := range []struct {
		name     string
		n, arcs  int
		zipfSkew float64
	}{{"250k-2M", 250000, 2000000, 1.1}, {"1M-16M", 1 << 20, 16 << 20, 1.1}} {
		b.Run(size.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			zipf := rand.NewZipf(rng, size.zipfSkew, 4, uint64(size.n-1))
			degrees := make([]int, size.n)
			for range size.arcs {
				degrees[zipf.Uint64()]++
			}
			offsets, nbr, wt, _, _, factor := kernelCase(rng, degrees, 0)
			// Gathered ids follow a power law too, as in R-MAT.
			for p := range nbr {
				nbr[p] = uint32(zipf.Uint64())
			}
			next := make([]float64, size.n)
			kernels := []struct {
				name string
				f    func()
			}{
				{"fast", func() { pullUnmasked(offsets, nbr, wt, factor, next, 0.85) }},
				{"reference", func() { pullReference(offsets, nbr, wt, nil, nil, factor, next, 0.85) }},
				{"pattern", func() { pullPattern(offsets, nbr, factor, next, 0.85) }},
			}
			if u, ok := uncheckedSet(); ok {
				kernels = append(kernels, []struct {
					name string
					f    func()
				}{
					{"unchecked", func() { u.weighted(offsets, nbr, wt, factor, next, 0.85) }},
					{"pattern-unchecked", func() { u.pattern(offsets, nbr, factor, next, 0.85) }},
				}...)
			}
			times := make([][]float64, len(kernels))
			b.ResetTimer()
			for range b.N {
				for i, k := range kernels {
					start := time.Now()
					k.f()
					times[i] = append(times[i], float64(time.Since(start)))
				}
			}
			med := func(xs []float64) float64 {
				s := slices.Clone(xs)
				slices.Sort(s)
				return s[len(s)/2]
			}
			base := med(times[0])
			b.ReportMetric(base/1e6, "fast-ms")
			for i, k := range kernels[1:] {
				b.ReportMetric(med(times[i+1])/base, k.name+"/fast")
			}
		})
	}
}

// BenchmarkPullBatch compares one batched pull of batchWidth interleaved
// vectors with batchWidth single pulls, interleaved per iteration, on the
// shapes of BenchmarkPullKernelsInterleaved; per-query/single below 1 means
// the batch is cheaper per query.
func BenchmarkPullBatch(b *testing.B) {
	for _, size := range []struct {
		name    string
		n, arcs int
	}{{"250k-2M", 250000, 2000000}, {"1M-16M", 1 << 20, 16 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			zipf := rand.NewZipf(rng, 1.1, 4, uint64(size.n-1))
			degrees := make([]int, size.n)
			for range size.arcs {
				degrees[zipf.Uint64()]++
			}
			offsets, nbr, wt, _, _, factor := kernelCase(rng, degrees, 0)
			for p := range nbr {
				nbr[p] = uint32(zipf.Uint64())
			}
			next := make([]float64, size.n)
			bf := make([][batchWidth]float64, size.n)
			bn := make([][batchWidth]float64, size.n)
			for u := range bf {
				for j := range batchWidth {
					bf[u][j] = factor[u] * float64(j+1)
				}
			}
			var single, batch []float64
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				for range batchWidth {
					pullUnmasked(offsets, nbr, wt, factor, next, 0.85)
				}
				single = append(single, float64(time.Since(start)))
				start = time.Now()
				pullBatch(offsets, nbr, wt, bf, bn, 0.85)
				batch = append(batch, float64(time.Since(start)))
			}
			slices.Sort(single)
			slices.Sort(batch)
			b.ReportMetric(batch[len(batch)/2]/single[len(single)/2], "per-query/single")
		})
	}
}
