package consensus

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// rankOrderSelect is a second reference for k beyond selectBrute's reach,
// independent of Select's two phases: one depth-first search that includes
// items in rank order, include before exclude. It visits maximal sets in
// decreasing order of preference (an included item beats every later one,
// see the package doc), prunes only subtrees that cannot beat the best
// size found, so the first set of the maximum size it meets is the answer.
// Bound: a greedy clique cover of the remaining candidates, recomputed at
// every node over the suffix still open.
func rankOrderSelect(g *Graph) []int {
	best, need := []int{}, 0
	var cur []int
	var rec func(P []uint64)
	rec = func(P []uint64) {
		if empty(P) {
			if len(cur) >= need {
				best, need = append([]int{}, cur...), len(cur)+1
			}
			return
		}
		for _, v := range members(nil, P) {
			if len(cur)+cliqueCover(g, P) < need {
				return
			}
			row := g.row(v)
			child := make([]uint64, len(P))
			for wi := range P {
				child[wi] = P[wi] &^ row[wi]
			}
			child[v/64] &^= 1 << (v % 64)
			P[v/64] &^= 1 << (v % 64) // excluded from here on
			for wi := range child {
				child[wi] &= P[wi] // only items after v
			}
			cur = append(cur, v)
			rec(child)
			cur = cur[:len(cur)-1]
		}
	}
	all := make([]uint64, g.words)
	for v := 0; v < g.k; v++ {
		all[v/64] |= 1 << (v % 64)
	}
	rec(all)
	return best
}

func cliqueCover(g *Graph, P []uint64) int {
	u := append([]uint64{}, P...)
	c := 0
	for !empty(u) {
		c++
		q := append([]uint64{}, u...)
		for !empty(q) {
			v := highest(q)
			u[v/64] &^= 1 << (v % 64)
			row := g.row(v)
			for wi := range q {
				q[wi] &= row[wi]
			}
		}
	}
	return c
}

// The reference agrees with brute force where both run.
func TestRankOrderReference(t *testing.T) {
	rng := newRNG(21)
	for trial := 0; trial < 300; trial++ {
		k := rng.IntN(maxBruteItems + 1)
		g := mustGraph(randomGraph(rng, k, 0.05+0.4*rng.Float64()))
		want, _ := selectBrute(g)
		require.Equal(t, want, rankOrderSelect(g), "trial %d k=%d", trial, k)
	}
}

// Select against the rank-order reference at word boundaries (63-65
// items, 127-129) and above, where the bitsets span several words.
func TestSelectMultiWord(t *testing.T) {
	rng := newRNG(22)
	ks := []int{63, 64, 65, 70, 100, 127, 128, 129}
	per := 9
	if testing.Short() {
		per = 3
	}
	for _, k := range ks {
		for i := 0; i < per; i++ {
			var g *Graph
			what := ""
			if i%3 == 2 {
				c := k / 4
				g = mustGraph(collusionGraph(rng, k, c, 0.3, 0.9))
				what = fmt.Sprintf("k=%d collusion c=%d", k, c)
			} else {
				d := []float64{0.3, 0.45}[i%2]
				if k <= 70 {
					d = []float64{0.1, 0.2, 0.3}[i%3]
				}
				g = mustGraph(randomGraph(rng, k, d))
				what = fmt.Sprintf("k=%d density %.2f", k, d)
			}
			got, err := Select(g, Options{})
			require.NoError(t, err, what)
			require.True(t, g.independent(got.Items), what)
			require.Equal(t, rankOrderSelect(g), got.Items, what)
		}
	}
}

// colourTwo and colour give the same search: equal sets and equal node
// counts at every length up to two words.
func TestColourTwoMatchesGeneric(t *testing.T) {
	rng := newRNG(23)
	for _, k := range []int{0, 1, 2, 63, 64, 65, 100, 127, 128} {
		for _, d := range []float64{0.1, 0.3, 0.6} {
			g := mustGraph(randomGraph(rng, k, d))
			fast, err := Select(g, Options{})
			require.NoError(t, err)
			forceGenericColour = true
			slow, err := Select(g, Options{})
			forceGenericColour = false
			require.NoError(t, err)
			require.Equal(t, slow.Items, fast.Items, "k=%d d=%v", k, d)
			require.Equal(t, slow.Nodes, fast.Nodes, "k=%d d=%v: the two colourings differ", k, d)
		}
	}
}
