package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
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
		_, differ, gainers := viewDifference(c)
		guardState := func() *Proof {
			e := guardEngine(t, c, native)
			e.ShareEstimates(native, differ, gainers)
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
	} else {
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
	if len(ri.bounds) == 0 {
		return iv, 0
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
