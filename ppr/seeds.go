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
// every node below n, and the total positive.
func NewSeeds(n int, seeds []Seed) (Seeds, error) {
	if len(seeds) == 0 {
		return Seeds{}, errors.New("ppr: no seeds")
	}
	sum := make(map[uint32]float64, len(seeds))
	for i, s := range seeds {
		if int64(s.Node) >= int64(n) {
			return Seeds{}, fmt.Errorf("ppr: seed %d: node %d out of range (graph has %d nodes)", i, s.Node, n)
		}
		if math.IsNaN(s.Weight) || math.IsInf(s.Weight, 0) || s.Weight < 0 {
			return Seeds{}, fmt.Errorf("ppr: seed %d (node %d): weight %v, want finite and non-negative", i, s.Node, s.Weight)
		}
		sum[s.Node] += s.Weight
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
	if total == 0 || math.IsInf(total, 0) {
		return Seeds{}, fmt.Errorf("ppr: seed weights sum to %v, want a positive finite total", total)
	}
	out.Weights = make([]float64, len(out.Nodes))
	for i, u := range out.Nodes {
		out.Weights[i] = sum[u] / total
	}
	return out, nil
}

// Dense returns the seeds as a vector of length n.
func (s Seeds) Dense(n int) []float64 {
	v := make([]float64, n)
	for i, u := range s.Nodes {
		v[u] = s.Weights[i]
	}
	return v
}

// checkDamping accepts d in [0, 1).
func checkDamping(d float64) error {
	if !(d >= 0 && d < 1) {
		return fmt.Errorf("ppr: damping %v, want 0 <= d < 1", d)
	}
	return nil
}
