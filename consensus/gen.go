package consensus

import (
	"fmt"
	"math/rand/v2"
)

// RandomGraph is G(k, density): each pair of items contradicts
// independently with probability density. For tests and benchmarks.
func RandomGraph(rng *rand.Rand, k int, density float64) (*Graph, error) {
	g, err := NewGraph(k)
	if err != nil {
		return nil, err
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			if rng.Float64() < density {
				g.AddContradiction(i, j)
			}
		}
	}
	return g, nil
}

// CollusionGraph is the adversarial shape: the last c items (the lowest
// ranked) form a colluding block that agrees internally and contradicts
// each honest item with probability cross; honest items contradict each
// other with probability density. For tests and benchmarks; k < 0 or c
// outside [0, k] returns an error.
func CollusionGraph(rng *rand.Rand, k, c int, density, cross float64) (*Graph, error) {
	if c < 0 || c > k {
		return nil, fmt.Errorf("consensus: colluding block of %d in %d items", c, k)
	}
	g, err := NewGraph(k)
	if err != nil {
		return nil, err
	}
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
	return g, nil
}
