package ppr

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// parallelSweep is jacobiSweep over threads goroutines: rows are split into
// chunksPerThread*threads ranges of about equal arc counts, which the
// goroutines take in turn as they finish (equal arc counts are not equal
// work: the gathers of one range may hit the cache more than another's),
// each range pulled with the same kernel and order as jacobiSweep, so X and
// R come out bit-identical to its. Only the returned ||r||_1 is summed per
// range and then across ranges in range order, so it may differ from
// jacobiSweep's in the last bits (but not between runs).
func (e *Engine) parallelSweep(threads int) float64 {
	if threads <= 1 {
		return e.jacobiSweep()
	}
	e.needGraphRows("a parallel Jacobi sweep")
	g := e.view.Graph()
	n := g.NumNodes()
	next, factor := e.sweeps.arrays(n)
	parts := e.partition(threads * chunksPerThread)
	x, r := e.X[:n], e.R[:n]
	inv := e.view.InvOutWeights()[:n]

	run := func(f func(lo, hi, i int)) {
		var taken atomic.Int64
		work := func() {
			for {
				i := int(taken.Add(1) - 1)
				if i >= len(parts)-1 {
					return
				}
				f(parts[i], parts[i+1], i)
			}
		}
		var wg sync.WaitGroup
		for range threads - 1 {
			wg.Add(1)
			go func() { defer wg.Done(); work() }()
		}
		work()
		wg.Wait()
	}
	run(func(lo, hi, _ int) {
		for u := lo; u < hi; u++ {
			factor[u] = r[u] * inv[u]
			x[u] += r[u]
		}
	})
	// The dangling mass, summed in node order as jacobiSweep sums it.
	dangling := 0.0
	for _, u := range e.view.DanglingNodes() {
		dangling += r[u]
	}

	in := g.In()
	d := e.damping
	nodes, arcs, sparse := e.view.MaskedInArcs()
	if len(e.sweeps.partial) != len(parts)-1 {
		e.sweeps.partial = make([]float64, len(parts)-1)
	}
	partial := e.sweeps.partial
	run(func(lo, hi, i int) {
		if !sparse {
			partial[i] = pullMaskedOf(in.Offsets[lo:hi+1], in.Nbr, in.Weight, in.Edge, e.view.MaskedBits(), factor, next[lo:hi], d)
			return
		}
		l1 := pullAll(e.tune.pulls, g, lo, hi, factor, next[lo:hi], d)
		// The masked arcs are listed by ascending head node.
		a := sort.Search(len(nodes), func(j int) bool { return nodes[j] >= uint32(lo) })
		b := sort.Search(len(nodes), func(j int) bool { return nodes[j] >= uint32(hi) })
		if a < b {
			l1 = subtractArcsOf(nodes[a:b], arcs[a:b], in.Nbr, in.Weight, factor, next, d, l1)
		}
		partial[i] = l1
	})
	l1 := 0.0
	for _, p := range partial {
		l1 += p
	}
	if dangling != 0 {
		for i, u := range e.seeds.Nodes {
			l1 -= math.Abs(next[u])
			next[u] += d * dangling * e.seeds.Weights[i]
			l1 += math.Abs(next[u])
		}
	}
	e.R, e.sweeps.next = next, r
	e.Stats.Sweeps++
	e.Stats.ArcOps += int64(len(in.Nbr))
	return l1
}

// pullScratch is the scratch of jacobiSweep and parallelSweep: the next
// residual and the per-node factors, and parallelSweep's row ranges and
// their ||r||_1.
type pullScratch struct {
	next, factor []float64
	parts        []int
	partial      []float64
}

// arrays returns next and factor, of n entries, allocated on first use.
func (p *pullScratch) arrays(n int) (next, factor []float64) {
	if p.next == nil {
		p.next, p.factor = make([]float64, n), make([]float64, n)
	}
	return p.next[:n], p.factor[:n]
}

// chunksPerThread is how many row ranges parallelSweep makes per thread.
const chunksPerThread = 8

// partition returns row boundaries that split the in-adjacency into threads
// ranges of about equal arc counts (plus one per node, so that ranges of
// arc-free nodes are not free), cached per thread count.
func (e *Engine) partition(threads int) []int {
	if len(e.sweeps.parts) == threads+1 {
		return e.sweeps.parts
	}
	in := e.view.Graph().In()
	n := len(in.Offsets) - 1
	total := in.Offsets[n] + n
	parts := make([]int, threads+1)
	for i := 1; i < threads; i++ {
		target := total * i / threads
		parts[i] = sort.Search(n, func(v int) bool { return in.Offsets[v]+v >= target })
		parts[i] = max(parts[i], parts[i-1])
	}
	parts[threads] = n
	e.sweeps.parts = parts
	return parts
}
