package ppr

import "math"

// Interval is a closed interval proved to hold a quantity.
type Interval struct{ Lo, Hi float64 }

// Proof is what one state (x, r) of an engine proves about the exact
// vector pi of its view: per-node error bounds |pi(v) - x(v)| <= Bound(v)
// (0 <= pi(v) - x(v) <= Bound(v) while the residual has no negative entry),
// the bounds SolveTopK proves its selections with (errorBounds: the
// per-coordinate bound with its one-step sharpening on undirected views,
// the L1 bound ||r||_1/alpha on every view), less the rounding margin of
// roundoff. A caller that keeps a state of its own (replay's guard, which
// turns a native state into an authenticated one) proves its decisions
// with it, so that every proof in the module uses one set of bounds.
//
// A Proof reads the engine's X and R when asked: it is valid until they
// change.
type Proof struct {
	e      *Engine
	eb     errorBounds
	x      []float64
	st     residualStats // undirected views: the statistics eb was made from
	l1     float64       // ||r||_1, or an upper bound on it
	passes int
	// A certified top-k's proof keeps what its last check learnt of the
	// unselected candidates; a proof derived from one (Prove with since)
	// keeps it and the changed nodes, and bounds the rest from them
	// (since.go).
	rest    *restSummary
	since   *Proof
	changed []uint32
	// left: the leftover whose log stands for the changed nodes but those
	// of changed (ProveLeftover).
	left *Leftover
}

// Prove returns the proof of the engine's current state, which passes
// passes over the state have produced (sweeps, scans, corrections of rows:
// each may round every entry once, see roundoff).
//
// With since nil it reads every node once. Otherwise since is a proof of
// the same arrays, on this engine or on another engine over a view of the
// same snapshot, and changed lists every node that may differ since in
// residual or in out-row (a node whose row differs between the two views
// must be listed): Prove then costs O(len(changed)). The statistics are
// bounded from since's and the changed nodes' (||r||_1 by since's plus
// |r(u)| over changed, the largest ratio by the larger of since's and the
// changed nodes' ratios, the dangling residual likewise), which bounds
// what a full pass would find, so every bound derived from them holds.
// Duplicates in changed only loosen the bounds. The proof keeps since and
// changed (which must not be modified while it is used): a gap over the
// selection and candidates of since's certified top-k reads only the
// changed candidates (since.go).
func (e *Engine) Prove(passes int, since *Proof, changed []uint32) *Proof {
	if since == nil {
		st := e.residualStats()
		if e.view.Directed() {
			st.maxRatio, st.dangling, st.maxNeg, st.danglingNeg = 0, 0, 0, 0
		}
		return e.proofOf(st, passes)
	}
	var t residualTally
	w := e.view.NodeOutWeights()
	directed := e.view.Directed()
	for _, u := range changed {
		wu := 1.0 // directed views use the L1 sum and the sign alone
		if !directed {
			wu = w.At(u)
		}
		t.note(e.R[u], wu)
	}
	return e.proveSince(passes, since, changed, t)
}

// proveSince is Prove's proof from since's statistics and the tally t of
// the changed nodes (on directed views only its L1 sum and sign count).
func (e *Engine) proveSince(passes int, since *Proof, changed []uint32, t residualTally) *Proof {
	st := since.st
	st.l1 = since.l1 + t.l1
	st.signed = st.signed || t.signed
	if !e.view.Directed() {
		st.maxRatio, st.maxNeg = max(st.maxRatio, t.maxRatio), max(st.maxNeg, t.maxNeg)
		st.dangling, st.danglingNeg = st.dangling+t.dangling, st.danglingNeg+t.danglingNeg
	}
	p := e.proofOf(st, passes)
	p.since, p.changed = since, changed
	return p
}

// proofOf makes the proof of statistics st after passes passes.
func (e *Engine) proofOf(st residualStats, passes int) *Proof {
	bound := st.l1 / e.alpha
	p := &Proof{e: e, x: e.X, st: st, l1: st.l1, passes: passes}
	if e.view.Directed() {
		p.eb = errorBounds{l1: bound * e.tune.boundScale, signed: st.signed}
	} else {
		p.eb = e.coordBounds(st, bound)
	}
	p.eb.round = e.roundoff(passes)
	return p
}

// l1Bound returns the proof's bound on ||pi - x||_1.
func (p *Proof) l1Bound() float64 { return p.eb.l1 }

// bound returns the bound on |pi(v) - x(v)|.
func (p *Proof) bound(v uint32) float64 { return p.eb.abs(v) }

// Gap returns an interval holding the exact gap of a selection,
//
//	min_{v in sel} pi(v) - max_{u in cands, u not in sel} pi(u),
//
// for cands (nil: every node) and sel, a subset of them, marked by inSel
// (over the nodes; read only). It is +Inf (both ends) when every candidate
// is selected, and is widened by the rounding margin.
//
// Proof. Let v*, u* attain the min and the max for pi. With lo(v) <= pi(v)
// <= hi(v) per node, gap >= min_sel lo - max_rest hi, and for any v' in
// sel, u' in the rest, gap <= pi(v') - pi(u') <= hi(v') - lo(u'): taking
// the v' that minimises hi and the u' that maximises lo gives gap <=
// min_sel hi - max_rest lo. The L1 bound gives a second interval: gap =
// x(v*) - x(u*) + e(v*) - e(u*) with |e(v*)| + |e(u*)| <= ||e||_1 <= L1,
// so gap lies within L1 of the gap of x (the same argument for the upper
// end with the v', u' that attain x's min and max); the intersection of
// the two holds it.
func (p *Proof) Gap(sel []uint32, cands []uint32, inSel []bool) Interval {
	if rs, grow := p.sinceRest(sel, cands); rs != nil {
		d := p.derivedRest(rs, grow, cands, inSel, math.Inf(1))
		return p.gapOf(sel, &d.up, &d.down)
	}
	var rest gapRest
	rest.init()
	eachCandidate(len(p.x), cands, func(u uint32) {
		if !inSel[u] {
			rest.add(p, u)
		}
	})
	return p.gapOf(sel, &rest, &rest)
}

// gapRest is what Gap needs of the unselected candidates: the greatest
// lower end, upper end and x.
type gapRest struct{ maxLo, maxHi, maxX float64 }

func (r *gapRest) init() { r.maxLo, r.maxHi, r.maxX = math.Inf(-1), math.Inf(-1), math.Inf(-1) }

func (r *gapRest) add(p *Proof, u uint32) {
	x := p.x[u]
	var under, above float64
	if p.eb.w != nil {
		under, above = p.eb.ends(u)
	} else {
		under, above = p.eb.below(u), p.eb.at(u)
	}
	r.addEnds(x, x-under, x+above)
}

// addEnds adds a candidate of estimate x and interval [lo, hi].
func (r *gapRest) addEnds(x, lo, hi float64) {
	r.maxLo, r.maxHi, r.maxX = max(r.maxLo, lo), max(r.maxHi, hi), max(r.maxX, x)
}

// gapOf is Gap's interval from the selection and bounds on the rest's
// maxima: up's from above (the lower end), down's from below (the upper
// end); both are the maxima themselves after a pass over the candidates.
func (p *Proof) gapOf(sel []uint32, up, down *gapRest) Interval {
	minLo, minHi, minX := math.Inf(1), math.Inf(1), math.Inf(1)
	for _, v := range sel {
		x := p.x[v]
		minLo, minHi, minX = min(minLo, x-p.eb.below(v)), min(minHi, x+p.eb.at(v)), min(minX, x)
	}
	if math.IsInf(up.maxX, -1) {
		return Interval{math.Inf(1), math.Inf(1)}
	}
	l1 := p.eb.l1
	lo := max(minLo-up.maxHi, minX-up.maxX-l1) - p.eb.round
	hi := min(minHi-down.maxLo, minX-down.maxX+l1) + p.eb.round
	return Interval{Lo: lo, Hi: hi}
}

// Rounding returns the rounding margin the proof's intervals carry (see
// roundoff): below it no bound means anything.
func (p *Proof) Rounding() float64 { return p.eb.round }

// MaxRatio returns max |r(u)|/W(u) over the nodes with out-weight on an
// undirected view (as bounded by the proof's statistics), 0 on a directed
// one: a threshold scan at eps = MaxRatio/4 pushes the nodes that set the
// per-coordinate bound.
func (p *Proof) MaxRatio() float64 { return p.st.maxRatio }

// RefinedGap is Gap with the candidates near the boundary refined by
// reverse pushes, as SolveTopK refines its blockers (refineTopK, whose
// proofs it reuses): it returns the intersection of Gap's interval and the
// refined one, and how many candidates it refined (0 when it did not try:
// more than maxRefined candidates straddle the boundary, or the residual is
// too large for the identity pi = N/(1 - c), or the engine's allowance for
// reverse pushes, a quarter of the arcs it has read since SetProblem, is
// spent). The proof's engine must still hold the state it proved.
//
// Proof. Per candidate, N(v) lies in [x(v) - below(v), x(v) + nTerm(v)]
// unrefined and in the reverse push's interval when refined (refineCheck),
// so the gap of N over the selection lies in [min_sel lo - max_rest hi,
// min_sel hi - max_rest lo] (Gap's argument), and pi's gap is N's divided
// by 1 - c: for the lower end piGap; for the upper end h/(1 - cmax) when h
// > 0, and when h <= 0, h/(1 + cmax) for a signed residual and h itself for
// a non-negative one (c >= 0 then, and dividing a non-positive h by
// 1 - c in (0, 1] only lowers it).
func (p *Proof) RefinedGap(sel, cands []uint32, inSel []bool) (Interval, int) {
	e := p.e
	perCoord := !e.view.Directed()
	if !e.tune.refining(perCoord) {
		return p.Gap(sel, cands, inSel), 0
	}
	var st *residualStats
	if perCoord {
		st = &p.st
	}
	rc := e.newRefineCheck(p.l1, &p.eb, st)
	if rc == nil {
		return p.Gap(sel, cands, inSel), 0
	}
	ri := &refinedIntervals{rc: rc, eb: &p.eb, x: p.x, bounds: make(map[uint32][2]float64)}
	if ri.derive(p, sel, cands, inSel) {
		ri.rescan = func() { ri.scan(p, sel, cands, inSel) }
	} else {
		ri.scan(p, sel, cands, inSel)
	}
	iv := p.gapOf(sel, &ri.rest, &ri.down)
	if math.IsInf(iv.Lo, 1) || !ri.refineAtBoundary(sel) {
		return iv, 0
	}
	lo, hi := ri.gap(sel)
	return Interval{Lo: max(iv.Lo, lo-p.eb.round), Hi: min(iv.Hi, hi+p.eb.round)}, len(ri.bounds)
}

// refinedIntervals are RefinedGap's intervals of N per candidate: the
// refined one where a reverse push gave one (bounds), the unrefined
// [x - below, x + nTerm] elsewhere. scan reads the unselected candidates
// once; the rest of RefinedGap reads what it kept.
type refinedIntervals struct {
	rc     *refineCheck
	eb     *errorBounds
	x      []float64
	bounds map[uint32][2]float64

	rest    gapRest // Gap's maxima over the unselected candidates (bounds from above when derived)
	down    gapRest // the same (bounds from below when derived)
	high    uint32  // an unselected candidate of greatest x (rest.maxX)
	blockHi float64 // the greatest unrefined upper end x + nTerm
	// near lists, in candidate order, the unselected candidates whose
	// unrefined upper end reaches the selection's least unrefined lower
	// end, the only ones refineAtBoundary may refine; farLo and farHi are
	// the greatest unrefined ends of the others, which stay unrefined.
	near         []uint32
	farLo, farHi float64
	// Derived (derive): the unread candidates' upper ends are at most
	// unreadHi, and rescan reads them all (scan) when refineAtBoundary
	// needs the ones that reach the selection's refined lower end.
	unreadHi float64
	rescan   func()
}

// scan reads the unselected candidates once (see refinedIntervals).
// Every candidate refineAtBoundary refines is near: a blocker's upper end
// reaches the selection's refined lower end, which is at least its
// unrefined one (bounds never lowers it), and in a divergence high's x
// exceeds the selection's least x, which is at least that end.
func (ri *refinedIntervals) scan(p *Proof, sel, cands []uint32, inSel []bool) {
	if ri.eb.w != nil {
		ri.scanUndirected(sel, cands, inSel)
		return
	}
	x, eb, rc := ri.x, ri.eb, ri.rc
	reach := ri.reach(sel)
	ri.rest.init()
	ri.blockHi, ri.farLo, ri.farHi = math.Inf(-1), math.Inf(-1), math.Inf(-1)
	near := rc.e.refine.near[:0]
	eachCandidate(len(x), cands, func(u uint32) {
		if inSel[u] {
			return
		}
		if x[u] > ri.rest.maxX {
			ri.high = u
		}
		ri.rest.add(p, u)
		hi := x[u] + eb.nTerm(u)
		ri.blockHi = max(ri.blockHi, hi)
		if hi >= reach {
			near = append(near, u)
		} else {
			ri.farLo, ri.farHi = max(ri.farLo, x[u]-rc.below(u)), max(ri.farHi, hi)
		}
	})
	ri.near = near
	rc.e.refine.near = near
	ri.down = ri.rest
}

// scanUndirected is scan on an undirected view, where one pair of ends
// serves the rest's maxima and the near list (nTerm is at there, and
// refineCheck.below is below: the bits errorBounds.ends gives), kept in
// locals over one loop.
func (ri *refinedIntervals) scanUndirected(sel, cands []uint32, inSel []bool) {
	x, eb := ri.x, ri.eb
	reach := ri.reach(sel)
	var rest gapRest
	rest.init()
	farLo, farHi := math.Inf(-1), math.Inf(-1)
	var high uint32
	near := ri.rc.e.refine.near[:0]
	n := len(x)
	if cands != nil {
		n = len(cands)
	}
	for i := range n {
		u := uint32(i)
		if cands != nil {
			u = cands[i]
		}
		if inSel[u] {
			continue
		}
		xu := x[u]
		if xu > rest.maxX {
			high = u
		}
		under, above := eb.ends(u)
		lo, hi := xu-under, xu+above
		rest.addEnds(xu, lo, hi)
		if hi >= reach {
			near = append(near, u)
		} else {
			farLo, farHi = max(farLo, lo), max(farHi, hi)
		}
	}
	ri.rest, ri.down, ri.high = rest, rest, high
	ri.blockHi, ri.farLo, ri.farHi = rest.maxHi, farLo, farHi
	ri.near = near
	ri.rc.e.refine.near = near
}

// reach returns the selection's least unrefined lower end.
func (ri *refinedIntervals) reach(sel []uint32) float64 {
	reach := math.Inf(1)
	for _, v := range sel {
		reach = min(reach, ri.x[v]-ri.rc.below(v))
	}
	return reach
}

// derive fills what scan fills from the summary of the solve p was derived
// from (derivedRest), when p may use one: the ends are bounds on scan's,
// near holds every candidate read that scan would list, and the
// candidates not read are far, with upper ends at most unreadHi.
func (ri *refinedIntervals) derive(p *Proof, sel, cands []uint32, inSel []bool) bool {
	rs, grow := p.sinceRest(sel, cands)
	if rs == nil {
		return false
	}
	d := p.derivedRest(rs, grow, cands, inSel, ri.reach(sel))
	ri.rest, ri.down, ri.high = d.up, d.down, d.high
	ri.blockHi = d.up.maxHi
	ri.near, ri.farLo, ri.farHi, ri.unreadHi = d.near, d.farLo, d.farHi, d.unreadHi
	return true
}

// refine tightens v's interval towards target (see refineCheck.tighten).
func (ri *refinedIntervals) refine(v uint32, above bool, target float64) {
	if est := ri.rc.tighten(v, above, target); est != nil {
		lo, hi := ri.rc.bounds(v, est)
		ri.bounds[v] = [2]float64{lo, hi}
	}
}

// interval returns v's interval of N.
func (ri *refinedIntervals) interval(v uint32) (lo, hi float64) {
	if b, ok := ri.bounds[v]; ok {
		return b[0], b[1]
	}
	return ri.x[v] - ri.rc.below(v), ri.x[v] + ri.eb.nTerm(v)
}

func (ri *refinedIntervals) lower(v uint32) float64 { lo, _ := ri.interval(v); return lo }

// refineAtBoundary refines the candidates the gap's interval depends on,
// and reports false when more than maxRefined unselected candidates
// straddle the boundary (the refinement then proves nothing).
//
// When x says the selection is behind (a divergence), its gap's upper end
// needs one selected candidate below one unselected, the pair x ranks so:
// each aims at the middle. When x says it is ahead, the lower end needs
// every selected candidate above every unselected one: the unselected
// candidates that reach the selection's unrefined lower end first, from
// the estimates at hand, when they are fewer than the selected ones
// (refineRestFirst: often one adapted estimate clears what the selected
// side would need one each for); then, as refineTopK does, the selected
// side against the rest's highest end (refined where that reached), then
// the unselected candidates that still reach the selection's lowest end.
func (ri *refinedIntervals) refineAtBoundary(sel []uint32) bool {
	x := ri.x
	minX := math.Inf(1)
	var low uint32 // the selection's lowest x
	for _, v := range sel {
		if x[v] < minX {
			minX, low = x[v], v
		}
	}
	if maxX := ri.rest.maxX; minX < maxX {
		mid := (minX + maxX) / 2
		ri.refine(ri.high, true, mid)
		ri.refine(low, false, mid)
		return true
	}
	if ri.refineRestFirst(sel) {
		return true
	}
	blockHi := ri.farHi
	for _, u := range ri.near {
		_, hi := ri.interval(u)
		blockHi = max(blockHi, hi)
	}
	selLo := math.Inf(1)
	for _, v := range sel {
		if ri.lower(v) <= blockHi {
			ri.refine(v, true, blockHi)
		}
		selLo = min(selLo, ri.lower(v))
	}
	if ri.rescan != nil && ri.unreadHi >= selLo {
		// A candidate not read may reach the selection: read them all.
		ri.rescan()
		ri.rescan = nil
	}
	var blockers []uint32
	for _, u := range ri.near {
		if _, hi := ri.interval(u); hi >= selLo {
			if len(blockers) == maxRefined {
				return false
			}
			blockers = append(blockers, u)
		}
	}
	for _, u := range blockers {
		ri.refine(u, false, selLo)
	}
	return true
}

// refineRestFirst refines the near candidates towards the selection's
// least unrefined lower end, when they are fewer than the selected
// candidates whose lower ends their upper ends reach and no unread
// candidate reaches it, and reports whether each cleared it: then the
// selection needs no refinement (every unselected upper end is below
// every selected lower end). Otherwise the selection is refined against
// the rest's upper ends as they are, refined where this reached.
func (ri *refinedIntervals) refineRestFirst(sel []uint32) bool {
	reach := ri.reach(sel)
	if len(ri.near) == 0 || ri.rescan != nil && ri.unreadHi >= reach {
		return false
	}
	waiting := 0
	for _, v := range sel {
		if ri.lower(v) <= ri.blockHi {
			waiting++
		}
	}
	if len(ri.near) >= waiting {
		return false
	}
	ri.rc.adaptOnly = true
	defer func() { ri.rc.adaptOnly = false }()
	for _, u := range ri.near {
		ri.refine(u, false, reach)
		if _, hi := ri.interval(u); hi >= reach {
			return false
		}
	}
	return true
}

// gap returns the interval of pi's gap that the intervals of N prove,
// before the rounding margin: the lower end by piGap, the upper end h =
// min_sel hi - max_rest lo divided by 1 - c at its least (see RefinedGap).
func (ri *refinedIntervals) gap(sel []uint32) (lo, hi float64) {
	selLo, selHi := math.Inf(1), math.Inf(1)
	for _, v := range sel {
		lo, hi := ri.interval(v)
		selLo, selHi = min(selLo, lo), min(selHi, hi)
	}
	restLo, restHi := ri.farLo, ri.farHi
	for _, u := range ri.near {
		lo, hi := ri.interval(u)
		restLo, restHi = max(restLo, lo), max(restHi, hi)
	}
	rc := ri.rc
	h := selHi - restLo
	switch {
	case h > 0:
		h /= 1 - rc.cmax
	case rc.signed:
		h /= 1 + rc.cmax
	}
	return rc.piGap(selLo - restHi), h
}
