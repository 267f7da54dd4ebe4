package ppr

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func nodeSet(s []Scored) []uint32 {
	out := make([]uint32, len(s))
	for i, x := range s {
		out[i] = x.Node
	}
	slices.Sort(out)
	return out
}

// A certified top-k is the exact top-k (as a set); an uncertified one comes
// with a gap the bound cannot separate.
func TestSolveTopKCertifiesExactSelections(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	certified, saved, total := 0, 0, 0
	for i := range 400 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		k := 1 + rng.IntN(4)
		var cands []uint32
		if rng.IntN(2) == 0 {
			for _, v := range rng.Perm(n)[:1+rng.IntN(n)] {
				cands = append(cands, uint32(v))
			}
		}
		res, err := SolveTopK(c.auth, c.seeds, c.damping, k, cands, Options{Tol: 1e-12})
		require.NoError(t, err)
		exact := exactPPR(t, c.auth, c.seeds, c.damping)
		if res.Certified {
			certified++
			want := TopK(exact, k, cands)
			require.Equalf(t, nodeSet(want), nodeSet(res.TopK), "case %d: certified selection differs from the exact one", i)
			require.Greater(t, res.Gap, res.ErrorBound)
			full, err := Solve(c.auth, c.seeds, c.damping, Options{Tol: 1e-12})
			require.NoError(t, err)
			saved += full.Sweeps - res.Sweeps
			total += full.Sweeps
		} else {
			require.LessOrEqual(t, res.ErrorBound, 1e-12)
			require.LessOrEqual(t, res.Gap, res.ErrorBound)
		}
	}
	require.Positive(t, certified)
	t.Logf("%d of 400 certified; certified solves used %d fewer sweeps than tol 1e-12 solves (%d)", certified, saved, total)
}
