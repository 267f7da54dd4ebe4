package ppr

import (
	"maps"
	"math"
	"slices"

	"github.com/authppr/authppr/internal/reuse"
	"github.com/authppr/authppr/mask"
)

// Reverse pushes. SolveTopK (refineTopK) and replay's directed full path
// use them to sharpen the L1 bound (and on undirected views SolveTopK's
// per-coordinate bound) at the few candidates near a top-k boundary.
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

// reverseEstimate is a finished (or budget-stopped) reverse push from one
// node v: G'*e_v = q + G'*s with max(s+) <= MaxS and max(s-) <= NegMaxS
// (s >= 0 for a push from e_v), q given sparsely as Q[i] at Nodes[i].
type reverseEstimate struct {
	MaxS float64
	// SW is sum_w s(w)*W(w) over the nodes with out-weight in the view,
	// SD sum_w s(w) over the others: the remainder's size on undirected
	// views (see undirected refinement below).
	SW, SD float64
	// The same three of the negative part of s: zero for a push from
	// e_v, which keeps s >= 0; an estimate adapted from another view may
	// have one (see adapt), and so may a push gone on from it (pushInto,
	// within eps when it finished); the bounds take each part on its own.
	NegMaxS, NegSW, NegSD float64
	Nodes                 []uint32 // support of q
	Q                     []float64
	// reached lists every node the push gave mass to (s != 0 at some
	// point; a push gone on from an estimate keeps that one's too): the
	// rows it read are theirs (see ShareEstimates); s holds the remainder
	// s there, in the same order.
	reached []uint32
	s       []float64
	// shared: Nodes and Q are the donor's (adapt), read only; they never
	// go to the pool with the estimate (release).
	shared bool
}

// dot returns r.q.
func (e *reverseEstimate) dot(r []float64) float64 {
	sum := 0.0
	for i, u := range e.Nodes {
		sum += r[u] * e.Q[i]
	}
	return sum
}

// reversePusher holds the dense scratch of reverse pushes over one graph
// (cleared through touched after each push, so one serves every view of
// the graph).
type reversePusher struct {
	q []float64
	// in marks the support of an estimate spread into q (spread); all
	// zero between uses, as q is.
	in []uint64
	// node holds s and the two flags of every node side by side: a push
	// updates them at every in-neighbour it reaches, a random access
	// each, so together they cost one cache miss instead of three.
	node    []pushNode
	queue   []uint32
	touched []uint32 // every node whose s changed
	// Ops counts the arcs read over the pusher's lifetime.
	Ops int64
}

// pushNode is one node's reverse-push scratch.
type pushNode struct {
	s      float64
	queued bool
	seen   bool // in touched
}

// newReversePusher returns a pusher for graphs of n nodes.
func newReversePusher(n int) *reversePusher {
	return &reversePusher{q: make([]float64, n), in: make([]uint64, (n+63)/64), node: make([]pushNode, n)}
}

// push runs a FIFO reverse push from target on the view with dangling rows
// dropped (P' above) and damping d, pushing every node whose s exceeds
// eps, until none is left or budget arcs are spent. The estimate is valid
// either way; MaxS says how far it got.
func (rp *reversePusher) push(view *mask.View, d float64, target uint32, eps float64, budget int64) reverseEstimate {
	var est reverseEstimate
	rp.pushInto(&est, view, d, target, eps, budget, nil)
	return est
}

// pushInto is push writing the estimate into est, reusing its slices'
// storage. With from not nil (an estimate of target's column on this view,
// not est) it pushes on from from's pair (q, s) instead of (0, e_target):
// every push keeps s = e_target - (I - d*P')*q (see adapt), whatever the
// sign of s(w), so the result is an estimate of the same column; entries
// of either sign above eps in magnitude are pushed, so a finished push
// leaves MaxS and NegMaxS at most eps. A push from (0, e_target) holds
// s >= 0 throughout (every term it adds is), where the tests on |s| are
// tests on s.
func (rp *reversePusher) pushInto(est *reverseEstimate, view *mask.View, d float64, target uint32, eps float64, budget int64, from *reverseEstimate) {
	in := view.Graph().In()
	graphNodes := view.Graph().NumNodes()
	patched := view.Patched()
	inv := view.NodeInvOutWeights() // 0 on dangling nodes: P' has no row there
	// Only nodes with a masked out-arc (a small bitset, in cache) need the
	// per-edge mask test.
	touched := view.TouchedBits()
	q, node := rp.q, rp.node
	see := func(nd *pushNode, u uint32) {
		if !nd.seen {
			nd.seen = true
			rp.touched = append(rp.touched, u)
		}
	}
	add := func(u uint32, val float64) {
		nd := &node[u]
		nd.s += val
		see(nd, u)
		if math.Abs(nd.s) > eps && !nd.queued {
			nd.queued = true
			rp.queue = append(rp.queue, u)
		}
	}
	if from == nil {
		add(target, 1)
	} else {
		// q's support lies in reached (a pushed node had mass); both
		// are marked so that the gathering below finds every entry.
		for i, w := range from.Nodes {
			q[w] = from.Q[i]
			see(&node[w], w)
		}
		for i, u := range from.reached {
			add(u, from.s[i])
		}
	}
	start := rp.Ops
	for head := 0; head < len(rp.queue) && rp.Ops-start < budget; head++ {
		w := rp.queue[head]
		nd := &node[w]
		nd.queued = false
		val := nd.s
		if math.Abs(val) <= eps {
			continue
		}
		nd.s = 0
		q[w] += val
		if patched {
			// A patched view's in-rows: replaced ones list the live arcs,
			// the others are the graph's under its mask (below).
			if nbr, wt, _, ok := view.ReplacedInRow(w); ok {
				rp.Ops += int64(len(nbr))
				wt = wt[:len(nbr)]
				for p, u := range nbr {
					if c := d * wt[p] * inv.At(u); c != 0 {
						add(u, c*val)
					}
				}
				continue
			}
			if int(w) >= graphNodes {
				continue // a node new since the graph, without arcs
			}
		}
		lo, hi := in.Span(w)
		rp.Ops += int64(hi - lo)
		for p := lo; p < hi; p++ {
			u := in.Nbr[p]
			c := d * in.Weight.At(p) * inv.At(u)
			if c == 0 || touched != nil && touched[u/64]&(1<<(u%64)) != 0 && view.MaskedEdge(in.Edge[p]) {
				continue
			}
			add(u, c*val)
		}
	}
	*est = reverseEstimate{Nodes: est.Nodes[:0], Q: est.Q[:0], reached: append(est.reached[:0], rp.touched...), s: est.s[:0]}
	out := view.NodeOutWeights()
	for _, u := range rp.touched {
		su := node[u].s
		est.s = append(est.s, su)
		est.addRemainder(su, out.At(u))
		if q[u] != 0 {
			est.Nodes = append(est.Nodes, u)
			est.Q = append(est.Q, q[u])
		}
		q[u], node[u] = 0, pushNode{}
	}
	rp.queue, rp.touched = rp.queue[:0], rp.touched[:0]
}

// addRemainder adds one entry sw of s, at a node of out-weight w in the
// view, to the estimate's summaries of s's positive and negative parts.
func (e *reverseEstimate) addRemainder(sw, w float64) {
	mag, maxS, sumW, sumD := sw, &e.MaxS, &e.SW, &e.SD
	if sw < 0 {
		mag, maxS, sumW, sumD = -sw, &e.NegMaxS, &e.NegSW, &e.NegSD
	}
	*maxS = max(*maxS, mag)
	if w > 0 {
		*sumW += mag * w
	} else {
		*sumD += mag
	}
}

// Top-k refinement (SolveTopK), directed views first. With the L1 bound
// alone a directed selection waits until ||r||_1/alpha falls below the raw
// gap at the boundary, while the unselected candidates whose interval [x,
// x + ||r||_1/alpha] still reaches the k-th score are often a handful
// several sweeps before that (docs/benchmarks.md, "ppr: reverse
// refinement"). refineTopK gives exactly those (and
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

// Undirected views (SolveTopK refines there too). The same identity holds
// with two sharper terms. With A symmetric in the view (a mask drops both
// arcs of an edge), a node dangling in the view has no arc of positive
// weight left at all, so nothing reaches it: h = G'*1_D is 1_D and |c| <= (d/alpha)*sum_D |r|
// (0 when no residual sits on such a node). And for w with out-weight,
// G'(u,w) = G'(w,u)*W(w)/W(u) on the symmetric part (docs/design.md), so
//
//	|(r*G')(w)| <= W(w)*sum_u G'(w,u)*|r(u)|/W(u) <= W(w)*rho/alpha,
//	rho = max_u |r(u)|/W(u) over the nodes with out-weight,
//
// while (r*G')(w) = r(w) at a dangling w. Hence |r*(G'*s)| =
// |sum_w s(w)*(r*G')(w)| <= (rho*SW + D*SD)/alpha with SW = sum s(w)*W(w)
// over the nodes with out-weight, SD = sum s(w) over the others and D =
// sum_D |r| >= max_D |r|; the smaller of this and the L1 term is used.
// Unrefined, N(u) - x(u) = (r*G')(u) is bounded by the per-coordinate
// E(u) of SolveTopK (G' <= (I - d*P)^-1 entrywise). A push from w takes
// alpha*s(w)*W(w) off SW (it adds d*s(w)*A(u,w)/W(u) to s(u), W(u) times
// which sums to d*s(w)*W(w)), so the remainder, W(v)*rho/alpha before any
// push (the unrefined bound), shrinks geometrically as the push widens;
// the pushes read the candidate's neighbourhood, not the graph.

// maxRefined caps the candidates refined at one check: more than this
// straddling the boundary means the L1 bound is still far too loose, and a
// sweep is the cheaper next step. The straddlers fall abruptly from all
// nodes to a few once ||r||_1/alpha drops below the k-th score, and a cap
// of a few hundred catches the sweep where they do (docs/benchmarks.md,
// "ppr: reverse refinement").
const maxRefined = 256

// maxRefinedVisits is maxRefined with visit bounds (Options.Visits): their
// per-node terms leave few candidates straddling several sweeps before
// the L1 term does, often too early for refinement to finish the proof,
// and reverse arcs cost many sweep arcs (random reads), so the cap is
// lower (docs/benchmarks.md, "ppr: reverse refinement").
const maxRefinedVisits = 32

// Reverse push thresholds: the coarsest is cheap (about the in-degree of
// the candidate) and already tightens the L1 term tenfold; below the
// finest a check waits for more sweeps instead.
const (
	coarsestReverse = 0.1
	finestReverse   = 1e-3
)

// finestUndirected is the finest reverse push threshold tried for an
// undirected blocker (tenfold steps from coarsestReverse): a node whose
// neighbours are a few nodes of degree in the hundreds (a passage and its
// entities, in a HippoRAG graph) is reached from about 1e-3 on.
const finestUndirected = 1e-4

// reverseArcCost is what a reverse-push arc costs against a sweep arc
// (random reads of s and 1/W against a sequential scan; docs/benchmarks.md,
// "ppr: reverse refinement"). A solve's reverse pushes read at most the
// arcs its sweeps read divided by it, so refinement adds at most a quarter
// to the work. A solve from a warm start counts one sweep's arcs as read
// before it starts (warmArcs): its proof may need refining before any
// sweep, and a threshold scan in its place reads every node.
const reverseArcCost = 4

// refineSlack widens every refined interval on both sides for rounding.
const refineSlack = 1e-13

// topKRefinement is SolveTopK's reverse-push state for one solve.
type topKRefinement struct {
	pusher   *reversePusher
	startOps int64 // pusher.Ops when the solve began
	warmArcs int64 // a warm start's credit: one sweep's arcs (see reverseArcCost)
	est      map[uint32]*reverseEstimate
	free     []*reverseEstimate // estimates to reuse (pushInto)
	// collected is the blockers of the last check (see blockerSet).
	collected blockerSet
	// donor and differ: estimates another engine made on another view of
	// the same graph, and the nodes whose rows differ between the views
	// (see ShareEstimates), as a bitset, and the gainers among them;
	// borrowed holds the donor's estimates this engine uses, which never
	// go to its pool.
	donor    *topKRefinement
	differ   []uint64
	gainers  []uint32
	borrowed map[uint32]*reverseEstimate
	// unserved holds, per node whose donor estimate an adaptation did not
	// serve, the coarsest threshold it failed at: it fails at every finer
	// one too (adaptedServes), so borrow does not adapt it again there.
	unserved map[uint32]float64
	rows     DiffRows          // the differing rows, the host's (ShareEstimates)
	changes  []remainderChange // remainderChanges' scratch
	near     []uint32          // RefinedGap's scratch (refinedIntervals.near)
}

// ShareEstimates lets this engine's refinement use the reverse estimates
// from's has made, on another view of the same graph and for the same
// damping, adapted to this view (see adapt). differ must list every node
// whose out-row or in-row differs between the views, gainers every
// node whose out-row in this view has an arc of positive weight that
// from's view lacks (more nodes of differ only cost time), and rows every
// out-row that differs (this view's as A, from's as G). The sharing
// lasts until the next SetProblem of either engine: this engine's
// estimates read from's, the ones it uses as they are and the ones it
// adapts alike (their q is from's); from must not push in the meantime.
func (e *Engine) ShareEstimates(from *Engine, differ, gainers []uint32, rows DiffRows) {
	ref := &e.refine
	ref.donor = &from.refine
	ref.gainers = gainers
	clear(ref.unserved)
	ref.warmArcs = from.refine.warmArcs // it continues from's solve
	ref.rows = rows
	ref.differ = reuse.Slice(ref.differ, (len(e.X)+63)/64)
	clear(ref.differ)
	for _, u := range differ {
		ref.differ[u/64] |= 1 << (u % 64)
	}
}

// borrow returns the donor's estimate of v adapted to this view when the
// donor's is at least as fine as eps: the donor's own when its push reached
// no node of differ and no gainer changes it (then every row and weight it
// depends on is this view's too), else the adapted copy, which becomes this engine's
// estimate of v when it still serves eps (adaptedServes). Otherwise it
// returns nil and, when it adapted the donor's estimate for eps, the
// adaptation that did not serve as start, this view's estimate for a push
// to go on from (the caller's to release).
func (ref *topKRefinement) borrow(e *Engine, v uint32, eps float64) (served, start *reverseEstimate) {
	if ref.donor == nil {
		return nil, nil
	}
	if b := ref.borrowed[v]; b != nil && b.MaxS <= eps {
		return b, nil
	}
	est := ref.donor.est[v]
	if est == nil || est.MaxS > eps || eps <= ref.unserved[v] {
		return nil, nil
	}
	undirected := !e.view.Directed()
	if old := ref.est[v]; old != nil && old.adaptedFrom(est) {
		// Adapted from this very push at a coarser threshold: adapting
		// again would give the same estimate (the caller goes on from it).
		if adaptedServes(old, est, eps, undirected) {
			return old, nil
		}
		ref.noteUnserved(v, eps)
		return nil, nil
	}
	changes, readsDiffer := ref.remainderChanges(e, est)
	if len(changes) == 0 && !readsDiffer {
		if ref.borrowed == nil {
			ref.borrowed = make(map[uint32]*reverseEstimate)
		}
		ref.borrowed[v] = est
		return est, nil
	}
	adapted := ref.adapt(e, est, changes)
	if !adaptedServes(adapted, est, eps, undirected) {
		ref.noteUnserved(v, eps)
		return nil, adapted
	}
	if old := ref.est[v]; old != nil {
		ref.release(old)
	}
	ref.est[v] = adapted
	return adapted, nil
}

// noteUnserved records that the adaptation of the donor's estimate of v
// did not serve eps (see unserved).
func (ref *topKRefinement) noteUnserved(v uint32, eps float64) {
	if ref.unserved == nil {
		ref.unserved = make(map[uint32]float64)
	}
	ref.unserved[v] = max(ref.unserved[v], eps)
}

// adaptedFrom reports whether e is an adaptation of the donor's estimate
// est: adapt shares est's q (an empty q cannot tell, and says no).
func (e *reverseEstimate) adaptedFrom(est *reverseEstimate) bool {
	return e.shared && len(e.Nodes) > 0 && len(e.Nodes) == len(est.Nodes) && &e.Nodes[0] == &est.Nodes[0]
}

// adaptedServes reports whether adapted, the donor's estimate est (a push
// at a threshold of eps or finer) adapted to this view, serves eps: its
// remainder's entries are at most eps, as a push at eps leaves them; or,
// on an undirected view, where the remainder's sums set an interval's
// width (refineCheck.remainder: the L1 term it is the minimum with binds
// only while the residual is large), the adaptation left the positive
// part's sums within a sixteenth above the donor's and the negative
// part's within a sixteenth of them. A push at eps on this view from
// scratch would read about as many arcs as the donor's did and leave
// sums alike, since the views differ in a few rows (on the KG's live
// stream its intervals came out the same to six digits as the new push's).
// Any estimate gives valid bounds (TestRefinedGapHoldsExactGap checks
// ones served by their sums); this only decides whether a new push is
// worth its arcs.
func adaptedServes(adapted, est *reverseEstimate, eps float64, undirected bool) bool {
	if adapted.MaxS <= eps && adapted.NegMaxS <= eps {
		return true
	}
	const near = 1.0 / 16
	return undirected &&
		adapted.SW <= est.SW*(1+near) && adapted.SD <= est.SD*(1+near) &&
		adapted.NegSW <= est.SW*near && adapted.NegSD <= est.SD*near
}

// remainderChange is one entry of d*(P'_A - P'_G)*q (see adapt): at the
// reached node of index at (est.reached[at]), or at a node the push never
// reached (at < 0).
type remainderChange struct {
	at     int
	node   uint32
	delta  float64
	wA, wG float64 // the node's out-weights in both views (DiffRows')
}

// remainderChanges returns the entries of d*(P'_A - P'_G)*q for the
// donor's estimate est, G the donor's view and A this engine's, at every
// reached node of differ whose out-rows differ (zero ones too: its
// out-weight, which the summaries weigh s by, may differ even where s does
// not) and the non-zero ones at the nodes the push never reached, and
// whether the push reached a node of differ.
//
// An entry can be non-zero only at a node u whose out-rows differ (where
// they agree, so do u's out-weights, and s_A(u) = s(u)), and at one the
// push never reached only if u is a gainer: every push at w gives mass to
// each u with a weighted arc into w in G, so an unreached u has none into
// q's support in G, and then, without an arc G lacks, none in A. So it reads the rows of the reached nodes of differ
// and of the gainers, in both views, not the pushes' neighbourhoods: only
// their differing arcs (diffChange).
func (ref *topKRefinement) remainderChanges(e *Engine, est *reverseEstimate) (changes []remainderChange, readsDiffer bool) {
	// The reached nodes of differ first (a bitset in cache): q is spread
	// into the dense scratch only when some row is to be read.
	changes = ref.changes[:0]
	for i, u := range est.reached {
		if ref.differ[u/64]&(1<<(u%64)) != 0 {
			changes = append(changes, remainderChange{at: i, node: u})
		}
	}
	readsDiffer = len(changes) > 0
	if !readsDiffer && len(ref.gainers) == 0 {
		ref.changes = changes
		return changes, false
	}
	rp := ref.pusher
	q := rp.spread(est)
	defer rp.unspread(est)
	origin := est.origin()
	kept := changes[:0] // a node of differ whose out-rows agree has none
	for _, c := range changes {
		if c, ok := ref.change(e, c, c.node == origin, est.s[c.at], q); ok {
			kept = append(kept, c)
		}
	}
	changes = kept
	if len(ref.gainers) > 0 {
		node := rp.node // scratch, all zero between pushes
		for _, u := range est.reached {
			node[u].seen = true
		}
		for _, u := range ref.gainers {
			if !node[u].seen {
				if c, ok := ref.change(e, remainderChange{at: -1, node: u}, false, 0, q); ok && c.delta != 0 {
					changes = append(changes, c)
				}
			}
		}
		for _, u := range est.reached {
			node[u].seen = false
		}
	}
	ref.changes = changes
	return changes, readsDiffer
}

// change fills c's entry (diffChange) and its node's out-weights, or
// reports that the node's rows agree.
func (ref *topKRefinement) change(e *Engine, c remainderChange, origin bool, su float64, q spreadQ) (remainderChange, bool) {
	var ok bool
	c.delta, c.wA, c.wG, ok = diffChange(ref.rows, e.damping, c.node, origin, su, q)
	return c, ok
}

// spread spreads est's q into the pusher's scratch, zero between uses,
// until unspread.
func (rp *reversePusher) spread(est *reverseEstimate) spreadQ {
	for i, w := range est.Nodes {
		rp.q[w] = est.Q[i]
		rp.in[w/64] |= 1 << (w % 64)
	}
	return spreadQ{q: rp.q, in: rp.in}
}

// unspread zeroes what spread wrote.
func (rp *reversePusher) unspread(est *reverseEstimate) {
	for _, w := range est.Nodes {
		rp.q[w] = 0
		rp.in[w/64] = 0
	}
}

// adapt returns the donor's estimate est (on the donor's view, G below)
// rewritten for e's view (A) with the changes remainderChanges found: the
// same q (the donor's Nodes and Q, shared), with the remainder
//
//	s_A = s + d*(P'_A - P'_G)*q,
//
// and its summaries, bounded from above: the donor's with the changed
// nodes' terms moved from G to A, plus their rounding.
//
// Proof. Each push keeps s = e_v - (I - d*P'_G)*q (moving s(w) into q(w)
// and adding d*P'_G[u][w]*s(w) to s(u) for every u with an arc into w
// leaves e_v - (I - d*P'_G)*q unchanged), so the push's pair satisfies it
// exactly, however far it got. Then with s_A as above, s_A = e_v - (I -
// d*P'_A)*q, and G'_A*e_v = G'_A*(s_A + (I - d*P'_A)*q) = q + G'_A*s_A:
// the pair (q, s_A) is an estimate on A. Only s_A's sign is new: an arc
// only G has, into q's support, makes it negative there; r*G'_A*s_A =
// r*G'_A*s_A+ - r*G'_A*s_A-, and bounds takes each part with its own
// summaries (the arguments at the top of this file and below hold for
// each part, which is >= 0). With no change, s_A = s: the donor's
// estimate is this view's as it is.
//
// The summaries. s_A and A's out-weights equal the donor's s and G's at
// every node but those of differ the push reached and the gainers it did
// not, which the changes list. A part's sums (weighted by W, over the
// dangling nodes) are sums of one non-negative term a node: the donor's
// sum less the changed nodes' terms under G plus theirs under A is A's
// sum, up to the rounding of the 2k operations on terms and sums at most
// M (the donor's sum and every term moved), at most 2k*M*2^-53 with
// k = len(changes), which slack adds. The largest entry is bounded by the
// larger of the donor's and the changed entries' (a maximum cannot be
// taken back). Every bound the summaries give is monotone in them.
func (ref *topKRefinement) adapt(e *Engine, est *reverseEstimate, changes []remainderChange) *reverseEstimate {
	out := ref.newEstimate()
	*out = reverseEstimate{MaxS: est.MaxS, SW: est.SW, SD: est.SD, NegMaxS: est.NegMaxS, NegSW: est.NegSW, NegSD: est.NegSD,
		Nodes: est.Nodes, Q: est.Q, shared: true,
		reached: append(out.reached[:0], est.reached...), s: append(out.s[:0], est.s...)}
	var moved reverseEstimate // the terms moved, both views', for the slack
	for _, c := range changes {
		sv := c.delta
		if c.at >= 0 {
			old := est.s[c.at]
			out.takeRemainder(old, c.wG)
			moved.addRemainder(old, c.wG)
			out.s[c.at] += c.delta
			sv = out.s[c.at]
		} else {
			out.reached = append(out.reached, c.node)
			out.s = append(out.s, c.delta)
		}
		out.addRemainder(sv, c.wA)
		moved.addRemainder(sv, c.wA)
	}
	k := float64(2*len(changes)) * 0x1p-53
	for _, p := range [...]struct {
		sum          *float64
		moved, donor float64
	}{
		{&out.SW, moved.SW, est.SW}, {&out.SD, moved.SD, est.SD},
		{&out.NegSW, moved.NegSW, est.NegSW}, {&out.NegSD, moved.NegSD, est.NegSD},
	} {
		*p.sum = max(*p.sum, 0) + k*(p.donor+p.moved)
	}
	return out
}

// takeRemainder takes back one entry sw of s, at a node of out-weight w,
// from the sums (addRemainder's inverse there; maxima stay).
func (e *reverseEstimate) takeRemainder(sw, w float64) {
	mag, sumW, sumD := sw, &e.SW, &e.SD
	if sw < 0 {
		mag, sumW, sumD = -sw, &e.NegSW, &e.NegSD
	}
	if w > 0 {
		*sumW -= mag * w
	} else {
		*sumD -= mag
	}
}

// release returns an estimate to the pool, without the donor's arrays a
// shared one reads.
func (ref *topKRefinement) release(est *reverseEstimate) {
	if est.shared {
		est.Nodes, est.Q, est.shared = nil, nil, false
	}
	ref.free = append(ref.free, est)
}

// reset starts a new solve: estimates depend on the damping, which the
// next problem may change. Their storage goes back to the pool, so an
// engine reused across queries allocates for them only while the pool
// grows.
func (ref *topKRefinement) reset() {
	// In target order, not the map's: a repeated query then takes each
	// estimate's storage back for the same push, and grows none.
	for _, v := range slices.Sorted(maps.Keys(ref.est)) {
		ref.release(ref.est[v])
	}
	clear(ref.est)
	if ref.pusher != nil {
		ref.startOps = ref.pusher.Ops
	}
	ref.warmArcs = 0
}

// unshare ends a sharing of another engine's estimates (ShareEstimates).
func (ref *topKRefinement) unshare() {
	ref.donor, ref.gainers, ref.rows = nil, nil, nil
	clear(ref.borrowed)
	clear(ref.unserved)
}

// rebind prepares the refinement for another view of n nodes: the
// estimates (the view's) go to the pool, the sharing ends, and the
// pusher's arrays (all zero between pushes) are resized in place.
func (ref *topKRefinement) rebind(n int) {
	ref.reset()
	ref.unshare()
	if rp := ref.pusher; rp != nil {
		rp.q, rp.in, rp.node = reuse.Slice(rp.q, n), reuse.Slice(rp.in, (n+63)/64), reuse.Slice(rp.node, n)
	}
}

// Reserve allocates the scratch of the reverse pushes that refine a
// certified top-k's bounds (O(n): 24 bytes a node) and writes it once,
// so that the first query that refines pays neither the allocation nor
// the first touch of its pages (a host that keeps engines for many
// queries, replay's workspaces, reserves them when it makes them). It
// changes no state and no result.
func (e *Engine) Reserve() {
	rp := e.refine.reserve(len(e.X))
	clear(rp.q)
	clear(rp.in)
	clear(rp.node)
}

// reserve returns the pusher, made for n nodes on first use.
func (ref *topKRefinement) reserve(n int) *reversePusher {
	if ref.pusher == nil {
		ref.pusher = newReversePusher(n)
		ref.startOps = 0
	}
	return ref.pusher
}

// newEstimate returns an estimate from the pool, or a new one.
func (ref *topKRefinement) newEstimate() *reverseEstimate {
	if k := len(ref.free); k > 0 {
		est := ref.free[k-1]
		ref.free = ref.free[:k-1]
		return est
	}
	return &reverseEstimate{}
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

// refineCheck is the refinement state of one check of SolveTopK: the
// engine's state, its unrefined bounds and what the check may still spend
// on reverse pushes. Its methods are the pieces of the proofs above.
type refineCheck struct {
	e         *Engine
	eb        *errorBounds   // unrefined per-node bounds
	st        *residualStats // nil on directed views
	l1        float64        // ||r||_1
	cmax      float64        // bound on |c| (see the identity)
	signed    bool
	allowance int64 // arcs the check may still read
	// adaptOnly: estimates come from the check's earlier ones and the
	// donor's (borrow) only, never from a push of its own.
	adaptOnly bool
}

// newRefineCheck returns the check's state, or nil when the identity does
// not apply (cmax >= 1) or nothing is left to refine.
func (e *Engine) newRefineCheck(l1 float64, eb *errorBounds, st *residualStats) *refineCheck {
	cmax := refineCMax(l1, e.alpha, e.damping, eb.vis != nil)
	if st != nil {
		cmax = min(cmax, e.damping*st.dangling/e.alpha)
	}
	if !(cmax < 1) || l1 <= 0 {
		return nil
	}
	ref := &e.refine
	ref.reserve(len(e.X))
	if ref.est == nil {
		ref.est = make(map[uint32]*reverseEstimate)
	}
	return &refineCheck{e: e, eb: eb, st: st, l1: l1, cmax: cmax, signed: eb.signed, allowance: (e.Stats.ArcOps+ref.warmArcs)/reverseArcCost - ref.arcs()}
}

// below returns how far N(v) may lie below x(v) unrefined.
func (rc *refineCheck) below(v uint32) float64 {
	switch {
	case !rc.signed:
		return 0
	case rc.eb.w != nil:
		return rc.eb.below(v) // N - x = r*G' >= -(r-)*(I - d*P)^-1, as e- is bounded
	}
	return rc.eb.nTerm(v)
}

// estimate returns v's reverse estimate at threshold eps: the solve's
// earlier one when it is as fine, else the donor's when it serves
// (borrow), else a push if the allowance lasts (nil when v has none). The
// push goes on from the donor's estimate adapted to this view when borrow
// made one (it differs from a push at eps only near the rows that differ,
// so going on costs what those changes need, not a push from the start),
// or else from the solve's earlier estimate.
func (rc *refineCheck) estimate(v uint32, eps float64) *reverseEstimate {
	ref := &rc.e.refine
	old := ref.est[v]
	if old != nil && old.MaxS <= eps {
		return old
	}
	b, start := ref.borrow(rc.e, v, eps)
	if b != nil {
		return b
	}
	if start != nil {
		defer ref.release(start)
	}
	if rc.allowance <= 0 || rc.adaptOnly {
		return old
	}
	from := start
	if from == nil {
		from = old
	}
	before := ref.pusher.Ops
	est := ref.newEstimate()
	ref.pusher.pushInto(est, rc.e.view, rc.e.damping, v, eps, rc.allowance, from)
	rc.allowance -= ref.pusher.Ops - before
	if old == nil || est.MaxS < old.MaxS {
		if old != nil {
			ref.release(old)
		}
		ref.est[v] = est
		return est
	}
	ref.release(est)
	return old
}

// bounds returns the refined interval of N(v) (see the proofs): r.q
// widened by the remainder r*G'*s. With r = r+ - r- and s = s+ - s-,
//
//	r*G'*s = (r+*G'*s+ + r-*G'*s-) - (r+*G'*s- + r-*G'*s+),
//
// four terms >= 0 (G' >= 0), each at most the size the proofs give it for
// its two parts: the first two widen the interval above, the last two
// below. r- is zero for r >= 0 and s- for a push, so a push's interval on a
// non-negative residual reaches only refineSlack below r.q. On undirected
// views r-'s terms use its own statistics (its largest ratio and its sum
// on dangling nodes), so a small negative part costs little.
func (rc *refineCheck) bounds(v uint32, est *reverseEstimate) (lo, hi float64) {
	x := rc.e.X
	mid := est.dot(rc.e.R)
	above := rc.remainder(false, est.MaxS, est.SW, est.SD) + refineSlack
	under := rc.remainder(false, est.NegMaxS, est.NegSW, est.NegSD) + refineSlack
	if rc.signed {
		above += rc.remainder(true, est.NegMaxS, est.NegSW, est.NegSD)
		under += rc.remainder(true, est.MaxS, est.SW, est.SD)
	}
	return max(x[v]+mid-under, x[v]-rc.below(v)), min(x[v]+mid+above, x[v]+rc.eb.nTerm(v))
}

// remainder bounds r+*G'*s' (r- when neg is set) for one part s' >= 0 of
// s with summaries maxS, sw and sd (see the proofs): ||r||_1*maxS/alpha,
// and on undirected views the per-coordinate (rho*sw + D*sd)/alpha with
// the part's rho and D (the whole residual's bound r+'s).
func (rc *refineCheck) remainder(neg bool, maxS, sw, sd float64) float64 {
	if maxS == 0 {
		return 0
	}
	half := rc.l1 * maxS
	if st := rc.st; st != nil {
		rho, dangling := st.maxRatio, st.dangling
		if neg {
			rho, dangling = st.maxNeg, st.danglingNeg
		}
		half = min(half, rho*sw+dangling*sd)
	}
	return rc.e.tune.boundScale * half / rc.e.alpha
}

// tighten pushes from v at eps = coarsestReverse, then tenfold finer until
// v's refined interval clears target (its lower end above it when above is
// set, as a selected v wants, its upper end below it otherwise), the
// pushes reach finestUndirected or the allowance runs out (undirected
// views: the remainder is not tied to eps). nil when v gets no estimate.
func (rc *refineCheck) tighten(v uint32, above bool, target float64) *reverseEstimate {
	var est *reverseEstimate
	for eps := coarsestReverse; ; eps /= 10 {
		next := rc.estimate(v, eps)
		if next == nil {
			return est
		}
		// An estimate already finer than eps comes back for it as it
		// was: its interval, which did not clear the target, is the same.
		if next != est {
			est = next
			if lo, hi := rc.bounds(v, est); above && lo > target || !above && hi < target {
				return est
			}
		}
		if eps <= finestUndirected || rc.allowance <= 0 {
			return est
		}
	}
}

// piGap turns a lower bound g on N(v) - N(u) into one on pi(v) - pi(u):
// pi = N/(1 - c) with 1 - c in [1 - cmax, 1] for r >= 0 and in
// [1 - cmax, 1 + cmax] for a signed r.
func (rc *refineCheck) piGap(g float64) float64 {
	switch {
	case g > 0 && !rc.signed:
		return g
	case g > 0:
		return g / (1 + rc.cmax)
	default:
		return g / (1 - rc.cmax)
	}
}

// refineTopK returns a lower bound on the exact gap of the selection sel
// over the candidates (nil: every node) from reverse-refined intervals,
// how many candidates it refined, and on undirected views the
// per-coordinate factor C = rho/alpha below which every refined blocker
// would clear the selection with its current r.q (a threshold for the
// scans; -1 when some blocker would not, or on directed views); -Inf, 0
// and -1 when it does not try (see the proofs above). l1 is ||r||_1, eb
// the unrefined per-node bounds (the L1 bound on directed views), st the
// residual's statistics on undirected views (nil on directed ones), gap
// the raw gap at the boundary. e.inSel is all false on entry and return.
func (e *Engine) refineTopK(sel []Scored, candidates []uint32, l1 float64, eb *errorBounds, st *residualStats, gap float64, pre *blockerSet) (proved float64, refined int, need float64) {
	if !(gap > 0) {
		return math.Inf(-1), 0, -1
	}
	minSelX, minSelLo := math.Inf(1), math.Inf(1)
	for _, s := range sel {
		minSelX = min(minSelX, s.Score)
		if eb.signed {
			minSelLo = min(minSelLo, s.Score-eb.nTerm(s.Node))
		} else {
			minSelLo = min(minSelLo, s.Score)
		}
	}
	// The unselected candidates whose unrefined interval reaches the
	// selection's lowest lower end block the proof; every other one keeps
	// its unrefined upper end.
	bs := pre
	if bs == nil {
		limit := maxRefined
		if eb.vis != nil {
			limit = maxRefinedVisits
		}
		bs = e.collectBlockers(sel, candidates, eb, minSelLo, limit)
	}
	if bs.over {
		return math.Inf(-1), 0, -1
	}
	if st == nil {
		// Aim each blocker's term at a third of its distance below the
		// selection's scores (and a selected candidate's at a third of
		// its distance above the best unselected score, for a signed r):
		// then the refined intervals clear each other unless r.q itself
		// closes the distance.
		for _, u := range bs.nodes {
			if eps := (minSelX - e.X[u]) * e.alpha / (3 * l1); !(eps >= finestReverse) {
				return math.Inf(-1), 0, -1 // sweeps are cheaper until the L1 term shrinks
			}
		}
	}
	rc := e.newRefineCheck(l1, eb, st)
	if rc == nil {
		return math.Inf(-1), 0, -1
	}
	var selLo, restHi float64
	if st == nil {
		selLo, restHi, refined = rc.refineDirected(sel, bs, minSelX, minSelX-gap)
		need = -1
	} else {
		selLo, restHi, refined, need = rc.refineUndirected(sel, bs)
	}
	if math.IsInf(restHi, -1) {
		return math.Inf(1), refined, need
	}
	return rc.piGap(selLo - restHi), refined, need
}

// refineDirected is refineTopK's refinement on a directed view: each
// blocker's interval at the threshold that aims it a third of its
// distance below the selection's lowest x, then the selected candidates
// the refined rest still blocks (x + r.q from any push when r >= 0, a
// tight one when r is signed, aimed a third of the way above restX, the
// best unselected x). It returns the selection's lowest lower end, the
// rest's highest upper end and the candidates refined.
func (rc *refineCheck) refineDirected(sel []Scored, bs *blockerSet, minSelX, restX float64) (selLo, restHi float64, refined int) {
	e, eb := rc.e, rc.eb
	x, alpha, l1 := e.X, e.alpha, rc.l1
	restHi = bs.restHi
	for _, u := range bs.nodes {
		hi := x[u] + eb.nTerm(u)
		if est := rc.estimate(u, min(coarsestReverse, (minSelX-x[u])*alpha/(3*l1))); est != nil {
			_, hi = rc.bounds(u, est)
			refined++
		}
		restHi = max(restHi, hi)
	}
	selLo = math.Inf(1)
	for _, s := range sel {
		v := s.Node
		lo := x[v] - rc.below(v)
		if lo <= restHi {
			eps := coarsestReverse
			if rc.signed {
				eps = min(eps, (x[v]-restX)*alpha/(3*l1))
			}
			if est := rc.estimate(v, max(eps, finestReverse)); est != nil {
				lo, _ = rc.bounds(v, est)
				refined++
			}
		}
		selLo = min(selLo, lo)
	}
	return selLo, restHi, refined
}

// refineUndirected is refineTopK's refinement on an undirected view: the
// selected side first, since r.q raises its lower ends about as much as
// it raises the blockers' upper ends (the residual near the boundary
// candidates is alike), then each blocker against the refined selection.
// Besides refineDirected's results it returns need, the per-coordinate
// factor C = rho/alpha below which every refined blocker's remainder
// would clear the selection if r.q stayed (a threshold for the scans; -1
// when some blocker would not).
func (rc *refineCheck) refineUndirected(sel []Scored, bs *blockerSet) (selLo, restHi float64, refined int, need float64) {
	e, eb, st := rc.e, rc.eb, rc.st
	x := e.X
	restHi = bs.restHi
	blockHi := restHi
	for _, u := range bs.nodes {
		blockHi = max(blockHi, x[u]+eb.nTerm(u))
	}
	selLo = math.Inf(1)
	for _, s := range sel {
		v := s.Node
		lo := x[v] - rc.below(v)
		if lo <= blockHi {
			if est := rc.tighten(v, true, blockHi); est != nil {
				lo, _ = rc.bounds(v, est)
				refined++
			}
		}
		selLo = min(selLo, lo)
	}
	need = math.Inf(1)
	for _, u := range bs.nodes {
		est := rc.tighten(u, false, selLo)
		if est == nil {
			need = -1
			restHi = max(restHi, x[u]+eb.nTerm(u))
			continue
		}
		refined++
		_, hi := rc.bounds(u, est)
		restHi = max(restHi, hi)
		sw, sd := est.SW, est.SD
		if rc.signed {
			sw, sd = sw+est.NegSW, sd+est.NegSD
		}
		if room := selLo - x[u] - est.dot(e.R) - st.dangling*sd/e.alpha - refineSlack; room > 0 && sw > 0 && need >= 0 {
			need = min(need, room/(e.tune.boundScale*sw))
		} else if hi >= selLo {
			need = -1
		}
	}
	return selLo, restHi, refined, need
}

// collectBlockers is refineTopK's own pass over the candidates (its
// reference when coordGap collected them, TestCoordGapCollectsBlockers):
// the unselected ones whose unrefined upper end x + nTerm reaches minSelLo,
// at most limit of them, and the highest upper end of the others.
func (e *Engine) collectBlockers(sel []Scored, candidates []uint32, eb *errorBounds, minSelLo float64, limit int) *blockerSet {
	x, inSel := e.X, e.inSel
	bs := &e.refine.collected
	bs.reset(limit)
	for _, s := range sel {
		inSel[s.Node] = true
	}
	eachCandidate(len(x), candidates, func(u uint32) {
		if !inSel[u] && !bs.over {
			bs.add(u, x[u]+eb.nTerm(u), minSelLo)
		}
	})
	for _, s := range sel {
		inSel[s.Node] = false
	}
	return bs
}

// refineLeads raises an ordered SolveTopK's unproved leads (leads[i] <= 0 for
// the pair sel[i], sel[i+1]) with refined intervals: a lower bound on
// pi(a) - pi(b) is piGap(lo(a) - hi(b)) for any refined or unrefined
// interval of N at a and b (the proof of refineTopK with the pair as
// selection and rest). It reports whether every lead is positive after.
func (e *Engine) refineLeads(sel []Scored, leads []float64, l1 float64, eb *errorBounds, st *residualStats) bool {
	rc := e.newRefineCheck(l1, eb, st)
	ordered := true
	for i := 0; i+1 < len(sel); i++ {
		if leads[i] > 0 {
			continue
		}
		if rc == nil {
			return false
		}
		a, b := sel[i].Node, sel[i+1].Node
		hiB := e.X[b] + eb.nTerm(b)
		loA := e.X[a] - rc.below(a)
		if est := rc.tighten(a, true, hiB); est != nil {
			loA, _ = rc.bounds(a, est)
		}
		if est := rc.tighten(b, false, loA); est != nil {
			_, hiB = rc.bounds(b, est)
		}
		leads[i] = max(leads[i], rc.piGap(loA-hiB)-eb.round)
		ordered = ordered && leads[i] > 0
	}
	return ordered
}
