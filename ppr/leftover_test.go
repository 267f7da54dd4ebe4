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
		frontier, unvisited := splitChanged(rng, c, changed)
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

// splitChanged splits the changed nodes into the rounds' frontier and the
// nodes left for the proof to read: about half of those whose rows differ
// go to the second.
func splitChanged(rng *rand.Rand, c randomCase, changed []uint32) (frontier, unvisited []uint32) {
	for _, u := range changed {
		if rng.IntN(2) == 0 && rowDiffers(c, u) {
			unvisited = append(unvisited, u)
		} else {
			frontier = append(frontier, u)
		}
	}
	return frontier, unvisited
}

// rowDiffers reports whether u's out-row differs between the case's views.
func rowDiffers(c randomCase, u uint32) bool {
	return c.native.OutWeight(u) != c.auth.OutWeight(u) || !slices.Equal(c.native.OutRow(u).Edge, c.auth.OutRow(u).Edge) || rowMasks(c, u)
}

// A proof whose leftover logs the candidates (WatchCandidates) derives the
// rest of a selection from the log and the unvisited nodes as a proof
// derived by reading every changed node does (the same maxima, near list
// and far ends), and its gaps hold the exact gap (a dense solve); so do
// those of proofs given neither a log nor the changed nodes.
func TestLeftoverLogDerivesTheRest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(95, 96))
	logged := 0
	for range 1500 {
		c, cands, k, native, res := summarizedCase(t, rng, 2)
		if res == nil {
			continue
		}
		n := c.g.NumNodes()
		auth := guardEngine(t, c, native)
		auth.Support = nodeset.New(n)
		changed := changedNodes(c, native, auth)
		frontier, unvisited := splitChanged(rng, c, changed)
		var left Leftover
		left.Reset()
		left.WatchCandidates(auth, res.Proof, cands)
		require.True(t, left.logging())
		auth.Left = &left
		eps := []float64{1e-1, 1e-3, 1e-6}[rng.IntN(3)]
		if !auth.PushRoundsSigned(eps, []float64{eps, eps / 10}[rng.IntN(2)], frontier, 0) {
			continue
		}
		auth.Left = nil
		all := slices.Concat(changed, auth.Support.AppendNodes(nil))
		passes := res.Sweeps + 3
		fromLog := auth.ProveLeftover(passes, res.Proof, &left, nil, unvisited)
		read := auth.ProveLeftover(passes, res.Proof, &Leftover{complete: true, tally: left.tally}, all, unvisited)
		require.Equal(t, fromLog.st, read.st)
		sel := make([]uint32, len(res.TopK))
		inSel := make([]bool, n)
		for i, s := range res.TopK {
			sel[i], inSel[s.Node] = s.Node, true
		}
		rs, grow := fromLog.sinceRest(sel, cands)
		if rs == nil {
			continue
		}
		logged++
		for _, reach := range []float64{math.Inf(1), res.TopK[len(res.TopK)-1].Score} {
			got := fromLog.derivedRest(rs, grow, cands, inSel, reach)
			want := read.derivedRest(rs, grow, cands, inSel, reach)
			require.Equal(t, want.up, got.up, "the rest's greatest ends and x from above")
			require.Equal(t, want.down, got.down, "from below")
			require.Equal(t, want.near, got.near, "near list")
			require.Equal(t, [3]float64{want.farLo, want.farHi, want.unreadHi}, [3]float64{got.farLo, got.farHi, got.unreadHi}, "far ends")
		}
		// Without a log or a list of the changed nodes, nothing is derived:
		// the gaps read every candidate, and an incomplete leftover's
		// statistics are a full pass's.
		blind := auth.ProveLeftover(passes, res.Proof, &Leftover{complete: true, tally: left.tally}, nil, unvisited)
		rsBlind, _ := blind.sinceRest(sel, cands)
		require.Nil(t, rsBlind)
		stopped := auth.ProveLeftover(passes, res.Proof, &Leftover{}, nil, unvisited)
		require.Equal(t, auth.Prove(passes, nil, nil).st, stopped.st)
		exact := exactGap(exactPPR(t, c.auth, c.seeds, c.damping), res.TopK, cands)
		for _, p := range []*Proof{fromLog, blind, stopped} {
			riv, _ := p.RefinedGap(sel, cands, inSel)
			for _, iv := range []Interval{p.Gap(sel, cands, inSel), riv} {
				requireHoldsGap(t, iv, exact, "%d nodes, k %d", n, k)
			}
		}
	}
	require.Greater(t, logged, 100)
}
