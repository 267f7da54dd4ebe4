package replay

import (
	"math"

	"github.com/authppr/authppr/mask"
)

// Reverse refinement of candidate scores on directed views.
//
// On a directed view the only bound is in L1: |pi_A(v) - x(v)| <=
// ||r||_1/alpha for every v, and the full path used to sweep until that fell
// below half the boundary gap. The candidates near the boundary are few, so
// it pays to learn, for each of them, how much of the residual can actually
// reach it.
//
// # The identity
//
// Split the authenticated transition matrix P = P' + 1_D*s, where D holds
// the nodes dangling in the view (their rows are the seeds s) and P' keeps
// every other row (P' is substochastic, its dangling rows are zero). Let
// G' = (I - d*P')^-1 >= 0 (rows sum to at most 1/alpha) and h = G'*1_D.
// Sherman-Morrison on I - d*P = (I - d*P') - d*1_D*s gives, for any state
// (x, r) of the authenticated view (pi_A - x = r*(I-d*P)^-1),
//
//	r*(I-d*P)^-1 = r*G' + d*(r.h)*(s*G')/(1 - d*s*G'*1_D)
//
// and alpha*s*(I-d*P)^-1 = pi_A gives s*G'/(1 - d*s*G'*1_D) = pi_A/alpha.
// So with c = (d/alpha)*(r.h) and N = x + r*G',
//
//	pi_A = x + r*G' + c*pi_A,   that is   pi_A = N/(1 - c).
//
// c is one number for every node, and |c| <= d*||r||_1/alpha^2 because
// 0 <= h <= 1/alpha. When that is below 1, pi_A(v) > pi_A(u) exactly when
// N(v) > N(u), and every gap of pi_A is the same gap of N divided by 1 - c.
//
// # Bounding N at one candidate
//
// (r*G')(v) = r.y with y = G'*e_v. A reverse push from v keeps a pair
// (q, s) >= 0 with y = q + G'*s: start q = 0, s = e_v; pushing w moves s(w)
// into q(w) and adds d*P'[u][w]*s(w) to s(u) for every u with an arc into
// w (the change of G'*s is -e_w*s(w) + G'*d*P'*e_w*s(w) = -e_w*s(w), since
// G'*(I - d*P') = I). Then
//
//	|r.y - r.q| = |sum_u r(u)*(G'*s)(u)| <= ||r||_1 * max(s)/alpha,
//
// because (G'*s)(u) <= max(s)*sum_w G'(u,w) <= max(s)/alpha. Without any
// push, |(r*G')(v)| <= ||r||_1/alpha too (columns of G' are at most 1/alpha
// everywhere), so unrefined candidates keep the old interval. q depends on
// the view and v only, not on r, so one reverse push serves every later
// sweep; a smaller threshold only tightens it.

// maxRefined caps the candidates refined at once: more than this near the
// boundary means the L1 bound is still far too loose, and a sweep is the
// cheaper next step.
const maxRefined = 64

// reverseEstimate is a finished (or budget-stopped) reverse push from node:
// G'*e_node = q + G'*s with s >= 0 and max(s) <= maxS.
type reverseEstimate struct {
	maxS  float64
	nodes []uint32 // support of q
	q     []float64
}

// dot returns r.q.
func (e *reverseEstimate) dot(r []float64) float64 {
	sum := 0.0
	for i, u := range e.nodes {
		sum += r[u] * e.q[i]
	}
	return sum
}

// reversePusher holds the dense scratch of reverse pushes (cleared through
// touched after each one).
type reversePusher struct {
	q, s    []float64
	queued  []bool
	seen    []bool // in touched
	marked  []bool // candidates holding a refined interval (refineDirected)
	queue   []uint32
	touched []uint32 // every node whose s changed
	ops     int64    // arcs read, over the pusher's lifetime
}

func newReversePusher(n int) *reversePusher {
	return &reversePusher{q: make([]float64, n), s: make([]float64, n), queued: make([]bool, n), seen: make([]bool, n), marked: make([]bool, n)}
}

// push runs a FIFO reverse push from target on the view with dangling rows
// dropped (P' above), pushing every node whose s exceeds eps, until none is
// left or budget arcs are spent. The estimate is valid either way; maxS says
// how far it got.
func (rp *reversePusher) push(view *mask.View, d float64, target uint32, eps float64, budget int64) reverseEstimate {
	in := view.Graph().In()
	inv := view.InvOutWeights() // 0 on dangling nodes: P' has no row there
	// Only nodes with a masked out-arc (a small bitset, in cache) need the
	// per-edge mask test.
	touched := view.TouchedBits()
	q, s, queued, seen := rp.q, rp.s, rp.queued, rp.seen
	add := func(u uint32, val float64) {
		s[u] += val
		if !seen[u] {
			seen[u] = true
			rp.touched = append(rp.touched, u)
		}
		if s[u] > eps && !queued[u] {
			queued[u] = true
			rp.queue = append(rp.queue, u)
		}
	}
	add(target, 1)
	start := rp.ops
	for head := 0; head < len(rp.queue) && rp.ops-start < budget; head++ {
		w := rp.queue[head]
		queued[w] = false
		val := s[w]
		if val <= eps {
			continue
		}
		s[w] = 0
		q[w] += val
		lo, hi := in.Span(w)
		rp.ops += int64(hi - lo)
		for p := lo; p < hi; p++ {
			u := in.Nbr[p]
			c := d * in.Weight[p] * inv[u]
			if c == 0 || touched != nil && touched[u/64]&(1<<(u%64)) != 0 && view.MaskedEdge(in.Edge[p]) {
				continue
			}
			add(u, c*val)
		}
	}
	est := reverseEstimate{}
	for _, u := range rp.touched {
		est.maxS = max(est.maxS, s[u])
		if q[u] != 0 {
			est.nodes = append(est.nodes, u)
			est.q = append(est.q, q[u])
		}
		q[u], s[u], queued[u], seen[u] = 0, 0, false, false
	}
	rp.queue, rp.touched = rp.queue[:0], rp.touched[:0]
	return est
}

// refinement holds the reverse estimates of one query's full path.
type refinement struct {
	pusher   *reversePusher // the workspace's
	startOps int64          // pusher.ops when this query started using it
	est      map[uint32]*reverseEstimate
}

// ops returns the arcs this query's reverse pushes read.
func (ref *refinement) ops() int64 {
	if ref.pusher == nil {
		return 0
	}
	return ref.pusher.ops - ref.startOps
}

// Reverse push thresholds: the coarsest is cheap (about the in-degree of
// the candidate) and already tightens the L1 term tenfold; below the finest
// a reverse push costs more than the sweeps it would save (R-MAT 16,
// one-percent regime, all 200 queries' replay time over their native time:
// 31.8% with 1e-3, 23.4% with 1e-2, 21.6% with 3e-2 in one loaded
// session, and in another 22.4% with 1e-2 against 32.5% without
// refinement; `pprbench overhead --workload rmat`).
const (
	coarsestReverse = 0.1
	finestReverse   = 1e-2
)

// reverseArcCost is what a reverse-push arc costs against a sweep arc
// (random reads of s, the mask and 1/W_A against a sequential scan): 3-5x,
// measured with a CPU profile of `pprbench overhead --workload rmat`.
// Reverse pushes get the sweeps' arcs divided by it.
const reverseArcCost = 4

// refineDirected tries to decide with reverse-refined candidate intervals
// (see the comment at the top of this file). l1 is ||r||_1 of the dense
// authenticated state. Reverse pushes never spend more than the full path
// has swept so far (counted in sweep arcs, see reverseArcCost), so
// refinement at most doubles the path's work. It reports whether it decided.
func (r *run) refineDirected(l1 float64) bool {
	gd, ws := r.gd, r.ws
	alpha, d := r.alpha(), r.damping()
	cmax := d * l1 / (alpha * alpha)
	if cmax >= 0.5 {
		return false // too far from converged for the scaling to be useful
	}
	L := l1/alpha + roundingSlack
	x := r.x
	// The ambiguous candidates: within 2L of the k-th estimate t. Any
	// other candidate's interval [x-L, x+L] lies wholly above or below
	// every interval that reaches t, so refining it cannot change the
	// decision's bounds.
	t, gapEst := r.boundaryEstimate()
	var amb []uint32
	over := false
	forCandidates(len(x), r.q.Candidates, func(v uint32) {
		if math.Abs(x[v]-t) < 2*L {
			if len(amb) == maxRefined {
				over = true
				return
			}
			amb = append(amb, v)
		}
	})
	if over {
		return false
	}
	// Aim each candidate's term at a third of the estimated boundary gap
	// (or of the tie band, when the gap is inside it): then the refined
	// intervals separate the boundary if the estimate is right.
	need := max(gapEst, gd.opt.TieTol) / 3
	eps := min(coarsestReverse, need*alpha/l1)
	if eps < finestReverse {
		return false // sweeps are cheaper until the L1 term shrinks
	}
	ref := &r.refine
	if ref.pusher == nil {
		if ws.reverse == nil {
			ws.reverse = newReversePusher(gd.g.NumNodes())
		}
		ref.pusher, ref.startOps = ws.reverse, ws.reverse.ops
		ref.est = make(map[uint32]*reverseEstimate)
	}
	allowance := ws.authEng.Stats.ArcOps/reverseArcCost - ref.ops()
	for _, v := range amb {
		if e := ref.est[v]; e != nil && e.maxS <= eps {
			continue
		}
		if allowance <= 0 {
			break
		}
		before := ref.pusher.ops
		e := ref.pusher.push(gd.auth, d, v, eps, allowance)
		allowance -= ref.pusher.ops - before
		if old := ref.est[v]; old == nil || e.maxS < old.maxS {
			ref.est[v] = &e
		}
	}
	bounds := make(map[uint32][2]float64, len(amb))
	marked := ref.pusher.marked
	// The marks and r.refined serve this call only: finish ranks the
	// estimates (score) before it returns.
	defer func() {
		for v := range bounds {
			marked[v] = false
		}
		r.refined, r.refinedMark = nil, nil
	}()
	widest := 0.0
	for _, v := range amb {
		e := ref.est[v]
		if e == nil {
			continue
		}
		marked[v] = true
		mid := e.dot(ws.authEng.R)
		half := l1*e.maxS/alpha + roundingSlack
		// Both intervals hold (N(v) - x(v) is within +-L unrefined); keep
		// their intersection.
		bounds[v] = [2]float64{x[v] + max(mid-half, -L), x[v] + min(mid+half, L)}
		widest = max(widest, half)
	}
	iv := refinedGap(x, marked, bounds, L, cmax, ws.inSel, r.q.Candidates)
	out, ok := classify(iv, gd.opt.TieTol)
	if !ok {
		return false
	}
	r.refined, r.refinedMark = bounds, marked
	if out == Divergent {
		proved := false
		r.withAuthSelection(func(mark []bool) {
			proved = refinedGap(x, marked, bounds, L, cmax, mark, r.q.Candidates).Lo >= -gd.opt.TieTol
		})
		if !proved {
			return false
		}
	}
	r.finish(PathFull, out, iv, widest)
	r.d.Refined = len(bounds)
	return true
}

// refinedGap bounds gapA from per-candidate intervals for N = (1-c)*pi_A:
// [x-L, x+L] by default, iv[v] for refined ones (marked), then divides by 1 - c with
// |c| <= cmax < 1 (see the top of this file). Each candidate's interval
// holds on its own, so min over sel of the lower ends minus max over the
// rest of the upper ends bounds the gap of N from below, and the reverse
// pairing from above; dividing by a positive 1 - c keeps the sign and
// scales the size by at most 1/(1 -+ cmax).
func refinedGap(x []float64, marked []bool, iv map[uint32][2]float64, L, cmax float64, inSel []bool, cands []uint32) Interval {
	gapN := selectionGap(len(x), cands, inSel, func(v uint32) (float64, float64) {
		if marked[v] {
			b := iv[v]
			return b[0], b[1]
		}
		return x[v] - L, x[v] + L
	})
	if math.IsInf(gapN.Lo, 1) {
		return gapN
	}
	scale := func(g float64, low bool) float64 {
		a, b := g/(1+cmax), g/(1-cmax)
		if low {
			return min(a, b)
		}
		return max(a, b)
	}
	return Interval{Lo: scale(gapN.Lo, true), Hi: scale(gapN.Hi, false)}
}
