package replay

import (
	"math"
	"slices"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// maxFullSweeps caps the full path; reaching it decides by the estimate.
const maxFullSweeps = 100000

// run is one query's replay after the native selection. The workspace's
// arrays hold the native state (x_G, r_G) when it starts; the replay turns
// them into an authenticated state in place.
type run struct {
	gd     *Guard
	ws     *workspace
	q      Query
	k      int
	d      *Decision
	seeds  ppr.Seeds
	passes int // passes over the state so far: the proofs' rounding margin

	sel         []uint32   // the native selection
	nativeProof *ppr.Proof // the native state's, on the native view
	provedWarm  bool       // the native selection proved a warm state with no pass over the nodes
	nativeStats ppr.Stats  // the native solve's work, which the authenticated engine starts from
	skipped     float64    // sum of x_G(u)*l_u over touched rows not yet corrected
	// pushed: push rounds from the whole support ran since the last
	// correction, and the workspace's leftover accounts for them.
	pushed    bool
	done      []bool // per touched index: row corrected
	rowArcOps int64
}

func (r *run) alpha() float64   { return 1 - r.q.Damping }
func (r *run) damping() float64 { return r.q.Damping }

// decide runs the paths, cheapest first, and fills r.d.
func (r *run) decide() {
	ws, gd := r.ws, r.gd
	r.sel = ws.sel[:0]
	for _, s := range r.d.Native {
		r.sel = append(r.sel, s.Node)
		ws.inSel[s.Node] = true
	}
	defer func() {
		for _, v := range r.sel {
			ws.inSel[v] = false
		}
		ws.sel = r.sel[:0]
	}()
	// The authenticated engine continues the native solve's work: its
	// reverse pushes may spend a share of every arc read so far.
	r.nativeStats = ws.nativeEng.Stats
	ws.authEng.Stats = r.nativeStats
	// The native solve's reverse estimates serve the authenticated view
	// where their pushes read no row that differs.
	ws.authEng.ShareEstimates(ws.nativeEng, gd.differ, gd.gainers, &gd.rows)

	// Native mass on touched rows: B = sum x_G(u)*l_u. One pass over T.
	ws.xTouched = ws.xTouched[:0]
	B := 0.0
	for i, u := range gd.touched.nodes {
		ws.xTouched = append(ws.xTouched, ws.x[u])
		B += ws.x[u] * gd.touched.rowDiff[i]
	}
	r.skipped = B

	if gd.opt.Force == PathAuto {
		// The native state as it is, on the authenticated view: its
		// residual there is r_G plus the correction c = d*sum_T
		// x_G(u)*(P_A[u] - P_G[u]), ||c||_1 <= d*B. The proof bounds
		// r_G*(I - d*P_A)^-1 (the rows that differ are listed as changed)
		// and the correction's share moves the gap by at most d*B/alpha.
		// Untouched: no touched row carries native mass, c = 0.
		extra := r.damping() * B / r.alpha()
		if r.certificateMayDecide(extra) && r.tryCertificate(B, extra) {
			return
		}
	}
	if gd.opt.Force != PathFull && r.delta() {
		return
	}
	r.full()
}

// tryCertificate decides with the native state's proof on the
// authenticated view (see decide), widened by extra = d*B/alpha.
func (r *run) tryCertificate(B, extra float64) bool {
	gd, ws := r.gd, r.ws
	pa := ws.authEng.Prove(r.passes, r.nativeProof, gd.touched.nodes)
	if len(gd.touched.nodes) == 0 {
		// The views have the same rows: the native proof is the
		// authenticated one, and its engine holds the reverse
		// estimates the native selection was refined with.
		pa = r.nativeProof
	}
	path := PathCertificate
	if B == 0 {
		path = PathUntouched
	}
	// Refining (reverse pushes) pays only when the correction's L1 term
	// leaves room: with it above the native gap no refined interval can
	// prove more than the unrefined one.
	return r.tryFinish(path, pa, extra, extra < r.d.NativeGap)
}

// certificateMayDecide reports whether the native state's proof widened
// by extra can classify. Its interval holds the raw gap g of the native
// state (NativeGap: the selection's least x minus the rest's greatest), so
// widened it reaches below g - extra and above g + extra; with g >= 0 it
// cannot prove a divergence, nor the same selection when g <= extra, nor
// a tie when g + extra > TieTol. Then the certificate path would only
// read the candidates to learn that.
func (r *run) certificateMayDecide(extra float64) bool {
	g := r.d.NativeGap
	return !(g >= 0 && g <= extra && g+extra > r.gd.opt.TieTol)
}

// correct applies d*x_G(u)*(P_A[u] - P_G[u]) to the state for the touched
// rows whose native mass times l_u is at least theta, and removes them from
// skipped; every node it changes joins the support. The rows left out are
// bounded in L1 by d*skipped.
//
// A row costs O(its differing arcs), not O(its degree). With W_A, W_G > 0,
// splitting u's arcs into common ones, A-only and G-only,
//
//	P_A[u] - P_G[u] = (1 - W_A/W_G)*P_A[u] + (sum_{A-only} w*e_v - sum_{G-only} w*e_v)/W_G
//
// and a residual d*rho*P_A[u] is the same state as moving rho from x(u)
// into r(u): for x' = x - rho*e_u, the residual of x' is
// r - d*rho*e_u*P_A + rho*e_u. So the first term is x(u) -= rho,
// r(u) += rho with rho = x_G(u)*(1 - W_A/W_G), and only the differing arcs
// are touched one by one. A row dangling in the authenticated view equals s
// = e_u*P_A, so rho = x_G(u) and every native arc differs; a row dangling
// natively is P_A[u] - s: rho = x_G(u) and -d*x_G(u)*s on the seeds. So
// 0 <= rho <= x_G(u) always: when W_A > W_G > 0 (an untrusted deletion) the
// split would need a large negative rho, and that row is written arc by arc.
func (r *run) correct(theta float64) {
	gd, ws := r.gd, r.ws
	if r.done == nil {
		r.done = make([]bool, len(gd.touched.nodes))
	}
	x, res := ws.x, ws.r
	sup := ws.support
	d := r.damping()
	r.pushed = false
	for i, u := range gd.touched.nodes {
		m := ws.xTouched[i] * gd.touched.rowDiff[i]
		if r.done[i] || m < theta || m == 0 {
			continue
		}
		r.done[i] = true
		r.skipped -= m
		xu := ws.xTouched[i]
		wg, wa := gd.touched.outWeight[i].native, gd.touched.outWeight[i].auth
		if wa > wg && wg > 0 {
			// An untrusted deletion left the native row lighter: the split
			// below would need rho = x*(1 - W_A/W_G) < 0, as large as
			// x*W_A/W_G, and the cancellation costs precision. Write the
			// row difference arc by arc instead (O(degree), rare).
			r.rowDifference(u, xu, wg, wa)
			continue
		}
		rho := xu // 0 <= rho <= x_G(u) in every case below
		if wa > 0 && wg > 0 {
			rho = xu * (1 - wa/wg)
		}
		x[u] -= rho
		res[u] += rho
		sup.Add(u)
		if wg == 0 {
			for j, s := range r.seeds.Nodes {
				res[s] -= d * xu * r.seeds.Weights[j]
				sup.Add(s)
			}
			r.rowArcOps += int64(len(r.seeds.Nodes))
			continue // A-only arcs are in rho's P_A[u]; there are no G arcs
		}
		// Differing arcs: A-only ones add d*x*w/W_G, G-only ones subtract it
		// (diffArcs weights carry the sign).
		lo, hi := gd.touched.span(i)
		r.rowArcOps += int64(hi - lo)
		for j, v := range gd.touched.arcs.nbr[lo:hi] {
			res[v] += d * xu * gd.touched.arcs.weight[j+lo] / wg
			sup.Add(v)
		}
	}
	if r.skipped < 0 || !slices.Contains(r.done, false) {
		r.skipped = 0 // rounding: every row is in
	}
}

// rowDifference adds d*x_G(u)*(P_A[u] - P_G[u]) to the residual arc by arc
// over both rows (both have out-weight).
func (r *run) rowDifference(u uint32, xu, wg, wa float64) {
	gd, ws := r.gd, r.ws
	d := r.damping()
	for _, side := range [2]struct {
		row  mask.Row
		coef float64
	}{{gd.auth.OutRow(u), 1 / wa}, {gd.native.OutRow(u), -1 / wg}} {
		row := side.row
		r.rowArcOps += int64(row.Len())
		for p, v := range row.Nbr {
			if w := row.Weight.At(p); w != 0 && row.Live(p) {
				ws.r[v] += d * xu * w * side.coef
				ws.support.Add(v)
			}
		}
	}
}

// changed lists the nodes whose residual or row may differ from the native
// proof's: the touched rows and the support of the corrections and pushes.
func (r *run) changed() []uint32 {
	r.ws.changed = append(r.support(), r.gd.touched.nodes...)
	return r.ws.changed
}

// delta corrects the touched rows (those carrying at least a share theta of
// the native mass), pushes the corrections on the authenticated view where
// they raised the residual above the ratio the decision needs (never below
// the native state's largest ratio: below it a push would move the native
// residual too, which only a global pass does well), and proves. When that
// proof does not decide, it pushes the correction's positive residual
// down to the native state's largest ratio and its negative residual ten
// times finer, and proves again: what is left of them widens the
// selection's bounds, and it is local, where a global pass (the full
// path) would push the native residual everywhere. It reports whether it
// decided.
func (r *run) delta() bool {
	gd := r.gd
	alpha, tie := r.alpha(), gd.opt.TieTol
	// Rows left out add less than n*theta*d/alpha to the L1 term: a
	// quarter of the error that lets the native gap decide (below gx it
	// proves gapA > 0, below tie - gx it proves |gapA| <= tie).
	gx := r.d.NativeGap
	margin := max(gx, tie-gx)
	theta := 0.0
	if n := len(gd.touched.nodes); n > 0 {
		theta = margin / 4 * alpha / (r.damping() * float64(n))
	}
	r.correct(theta)
	r.passes++
	if gd.auth.Directed() {
		return r.tryFinish(PathDelta, r.prove(), r.damping()*r.skipped/alpha, true)
	}
	// The correction's positive residual is pushed down to the ratio at
	// which the selection's bounds grow by at most a third of the margin
	// (their coordinate term is about d/alpha*ratio*W(v), and d < 1),
	// never below the native state's largest ratio (below it a push would
	// move the native residual too, which only a global pass does well);
	// its negative residual (which costs the selection its one-sided lower
	// bounds) to where no selected lower end falls more than a third of the
	// margin below the selection's lowest score (lowerRoom), or, when the
	// native selection proved a warm state without a pass over the nodes,
	// to the native level at most: that level is what an earlier query's
	// proof needed, the residual sits near it wherever the warm rounds
	// pushed, and the refined proof has room for a negative residual
	// there, where a finer push may spread over much of the graph.
	// Both parts in the same rounds: on a warm proof with no pass, at the
	// same ratio.
	level := r.nativeProof.MaxRatio()
	wref := r.selectionWeight()
	coarse, below := level, level
	if wref > 0 {
		coarse, below = max(level, alpha*margin/(3*wref)), r.lowerRoom(margin/3)
		if r.provedWarm {
			below = coarse
		}
	}
	r.push(coarse, below)
	extra := r.damping() * r.skipped / alpha
	if r.tryFinish(PathDelta, r.prove(), extra, true) {
		return true
	}
	// Not decided: the positive residual down to the native level, the
	// negative ten times finer, and prove again.
	if wref == 0 {
		return false
	}
	r.push(level, min(level, r.lowerRoom(margin/30)))
	return r.tryFinish(PathDelta, r.prove(), extra, true)
}

// lowerRoom returns the negative residual's ratio at which no selected
// node's lower end falls below the selection's lowest native score less
// drop: a selected v may lose its lead over that score, x(v) - min x,
// plus drop, and a negative ratio rho costs its lower end about
// d/alpha*rho*W(v) <= rho*W(v)/alpha, so rho = alpha*(x(v) - min x +
// drop)/W(v) at the least. It is alpha*drop/W for the greatest W when
// every selected score is the lowest, and coarser as the selection's
// heavier nodes lead: a threshold only, which the proof after the push
// checks.
func (r *run) lowerRoom(drop float64) float64 {
	lowest := math.Inf(1)
	for _, s := range r.d.Native {
		lowest = min(lowest, s.Score)
	}
	room := math.Inf(1)
	for _, s := range r.d.Native {
		if w := r.gd.auth.OutWeight(s.Node); w > 0 {
			room = min(room, r.alpha()*(s.Score-lowest+drop)/w)
		}
	}
	return room
}

// selectionWeight returns the selection's greatest out-weight on the
// authenticated view.
func (r *run) selectionWeight() float64 {
	wref := 0.0
	for _, v := range r.sel {
		wref = max(wref, r.gd.auth.OutWeight(v))
	}
	return wref
}

// push pushes the residual on the support down to ratio above where it
// is positive and below where it is negative (below <= above; no push
// when above is 0), within the delta budget.
func (r *run) push(above, below float64) {
	if above <= 0 {
		return
	}
	// The rounds start from every node changed since the native proof, so
	// their leftover alone accounts for those nodes' residuals.
	eng, left := r.ws.authEng, &r.ws.left
	left.Reset()
	left.WatchCandidates(eng, r.nativeProof, r.q.Candidates)
	eng.Left = left
	eng.PushRoundsSigned(above, below, r.support(), r.budgetLeft())
	eng.Left = nil
	r.pushed = true
	r.passes++
}

// prove returns the proof of the state, derived from the native proof:
// after push rounds from the whole support, their leftover stands for the
// support's residuals (and, logging the candidates, for their values in
// the proof's gaps) and only the touched rows outside the support are read
// (their out-rows differ from the native proof's, their residuals do
// not); otherwise every changed node is read.
func (r *run) prove() *ppr.Proof {
	eng, left := r.ws.authEng, &r.ws.left
	if !r.pushed {
		return eng.Prove(r.passes, r.nativeProof, r.changed())
	}
	var changed []uint32 // not read when the log stands for the support
	if !left.Covers(r.nativeProof) {
		changed = r.changed()
	}
	return eng.ProveLeftover(r.passes, r.nativeProof, left, changed, r.unvisitedTouched())
}

// unvisitedTouched lists the touched rows outside the support. The rounds
// the leftover accounts for start from the whole support and visit, on the
// authenticated view, every node they change, so a touched row in the
// support has its residual and out-weight there in the leftover (and in
// its log); one outside it (a row left out of the correction, or written
// arc by arc without an arc to itself) keeps its native residual under
// another out-weight, which nothing has read yet.
func (r *run) unvisitedTouched() []uint32 {
	ws := r.ws
	ws.unvisited = ws.unvisited[:0]
	for _, u := range r.gd.touched.nodes {
		if !ws.support.Has(u) {
			ws.unvisited = append(ws.unvisited, u)
		}
	}
	return ws.unvisited
}

// support lists the nodes the corrections and pushes changed so far.
func (r *run) support() []uint32 {
	ws := r.ws
	ws.changed = ws.support.AppendNodes(ws.changed[:0])
	return ws.changed
}

// budgetLeft is what the delta budget leaves for pushes (at least 1: a
// budget of 0 means none to the engine).
func (r *run) budgetLeft() int64 {
	spent := r.ws.authEng.Stats.ArcOps - r.nativeStats.ArcOps + r.rowArcOps
	return max(r.gd.opt.DeltaBudget-spent, 1)
}

// tryFinish classifies with the state's proof, widened by extra (an L1 term
// the proof does not cover), and, when it decides (a divergence also needs
// a proved authenticated selection), finishes with the given path.
func (r *run) tryFinish(path Path, proof *ppr.Proof, extra float64, refine bool) bool {
	gd, ws := r.gd, r.ws
	// RefinedGap reads the candidates once, as Gap does, and refines only
	// candidates whose unrefined intervals straddle the boundary (none when
	// the selection is clearly ahead), so it replaces Gap when refining is
	// allowed rather than following it.
	var iv Interval
	refined := 0
	if refine {
		iv, refined = proof.RefinedGap(r.sel, r.q.Candidates, ws.inSel)
	} else {
		iv = proof.Gap(r.sel, r.q.Candidates, ws.inSel)
	}
	iv = widen(iv, extra)
	out, ok := classify(iv, gd.opt.TieTol)
	if !ok {
		return false
	}
	var auth []ppr.Scored
	if out == Divergent {
		var proved bool
		if auth, proved = r.authProved(proof, extra, refine); !proved {
			return false
		}
	}
	r.finish(path, out, iv, auth)
	r.d.Refined = refined
	return true
}

// widen widens an interval by an L1 term on both sides.
func widen(iv Interval, extra float64) Interval {
	return Interval{Lo: iv.Lo - extra, Hi: iv.Hi + extra}
}

// authEstimate returns the top-k of the state's estimate over the
// candidates.
func (r *run) authEstimate() []ppr.Scored {
	return ppr.TopK(r.ws.x, r.k, r.q.Candidates, r.gd.auth.Ranks())
}

// authProved returns the estimated authenticated top-k and whether it is
// proved a top-k of pi_A up to the tie tolerance: its own gap interval has
// Lo >= -TieTol.
func (r *run) authProved(proof *ppr.Proof, extra float64, refine bool) ([]ppr.Scored, bool) {
	ws, tie := r.ws, r.gd.opt.TieTol
	auth := r.authEstimate()
	nodes := make([]uint32, len(auth))
	for i, s := range auth {
		nodes[i] = s.Node
		ws.authMark[s.Node] = true
	}
	defer func() {
		for _, v := range nodes {
			ws.authMark[v] = false
		}
	}()
	iv := widen(proof.Gap(nodes, r.q.Candidates, ws.authMark), extra)
	if iv.Lo < -tie && refine {
		riv, _ := proof.RefinedGap(nodes, r.q.Candidates, ws.authMark)
		iv = widen(riv, extra)
	}
	return auth, iv.Lo >= -tie
}

// full corrects every touched row and proves the authenticated top-k from
// that state with ppr's certified top-k (threshold scans where the proof
// needs them, refinement, local checks), then decides with the proof of
// the state it reached; while that does not decide (a gap near the tie
// band's edge), it scans on to the precision floor, where the estimate
// decides.
func (r *run) full() {
	gd, ws := r.gd, r.ws
	r.correct(0)
	r.passes++
	eng := ws.authEng
	before := eng.Stats.Sweeps
	if res, err := eng.SolveTopK(r.k, r.q.Candidates, ppr.Options{Tol: gd.opt.Tol, PriorPasses: r.passes}); err == nil {
		r.passes += res.Sweeps
	}
	// An error (the sweep cap) leaves a valid state: the loop below goes on.
	for {
		proof := eng.Prove(r.passes, nil, nil)
		if r.tryFinish(PathFull, proof, 0, true) {
			break
		}
		// Out of precision: the proved interval is down to the rounding
		// margin, and the estimate decides (see the package doc).
		iv := proof.Gap(r.sel, r.q.Candidates, ws.inSel)
		if iv.Hi-iv.Lo <= 8*proof.Rounding() || eng.Stats.Sweeps-before >= maxFullSweeps {
			g := selectionGap(ws.x, r.d.Native, r.q.Candidates)
			out, _ := classify(Interval{Lo: g, Hi: g}, gd.opt.TieTol) // a point always classifies
			var auth []ppr.Scored
			if out == Divergent {
				auth = r.authEstimate()
			}
			r.finish(PathFull, out, iv, auth)
			break
		}
		// Push only the nodes within 4x of the largest residual ratio: the
		// bound is set by the largest, and the rest wait for a later scan.
		// Directed views are bounded in L1, which every push of any node
		// reduces: sweep them whole.
		eps := proof.MaxRatio() / 4
		if gd.auth.Directed() {
			eps = 0
		}
		eng.PushScan(eps)
		r.passes++
	}
	r.d.ReplaySweeps = eng.Stats.Sweeps - r.nativeStats.Sweeps
}

// finish records the decision; auth is the proved authenticated selection
// of a divergence.
func (r *run) finish(path Path, out Outcome, iv Interval, auth []ppr.Scored) {
	d := r.d
	d.Path, d.Outcome, d.Gap = path, out, iv
	if !math.IsInf(iv.Lo, 1) {
		d.Bound = (iv.Hi - iv.Lo) / 2
	}
	if out == Divergent {
		d.Auth = auth
		d.Suspects = r.suspects()
	} else {
		// The native selection with its authenticated estimates.
		d.Auth = ppr.TopK(r.ws.x, r.k, r.sel, r.gd.auth.Ranks())
	}
	d.ReplayArcOps = r.ws.authEng.Stats.ArcOps - r.nativeStats.ArcOps + r.rowArcOps
}

// suspects returns the edges whose status differs between the views,
// ranked by the native mass they carried: for an edge only the native view
// has, out of u, d*x_G(u)*w/W_G(u); for one only the authenticated view has
// (a trusted edge an untrusted channel deleted), d*x_G(u)*w/W_A(u), the mass
// it would have carried. These are the largest terms of the correction.
func (r *run) suspects() []Suspect {
	return r.topSuspects(r.suspectMasses())
}

// suspectMasses returns, per edge whose status differs between the views,
// the native mass it carried (see suspects).
func (r *run) suspectMasses() map[uint32]suspectMass {
	gd := r.gd
	mass := make(map[uint32]suspectMass)
	for i := range gd.touched.nodes {
		xu := r.ws.xTouched[i]
		if xu == 0 {
			continue
		}
		wg, wa := gd.touched.outWeight[i].native, gd.touched.outWeight[i].auth
		arcs := &gd.touched.arcs
		lo, hi := gd.touched.span(i)
		for j := lo; j < hi; j++ {
			e, w := arcs.edge[j], arcs.weight[j]
			m := mass[e]
			if w < 0 {
				m.mass += r.damping() * xu * -w / wg
				m.native = true
			} else {
				m.mass += r.damping() * xu * w / wa
			}
			mass[e] = m
		}
	}
	return mass
}

// suspectMass is the mass an edge carried and whether it is the native
// view's (an untrusted addition) or the authenticated one's (a trusted edge
// an untrusted channel deleted).
type suspectMass struct {
	mass   float64
	native bool
}

// topSuspects returns the MaxSuspects edges of largest mass (ties by edge
// id) with their endpoints and the untrusted channels behind them.
func (r *run) topSuspects(mass map[uint32]suspectMass) []Suspect {
	gd := r.gd
	// Keep the MaxSuspects largest by insertion into a short sorted list,
	// and describe those alone: a one-percent regime has thousands of
	// differing edges.
	before := func(a, b Suspect) bool {
		if a.Mass != b.Mass {
			return a.Mass > b.Mass
		}
		return a.Edge < b.Edge
	}
	limit := gd.opt.MaxSuspects
	list := make([]Suspect, 0, limit+1)
	for e, m := range mass {
		s := Suspect{Edge: e, Mass: m.mass, Deleted: !m.native}
		if len(list) == limit && !before(s, list[limit-1]) {
			continue
		}
		i, _ := slices.BinarySearchFunc(list, s, func(a, b Suspect) int {
			if before(a, b) {
				return -1
			}
			return 1
		})
		list = slices.Insert(list, i, s)
		if len(list) > limit {
			list = list[:limit]
		}
	}
	for i := range list {
		s := &list[i]
		src, dst, channels, deleters := gd.edges(s.Edge)
		s.Src, s.Dst = src, dst
		if s.Deleted {
			s.Channels = gd.untrusted(deleters)
		} else {
			s.Channels = gd.untrusted(channels)
		}
	}
	return list
}

// untrusted returns the channels the guard's policy does not trust.
func (gd *Guard) untrusted(channels []string) []string {
	var out []string
	for _, c := range channels {
		if !gd.trust.Trusts(c) {
			out = append(out, c)
		}
	}
	return out
}
