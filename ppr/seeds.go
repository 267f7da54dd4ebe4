package ppr

import (
	"errors"
	"fmt"
	"math"
	"slices"
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
// not an error (see SeedScale).
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
	scale := SeedScale(top)
	sum := make(map[uint32]float64, len(seeds))
	for _, s := range seeds {
		sum[s.Node] += s.Weight * scale
	}
	var out Seeds
	for u, w := range sum {
		if w > 0 {
			out.Nodes = append(out.Nodes, u)
		}
	}
	// Sum in node order, so the normalisation does not depend on map order.
	slices.Sort(out.Nodes)
	total := 0.0
	for _, u := range out.Nodes {
		total += sum[u]
	}
	if total == 0 {
		return Seeds{}, fmt.Errorf("ppr: seed weights sum to %v, want a positive finite total", total)
	}
	out.Weights = make([]float64, len(out.Nodes))
	kept := 0
	for _, u := range out.Nodes {
		// A weight below 2^-1074 of the total rounds to 0: dropped, so
		// that every weight is positive.
		if w := sum[u] / total; w > 0 {
			out.Nodes[kept], out.Weights[kept] = u, w
			kept++
		}
	}
	out.Nodes, out.Weights = out.Nodes[:kept], out.Weights[:kept]
	return out, nil
}

// SeedScale is the factor seed weights are multiplied by before they are
// summed and normalised, given their largest weight top: 1 when top <= 1,
// else the power of two 2^-e that brings top into [1/2, 1) (top =
// f*2^e, f in [1/2, 1)). The sum of k scaled weights is then at most k,
// never infinite, and since scaling by a power of two is exact (short of
// subnormal results, below 2^-1022 of the largest weight) and scales every
// rounded sum alike, the normalised weights are those the unscaled sum
// gives whenever it is finite. cabi's dense reset vectors use it too.
func SeedScale(top float64) float64 {
	if !(top > 1) {
		return 1
	}
	_, e := math.Frexp(top) // 1 <= e <= 1024: 2^-e is representable
	return math.Ldexp(1, -e)
}

// checkDamping accepts d in [0, 1).
func checkDamping(d float64) error {
	if !(d >= 0 && d < 1) {
		return fmt.Errorf("ppr: damping %v, want 0 <= d < 1", d)
	}
	return nil
}
