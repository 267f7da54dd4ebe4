package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// RefinedGap (one pass over the candidates, see refinedIntervals.scan)
// gives exactly what its plain reference gives, a pass per quantity: the
// same interval to the bit and the same refined count, from two engines
// in the same state (the guard's: the native x on the authenticated view,
// the native engine's estimates shared). Selections: the estimate's top-k
// and random ones (divergences), every node or random candidate lists.
func TestRefinedGapMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(75, 76))
	compared, refined := 0, 0
	for range 400 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		native, k, res := nativeSelection(t, rng, c)
		if native == nil {
			continue
		}
		if rng.IntN(2) == 0 {
			estimateEveryNode(native, []float64{1e-2, 1e-4}[rng.IntN(2)])
		}
		_, differ, gainers := viewDifference(c)
		guardState := func() *Proof {
			e := guardEngine(t, c, native)
			e.ShareEstimates(native, differ, gainers, viewDiffRows{c.auth, c.native})
			return e.Prove(res.Sweeps+2, nil, nil)
		}
		cands := randomCandidates(rng, n)
		random := make([]uint32, 0, k)
		inSel := make([]bool, n)
		for _, v := range rng.Perm(n) {
			if len(random) < k && (cands == nil || containsNode(cands, uint32(v))) {
				random = append(random, uint32(v))
			}
		}
		if len(random) < k {
			continue
		}
		for _, sel := range [][]uint32{topNodesOf(native.X, k, cands), random} {
			clear(inSel)
			for _, v := range sel {
				inSel[v] = true
			}
			got, gotN := guardState().RefinedGap(sel, cands, inSel)
			want, wantN := refinedGapReference(guardState(), sel, cands, inSel)
			require.Equal(t, want, got, "interval")
			require.Equal(t, wantN, gotN, "refined count")
			compared++
			if gotN > 0 {
				refined++
			}
		}
	}
	require.Positive(t, compared)
	require.Positive(t, refined, "no selection was refined")
}

// estimateEveryNode gives the engine a reverse estimate of every node at
// threshold eps, as a donor whose solve refined them all: the guard's
// refinement may then adapt one for any candidate.
func estimateEveryNode(e *Engine, eps float64) {
	ref := &e.refine
	ref.reserve(len(e.X))
	if ref.est == nil {
		ref.est = make(map[uint32]*reverseEstimate)
	}
	for v := range uint32(len(e.X)) {
		if old := ref.est[v]; old == nil || old.MaxS > eps {
			est := ref.newEstimate()
			ref.pusher.pushInto(est, e.view, e.damping, v, eps, math.MaxInt64, nil)
			ref.est[v] = est
		}
	}
}

// refinedGapReference is RefinedGap with a pass over the candidates for
// each quantity it needs (how it read them before scan).
func refinedGapReference(p *Proof, sel, cands []uint32, inSel []bool) (Interval, int) {
	iv := p.Gap(sel, cands, inSel)
	e := p.e
	perCoord := !e.view.Directed()
	if math.IsInf(iv.Lo, 1) || !e.tune.refining(perCoord) {
		return iv, 0
	}
	var st *residualStats
	if perCoord {
		st = &p.st
	}
	rc := e.newRefineCheck(p.l1, &p.eb, st)
	if rc == nil {
		return iv, 0
	}
	ri := &refinedIntervals{rc: rc, eb: &p.eb, x: p.x, bounds: map[uint32][2]float64{}}
	each := func(visit func(u uint32)) {
		eachCandidate(len(p.x), cands, func(u uint32) {
			if !inSel[u] {
				visit(u)
			}
		})
	}
	x := p.x
	minX, maxX := math.Inf(1), math.Inf(-1)
	var low, high uint32
	for _, v := range sel {
		if x[v] < minX {
			minX, low = x[v], v
		}
	}
	each(func(u uint32) {
		if x[u] > maxX {
			maxX, high = x[u], u
		}
	})
	if minX < maxX {
		mid := (minX + maxX) / 2
		ri.refine(high, true, mid)
		ri.refine(low, false, mid)
	} else if !refineRestFirstReference(ri, sel, each) {
		blockHi := math.Inf(-1)
		each(func(u uint32) { _, hi := ri.interval(u); blockHi = max(blockHi, hi) })
		selLo := math.Inf(1)
		for _, v := range sel {
			if ri.lower(v) <= blockHi {
				ri.refine(v, true, blockHi)
			}
			selLo = min(selLo, ri.lower(v))
		}
		var blockers []uint32
		each(func(u uint32) {
			if _, hi := ri.interval(u); hi >= selLo {
				blockers = append(blockers, u)
			}
		})
		if len(blockers) > maxRefined {
			return iv, 0
		}
		for _, u := range blockers {
			ri.refine(u, false, selLo)
		}
	}
	selLo, selHi := math.Inf(1), math.Inf(1)
	for _, v := range sel {
		lo, hi := ri.interval(v)
		selLo, selHi = min(selLo, lo), min(selHi, hi)
	}
	restLo, restHi := math.Inf(-1), math.Inf(-1)
	each(func(u uint32) {
		lo, hi := ri.interval(u)
		restLo, restHi = max(restLo, lo), max(restHi, hi)
	})
	h := selHi - restLo
	switch {
	case h > 0:
		h /= 1 - rc.cmax
	case rc.signed:
		h /= 1 + rc.cmax
	}
	lo := rc.piGap(selLo - restHi)
	return Interval{Lo: max(iv.Lo, lo-p.eb.round), Hi: min(iv.Hi, h+p.eb.round)}, len(ri.bounds)
}

// refineRestFirstReference is refinedIntervals.refineRestFirst over every
// unselected candidate (each): the ones whose unrefined upper end reaches
// the selection's least unrefined lower end, refined with the estimates
// at hand alone while each clears it, when they are fewer than the
// selected candidates the rest's greatest upper end reaches.
func refineRestFirstReference(ri *refinedIntervals, sel []uint32, each func(func(u uint32))) bool {
	reach, blockHi := math.Inf(1), math.Inf(-1)
	for _, v := range sel {
		reach = min(reach, ri.lower(v))
	}
	var near []uint32
	each(func(u uint32) {
		_, hi := ri.interval(u)
		blockHi = max(blockHi, hi)
		if hi >= reach {
			near = append(near, u)
		}
	})
	waiting := 0
	for _, v := range sel {
		if ri.lower(v) <= blockHi {
			waiting++
		}
	}
	if len(near) == 0 || len(near) >= waiting {
		return false
	}
	ri.rc.adaptOnly = true
	defer func() { ri.rc.adaptOnly = false }()
	for _, u := range near {
		ri.refine(u, false, reach)
		if _, hi := ri.interval(u); hi >= reach {
			return false
		}
	}
	return true
}

// topNodesOf returns the k candidates (nil: every node) of largest x.
func topNodesOf(x []float64, k int, cands []uint32) []uint32 {
	var out []uint32
	for _, v := range topNodes(x, len(x)) {
		if cands == nil || containsNode(cands, v) {
			out = append(out, v)
		}
		if len(out) == k {
			break
		}
	}
	return out
}

func containsNode(list []uint32, v uint32) bool {
	for _, u := range list {
		if u == v {
			return true
		}
	}
	return false
}

// newMemoryCase returns an undirected graph shaped like a HippoRAG memory
// (passages linked to a few entities each, entities related to a few
// others, unit weights), a share of its edges written by an untrusted
// channel, entity seeds and the passages as candidates: the shape on
// which a guard's native selection is clearly ahead and a few unselected
// passages reach it unrefined.
func newMemoryCase(t *testing.T, rng *rand.Rand) (randomCase, []uint32) {
	t.Helper()
	entities, passages := 40+rng.IntN(80), 20+rng.IntN(40)
	b := csr.NewBuilder(false)
	name := func(u int) string { return fmt.Sprint("n", u) }
	for u := range entities + passages {
		_, err := b.AddNode(name(u))
		require.NoError(t, err)
	}
	untrusted := []float64{0.01, 0.05}[rng.IntN(2)]
	edge := func(u, v int) {
		channel := "trusted"
		if rng.Float64() < untrusted {
			channel = "peer"
		}
		_, err := b.AddEdge(csr.Input{Src: name(u), Dst: name(v), Weight: 1, Channel: channel})
		require.NoError(t, err)
	}
	for p := range passages {
		for range 2 + rng.IntN(4) {
			edge(entities+p, rng.IntN(entities))
		}
	}
	for e := range entities {
		for range 1 + rng.IntN(3) {
			edge(e, rng.IntN(entities))
		}
	}
	g, err := b.Build()
	require.NoError(t, err)
	native, auth := caseViews(t, g, mask.FromGraph(g))
	var raw []Seed
	for range 1 + rng.IntN(3) {
		raw = append(raw, Seed{Node: uint32(rng.IntN(entities)), Weight: 1})
	}
	seeds, err := NewSeeds(g.NumNodes(), raw)
	require.NoError(t, err)
	cands := make([]uint32, passages)
	for p := range cands {
		cands[p] = uint32(entities + p)
	}
	return randomCase{g, native, auth, seeds, []float64{0.5, 0.85}[rng.IntN(2)]}, cands
}

// On memory-shaped graphs, where the native top-5 passages are ahead and
// a few unselected ones reach them unrefined, RefinedGap gives exactly
// what its reference gives, and its interval holds the exact gap (a dense
// solve), from a donor that estimated every node or none.
func TestRefinedGapOnMemoryGraphs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(81, 82))
	compared, refined := 0, 0
	for i := range 150 {
		c, cands := newMemoryCase(t, rng)
		native, err := NewEngine(c.native, c.seeds, c.damping)
		require.NoError(t, err)
		res, err := native.SolveTopK(5, cands, Options{Tol: 1e-4})
		require.NoError(t, err)
		if rng.IntN(4) > 0 {
			estimateEveryNode(native, []float64{1e-2, 1e-3}[rng.IntN(2)])
		}
		_, differ, gainers := viewDifference(c)
		guardState := func() *Proof {
			e := guardEngine(t, c, native)
			e.ShareEstimates(native, differ, gainers, viewDiffRows{c.auth, c.native})
			return e.Prove(res.Sweeps+2, nil, nil)
		}
		sel := make([]uint32, len(res.TopK))
		inSel := make([]bool, c.g.NumNodes())
		for j, s := range res.TopK {
			sel[j], inSel[s.Node] = s.Node, true
		}
		got, gotN := guardState().RefinedGap(sel, cands, inSel)
		want, wantN := refinedGapReference(guardState(), sel, cands, inSel)
		require.Equalf(t, want, got, "case %d: interval", i)
		require.Equalf(t, wantN, gotN, "case %d: refined count", i)
		exact := exactGap(exactPPR(t, c.auth, c.seeds, c.damping), res.TopK, cands)
		requireHoldsGap(t, got, exact, "case %d", i)
		compared++
		if gotN > 0 {
			refined++
		}
	}
	require.Positive(t, refined, "no selection was refined")
	t.Logf("%d selections, %d refined", compared, refined)
}
