package ppr_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/ppr"
)

// TestGoldenDegreeOrder solves every golden case on the graph in stream
// order and on its copy in degree order (csr.DegreeOrder): the top-k by name
// must be identical (ties broken by first-appearance rank, ppr.TopK with Ranks,
// and by SolveTopK), every score must agree to rounding by name, and the
// reordered scores must still meet igraph's goldens.
func TestGoldenDegreeOrder(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		c := loadGoldenCase(t, file)
		t.Run(c.Case, func(t *testing.T) {
			g := loadGoldenGraph(t, c)
			h, err := csr.Reorder(g, csr.DegreeOrder)
			if err != nil {
				t.Fatal(err)
			}
			gv, hv := goldenView(t, g, c), goldenView(t, h, c)
			for _, q := range c.Queries {
				gs, hs := goldenSeeds(t, g, q), goldenSeeds(t, h, q)
				opt := ppr.Options{Tol: 1e-12}
				gr, err := ppr.Solve(gv, gs, c.Damping, opt)
				if err != nil {
					t.Fatal(err)
				}
				hr, err := ppr.Solve(hv, hs, c.Damping, opt)
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for u := range h.NumNodes() {
					gu, _ := g.ID(h.Name(uint32(u)))
					worst = max(worst, math.Abs(gr.Scores[gu]-hr.Scores[u]))
				}
				// Both are within 1e-12 in L1 of the same vector.
				if worst > 2e-12 {
					t.Errorf("query %s: scores by name differ by %.3g", q.ID, worst)
				}
				// igraph's goldens, looked up by name in the reordered graph.
				byOldID := make([]float64, g.NumNodes())
				for u := range h.NumNodes() {
					byOldID[rankOf(h, uint32(u))] = hr.Scores[u]
				}
				compareGolden(t, "Solve (degree order)", q, byOldID)

				for _, k := range []int{1, 5, 20, g.NumNodes()} {
					want := ppr.TopK(gr.Scores, k+1, nil, nil)
					got := ppr.TopK(hr.Scores, k+1, nil, h.Ranks())
					checkSameNames(t, g, h, want, got, q.ID, k, 2*worst)
					gt, err := ppr.SolveTopK(gv, gs, c.Damping, k, nil, ppr.Options{})
					if err != nil {
						t.Fatal(err)
					}
					ht, err := ppr.SolveTopK(hv, hs, c.Damping, k, nil, ppr.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if gt.Certified != ht.Certified {
						t.Errorf("query %s top-%d: certified %v in stream order, %v in degree order", q.ID, k, gt.Certified, ht.Certified)
					}
					if gt.Certified && ht.Certified {
						// A certified selection is exact as a set.
						checkSameNames(t, g, h, gt.TopK, ht.TopK, q.ID+" certified", k, math.Inf(1))
					}
				}
			}
		})
	}
}

// checkSameNames fails unless the first k entries of the two rankings name
// the same nodes, class by class: a class is a run of want's scores each
// within eps of the next. Nodes whose exact scores are equal (symmetric
// nodes: WN18RR has many) come out of two summation orders differing in the
// last bits, so their order is rounding noise; eps = 2*max|difference by
// name| says how far rounding moved any score, and classes separated by more
// than that must hold the same names at the same positions. Bitwise-equal
// scores (the zeros of unreachable nodes) fall in one class and are ordered
// by rank in both. A class cut by position k is compared only when want[k]
// is outside it.
func checkSameNames(t *testing.T, g, h *csr.Graph, want, got []ppr.Scored, what string, k int, eps float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s top-%d: %d vs %d nodes", what, k, len(want), len(got))
	}
	n := min(k, len(want))
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < len(want) && !(want[hi-1].Score-want[hi].Score > eps) {
			hi++
		}
		if hi > n && hi > k {
			return // the class straddles position k
		}
		if bitwiseTied(want[lo:hi]) && bitwiseTied(got[lo:hi]) {
			// Exact ties: both break them by first-appearance rank.
			for i := lo; i < hi; i++ {
				if g.Name(want[i].Node) != h.Name(got[i].Node) {
					t.Errorf("%s top-%d: rank %d among %d exact ties is %q in stream order, %q in degree order",
						what, k, i+1, hi-lo, g.Name(want[i].Node), h.Name(got[i].Node))
					return
				}
			}
		}
		names := map[string]int{}
		for i := lo; i < hi; i++ {
			names[g.Name(want[i].Node)]++
			names[h.Name(got[i].Node)]--
		}
		for name, c := range names {
			if c != 0 {
				t.Errorf("%s top-%d: ranks %d..%d differ (node %q; scores %.17g..%.17g, eps %.3g)",
					what, k, lo+1, hi, name, want[lo].Score, want[hi-1].Score, eps)
				return
			}
		}
		lo = hi
	}
}

func bitwiseTied(s []ppr.Scored) bool {
	for _, x := range s {
		if x.Score != s[0].Score {
			return false
		}
	}
	return true
}

func TestTopKRankedMatchesSort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = float64(rng.IntN(4)) // many ties
		}
		// A rank list of the first m nodes (a graph's, under a view
		// with nodes appended): the others rank as their ids.
		m := n
		if trial%3 == 2 {
			m = 1 + rng.IntN(n)
		}
		rank := make([]uint32, m)
		for i, p := range rng.Perm(m) {
			rank[i] = uint32(p)
		}
		full := slices.Clone(rank)
		for u := m; u < n; u++ {
			full = append(full, uint32(u))
		}
		var cands []uint32
		if trial%2 == 1 {
			for _, p := range rng.Perm(n)[:1+rng.IntN(n)] {
				cands = append(cands, uint32(p))
			}
		}
		all := cands
		if all == nil {
			for u := range n {
				all = append(all, uint32(u))
			}
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b uint32) int {
			if c := cmp.Compare(scores[b], scores[a]); c != 0 {
				return c
			}
			return cmp.Compare(full[a], full[b])
		})
		k := 1 + rng.IntN(n+1)
		got := ppr.TopK(scores, k, cands, rank)
		require.Len(t, got, min(k, len(want)))
		for i, s := range got {
			require.Equal(t, want[i], s.Node, "trial %d position %d", trial, i)
			require.Equal(t, scores[s.Node], s.Score)
		}
	}
}

// rankOf is u's first-appearance rank in g: u itself when g has no ranks.
func rankOf(g *csr.Graph, u uint32) uint32 {
	if r := g.Ranks(); r != nil {
		return r[u]
	}
	return u
}
