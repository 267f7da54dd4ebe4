package replay

import (
	"math"
	"slices"

	"github.com/authppr/authppr/ppr"
)

// roundingSlack widens every proved interval by the float64 rounding the
// bounds leave out: they hold in exact arithmetic, and the vectors (which
// sum to 1) carry about 1e-16 of rounding per coordinate per sweep or push
// generation, far below this for any solve that finishes.
const roundingSlack = 1e-13

// precisionFloor is where refinement stops: below it float64 rounding of
// scores near 1 dominates any bound, and the estimate itself decides.
const precisionFloor = 2 * roundingSlack

// maxFullSweeps caps the full path; reaching it decides by the estimate.
const maxFullSweeps = 100000

// run is one query's replay after the native solve.
type run struct {
	gd    *Guard
	ws    *workspace
	q     Query
	k     int
	d     *Decision
	seeds ppr.Seeds
	tauG  float64 // native L1 error bound ||r_G||_1/alpha
	gx    float64 // native boundary gap of x_G: k-th minus (k+1)-th candidate

	// The authenticated estimate is x[v] + dx[v]: x_G plus the sparse
	// delta, or, on the full path, the dense state with dx all zero.
	x, dx []float64

	sel       []uint32 // native selection
	skipped   float64  // sum of x_G(u)*l_u over touched rows not yet materialized
	done      []bool   // per touched index: row materialized
	rowArcOps int64

	// Directed full path (reverse.go): the reverse estimates so far, and,
	// while refineDirected decides, the proved interval of N = (1-c)*pi_A
	// per refined candidate (other candidates are ranked by x).
	refine      refinement
	refined     map[uint32][2]float64
	refinedMark []bool // marks refined's keys, for O(1) tests in O(n) passes
}

// score is the estimate candidates are ranked by: x_G + dx, or, for a
// candidate refined on the directed full path, the middle of its interval.
func (r *run) score(v uint32) float64 {
	if r.refinedMark != nil && r.refinedMark[v] {
		b := r.refined[v]
		return (b[0] + b[1]) / 2
	}
	return r.x[v] + r.dx[v]
}

// boundaryEstimate returns the k-th largest estimate x + dx among the
// candidates (the last one when there are fewer) and the estimate's
// boundary gap: the k-th minus the (k+1)-th (+Inf when every candidate is
// selected).
func (r *run) boundaryEstimate() (kth, gap float64) {
	top := ppr.TopKByRanked(len(r.x), r.k+1, r.q.Candidates, func(v uint32) float64 { return r.x[v] + r.dx[v] }, r.gd.g.Ranks())
	if len(top) <= r.k {
		return top[len(top)-1].Score, math.Inf(1)
	}
	return top[r.k-1].Score, top[r.k-1].Score - top[r.k].Score
}

func (r *run) alpha() float64   { return 1 - r.q.Damping }
func (r *run) damping() float64 { return r.q.Damping }

// decide runs the paths, cheapest first, and fills r.d.
func (r *run) decide() {
	ws, gd := r.ws, r.gd
	xg := ws.nativeEng.X
	r.x, r.dx = xg, ws.deltaEng.X
	for _, s := range r.d.Native {
		r.sel = append(r.sel, s.Node)
		ws.inSel[s.Node] = true
	}
	defer func() {
		for _, v := range r.sel {
			ws.inSel[v] = false
		}
	}()

	// Native mass on touched rows: B = sum x_G(u)*l_u. One pass over T.
	ws.xTouched = ws.xTouched[:0]
	B := 0.0
	for i, u := range gd.touched.nodes {
		ws.xTouched = append(ws.xTouched, xg[u])
		B += xg[u] * gd.touched.rowDiff[i]
	}
	r.skipped = B
	gx := r.gx

	if gd.opt.Force == PathAuto {
		// Untouched: no touched row carries native mass, so the correction
		// is zero and r_A = r_G: x_G is as good for pi_A as for pi_G.
		if B == 0 {
			eps := r.tauG + roundingSlack
			iv := Interval{gx - eps, gx + eps}
			if out, ok := classify(iv, gd.opt.TieTol); ok {
				r.finish(PathUntouched, out, iv, eps)
				return
			}
		}
		// Certificate: pi_A - x_G = r_A*(I-dP_A)^-1 with
		// ||r_A||_1 <= ||r_G||_1 + d*B, so every pairwise gap of x_G is
		// within tau_G + d*B/alpha of pi_A's.
		eps := r.tauG + r.damping()*B/r.alpha() + roundingSlack
		iv := Interval{gx - eps, gx + eps}
		if out, ok := classify(iv, gd.opt.TieTol); ok {
			r.finish(PathCertificate, out, iv, eps)
			return
		}
	}
	if gd.opt.Force != PathFull && r.delta(gx) {
		return
	}
	r.full()
}

// materialize adds d*x_G(u)*(P_A[u] - P_G[u]) to the replay state for the
// touched rows whose native mass times l_u is at least theta, and removes
// them from skipped. The rows left out are bounded in L1 by d*skipped.
//
// A row costs O(its differing arcs), not O(its degree). With W_A, W_G > 0,
// splitting u's arcs into common ones, A-only and G-only,
//
//	P_A[u] - P_G[u] = (1 - W_A/W_G)*P_A[u] + (sum_{A-only} w*e_v - sum_{G-only} w*e_v)/W_G
//
// and a residual d*rho*P_A[u] is the same state as moving rho from x(u)
// into r(u): for x' = x - rho*e_u, the residual of x' is
// r - d*rho*e_u*P_A + rho*e_u. So the first term is dx(u) -= rho,
// dr(u) += rho with rho = x_G(u)*(1 - W_A/W_G), and only the differing arcs
// are touched one by one. A row dangling in the authenticated view equals s
// = e_u*P_A, so rho = x_G(u) and every native arc differs; a row dangling
// natively is P_A[u] - s: rho = x_G(u) and -d*x_G(u)*s on the seeds. So
// 0 <= rho <= x_G(u) always: when W_A > W_G > 0 (an untrusted deletion) the
// split would need a large negative rho, and that row is written arc by arc.
func (r *run) materialize(theta float64) {
	gd, ws := r.gd, r.ws
	if r.done == nil {
		r.done = make([]bool, len(gd.touched.nodes))
	}
	dx, dr := ws.deltaEng.X, ws.deltaEng.R
	sup := ws.support
	d := r.damping()
	for i, u := range gd.touched.nodes {
		m := ws.xTouched[i] * gd.touched.rowDiff[i]
		if r.done[i] || m < theta || m == 0 {
			continue
		}
		r.done[i] = true
		r.skipped -= m
		xu := ws.xTouched[i]
		wg, wa := gd.native.OutWeight(u), gd.auth.OutWeight(u)
		if wa > wg && wg > 0 {
			// An untrusted deletion left the native row lighter: the split
			// below would need rho = x*(1 - W_A/W_G) < 0, as large as
			// x*W_A/W_G, and the cancellation costs precision. Write the
			// row difference arc by arc instead (O(degree), rare).
			out := gd.g.Out()
			lo, hi := out.Span(u)
			r.rowArcOps += int64(hi - lo)
			for p := lo; p < hi; p++ {
				e := out.Edge[p]
				coef := 0.0
				if !gd.auth.MaskedEdge(e) {
					coef += 1 / wa
				}
				if !gd.native.MaskedEdge(e) {
					coef -= 1 / wg
				}
				if w := out.Weight.At(p); coef != 0 && w != 0 {
					dr[out.Nbr[p]] += d * xu * w * coef
					sup.Add(out.Nbr[p])
				}
			}
			continue
		}
		rho := xu // 0 <= rho <= x_G(u) in every case below
		if wa > 0 && wg > 0 {
			rho = xu * (1 - wa/wg)
		}
		dx[u] -= rho
		dr[u] += rho
		sup.Add(u)
		if wg == 0 {
			for j, s := range r.seeds.Nodes {
				dr[s] -= d * xu * r.seeds.Weights[j]
				sup.Add(s)
			}
			r.rowArcOps += int64(len(r.seeds.Nodes))
			continue // A-only arcs are in rho's P_A[u]; there are no G arcs
		}
		// Differing arcs: A-only ones add d*x*w/W_G, G-only ones subtract it
		// (diffArc weights carry the sign).
		arcs := gd.touched.arcs[gd.touched.arcStart[i]:gd.touched.arcStart[i+1]]
		r.rowArcOps += int64(len(arcs))
		for _, a := range arcs {
			dr[a.nbr] += d * xu * a.weight / wg
			sup.Add(a.nbr)
		}
	}
	if r.skipped < 0 || allDone(r.done) {
		r.skipped = 0 // rounding: every row is in
	}
}

func allDone(done []bool) bool {
	for _, d := range done {
		if !d {
			return false
		}
	}
	return true
}

// deltaModel bounds pi_A around x_G + dx from the sparse residual dr:
// r_A = r_G + dr + (rows not materialized), with r_G in L1 (tau_G), the
// rows left out in L1 (d*skipped/alpha), and dr per coordinate on nodes
// with out-weight when the view is undirected, in L1 otherwise.
func (r *run) deltaModel() errorModel {
	ws := r.ws
	ws.supNodes = ws.support.AppendNodes(ws.supNodes[:0])
	base := r.tauG + r.damping()*r.skipped/r.alpha()
	return residualModel(ws.deltaEng.R, r.gd.auth.OutWeights(), ws.supNodes, r.alpha(), base, r.gd.g.Directed())
}

// delta runs the signed push of dr on the authenticated view, refining
// until the bounds decide or the budget runs out. It reports whether it
// decided.
func (r *run) delta(gx float64) bool {
	gd, ws := r.gd, r.ws
	alpha, tie := r.alpha(), gd.opt.TieTol
	// The first round aims the bound at a third of the error that lets the
	// native gap decide: below gx proves gapA > 0 (same), below tie - gx
	// proves |gapA| <= tie (tie), so the larger of the two, never under
	// tie/2. Each later round tightens the threshold 4x.
	margin := max(gx, tie-gx)
	theta := 0.0
	if n := len(gd.touched.nodes); n > 0 {
		// Each row left out carries less than theta, so together they add
		// less than n*theta*d/alpha = margin/4 to the L1 term.
		theta = margin / 4 * alpha / (r.damping() * float64(n))
	}
	r.materialize(theta)
	wref := 0.0
	for _, v := range r.sel {
		wref = max(wref, gd.auth.OutWeight(v))
	}
	if wref == 0 {
		wref = 1
	}
	// After a finished push every pushed node has |dr(u)| <= eps*W(u), so
	// the per-coordinate term at the selection is at most eps*wref/alpha.
	eps := alpha * margin / (3 * wref)
	eng := ws.deltaEng
	budget := gd.opt.DeltaBudget
	if gd.g.Directed() && !gd.opt.explicitBudget {
		// Directed views are bounded in L1, which pushes shrink only by d
		// per generation: queued pushes rarely pay off before sweeps do.
		budget /= 8
	}
	for {
		spent := eng.Stats.ArcOps + r.rowArcOps
		if spent >= budget {
			return false
		}
		ws.supNodes = ws.support.AppendNodes(ws.supNodes[:0])
		finished := eng.PushRounds(eps, ws.supNodes, budget-spent)
		em := r.deltaModel()
		if done, _ := r.tryFinish(PathDelta, em); done {
			return true
		}
		if !finished || eps < precisionFloor {
			return false
		}
		if r.skipped > 0 {
			r.materialize(0)
		}
		eps /= 4
	}
}

// tryFinish classifies with the current state and error model and, when it
// decides (a divergence also needs a proved authenticated selection),
// finishes with the given path.
// It also returns the largest per-coordinate term among the candidates.
func (r *run) tryFinish(path Path, em errorModel) (bool, float64) {
	gd, ws := r.gd, r.ws
	w := gd.auth.OutWeights()
	em.L1 += roundingSlack
	iv, worst := gapInterval(r.x, r.dx, w, ws.inSel, r.q.Candidates, em)
	out, ok := classify(iv, gd.opt.TieTol)
	if !ok {
		return false, worst
	}
	if out == Divergent && !r.authProved(em) {
		return false, worst
	}
	r.finish(path, out, iv, em.L1+worst)
	return true, worst
}

// authEstimate returns the top-k of the estimates (score) over the
// candidates.
func (r *run) authEstimate() []ppr.Scored {
	return ppr.TopKByRanked(len(r.x), r.k, r.q.Candidates, r.score, r.gd.g.Ranks())
}

// withAuthSelection calls f with the estimated authenticated top-k marked
// over the nodes (the workspace's scratch, cleared afterwards).
func (r *run) withAuthSelection(f func(mark []bool)) {
	ws := r.ws
	if ws.authMark == nil {
		ws.authMark = make([]bool, len(r.x))
	}
	auth := r.authEstimate()
	for _, s := range auth {
		ws.authMark[s.Node] = true
	}
	f(ws.authMark)
	for _, s := range auth {
		ws.authMark[s.Node] = false
	}
}

// authProved checks that the estimated authenticated top-k is a top-k of
// pi_A up to the tie tolerance: its own gap interval has Lo >= -TieTol.
func (r *run) authProved(em errorModel) bool {
	gd := r.gd
	var iv Interval
	r.withAuthSelection(func(mark []bool) {
		iv, _ = gapInterval(r.x, r.dx, gd.auth.OutWeights(), mark, r.q.Candidates, em)
	})
	return iv.Lo >= -gd.opt.TieTol
}

// full copies x_G + dx and r_G + dr (every row materialized) into the dense
// authenticated engine, a valid authenticated state warm-started from the
// native solution, and sweeps until the bounds decide (or the precision
// floor, where the estimate decides).
func (r *run) full() {
	gd, ws := r.gd, r.ws
	r.materialize(0)
	eng := ws.authEng
	if err := eng.SetProblem(r.seeds, r.q.Damping); err != nil {
		panic(err) // validated when the native engine took the same problem
	}
	eng.Stats = ppr.Stats{}
	copy(eng.X, ws.nativeEng.X)
	copy(eng.R, ws.nativeEng.R)
	dx, dr := ws.deltaEng.X, ws.deltaEng.R
	ws.supNodes = ws.support.AppendNodes(ws.supNodes[:0])
	for _, v := range ws.supNodes {
		eng.X[v] += dx[v]
		eng.R[v] += dr[v]
		dx[v], dr[v] = 0, 0
	}
	r.x, r.dx = eng.X, dx // dx is all zero now
	alpha := r.alpha()
	w := gd.auth.OutWeights()
	for {
		em := residualModel(eng.R, w, nil, alpha, 0, gd.g.Directed())
		done, worst := r.tryFinish(PathFull, em)
		if done {
			break
		}
		if gd.g.Directed() && r.refineDirected(em.L1*alpha) {
			break
		}
		if em.L1+worst < precisionFloor || eng.Stats.Sweeps >= maxFullSweeps {
			// Out of precision: the estimate decides (see the package doc).
			iv, _ := gapInterval(r.x, r.dx, w, ws.inSel, r.q.Candidates, errorModel{})
			out, _ := classify(iv, gd.opt.TieTol)
			r.finish(PathFull, out, iv, em.L1+worst)
			break
		}
		// Push only the nodes within 4x of the largest residual ratio: the
		// bound is set by the largest, and the rest wait for a later scan.
		// Dangling residual is in the L1 term; eps = 0 pushes it too once
		// nothing else is left.
		// Directed views are bounded in L1, which every push of any node
		// reduces: sweep them whole.
		maxRatio := em.Coord * alpha // Coord is maxRatio/alpha
		eps := maxRatio / 4
		if maxRatio == 0 || gd.g.Directed() {
			eps = 0
		}
		eng.PushScan(eps)
	}
	r.d.ReplaySweeps = eng.Stats.Sweeps
	r.d.ReplayArcOps += eng.Stats.ArcOps
	r.d.ReplayArcOps += r.refine.ops()
}

// finish records the decision.
func (r *run) finish(path Path, out Outcome, iv Interval, bound float64) {
	d := r.d
	d.Path, d.Outcome, d.Gap, d.Bound = path, out, iv, bound
	if out == Divergent {
		d.Auth = r.authEstimate()
		d.Suspects = r.suspects()
	} else {
		d.Auth = ppr.TopKByRanked(len(r.x), r.k, r.sel, r.score, r.gd.g.Ranks())
	}
	d.ReplayArcOps = r.ws.deltaEng.Stats.ArcOps + r.rowArcOps
}

// suspects returns the edges whose trust status differs between the views,
// ranked by the native mass they carried: for an untrusted edge u->v,
// d*x_G(u)*w/W_G(u); for a trusted edge an untrusted channel deleted,
// d*x_G(u)*w/W_A(u), the mass it would have carried. These are the largest
// terms of the replay's start residual.
func (r *run) suspects() []Suspect {
	return r.topSuspects(r.suspectMass())
}

// suspectMass returns, per edge whose trust status differs between the
// views, the native mass it carried (see suspects).
func (r *run) suspectMass() map[uint32]float64 {
	gd := r.gd
	out := gd.g.Out()
	mass := make(map[uint32]float64)
	for i, u := range gd.touched.nodes {
		xu := r.ws.xTouched[i]
		if xu == 0 {
			continue
		}
		wg, wa := gd.native.OutWeight(u), gd.auth.OutWeight(u)
		lo, hi := out.Span(u)
		for p := lo; p < hi; p++ {
			e := out.Edge[p]
			inG, inA := !gd.native.MaskedEdge(e), !gd.auth.MaskedEdge(e)
			switch {
			case inG && !inA:
				mass[e] += r.damping() * xu * out.Weight.At(p) / wg
			case inA && !inG:
				mass[e] += r.damping() * xu * out.Weight.At(p) / wa
			}
		}
	}
	return mass
}

// topSuspects returns the MaxSuspects edges of largest mass (ties by edge
// id) with their endpoints and channels.
func (r *run) topSuspects(mass map[uint32]float64) []Suspect {
	gd := r.gd
	g := gd.g
	// Keep the MaxSuspects largest (mass descending, then edge id) by
	// insertion into a short sorted list, and look up channels for those
	// alone: a one-percent regime has thousands of differing edges, and
	// the label lookups for all of them cost more than the rest of a
	// divergent decision's bookkeeping.
	before := func(a, b Suspect) bool {
		if a.Mass != b.Mass {
			return a.Mass > b.Mass
		}
		return a.Edge < b.Edge
	}
	limit := gd.opt.MaxSuspects
	list := make([]Suspect, 0, limit+1)
	for e, m := range mass {
		s := Suspect{Edge: e, Mass: m}
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
		edge := g.Edge(s.Edge)
		s.Src, s.Dst = edge.Src, edge.Dst
		if gd.auth.MaskedEdge(s.Edge) {
			s.Channels = untrusted(gd.labels.ChannelsOf(s.Edge), gd)
		} else {
			s.Deleted = true
			s.Channels = untrusted(gd.labels.DeletersOf(s.Edge), gd)
		}
	}
	return list
}

func untrusted(channels []string, gd *Guard) []string {
	var out []string
	for _, c := range channels {
		if !gd.trust.Trusts(c) {
			out = append(out, c)
		}
	}
	return out
}
