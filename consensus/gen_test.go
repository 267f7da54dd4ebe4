package consensus

import "math/rand/v2"

// randomGraph is G(k, density): each pair contradicts independently.
func randomGraph(rng *rand.Rand, k int, density float64) *Graph {
	g, _ := NewGraph(k)
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			if rng.Float64() < density {
				g.AddContradiction(i, j)
			}
		}
	}
	return g
}

// collusionGraph is the adversarial shape: the last c items (the lowest
// ranked) form a colluding block that agrees internally and contradicts
// each honest item with probability cross; honest items contradict each
// other with probability density.
func collusionGraph(rng *rand.Rand, k, c int, density, cross float64) *Graph {
	g, _ := NewGraph(k)
	h := k - c
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			p := density
			switch {
			case i >= h: // both colluding
				p = 0
			case j >= h:
				p = cross
			}
			if rng.Float64() < p {
				g.AddContradiction(i, j)
			}
		}
	}
	return g
}
