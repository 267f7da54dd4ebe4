package bench

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// This file measures the memory floor of one pull sweep in Go, in the same
// process and run as the solver it is compared with: a STREAM-like copy for
// the arrays read in order, and a random gather for the reads of x through
// the neighbour indices. It follows anchors/c/membw.c and anchors/floor.py.

// Copy is the STREAM copy kernel, dst[i] = src[i].
func Copy(dst, src []float64) {
	copy(dst[:len(src)], src)
}

// Gather returns the sum of x[idx[i]] over every i, with eight independent
// accumulators so that the loads, not the chain of additions, bound it (as
// membw.c's gather_8acc). The partial sums combine in a fixed order.
func Gather(x []float64, idx []uint32) float64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	for len(idx) >= 8 {
		a0 += x[idx[0]]
		a1 += x[idx[1]]
		a2 += x[idx[2]]
		a3 += x[idx[3]]
		a4 += x[idx[4]]
		a5 += x[idx[5]]
		a6 += x[idx[6]]
		a7 += x[idx[7]]
		idx = idx[8:]
	}
	for _, i := range idx {
		a0 += x[i]
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// GatherReference is Gather with one accumulator: the specification Gather
// must match to rounding.
func GatherReference(x []float64, idx []uint32) float64 {
	s := 0.0
	for _, i := range idx {
		s += x[i]
	}
	return s
}

// SweepShape is what one pull sweep touches: n nodes, arcs arcs, and the
// bytes per arc of the weight array (8 for float64, 4 for float32, 0 when
// the graph is unweighted and the kernel reads no weights).
type SweepShape struct {
	Nodes, Arcs int
	WeightBytes int
}

// StreamBytes is the bytes a pull sweep reads or writes in order, counted as
// floor.py counts them for the engine's sweep: neighbour indices (4 per
// arc), weights, offsets (8 per node), and per node the residual read, the
// factor and x read and written and the new residual written (7 vectors of
// 8 bytes).
func (s SweepShape) StreamBytes() int64 {
	return int64(s.Arcs)*int64(4+s.WeightBytes) + int64(s.Nodes)*(8+7*8)
}

// Floor is one measurement of the memory floor for a sweep shape.
type Floor struct {
	Shape        SweepShape
	Threads      int
	CopyGBps     float64 // STREAM copy, 16 bytes per element moved
	GatherNs     float64 // per element, random indices into a table of Shape.Nodes float64s
	StreamTime   time.Duration
	GatherTime   time.Duration
	OverlapFloor time.Duration // max(stream, gather): both overlap perfectly
	SerialFloor  time.Duration // stream + gather: no overlap at all
}

// MeasureFloor times a copy of arrays the size of the sweep's streamed bytes
// and a gather of Shape.Arcs random indices into a table of Shape.Nodes
// values, each the best of reps runs, on threads goroutines (each taking an
// equal slice). The floor is the streamed bytes at the copy bandwidth and
// the arcs at the gather cost: max of the two when they overlap, their sum
// when they do not. Uniform random indices are the worst case; a power-law
// graph reuses its hubs and can gather faster.
func MeasureFloor(s SweepShape, threads, reps int) Floor {
	threads = max(threads, 1)
	reps = max(reps, 1)
	f := Floor{Shape: s, Threads: threads}

	// Copy: 16 bytes moved per element, at least 64 MiB so caches do not help.
	elems := max(int(s.StreamBytes()/16), 8<<20)
	src, dst := make([]float64, elems), make([]float64, elems)
	parallel(threads, elems, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			src[i], dst[i] = float64(i&1023), 0
		}
	})
	best := bestOf(reps, func() {
		parallel(threads, elems, func(_, lo, hi int) { Copy(dst[lo:hi], src[lo:hi]) })
	})
	f.CopyGBps = 16 * float64(elems) / best.Seconds() / 1e9

	// Gather: the same count and table size as the sweep.
	table := make([]float64, max(s.Nodes, 1))
	for i := range table {
		table[i] = float64(i & 1023)
	}
	idx := make([]uint32, max(s.Arcs, 1))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range idx {
		idx[i] = uint32(rng.IntN(len(table)))
	}
	sums := make([]float64, threads)
	best = bestOf(reps, func() {
		parallel(threads, len(idx), func(t, lo, hi int) { sums[t] += Gather(table, idx[lo:hi]) })
	})
	f.GatherNs = float64(best.Nanoseconds()) / float64(len(idx))

	f.StreamTime = time.Duration(float64(s.StreamBytes()) / (f.CopyGBps * 1e9) * 1e9)
	f.GatherTime = time.Duration(f.GatherNs * float64(s.Arcs))
	f.OverlapFloor = max(f.StreamTime, f.GatherTime)
	f.SerialFloor = f.StreamTime + f.GatherTime
	return f
}

// bestOf runs f reps times and returns the shortest run.
func bestOf(reps int, f func()) time.Duration {
	var best time.Duration
	for i := range reps {
		start := time.Now()
		f()
		if d := time.Since(start); i == 0 || d < best {
			best = d
		}
	}
	return best
}

// Median returns the median of the durations (the mean of the middle two
// for an even count), or 0 for none. It does not modify ds.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// parallel splits [0, n) into threads equal ranges and runs f(t, lo, hi)
// on range t, range 0 on the calling goroutine.
func parallel(threads, n int, f func(t, lo, hi int)) {
	var wg sync.WaitGroup
	for t := 1; t < threads; t++ {
		wg.Add(1)
		go func() { defer wg.Done(); f(t, n*t/threads, n*(t+1)/threads) }()
	}
	f(0, 0, n/max(threads, 1))
	wg.Wait()
}
