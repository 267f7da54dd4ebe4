package ppr

import (
	"errors"
	"fmt"
	"math"
	"slices"

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

// checkDamping accepts d in [0, 1).
func checkDamping(d float64) error {
	if !(d >= 0 && d < 1) {
		return fmt.Errorf("ppr: damping %v, want 0 <= d < 1", d)
	}
	return nil
}
