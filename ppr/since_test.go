package ppr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/mask"
)

// A proof derived from a certified top-k's (the guard's: the native x with
// its residual on the authenticated view, pushed on there) bounds the gap
// of the native selection over the solve's candidates from the solve's
// summary, reading only the changed candidates; every interval it proves,
// refined or not, holds the exact gap on the authenticated view (a dense
// solve).
func TestDerivedGapHoldsExactGap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(77, 78))
	checked, derived, refined := 0, 0, 0
	for range 1500 {
		c, cands, k, native, res := summarizedCase(t, rng, 3)
		if res == nil {
			continue
		}
		n := c.g.NumNodes()
		auth := guardEngine(t, c, native)
		passes := res.Sweeps + 2
		for range rng.IntN(3) {
			auth.PushScan([]float64{0, 1e-3, 1e-1}[rng.IntN(3)])
			passes++
		}
		changed := changedNodes(c, native, auth)
		if len(changed) > 0 && rng.IntN(3) == 0 {
			changed = append(changed, changed[rng.IntN(len(changed))]) // duplicates only loosen
		}
		rng.Shuffle(len(changed), func(i, j int) { changed[i], changed[j] = changed[j], changed[i] })
		proof := auth.Prove(passes, res.Proof, changed)

		sel := make([]uint32, len(res.TopK))
		inSel := make([]bool, n)
		for i, s := range res.TopK {
			sel[i] = s.Node
			inSel[s.Node] = true
		}
		if rs, grow := proof.sinceRest(sel, cands); rs != nil {
			derived++
			checkGrowth(t, proof, res.Proof, rs, grow, cands, inSel, changed)
			checkDerivedIntervals(t, proof, sel, cands, inSel)
		}
		exact := exactGap(exactPPR(t, c.auth, c.seeds, c.damping), res.TopK, cands)
		riv, nref := proof.RefinedGap(sel, cands, inSel)
		for _, iv := range []Interval{proof.Gap(sel, cands, inSel), riv} {
			requireHoldsGap(t, iv, exact, "%d nodes, k %d", n, k)
		}
		checked++
		if nref > 0 {
			refined++
		}
	}
	require.Positive(t, checked)
	require.Greater(t, derived, checked/4, "few gaps were derived from the summary")
	t.Logf("checked %d derived %d refined %d", checked, derived, refined)
	require.Positive(t, refined, "no derived interval was refined")
}

// summarizedCase draws a random undirected case, candidates (nil: every
// node) and k in [1, maxK], and solves its native view's certified top-k;
// res is nil when the draw does not fit (too few nodes or candidates, no
// damping, a directed graph) or the solve kept no summary of the rest.
func summarizedCase(t *testing.T, rng *rand.Rand, maxK int) (c randomCase, cands []uint32, k int, native *Engine, res *TopKResult) {
	t.Helper()
	c = newRandomCase(t, rng)
	n := c.g.NumNodes()
	if n < 3 || c.damping == 0 || c.g.Directed() {
		return c, nil, 0, nil, nil
	}
	cands = randomCandidates(rng, n)
	k = 1 + rng.IntN(maxK)
	if cands != nil && len(cands) <= k || n <= k {
		return c, nil, 0, nil, nil
	}
	native, err := NewEngine(c.native, c.seeds, c.damping)
	require.NoError(t, err)
	res, err = native.SolveTopK(k, cands, Options{Tol: []float64{1e-2, 1e-4, 1e-8}[rng.IntN(3)]})
	if err != nil || res.Proof.rest == nil {
		return c, nil, 0, nil, nil
	}
	return c, cands, k, native, res
}

// changedNodes lists the nodes whose x or r differ between the engines or
// whose out-row differs between the case's views.
func changedNodes(c randomCase, a, b *Engine) []uint32 {
	var out []uint32
	for u := range uint32(len(a.X)) {
		if a.X[u] != b.X[u] || a.R[u] != b.R[u] || c.native.OutWeight(u) != c.auth.OutWeight(u) || !slices.Equal(c.native.OutRow(u).Edge, c.auth.OutRow(u).Edge) || rowMasks(c, u) {
			out = append(out, u)
		}
	}
	return out
}

// rowMasks reports whether a view masks an arc of u's out-row.
func rowMasks(c randomCase, u uint32) bool {
	for _, v := range []*mask.View{c.native, c.auth} {
		r := v.OutRow(u)
		for p := range r.Nbr {
			if !r.Live(p) {
				return true
			}
		}
	}
	return false
}

// checkGrowth checks the Bound of since.go on every unselected candidate
// the derived proof does not read: its error term grows by at most grow
// over the solve's, and its upper end stays within the summary's greatest
// (the non-blockers' greatest) plus grow.
func checkGrowth(t *testing.T, derived, solved *Proof, rs *restSummary, grow float64, cands []uint32, inSel []bool, changed []uint32) {
	t.Helper()
	slack := func(v float64) float64 { return v + 1e-15*max(1, math.Abs(v)) }
	for u := range uint32(len(derived.x)) {
		if inSel[u] || slices.Contains(changed, u) || cands != nil && !slices.Contains(cands, u) {
			continue
		}
		at := derived.eb.at(u)
		require.LessOrEqualf(t, at, slack(solved.eb.at(u)+grow), "node %d: error term %g, the solve's %g, growth %g", u, at, solved.eb.at(u), grow)
		hi := derived.x[u] + at
		require.LessOrEqualf(t, hi, slack(rs.hi+grow), "node %d: upper end %g above the greatest %g + %g", u, hi, rs.hi, grow)
		if !rs.over && !slices.Contains(rs.blockers, u) {
			require.LessOrEqualf(t, hi, slack(rs.otherHi+grow), "node %d: upper end %g above the non-blockers' %g + %g", u, hi, rs.otherHi, grow)
		}
	}
}

// checkDerivedIntervals checks what RefinedGap derives from the summary
// against every unselected candidate: the near list holds each whose upper
// end reaches the selection, the far ends bound the others' from above
// (upper) and below (lower), and the rest's bounds hold.
func checkDerivedIntervals(t *testing.T, p *Proof, sel, cands []uint32, inSel []bool) {
	t.Helper()
	e := p.e
	rc := e.newRefineCheck(p.l1, &p.eb, &p.st)
	if rc == nil {
		return
	}
	ri := &refinedIntervals{rc: rc, eb: &p.eb, x: p.x}
	if !ri.derive(p, sel, cands, inSel) {
		return
	}
	reach := ri.reach(sel)
	farLo := math.Inf(-1)
	for u := range uint32(len(p.x)) {
		if inSel[u] || cands != nil && !slices.Contains(cands, u) {
			continue
		}
		x, hi := p.x[u], p.x[u]+p.eb.nTerm(u)
		require.LessOrEqual(t, hi, ri.rest.maxHi, "node %d: upper end above the rest's bound", u)
		require.LessOrEqual(t, x, ri.rest.maxX, "node %d: x above the rest's bound", u)
		if hi >= reach && hi > ri.unreadHi {
			require.Containsf(t, ri.near, u, "node %d reaches the selection (%g >= %g) above the unread ones' bound %g but is not near", u, hi, reach, ri.unreadHi)
		}
		if !slices.Contains(ri.near, u) {
			require.LessOrEqualf(t, hi, ri.farHi, "node %d: far upper end above the bound", u)
			farLo = max(farLo, x-rc.below(u))
		}
	}
	require.LessOrEqual(t, ri.farLo, farLo, "far lower end")
}

// Engines serve query after query: the candidates a derived gap marks stay
// marked for the proofs of one solve, never for the next solve's, even
// when the caller writes its next list into the same buffer.
func TestDerivedGapMarksFollowTheSolve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(79, 80))
	checked := 0
	for range 300 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		if n < 4 || c.damping == 0 || c.g.Directed() {
			continue
		}
		native, err := NewEngine(c.native, c.seeds, c.damping)
		require.NoError(t, err)
		auth := guardEngine(t, c, native)
		buf := make([]uint32, n)
		for range 4 {
			cands := buf[:2+rng.IntN(n-2)]
			for i, v := range rng.Perm(n)[:len(cands)] {
				cands[i] = uint32(v)
			}
			k := 1 + rng.IntN(len(cands)-1)
			require.NoError(t, native.Restart(c.seeds, c.damping))
			res, err := native.SolveTopK(k, cands, Options{Tol: 1e-8})
			if err != nil || res.Proof.rest == nil {
				continue
			}
			copy(auth.X, native.X)
			auth.SetResidual()
			proof := auth.Prove(res.Sweeps+2, res.Proof, changedNodes(c, native, auth))
			sel := make([]uint32, len(res.TopK))
			inSel := make([]bool, n)
			for i, s := range res.TopK {
				sel[i], inSel[s.Node] = s.Node, true
			}
			exact := exactGap(exactPPR(t, c.auth, c.seeds, c.damping), res.TopK, cands)
			riv, _ := proof.RefinedGap(sel, cands, inSel)
			for _, iv := range []Interval{proof.Gap(sel, cands, inSel), riv} {
				requireHoldsGap(t, iv, exact, "%d nodes, k %d, %d candidates", n, k, len(cands))
			}
			checked++
		}
	}
	require.Greater(t, checked, 100)
}

// errorBounds.ends is below and at in one call, to the bit, on undirected
// views with non-negative and signed residuals (with and without the
// negative part's own bounds).
func TestErrorBoundsEndsMatchBelowAndAt(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(93, 94))
	signed := 0
	for range 400 {
		c := newRandomCase(t, rng)
		if c.g.Directed() || c.damping == 0 {
			continue
		}
		e, err := NewEngine(c.auth, c.seeds, c.damping)
		require.NoError(t, err)
		e.PushScan([]float64{1e-1, 1e-3}[rng.IntN(2)])
		if rng.IntN(2) == 0 {
			for range 1 + rng.IntN(3) {
				e.R[rng.IntN(len(e.R))] -= 0.1 * rng.Float64()
			}
		}
		p := e.Prove(2, nil, nil)
		if p.eb.signed {
			signed++
		}
		for u := range uint32(len(e.X)) {
			under, above := p.eb.ends(u)
			require.Equal(t, math.Float64bits(p.eb.below(u)), math.Float64bits(under), "node %d: below", u)
			require.Equal(t, math.Float64bits(p.eb.at(u)), math.Float64bits(above), "node %d: at", u)
		}
	}
	require.Positive(t, signed)
}
