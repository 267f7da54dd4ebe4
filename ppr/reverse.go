package ppr

import (
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
// 0 <= h <= 1/alpha; with r >= 0 (the native start state and everything a
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
