package ppr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/nodeset"
)

// A proof from push rounds' leftover (the guard's: a native state turned
// authenticated, pushed on from every node it changed) has statistics at
// least Prove's, which reads every changed node, and bounds the exact
// error at every node (a dense solve); when a round stopped at its budget
// it is Prove's. Half the trials start the rounds without the nodes whose
// rows differ and give those to ProveLeftover to read.
func TestProveLeftoverBoundsProve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(91, 92))
	complete, incomplete := 0, 0
	for range 1500 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		if c.damping == 0 {
			continue
		}
		native, err := NewEngine(c.native, c.seeds, c.damping)
		require.NoError(t, err)
		res, err := native.SolveTopK(1, nil, Options{Tol: []float64{1e-2, 1e-4, 1e-8}[rng.IntN(3)]})
		if err != nil {
			continue
		}
		auth := guardEngine(t, c, native)
		auth.Support = nodeset.New(n)
		var left Leftover
		auth.Left = &left
		left.Reset()
		changed := changedNodes(c, native, auth)
		var frontier, unvisited []uint32
		for _, u := range changed {
			if rng.IntN(2) == 0 && rowDiffers(c, u) {
				unvisited = append(unvisited, u)
			} else {
				frontier = append(frontier, u)
			}
		}
		eps := []float64{1e-1, 1e-3, 1e-6}[rng.IntN(3)]
		above, below := eps, []float64{eps, eps / 10, math.Inf(1)}[rng.IntN(3)]
		budget := []int64{0, 0, 0, 3}[rng.IntN(4)]
		done := auth.PushRoundsSigned(above, below, frontier, budget)
		require.Equal(t, done, left.Complete(), "the leftover is complete exactly when the rounds ran to the end")
		all := slices.Concat(changed, auth.Support.AppendNodes(nil))
		slices.Sort(all)
		all = slices.Compact(all) // Prove's sums count a duplicate twice
		passes := res.Sweeps + 3
		got := auth.ProveLeftover(passes, res.Proof, &left, all, unvisited)
		want := auth.Prove(passes, res.Proof, all)
		if !done {
			incomplete++
			require.Equal(t, want.st, got.st, "a stopped round's leftover falls back to Prove")
			continue
		}
		complete++
		g, w := got.st, want.st
		le := func(a, b float64) bool { return a <= b+1e-15*max(1, math.Abs(b)) }
		require.Truef(t, le(w.l1, g.l1) && w.maxRatio <= g.maxRatio && w.maxNeg <= g.maxNeg &&
			le(w.dangling, g.dangling) && le(w.danglingNeg, g.danglingNeg) && (!w.signed || g.signed),
			"leftover statistics %+v below Prove's %+v", g, w)
		exact := exactPPR(t, c.auth, c.seeds, c.damping)
		for v := range uint32(n) {
			e := exact[v] - auth.X[v]
			require.LessOrEqualf(t, e, got.eb.at(v)+got.eb.round+1e-12, "node %d: error %g above the bound", v, e)
			require.LessOrEqualf(t, -e, got.eb.below(v)+got.eb.round+1e-12, "node %d: error %g below the bound", v, e)
		}
	}
	require.Greater(t, complete, 300)
	require.Positive(t, incomplete)
}

// rowDiffers reports whether u's out-row differs between the case's views.
func rowDiffers(c randomCase, u uint32) bool {
	return c.native.OutWeight(u) != c.auth.OutWeight(u) || !slices.Equal(c.native.OutRow(u).Edge, c.auth.OutRow(u).Edge) || rowMasks(c, u)
}
