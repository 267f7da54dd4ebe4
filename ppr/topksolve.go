package ppr

import (
	"fmt"
	"math"
	"slices"
)

// topKSolve is one certified top-k solve (SolveTopK, ordered or not) on
// an engine, as the solve loop drives it: sweep moves the state, settle
// checks the proof when the schedule says so (check: the selection and
// its bounds; prove: the proved gap; refine: reverse pushes at the
// boundary; lead: the order within the selection) and then either stops,
// runs a threshold scan or lets the loop sweep on (schedule, scan).
type topKSolve struct {
	e          *Engine
	k          int
	candidates []uint32
	opt        Options
	ordered    bool
	res        *TopKResult

	// Fixed for the solve.
	perCoord    bool    // undirected: the per-coordinate bound
	scanning    bool    // threshold scans (see scanFraction)
	order       Order   // resolved
	checkWithin float64 // see schedule (visitCheckWithin with visit bounds)
	maxSweeps   int

	// The state's statistics. st holds the residual's when have is set (a
	// scanning solve computes them with ||r||_1 in the pass after each
	// sweep or scan); rmax is max|r| when haveMax (a Gauss-Seidel sweep
	// with visit bounds computes it with ||r||_1).
	l1      float64 // ||r||_1
	st      residualStats
	have    bool
	rmax    float64
	haveMax bool
	// signed: the residual may have negative entries (a residual without
	// any keeps none: pushes and sweeps only add to r).
	signed bool
	// decay is the factor the last sweep shrank ||r||_1 by: d for a
	// non-negative residual under Jacobi sweeps (at most d under
	// Gauss-Seidel), often far less for a Normalized one.
	decay float64
	norm  normalizedRun
	// The schedule: the sweep of the next check, and the threshold scans
	// tried (at most maxSweeps of them, on top of the sweeps: a scan can
	// push little, and the cap must stay a cap).
	nextCheck, scans int

	// The last check's: the bound l1Bound = ||r||_1/alpha, the per-node
	// bounds, the raw gap the proof waits on and the error term that
	// hides it (a scale for the schedule), and need, the per-coordinate
	// factor C (E(u) = C*W(u)) below which the blocking comparisons would
	// be proved at the current x (the threshold scans aim at it).
	l1Bound          float64
	eb               errorBounds
	gap, slack, need float64
	rest             restSummary // undirected views: what the check's pass learnt of the unselected
}

func (e *Engine) solveTopK(k int, candidates []uint32, opt Options) (*TopKResult, error) {
	if k < 1 {
		return nil, fmt.Errorf("ppr: k = %d, want at least 1", k)
	}
	e.adopt(opt)
	s, tol, err := e.newTopKSolve(k, candidates, opt)
	if err != nil {
		return nil, err
	}
	defer func() { e.local.on = false }()
	if err := solveToTolerance(s, tol, s.maxSweeps); err != nil {
		return nil, err
	}
	return s.res, nil
}

// newTopKSolve validates the options and sets up the solve from the
// engine's state; it returns the tolerance too.
func (e *Engine) newTopKSolve(k int, candidates []uint32, opt Options) (*topKSolve, float64, error) {
	view := e.view
	// An undirected view's first check needs the residual's statistics,
	// which hold ||r||_1 (summed in the same order): one pass for both. A
	// solve from the native start state (x = 0: every candidate ties at 0)
	// checks first after its first sweep, so it needs ||r||_1 alone.
	var st residualStats
	perCoord := !view.Directed()
	fromStart := opt.PriorPasses == 0
	if perCoord && !fromStart {
		st = e.residualStats()
	} else {
		st.l1 = e.residualL1()
	}
	l1 := st.l1
	tol, maxSweeps, err := opt.limits(view, l1, e.damping)
	if err != nil {
		return nil, 0, err
	}
	s := &topKSolve{
		e: e, k: k, candidates: candidates, opt: opt, ordered: opt.Ordered,
		res:      &TopKResult{Scores: e.X},
		perCoord: perCoord, order: opt.Order.resolve(view.Directed(), true),
		checkWithin: 2, maxSweeps: maxSweeps, l1: l1, decay: e.damping,
	}
	if opt.Visits != nil {
		if !s.perCoord {
			if err := opt.Visits.check(view, e.damping); err != nil {
				return nil, 0, err
			}
		}
		s.checkWithin = visitCheckWithin
	}
	// Threshold scans need the per-coordinate bound and Gauss-Seidel's
	// in-place order.
	s.scanning = s.perCoord && e.tune.thresholdScans && opt.Threads <= 1 && s.order == GaussSeidel
	if s.scanning && e.tune.localChecks {
		e.enterLocal()
	}
	// Local checks take the statistics over their list (the same values
	// summed in another order): the first check computes those.
	s.st, s.have = st, perCoord && !e.local.on && !fromStart
	if fromStart {
		s.nextCheck = 1
	}
	e.refine.reset()
	if !fromStart {
		e.refine.warmArcs = int64(view.Graph().NumArcs())
	}
	s.signed = !s.perCoord && slices.ContainsFunc(e.R, func(rv float64) bool { return rv < 0 })
	return s, tol, nil
}

func (s *topKSolve) bound() (float64, error) {
	s.l1Bound = s.l1 / s.e.alpha
	return s.l1Bound, checkBound(s.l1Bound, s.res.Sweeps)
}

func (s *topKSolve) partial() []*Result {
	return []*Result{{Scores: s.e.X, ResidualL1: s.l1, ErrorBound: s.l1Bound, Sweeps: s.res.Sweeps}}
}

// sweep makes one pass: a full Gauss-Seidel scan (with the statistics in
// the same pass) on a scanning solve, a sweep in the solve's order
// otherwise.
func (s *topKSolve) sweep() {
	if s.scanning {
		s.scan(0)
	} else {
		s.sweepOnce()
		s.have = false
	}
	s.res.Sweeps++
}

// scan runs a threshold scan at eps (PushScan, over S alone with local
// checks on) and the residual's statistics, and returns the pushes made.
func (s *topKSolve) scan(eps float64) int {
	e := s.e
	var pushes int
	if e.local.on {
		pushes, _ = e.pushScanOver(eps, e.local.members.Words())
		e.local.relist(len(e.X))
	} else {
		pushes = e.PushScan(eps)
	}
	s.st, s.have = e.residualStats(), true
	s.l1 = s.st.l1
	return pushes
}

// warmRounds is a warm start's threshold scan while a few nodes hold the
// largest ratios (a cache's adjusted nodes): rounds of pushes (PushRounds)
// from the nodes above eps = the largest ratio over warmScanReach, until
// none the pushes reached is above it, so that what they spread settles
// where it lands (a scan's single pass in id order leaves it above eps
// for the next scan). It reports false, having pushed nothing, when eps
// is not above need's threshold or more than a localShare of the nodes
// are above it (a global correction, which scans at need's threshold
// serve better); else it sets the statistics and the pushes made.
func (s *topKSolve) warmRounds(needEps float64) (int, bool) {
	e := s.e
	eps := s.st.maxRatio / warmScanReach
	if s.opt.PriorPasses == 0 || e.local.on || !(eps > needEps) {
		return 0, false
	}
	w := e.view.NodeOutWeights()
	var frontier []uint32
	for u, rv := range e.R {
		t := eps * w.At(uint32(u))
		if t == 0 {
			t = eps
		}
		if math.Abs(rv) > t {
			if frontier = append(frontier, uint32(u)); len(frontier) > len(e.R)/localShare {
				return 0, false
			}
		}
	}
	before := e.Stats.Pushes
	e.PushRounds(eps, frontier, 0)
	s.st, s.have = e.residualStats(), true
	s.l1 = s.st.l1
	return int(e.Stats.Pushes - before), true
}

// sweepOnce runs one sweep in the solve's order.
func (s *topKSolve) sweepOnce() {
	e, opt := s.e, s.opt
	if opt.Visits != nil && !s.perCoord && opt.Threads <= 1 && s.order == GaussSeidel {
		e.PushScan(0)
		s.l1, s.rmax = e.residualL1Max()
		s.haveMax = true
		return
	}
	before, wasNormalized := s.l1, s.norm.started
	s.l1, s.haveMax = e.sweep(s.order, opt.Threads, &s.norm), false
	if s.norm.started {
		s.signed = !s.perCoord // the normalized residual sums to zero
		if wasNormalized && before > 0 {
			s.decay = s.l1 / before
		}
	}
}

// settle checks the proof when it is due (the schedule's sweep, the
// tolerance or the cap reached) and stops once the selection is proved
// (its order too, for an ordered solve) or the tolerance is reached; else
// it schedules the next check and may run a threshold scan.
func (s *topKSolve) settle(converged, capped bool) (done, moved bool, err error) {
	res := s.res
	if res.Sweeps < s.nextCheck && !converged && !capped {
		return false, false, nil
	}
	s.check()
	// A selection of every candidate is exact as a set before any sweep,
	// and its order may be proved early, but a score proved only to lie
	// within a large bound is no estimate (at the start, x = 0 and the
	// bound is the whole mass): such a solve runs to the tolerance, as
	// Solve does, without checking on the way.
	everySelected := math.IsInf(res.Gap, 1)
	if (res.Certified && (res.Ordered || !s.ordered) && !everySelected) || converged {
		return true, false, s.finish()
	}
	s.schedule(everySelected)
	return false, s.scanToNeed(everySelected), nil
}

// finish checks the scores and keeps the state's proof, from the last
// check's statistics.
func (s *topKSolve) finish() error {
	e, res := s.e, s.res
	// A score that is not a number would have been ranked by comparisons
	// that are all false.
	if err := checkScores(e.X, res.Sweeps); err != nil {
		return err
	}
	pst := residualStats{l1: s.l1, signed: s.eb.signed}
	if s.perCoord {
		pst = s.st
	}
	res.Proof = e.proofOf(pst, res.Sweeps+s.opt.PriorPasses)
	if s.perCoord && s.rest.ok {
		res.Proof.rest = s.rest.keep(res.TopK, s.candidates)
	}
	return nil
}

// check ranks the candidates and proves what the state proves about them:
// the proved gap (refined at the boundary when the unrefined bounds do
// not prove it), every gap and lead net of the rounding margin (roundoff),
// the score errors and the order.
func (s *topKSolve) check() {
	e, res := s.e, s.res
	if e.local.on {
		res.LocalChecks++
	}
	var top []Scored
	if e.local.on && s.candidates == nil {
		top = e.localTop(s.k+1, e.view.Ranks())
	} else {
		top = TopK(e.X, s.k+1, s.candidates, e.view.Ranks())
	}
	res.TopK, res.Gap = top, math.Inf(1)
	s.rest = restSummary{}
	if len(top) > s.k {
		res.TopK, res.Gap = top[:s.k], top[s.k-1].Score-top[s.k].Score
		s.rest.high, s.rest.highX = top[s.k].Node, top[s.k].Score
	}
	res.ErrorBound = s.l1Bound
	s.eb = errorBounds{l1: s.l1Bound * e.tune.boundScale, signed: s.signed}
	if s.perCoord {
		if !s.have {
			s.st = e.residualStats()
		}
		s.eb = e.coordBounds(s.st, s.l1Bound)
		res.CoordBound = s.eb.coord
	}
	s.gap, s.slack, s.need = 0, 0, math.Inf(1)
	res.Refined = 0
	round := e.roundoff(res.Sweeps + s.opt.PriorPasses)
	if math.IsInf(res.Gap, 1) {
		res.ProvedGap = math.Inf(1)
	} else {
		s.prove(round)
	}
	// Every proof so far bounds the exact gap; less the rounding margin it
	// is what the check may rely on (roundoff), and so are the leads.
	res.ProvedGap -= round
	s.eb.round = round
	res.Signed = s.eb.signed
	s.lead()
	res.Certified = res.ProvedGap > 0
}

// prove sets the proved gap of the selection against the best unselected
// candidate: coordGap's per-node proof on undirected views, the L1 bound
// (and visit bounds) on directed ones, then reverse refinement when that
// proves nothing beyond the rounding margin.
func (s *topKSolve) prove(round float64) {
	e, res := s.e, s.res
	if e.inSel == nil {
		e.inSel = make([]bool, len(e.X))
	}
	var bs *blockerSet // refineTopK's blockers, from coordGap's pass
	if s.perCoord {
		if e.tune.refineUndirected {
			bs = &e.refine.collected
			bs.reset(maxRefined)
		}
		visit, outsideHi := s.candidates, math.Inf(-1)
		if e.local.on && s.candidates == nil {
			visit, outsideHi = e.localVisit(&s.eb, res.TopK)
		}
		var maxRest, maxErr, maxW float64
		res.ProvedGap, s.slack, s.need, maxRest, maxErr, maxW = coordGap(e.X, &s.eb, res.TopK, visit, e.inSel, bs, outsideHi)
		s.gap = res.Gap
		s.rest.note(&s.eb, maxRest, maxErr, maxW, bs)
	} else {
		s.proveDirected()
	}
	if res.ProvedGap <= round && e.tune.refining(s.perCoord) {
		refined, n, refinedNeed := e.refineTopK(res.TopK, s.candidates, s.l1, &s.eb, s.stats(), res.Gap, bs)
		if refined > res.ProvedGap {
			res.ProvedGap, res.Refined = refined, n
		}
		s.need = max(s.need, refinedNeed)
		res.ReverseArcs = e.refine.arcs()
	}
}

// stats returns the residual's statistics for the per-coordinate bound,
// nil on directed views.
func (s *topKSolve) stats() *residualStats {
	if s.perCoord {
		return &s.st
	}
	return nil
}

// proveDirected is prove's unrefined proof on a directed view.
func (s *topKSolve) proveDirected() {
	e, res := s.e, s.res
	if s.signed {
		// Pushes may have cleared the negative entries.
		s.signed = slices.ContainsFunc(e.R, func(rv float64) bool { return rv < 0 })
		s.eb.signed = s.signed
	}
	if s.opt.Visits != nil {
		if !s.haveMax {
			s.rmax = e.maxAbsResidual()
		}
		s.eb = e.visitErrorBounds(s.opt.Visits, s.l1, s.l1Bound, s.rmax, s.signed)
	}
	res.ProvedGap, s.gap, s.slack = res.Gap-s.eb.l1, res.Gap, s.eb.l1
	// With visit bounds the direct per-node proof (coordGap) is needed
	// only where refineTopK does not look at the candidates: its unrefined
	// intervals of N are [x - below, x + nTerm] with nTerm(u) <= E(u) (and
	// below(v) <= E(v)), so its gap of N, before the 1 - c scaling, is at
	// least coordGap's, and a positive gap of N is a positive gap of pi;
	// when it gives up (more than maxRefinedVisits blockers, or thresholds
	// below finestReverse) some unselected x(u) + nTerm(u) reaches the
	// selection's lowest end, so coordGap would prove nothing either. One
	// pass serves both.
	if s.eb.vis != nil && (!e.tune.refineDirected || !refinesAt(s.l1, e.alpha, e.damping, true)) {
		proved, at, _, _, _, _ := coordGap(e.X, &s.eb, res.TopK, s.candidates, e.inSel, nil, math.Inf(-1))
		res.ProvedGap, s.slack = max(res.ProvedGap, proved), at
	}
}

// lead fills the leads and score errors of the selection and whether its
// order is proved (the ordered SolveTopK's proof); once the set is proved, an
// ordered solve waits on its closest unproved pair instead, refined by
// reverse pushes.
func (s *topKSolve) lead() {
	e, res, eb := s.e, s.res, &s.eb
	res.Leads, res.ScoreErrs = res.Leads[:0], res.ScoreErrs[:0]
	res.Ordered = true
	pairGap, pairSlack := math.Inf(1), 0.0
	for i, v := range res.TopK {
		res.ScoreErrs = append(res.ScoreErrs, eb.abs(v.Node))
		if i == len(res.TopK)-1 {
			res.Leads = append(res.Leads, res.ProvedGap)
			break
		}
		next := res.TopK[i+1]
		lead := eb.lead(v, next)
		res.Leads = append(res.Leads, lead)
		if lead <= 0 {
			res.Ordered = false
			if raw := v.Score - next.Score; raw < pairGap {
				pairGap, pairSlack = raw, eb.at(next.Node)
			}
			if wb := eb.w; s.ordered && wb != nil && wb.At(next.Node) > 0 {
				s.need = min(s.need, (v.Score-next.Score)/wb.At(next.Node))
			}
		}
	}
	if s.ordered && res.ProvedGap > 0 && !res.Ordered {
		s.gap, s.slack = pairGap, pairSlack
		if e.tune.refining(s.perCoord) {
			res.Ordered = e.refineLeads(res.TopK, res.Leads, s.l1, eb, s.stats())
			res.ReverseArcs = e.refine.arcs()
		}
	}
}

// schedule sets the sweep of the next check. A non-negative residual
// shrinks by d per sweep (a Normalized one by the last sweep's ratio,
// decay), so the bound cannot pass the current gap sooner than
// log(gap/slack)/log(decay) sweeps; but the gap itself still moves, by
// orders of magnitude while the top-k forms, so the solve waits half of
// that and at most maxCheckWait sweeps before recomputing the top-k (a
// check costs O(candidates), a few percent of a sweep). A selection of
// every candidate is not checked again.
func (s *topKSolve) schedule(everySelected bool) {
	res := s.res
	if s.gap > 0 && s.decay > 0 && s.decay < 1 && s.slack > s.gap {
		wait := int(math.Log(s.gap/s.slack)/math.Log(s.decay)) / 2
		s.nextCheck = res.Sweeps + min(wait, maxCheckWait)
		// Reverse refinement needs few unselected candidates within the
		// L1 term of the selection, which happens abruptly once the term
		// drops below the selection's lowest score (nodes at x = 0 all
		// straddle before); from within checkWithin of it the next sweep
		// may suffice, so check after every one.
		if s.e.tune.refineDirected && !s.perCoord && s.eb.l1 < s.checkWithin*res.TopK[len(res.TopK)-1].Score {
			s.nextCheck = 0
		}
	}
	if everySelected {
		s.nextCheck = math.MaxInt
	}
}

// scanToNeed runs the threshold scan the last check asks for, at eps =
// alpha*need*scanFraction (see scanFraction), and reports whether it
// pushed anything (then the proof is checked again at once).
func (s *topKSolve) scanToNeed(everySelected bool) bool {
	res := s.res
	if !s.scanning || everySelected || !(s.need > 0) || math.IsInf(s.need, 1) || s.scans >= s.maxSweeps {
		return false
	}
	s.scans++
	eps := s.e.alpha * s.need * scanFraction
	pushes, warm := s.warmRounds(eps)
	if !warm {
		pushes = s.scan(eps)
	}
	if pushes == 0 {
		return false
	}
	res.Sweeps++
	res.Scans++
	s.nextCheck = 0
	return true
}
