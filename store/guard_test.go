package store

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// nodeSet returns a selection's nodes, sorted.
func nodeSet(sel []ppr.Scored) []uint32 {
	out := make([]uint32, len(sel))
	for i, s := range sel {
		out[i] = s.Node
	}
	slices.Sort(out)
	return out
}

// Every decision of a store guard on a living store equals a from-scratch
// guard's on the materialised version: the outcome (unless the reference
// gap sits at the tie band's edge), a proved interval holding the exact
// gap, an authenticated selection that is a top-k of the exact vector,
// and, where both native selections are certified, the same native set.
func TestGuardMatchesMaterialized(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	trust := mask.Trust("default")
	divergent := 0
	for _, directed := range []bool{false, true} {
		s, err := New(nil, nil, Options{Directed: directed})
		require.NoError(t, err)
		gd := s.NewGuard(trust, replay.Options{})
		recurring := [][]ppr.Seed{{{Node: 0, Weight: 1}}, {{Node: 1, Weight: 1}, {Node: 2, Weight: 0.5}}}
		for step := range 40 {
			v := s.Current()
			_, err := s.applyBatch(randomOps(rng, 1+rng.IntN(8), 20, v.NumNodes(), v.NumEdges()))
			require.NoError(t, err)
			if step%15 == 14 {
				require.NoError(t, s.Compact())
			}
			v = s.Current()
			if v.NumNodes() < 3 {
				continue
			}
			g, labels, err := v.Materialize()
			require.NoError(t, err)
			fresh, err := replay.New(g, labels, trust, replay.Options{})
			require.NoError(t, err)
			authView, err := mask.Authenticated(g, labels, trust)
			require.NoError(t, err)
			for qi := range 3 {
				seeds := recurring[qi%2]
				if qi == 2 {
					seeds = []ppr.Seed{{Node: uint32(rng.IntN(v.NumNodes())), Weight: 1}}
				}
				q := replay.Query{Seeds: seeds, K: 1 + rng.IntN(3), Damping: 0.5}
				if rng.IntN(2) == 0 {
					for _, c := range rng.Perm(v.NumNodes())[:1+rng.IntN(v.NumNodes())] {
						q.Candidates = append(q.Candidates, uint32(c))
					}
				}
				d, err := gd.Select(v, q)
				require.NoErrorf(t, err, "directed %v step %d", directed, step)
				ps, err := ppr.NewSeeds(v.NumNodes(), q.Seeds)
				require.NoError(t, err)
				exact, err := ppr.Solve(authView, ps, q.Damping, ppr.Options{Tol: replay.ReferenceTol})
				require.NoError(t, err)
				tie := gd.opt.TieTol
				if tie == 0 {
					tie = 10 * ppr.DefaultTol
				}
				ambiguous, err := replay.CheckDecision(exact.Scores, d, q, tie)
				require.NoErrorf(t, err, "directed %v step %d query %d", directed, step, qi)
				want, err := fresh.Select(q)
				require.NoError(t, err)
				if !ambiguous {
					require.Equalf(t, want.Divergent, d.Divergent, "directed %v step %d query %d: divergent", directed, step, qi)
				}
				if want.Outcome == replay.Same && d.Outcome == replay.Same {
					require.Equalf(t, nodeSet(want.Native), nodeSet(d.Native), "directed %v step %d query %d: native selection", directed, step, qi)
				}
				if d.Divergent {
					divergent++
				}
			}
		}
	}
	require.Positive(t, divergent, "no divergence seen")
}
