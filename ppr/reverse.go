package ppr

import (
	"math"

	"github.com/authppr/authppr/mask"
)

// Reverse pushes on directed views. SolveTopK (refineTopK) and replay's
// directed full path both use them to sharpen the L1 bound at the few
// candidates near a top-k boundary.
//
// # The identity
//
// Split the view's transition matrix P = P' + 1_D*s, where D holds the
// nodes dangling in the view (their rows are the seeds s) and P' keeps
// every other row (P' is substochastic, its dangling rows are zero). Let
// G' = (I - d*P')^-1 >= 0 (rows sum to at most 1/alpha) and h = G'*1_D.
// Sherman-Morrison on I - d*P = (I - d*P') - d*1_D*s gives, for any state
// (x, r) of the problem (pi - x = r*(I-d*P)^-1),
//
//	r*(I-d*P)^-1 = r*G' + d*(r.h)*(s*G')/(1 - d*s*G'*1_D)
//
// and alpha*s*(I-d*P)^-1 = pi gives s*G'/(1 - d*s*G'*1_D) = pi/alpha.
// So with c = (d/alpha)*(r.h) and N = x + r*G',
//
//	pi = x + r*G' + c*pi,   that is   pi = N/(1 - c).
//
// c is one number for every node, and |c| <= d*||r||_1/alpha^2 because
// 0 <= h <= 1/alpha; in fact h <= 1 (proved in visits.go: a walk stops at
// the first dangling node it reaches), so |c| <= d*||r||_1/alpha, which
// refineTopK uses with visit bounds (without them it keeps the looser
// bound and the check schedule its tests pin; replay uses it too); with r >= 0 (the native start state and everything a
// push or sweep makes from it) also c >= 0. When |c| < 1, pi(v) > pi(u)
// exactly when N(v) > N(u), and every gap of pi is the same gap of N
// divided by 1 - c.
//
// # Bounding N at one node
//
// (r*G')(v) = r.y with y = G'*e_v. A reverse push from v keeps a pair
// (q, s) >= 0 with y = q + G'*s: start q = 0, s = e_v; pushing w moves s(w)
// into q(w) and adds d*P'[u][w]*s(w) to s(u) for every u with an arc into
// w (the change of G'*s is -e_w*s(w) + G'*d*P'*e_w*s(w) = -e_w*s(w), since
// G'*(I - d*P') = I). Then
//
//	0 <= sum_u r(u)*(G'*s)(u) <= ||r||_1 * max(s)/alpha   for r >= 0,
//	|r.y - r.q| <= ||r||_1 * max(s)/alpha                  for any r,
//
// because 0 <= (G'*s)(u) <= max(s)*sum_w G'(u,w) <= max(s)/alpha. Without
// any push, 0 <= (r*G')(v) <= ||r||_1/alpha for r >= 0 (|.| for any r):
// every entry of G' is at most its row sum, 1/alpha. q depends on the view,
// d and v only, not on r, so one reverse push serves every later state of
// the same problem; a smaller threshold only tightens it.

// ReverseEstimate is a finished (or budget-stopped) reverse push from one
// node v: G'*e_v = q + G'*s with s >= 0 and max(s) <= MaxS, q given
// sparsely as Q[i] at Nodes[i].
type ReverseEstimate struct {
	MaxS  float64
	Nodes []uint32 // support of q
	Q     []float64
}

// Dot returns r.q.
func (e *ReverseEstimate) Dot(r []float64) float64 {
	sum := 0.0
	for i, u := range e.Nodes {
		sum += r[u] * e.Q[i]
	}
	return sum
}

// ReversePusher holds the dense scratch of reverse pushes over one graph
// (cleared through touched after each push, so one serves every view of
// the graph).
type ReversePusher struct {
	q, s    []float64
	queued  []bool
	seen    []bool // in touched
	queue   []uint32
	touched []uint32 // every node whose s changed
	// Ops counts the arcs read over the pusher's lifetime.
	Ops int64
}

// NewReversePusher returns a pusher for graphs of n nodes.
func NewReversePusher(n int) *ReversePusher {
	return &ReversePusher{q: make([]float64, n), s: make([]float64, n), queued: make([]bool, n), seen: make([]bool, n)}
}

// Push runs a FIFO reverse push from target on the view with dangling rows
// dropped (P' above) and damping d, pushing every node whose s exceeds
// eps, until none is left or budget arcs are spent. The estimate is valid
// either way; MaxS says how far it got.
func (rp *ReversePusher) Push(view *mask.View, d float64, target uint32, eps float64, budget int64) ReverseEstimate {
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
	start := rp.Ops
	for head := 0; head < len(rp.queue) && rp.Ops-start < budget; head++ {
		w := rp.queue[head]
		queued[w] = false
		val := s[w]
		if val <= eps {
			continue
		}
		s[w] = 0
		q[w] += val
		lo, hi := in.Span(w)
		rp.Ops += int64(hi - lo)
		for p := lo; p < hi; p++ {
			u := in.Nbr[p]
			c := d * in.Weight[p] * inv[u]
			if c == 0 || touched != nil && touched[u/64]&(1<<(u%64)) != 0 && view.MaskedEdge(in.Edge[p]) {
				continue
			}
			add(u, c*val)
		}
	}
	est := ReverseEstimate{}
	for _, u := range rp.touched {
		est.MaxS = max(est.MaxS, s[u])
		if q[u] != 0 {
			est.Nodes = append(est.Nodes, u)
			est.Q = append(est.Q, q[u])
		}
		q[u], s[u], queued[u], seen[u] = 0, 0, false, false
	}
	rp.queue, rp.touched = rp.queue[:0], rp.touched[:0]
	return est
}

// Directed top-k refinement (SolveTopK). With the L1 bound alone a
// directed selection waits until ||r||_1/alpha falls below the raw gap at
// the boundary; on R-MAT 20 (5 seeds, top-10) the unselected candidates
// whose interval [x, x + ||r||_1/alpha] still reaches the k-th score are a
// handful several sweeps before that. refineTopK gives exactly those (and
// the selected ones that they still block) the reverse-push intervals of
// N = x + r*G' above and compares N instead of pi.
//
// Proof. Let lo(v) <= N(v) <= hi(v) hold per candidate: [x - S, x + L]
// unrefined (L = ||r||_1/alpha; S = 0 for r >= 0, L for a signed r), and
// [x + r.q - S', x + r.q + L'] intersected with it for a candidate with
// estimate (q, max(s)), L' = ||r||_1*max(s)/alpha, S' = 0 for r >= 0 and
// L' otherwise (see the top of this file). Then for every selected v and
// unselected u, N(v) - N(u) >= g := min_sel lo - max_rest hi. With
// |c| <= cmax = d*||r||_1/alpha^2 < 1 (checked; d*||r||_1/alpha with
// visit bounds, see above), pi(v) - pi(u) =
// (N(v) - N(u))/(1 - c), and 1 - c lies in [1 - cmax, 1] for r >= 0 (c >=
// 0), in [1 - cmax, 1 + cmax] for a signed r. So gap(pi) >= g when g > 0
// and r >= 0, g/(1 + cmax) when g > 0 and r is signed, and g/(1 - cmax)
// when g <= 0: a true lower bound on the exact gap in every case, which is
// what ProvedGap promises. Rounding: each interval is widened by
// refineSlack on both sides (r.q is a float sum; the identity holds in
// exact arithmetic, and the vectors, which sum to about 1, carry about
// 1e-16 of rounding per coordinate per sweep).

// maxRefined caps the candidates refined at one check: more than this
// straddling the boundary means the L1 bound is still far too loose, and a
// sweep is the cheaper next step. The straddlers fall abruptly from all
// nodes to a few once ||r||_1/alpha drops below the k-th score (R-MAT 20,
// 5 seeds, top-10, one query: every node after 16 sweeps, 118 after 17,
// 30 after 18); refining the 118 read 0.83M arcs, a twentieth of a sweep,
// and proved the selection a sweep earlier than a cap of 64.
const maxRefined = 256

// maxRefinedVisits is maxRefined with visit bounds (Options.Visits): their
// per-node terms leave few candidates straddling several sweeps before
// the L1 term does, often too early for refinement to finish the proof,
// and reverse arcs cost many sweep arcs (random reads). On wiki-Vote (20
// queries, top-10) a cap of 256 read 77k reverse arcs per query and made
// queries 1.8x slower for 31% fewer sweeps; 32 read 19k; on R-MAT 20 the
// proofs refine 0-17 candidates at the last check either way.
const maxRefinedVisits = 32

// Reverse push thresholds: the coarsest is cheap (about the in-degree of
// the candidate) and already tightens the L1 term tenfold; below the
// finest a check waits for more sweeps instead.
const (
	coarsestReverse = 0.1
	finestReverse   = 1e-3
)

// reverseArcCost is what a reverse-push arc costs against a sweep arc
// (random reads of s and 1/W against a sequential scan), measured 3-5x in
// replay. A solve's reverse pushes read at most the arcs its sweeps read
// divided by it, so refinement adds at most a quarter to the work.
const reverseArcCost = 4

// refineSlack widens every refined interval on both sides for rounding.
const refineSlack = 1e-13

// topKRefinement is SolveTopK's reverse-push state for one solve.
type topKRefinement struct {
	pusher   *ReversePusher
	startOps int64 // pusher.Ops when the solve began
	est      map[uint32]*ReverseEstimate
	blockers []uint32
}

// reset starts a new solve: estimates depend on the damping, which the
// next problem may change.
func (ref *topKRefinement) reset() {
	clear(ref.est)
	if ref.pusher != nil {
		ref.startOps = ref.pusher.Ops
	}
}

// arcs returns the arcs this solve's reverse pushes read.
func (ref *topKRefinement) arcs() int64 {
	if ref.pusher == nil {
		return 0
	}
	return ref.pusher.Ops - ref.startOps
}

// refinesAt reports whether refineTopK looks at the candidates at residual
// mass l1: it needs cmax < 1 and a residual. With visit bounds, cmax =
// d*l1/alpha, visitErrorBounds's cbar (see the top of this file); without,
// d*l1/alpha^2.
func refinesAt(l1, alpha, d float64, visits bool) bool {
	return refineCMax(l1, alpha, d, visits) < 1 && l1 > 0
}

// refineCMax returns cmax (see refinesAt).
func refineCMax(l1, alpha, d float64, visits bool) float64 {
	if visits {
		return d * l1 / alpha
	}
	return d * l1 / (alpha * alpha)
}

// refineTopK returns a lower bound on the exact gap of the selection sel
// (marked in inSel) over the candidates (nil: every node) from
// reverse-refined intervals, and how many candidates it refined; -Inf and
// 0 when it does not try (see the proof above). l1 is ||r||_1, L the L1
// error term ||r||_1/alpha (times boundScale), gap the raw gap at the
// boundary.
func (e *Engine) refineTopK(sel []Scored, candidates []uint32, inSel []bool, l1 float64, eb *errorBounds, gap float64, signed bool) (float64, int) {
	alpha, d := e.alpha, e.damping
	cmax := refineCMax(l1, alpha, d, eb.vis != nil)
	if !refinesAt(l1, alpha, d, eb.vis != nil) || !(gap > 0) {
		return math.Inf(-1), 0
	}
	x := e.X
	// below(v) is how far N(v) may lie below x(v) unrefined.
	below := func(v uint32) float64 {
		if signed {
			return eb.nTerm(v)
		}
		return 0
	}
	minSelX, minSelLo := math.Inf(1), math.Inf(1)
	for _, s := range sel {
		minSelX = min(minSelX, s.Score)
		minSelLo = min(minSelLo, s.Score-below(s.Node))
	}
	restX := minSelX - gap // the best unselected x
	// The unselected candidates whose unrefined interval reaches the
	// selection's lowest lower end block the proof; every other one keeps
	// its unrefined upper end.
	ref := &e.refine
	ref.blockers = ref.blockers[:0]
	refineCap := maxRefined
	if eb.vis != nil {
		refineCap = maxRefinedVisits
	}
	restHi := math.Inf(-1)
	over := false
	visit := func(u uint32) {
		if inSel[u] || over {
			return
		}
		if hi := x[u] + eb.nTerm(u); hi < minSelLo {
			restHi = max(restHi, hi)
		} else if len(ref.blockers) == refineCap {
			over = true
		} else {
			ref.blockers = append(ref.blockers, u)
		}
	}
	eachCandidate(len(x), candidates, visit)
	if over {
		return math.Inf(-1), 0
	}
	// Aim each blocker's term at a third of its distance below the
	// selection's scores (and a selected candidate's at a third of its
	// distance above the best unselected score, for a signed r): then the
	// refined intervals clear each other unless r.q itself closes the
	// distance.
	for _, u := range ref.blockers {
		if eps := (minSelX - x[u]) * alpha / (3 * l1); !(eps >= finestReverse) {
			return math.Inf(-1), 0 // sweeps are cheaper until the L1 term shrinks
		}
	}
	if ref.pusher == nil {
		ref.pusher = NewReversePusher(len(x))
		ref.startOps = 0
	}
	if ref.est == nil {
		ref.est = make(map[uint32]*ReverseEstimate)
	}
	allowance := e.Stats.ArcOps/reverseArcCost - ref.arcs()
	estimate := func(v uint32, eps float64) *ReverseEstimate {
		old := ref.est[v]
		if old != nil && old.MaxS <= eps || allowance <= 0 {
			return old
		}
		before := ref.pusher.Ops
		est := ref.pusher.Push(e.view, d, v, eps, allowance)
		allowance -= ref.pusher.Ops - before
		if old == nil || est.MaxS < old.MaxS {
			ref.est[v] = &est
			return &est
		}
		return old
	}
	// bounds returns the refined interval of N(v) (see the proof above).
	bounds := func(v uint32, est *ReverseEstimate) (lo, hi float64) {
		mid := est.Dot(e.R)
		half := boundScale*l1*est.MaxS/alpha + refineSlack
		under := refineSlack
		if signed {
			under = half
		}
		return max(x[v]+mid-under, x[v]-below(v)), min(x[v]+mid+half, x[v]+eb.nTerm(v))
	}
	refined := 0
	for _, u := range ref.blockers {
		eps := min(coarsestReverse, (minSelX-x[u])*alpha/(3*l1))
		hi := x[u] + eb.nTerm(u)
		if est := estimate(u, eps); est != nil {
			_, hi = bounds(u, est)
			refined++
		}
		restHi = max(restHi, hi)
	}
	// The selected candidates the refined rest still blocks need a
	// higher lower end: x + r.q from any push when r >= 0, a tight one
	// when r is signed.
	selLo := math.Inf(1)
	for _, s := range sel {
		v := s.Node
		lo := x[v] - below(v)
		if lo <= restHi {
			eps := coarsestReverse
			if signed {
				eps = min(eps, (x[v]-restX)*alpha/(3*l1))
			}
			if est := estimate(v, max(eps, finestReverse)); est != nil {
				lo, _ = bounds(v, est)
				refined++
			}
		}
		selLo = min(selLo, lo)
	}
	g := selLo - restHi
	switch {
	case math.IsInf(restHi, -1):
		return math.Inf(1), refined
	case g > 0 && !signed:
		return g, refined
	case g > 0:
		return g / (1 + cmax), refined
	default:
		return g / (1 - cmax), refined
	}
}
