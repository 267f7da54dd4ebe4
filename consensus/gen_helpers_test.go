package consensus

import (
	"math/rand/v2"
	"slices"

	"github.com/authppr/authppr/internal/randgraph"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func equalInts(a, b []int) bool { return slices.Equal(a, b) }

// randomGraph is G(k, density) (randgraph.Contradictions).
func randomGraph(rng *rand.Rand, k int, density float64) (*Graph, error) {
	return BuildGraph(k, JudgeFunc(randgraph.Contradictions(rng, density)))
}

// collusionGraph is randgraph.Collusion's adversarial shape: the last c
// items collude.
func collusionGraph(rng *rand.Rand, k, c int, density, cross float64) (*Graph, error) {
	judge, err := randgraph.Collusion(rng, k, c, density, cross)
	if err != nil {
		return nil, err
	}
	return BuildGraph(k, JudgeFunc(judge))
}

// independent reports whether no two of the given items contradict.
func (g *Graph) independent(items []int) bool {
	for a, i := range items {
		for _, j := range items[a+1:] {
			if i == j || g.contradicts(i, j) {
				return false
			}
		}
	}
	return true
}

// numEdges returns the number of distinct contradictions.
func (g *Graph) numEdges() int {
	n := 0
	for i := 0; i < g.k; i++ {
		n += g.degree(i)
	}
	return n / 2
}
