package ppr

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/authppr/authppr/internal/seedweights"
)

// Seed is one personalisation weight.
type Seed struct {
	Node   uint32
	Weight float64
}

// Seeds is a validated personalisation vector in sparse form: distinct nodes
// in ascending order, positive weights that sum to 1.
type Seeds struct {
	Nodes   []uint32
	Weights []float64
}

// NewSeeds validates seeds for a graph with n nodes, sums duplicates, drops
// zero weights and normalises. Every weight must be finite and non-negative,
// every node below n, and the total positive; a total that overflows is
// not an error (seedweights.Scale).
func NewSeeds(n int, seeds []Seed) (Seeds, error) {
	if len(seeds) == 0 {
		return Seeds{}, errors.New("ppr: no seeds")
	}
	top := 0.0
	for i, s := range seeds {
		if int64(s.Node) >= int64(n) {
			return Seeds{}, fmt.Errorf("ppr: seed %d: node %d out of range (graph has %d nodes)", i, s.Node, n)
		}
		if math.IsNaN(s.Weight) || math.IsInf(s.Weight, 0) || s.Weight < 0 {
			return Seeds{}, fmt.Errorf("ppr: seed %d (node %d): weight %v, want finite and non-negative", i, s.Node, s.Weight)
		}
		top = max(top, s.Weight)
	}
	scale := seedweights.Scale(top)
	nodes, sums := sumByNode(n, seeds, scale)
	// Sum in node order, so the normalisation does not depend on the
	// input's order.
	total := 0.0
	for _, w := range sums {
		total += w
	}
	if total == 0 {
		return Seeds{}, fmt.Errorf("ppr: seed weights sum to %v, want a positive finite total", total)
	}
	out := Seeds{Nodes: nodes, Weights: sums}
	kept := 0
	for i, u := range nodes {
		// A weight below 2^-1074 of the total rounds to 0: dropped, so
		// that every weight is positive.
		if w := sums[i] / total; w > 0 {
			out.Nodes[kept], out.Weights[kept] = u, w
			kept++
		}
	}
	out.Nodes, out.Weights = out.Nodes[:kept], out.Weights[:kept]
	return out, nil
}

// sumByNode returns the seeds' nodes with a positive sum, ascending, and
// their sums of weight*scale, each accumulated in input order. A dense
// reset (seeds on a large share of the n nodes, as HippoRAG's over every
// passage) sums into an array of n; a sparse one sorts a copy (stable, so
// duplicates still add in input order); seeds already in strictly
// ascending node order are read as they are.
func sumByNode(n int, seeds []Seed, scale float64) ([]uint32, []float64) {
	nodes := make([]uint32, 0, min(len(seeds), n))
	sums := make([]float64, 0, cap(nodes))
	if ascending(seeds) {
		// Each node once, in order (a caller's own list, or a seed set
		// read back): nothing to sum or sort.
		for _, s := range seeds {
			if w := s.Weight * scale; w > 0 {
				nodes = append(nodes, s.Node)
				sums = append(sums, w)
			}
		}
		return nodes, sums
	}
	if len(seeds) >= n/8 {
		// Sums into an array of n, the seeded nodes marked in a bitset
		// read in order: O(seeds + n/64), with no test of every node.
		p := denseScratch(n)
		dense, marks := p.sums[:n], p.marks[:(n+63)/64]
		for _, s := range seeds {
			dense[s.Node] += s.Weight * scale
			marks[s.Node/64] |= 1 << (s.Node % 64)
		}
		for i, word := range marks {
			if word == 0 {
				continue
			}
			marks[i] = 0
			for ; word != 0; word &= word - 1 {
				u := i*64 + bits.TrailingZeros64(word)
				if w := dense[u]; w > 0 {
					nodes = append(nodes, uint32(u))
					sums = append(sums, w)
				}
				dense[u] = 0 // all zero again for the pool
			}
		}
		denseSums.Put(p)
		return nodes, sums
	}
	sorted := slices.Clone(seeds)
	slices.SortStableFunc(sorted, func(a, b Seed) int { return cmp.Compare(a.Node, b.Node) })
	for i := 0; i < len(sorted); {
		u, w := sorted[i].Node, 0.0
		for ; i < len(sorted) && sorted[i].Node == u; i++ {
			w += sorted[i].Weight * scale
		}
		if w > 0 {
			nodes = append(nodes, u)
			sums = append(sums, w)
		}
	}
	return nodes, sums
}

// denseSums pools sumByNode's dense scratch (all zero between uses), so
// that summing a dense reset's seeds allocates no array of the graph's size
// per call.
var denseSums sync.Pool

// seedScratch is n sums and a bitset of n marks.
type seedScratch struct {
	sums  []float64
	marks []uint64
}

// denseScratch returns a pooled scratch for at least n nodes, all zero.
func denseScratch(n int) *seedScratch {
	if p, _ := denseSums.Get().(*seedScratch); p != nil && len(p.sums) >= n {
		return p
	}
	return &seedScratch{sums: make([]float64, n), marks: make([]uint64, (n+63)/64)}
}

// ascending reports whether the seeds' nodes strictly ascend.
func ascending(seeds []Seed) bool {
	for i := 1; i < len(seeds); i++ {
		if seeds[i].Node <= seeds[i-1].Node {
			return false
		}
	}
	return true
}

// checkDamping accepts d in [0, 1).
func checkDamping(d float64) error {
	if !(d >= 0 && d < 1) {
		return fmt.Errorf("ppr: damping %v, want 0 <= d < 1", d)
	}
	return nil
}
