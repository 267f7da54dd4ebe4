package randgraph

import (
	"fmt"
	"math/rand/v2"
)

// Contradictions returns a judge for consensus.BuildGraph (the function of
// a consensus.JudgeFunc) that says a pair contradicts with probability
// density, independently per question: asked about every pair of k items
// once, as BuildGraph asks, it draws G(k, density). It takes one r.Float64
// per question, so the graph drawn depends on the order of the questions;
// BuildGraph's order is fixed, so equal seeds give equal graphs.
func Contradictions(r *rand.Rand, density float64) func(i, j int) (bool, error) {
	return func(i, j int) (bool, error) { return r.Float64() < density, nil }
}

// Collusion returns the judge of the adversarial shape over k items: the
// last c items (the lowest ranked) form a colluding block that agrees
// internally and contradicts each honest item with probability cross;
// honest items contradict each other with probability density. It takes
// one r.Float64 per question (i < j), as Contradictions does. c outside
// [0, k] is an error.
func Collusion(r *rand.Rand, k, c int, density, cross float64) (func(i, j int) (bool, error), error) {
	if c < 0 || c > k {
		return nil, fmt.Errorf("randgraph: colluding block of %d in %d items", c, k)
	}
	h := k - c
	return func(i, j int) (bool, error) {
		p := density
		switch {
		case i >= h: // both colluding
			p = 0
		case j >= h:
			p = cross
		}
		return r.Float64() < p, nil
	}, nil
}
