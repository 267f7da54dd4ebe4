package ppr

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/authppr/authppr/mask"
)

// Per-node error bounds on directed views (SolveTopK with Options.Visits).
//
// # The identity
//
// As in reverse.go, split the view's P = P0 + 1_D*s (P0: the dangling rows
// zeroed) and let M0 = (I - d*P0)^-1 >= 0 and h = M0*1_D. For any state
// (x, r), e = pi - x = r*(I-d*P)^-1 satisfies e = r + d*e*P = r + d*e*P0 +
// d*e(D)*s, so e = r*M0 + d*e(D)*s*M0; pi = alpha*s + d*pi*P gives s*M0 =
// pi/(alpha + d*pi(D)) and, summing e over D, e(D) = (r.h)*(alpha +
// d*pi(D))/alpha. Together
//
//	e = r*M0 + c*pi,   c = (d/alpha)*(r.h),
//
// the identity reverse.go writes as pi = x + r*M0 + c*pi. Moreover 0 <= h
// <= 1: h = 1_D + d*P0*h, P0's rows on D are zero, so every partial sum of
// the Neumann series sum_j (d*P0)^j*1_D is 1 on D and at most d (a row of
// P0 sums to 1) elsewhere. So |c| <= cbar := d*||r||_1/alpha (reverse.go's
// h <= 1/alpha gives only d*||r||_1/alpha^2), and when cbar < 1, e = (r*M0
// + c*x)/(1 - c) gives
//
//	|e(u)| <= (max|r| * V(u) + cbar*|x(u)|) / (1 - cbar)
//
// for any V >= G := 1*M0 (the column sums of M0: |(r*M0)(u)| <= max|r| *
// sum_w M0[w][u]); from the native start r, x, c >= 0 and 0 <= e(u). G(u)
// is the expected number of visits to u, discounted by d per step and
// stopped at dangling nodes, summed over walks starting at every node
// once: 1 for a node nothing links to, thousands for the hub of a
// power-law graph, where max|r|*V(u) is loose. There a second bound holds: every entry of column
// u of M0 is at most its diagonal entry (M0[w][u] is the discounted chance
// of reaching u from w times M0[u][u]), so
//
//	|(r*M0)(u)| <= ||r||_1 * Dg(u)   for any Dg(u) >= M0[u][u],
//
// and M0[u][u] = 1 plus the discounted returns to u, about 1 where walks
// seldom return (the pushes below bound it within visitDiagEps/alpha, their
// own slack), against the 1/alpha of the L1 bound. So
//
//	|e(u)| <= (min(max|r|*V(u), ||r||_1*Dg(u)) + cbar*|x(u)|) / (1 - cbar).
//
// Neither V nor Dg depends on the query, only on the view and d:
// VisitBounds holds them, built once and passed to every query
// (Options.Visits).
//
// # Building V
//
// G_0 = 1, G_{k+1} = 1 + d*G_k*P0 (a Jacobi pull, the engine's kernels)
// increases to G. Any V with V*(I - d*P0) >= 1 (a supersolution) is >= G:
// V = f*M0 with f >= 1 and M0 >= 0. With res_k = G_{k+1} - G_k (>= 0,
// and res_{k+1} = d*res_k*P0), the candidate
//
//	V = G_{k+1} + lambda*res_k,   lambda = rho/(1 - rho),
//
// has V*(I - d*P0) = 1 - res_{k+1} + lambda*(res_k - res_{k+1}), which is
// >= 1 exactly where res_{k+1} <= rho*res_k. rho is estimated from the
// largest ratio res_k/res_{k-1} seen (over nodes whose res is above
// rounding noise), moved a tenth of the way towards 1: the ratios settle
// fast on the slowest mode. The estimate is only a guess: the candidate is then checked as
// a supersolution with the plain pull (pullReference), each node's sum
// allowed (in-degree + 4) * 2^-52 of the magnitudes it adds (a sum of n
// non-negative terms, each a product of two rounded factors, is within
// n*2^-53 of its value, relatively, to first order), and divided by the
// smallest margin when that is below 1, so that V*(I - d*P0) >= 1 holds
// for the matrix the engine pushes with (the 1/W its sweeps use). A
// candidate is tried once lambda*res_k <= visitTol*G_{k+1} everywhere, and
// kept when its margin is at least 1/(1 + visitTol); so V <= (1 +
// visitTol)^2 * G. This takes about a third of the pulls the plain bound
// G_k/(1 - max res_k) needs (visitUpdate's fallback, for periodic graphs;
// docs/benchmarks.md, "ppr: visit bounds").
//
// # Building Dg
//
// Dg(u) = min(V(u), 1/alpha) holds for every node (a column sum, a row
// sum). For the nodes of largest V, where max|r|*V(u) is loose (chosen by
// visitDiagMin and visitDiagBudget; every V(u) > 1 on small graphs), a
// reverse push from u to threshold visitDiagEps (reversePusher,
// reverse.go) gives M0*e_u = q + M0*s with 0 <= (M0*s)(u) <= max(s)/alpha,
// so Dg(u) = q(u) + max(s)/alpha. V and Dg are stored as float32 rounded up, which keeps
// them upper bounds at half the memory: 8 bytes per node for both.

// VisitBounds holds upper bounds V >= G on the column sums G = 1*M0 of M0
// = (I - d*P0)^-1 and Dg on its diagonal, for one view and damping (see
// above), 8 bytes per node.
// Build it once per view and damping with NewVisitBounds and pass it in
// Options.Visits to every SolveTopK on that view: it is read-only, so
// concurrent queries may share it.
type VisitBounds struct {
	view    *mask.View
	damping float64
	v, dg   []float32 // V and Dg, rounded up
	scale   float64   // the candidate V was divided by (its check's margin, at most 1)
	// Pulls counts the Jacobi pulls the construction ran (a pull reads
	// every arc once, as a sweep does), the verifying pull included.
	Pulls int
	// Loose bounds the relative overestimate: V(u) <= (1 + Loose) * G(u).
	Loose float64
	// Pushed counts the nodes whose Dg came from a reverse push, and
	// ReverseArcs the arcs those pushes read; MaxDiag is the largest Dg
	// among them.
	Pushed      int
	ReverseArcs int64
	MaxDiag     float64
}

// visitDiagMin and visitDiagBudget choose the nodes whose M0[u][u]
// NewVisitBounds bounds by a reverse push: those with V(u) above
// visitDiagMin, largest V first, until the pushes have read
// visitDiagBudget times the view's arcs. Where a push pays depends on the
// query: the two terms of the bound cross where max|r|*V(u) =
// ||r||_1*Dg(u), at V(u) = ||r||_1/max|r| (times Dg, about 1), from a few
// dozen to a few hundred in the sweeps where proofs end. The budget keeps
// the cost near that of a sweep and a half wherever the hubs are
// (docs/benchmarks.md, "ppr: visit bounds").
const (
	visitDiagMin    = 4
	visitDiagBudget = 1.5
)

// visitDiagAll: on graphs of at most this many nodes, every node with
// V(u) > 1 gets a push (cheap there, and the tests' small graphs exercise
// the pushes).
const visitDiagAll = 4096

// visitDiagEps is the reverse push threshold for Dg: Dg(u) <= q(u) +
// visitDiagEps/alpha (about 1.13 at d = 0.85 where M0[u][u] is about 1).
const visitDiagEps = 0.02

// roundUp32 returns the smallest float32 >= x (x finite, non-negative).
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// visitTol is the overestimate a candidate may add (see above): a bound
// 5% too large delays a proof waiting on it by log(1.05)/log(1/rate)
// sweeps when the residual shrinks by rate per sweep, a sixth of a sweep
// at rate 0.73.
const visitTol = 0.05

// visitRhoMargin: the candidate's rho is 1 - visitRhoMargin*(1 - the
// largest ratio res_k/res_{k-1}), a margin that shrinks with the gap to 1
// (a fixed factor would reach 1 at high damping); visitNoise is the res/G below which a node's ratio
// is rounding noise and left out.
const (
	visitRhoMargin = 0.9
	visitNoise     = 1e-12
)

// maxVisitPulls caps the construction, far above what it needs (a few
// dozen pulls at d = 0.85); the pulls needed grow like 1/alpha.
const maxVisitPulls = 20000

// NewVisitBounds builds the per-node visit bounds of view at damping d.
func NewVisitBounds(view *mask.View, damping float64) (*VisitBounds, error) {
	if err := checkDamping(damping); err != nil {
		return nil, err
	}
	if view.Patched() {
		return nil, errors.New("ppr: visit bounds pull over the in-adjacency, which a patched view does not have")
	}
	n := view.Graph().NumNodes()
	e := &Engine{view: view, damping: damping, tune: &defaultTuning}
	inv := view.InvOutWeights()[:n]
	g, next, res := make([]float64, n), make([]float64, n), make([]float64, n)
	factor, pulled := make([]float64, n), make([]float64, n)
	for u := range g {
		g[u] = 1
	}
	vb := &VisitBounds{view: view, damping: damping}
	for {
		if vb.Pulls >= maxVisitPulls {
			return nil, fmt.Errorf("ppr: visit bounds of view %s at damping %g: no bound within %g after %d pulls", view.Name(), damping, visitTol, vb.Pulls)
		}
		for u, gu := range g {
			factor[u] = gu * inv[u]
		}
		e.pull(factor, next)
		vb.Pulls++
		lambda, loose, ok := visitUpdate(g, next, res, vb.Pulls == 1)
		g, next = next, g
		if !ok {
			continue
		}
		visitCandidate(next, next, g, res, lambda, loose)
		margin, err := supersolutionMargin(view, damping, next, factor, pulled)
		vb.Pulls++
		if err != nil || margin < 1/(1+visitTol) {
			continue // a poor guess of rho: iterate on
		}
		g = next
		vb.scale = min(margin, 1)
		for u := range g {
			g[u] /= vb.scale
		}
		vb.Loose = (1+loose)/vb.scale - 1
		break
	}
	alpha := 1 - damping
	vb.v, vb.dg = make([]float32, n), make([]float32, n)
	var order []uint32 // nodes to push, largest V first
	for u, vu := range g {
		vb.v[u] = roundUp32(vu)
		vb.dg[u] = roundUp32(min(vu, 1/alpha))
		if vu > visitDiagMin || n <= visitDiagAll && vu > 1 {
			order = append(order, uint32(u))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(g[b], g[a]) })
	budget := int64(visitDiagBudget * float64(len(view.Graph().In().Nbr)))
	if n <= visitDiagAll {
		budget = math.MaxInt64
	}
	rp := newReversePusher(n)
	for _, u := range order {
		if rp.Ops >= budget {
			break
		}
		est := rp.push(view, damping, u, visitDiagEps, math.MaxInt64)
		q := 0.0
		for i, w := range est.Nodes {
			if w == u {
				q = est.Q[i]
			}
		}
		dg := min(g[u], 1/alpha, q+est.MaxS/alpha)
		vb.dg[u] = roundUp32(dg)
		vb.Pushed++
		vb.MaxDiag = max(vb.MaxDiag, dg)
	}
	vb.ReverseArcs = rp.Ops
	return vb, nil
}

// supersolutionMargin returns min_u of V*(I - d*P0)(u) minus its rounding
// allowance (see the top of this file), computed with the plain pull;
// factor and next are scratch of n entries. An error when it is not
// positive (V is then no bound at all).
func supersolutionMargin(view *mask.View, damping float64, v, factor, next []float64) (float64, error) {
	g := view.Graph()
	in := g.In()
	inv := view.InvOutWeights()
	for u, vu := range v {
		factor[u] = vu * inv[u]
	}
	if w := in.Weight.Float32s(); w != nil {
		pullReference(in.Offsets, in.Nbr, w, in.Edge, view.MaskedBits(), factor, next, damping)
	} else {
		pullReference(in.Offsets, in.Nbr, in.Weight.Float64s(), in.Edge, view.MaskedBits(), factor, next, damping)
	}
	margin := math.Inf(1)
	for u, vu := range v {
		deg := in.Offsets[u+1] - in.Offsets[u]
		slack := float64(deg+4) * 0x1p-52 * (vu + next[u])
		margin = min(margin, vu-next[u]-slack)
	}
	if !(margin > 0) {
		return 0, fmt.Errorf("ppr: visit bounds of view %s at damping %g: check margin %g, want positive", view.Name(), damping, margin)
	}
	return margin, nil
}

// visitUpdate turns next = d*G_k*P0 into G_{k+1} = 1 + next in place
// and res (res_{k-1} on entry, unless first) into res_k = G_{k+1} - G_k,
// with g = G_k. It returns the candidate's lambda and its looseness
// max lambda*res_k/G_{k+1}, and ok when a candidate is due (see above).
//
// When no such candidate is due but m = max res_k <= visitTol/(1 +
// visitTol), it returns lambda = -1 and loose = 1/(1 - m) - 1: the
// candidate is then G_k/(1 - m), a supersolution in exact arithmetic
// (V*(I - d*P0) = (1 - res_k)/(1 - m) >= 1), for the graphs where the
// ratios res_k/res_{k-1} never settle (a periodic structure, where they
// alternate around the slowest mode's).
func visitUpdate(g, next, res []float64, first bool) (lambda, loose float64, ok bool) {
	rho, m := 0.0, 0.0
	for u, nu := range next {
		nu++
		next[u] = nu
		r := nu - g[u]
		if !first && res[u] > visitNoise*g[u] {
			rho = max(rho, r/res[u])
		}
		res[u] = r
		m = max(m, r)
	}
	rho = 1 - visitRhoMargin*(1-rho)
	if !first && rho < 1 {
		lambda = rho / (1 - rho)
		for u, r := range res {
			loose = max(loose, lambda*r/next[u])
		}
		if loose <= visitTol {
			return lambda, loose, true
		}
	}
	if m <= visitTol/(1+visitTol) {
		return -1, 1/(1-m) - 1, true
	}
	return 0, 0, false
}

// visitCandidate writes the candidate visitUpdate chose into dst: from
// G_{k+1} (cur) and res_k, or G_k/(1-m) from prev = G_k when lambda < 0.
func visitCandidate(dst, prev, cur, res []float64, lambda, loose float64) {
	if lambda < 0 {
		inv := 1 + loose // 1/(1 - m)
		for u, p := range prev {
			dst[u] = p * inv
		}
		return
	}
	for u, c := range cur {
		dst[u] = c + lambda*res[u]
	}
}

// visitsReference is the construction written plainly: Jacobi steps
// scattered over the out-adjacency with every arc's mask tested and the
// first candidate due returned unchecked, with the pulls made. Before its
// check, NewVisitBounds's V must match it to rounding
// (TestVisitBoundsMatchReference).
func visitsReference(view *mask.View, d float64) ([]float64, int) {
	g := view.Graph()
	n := g.NumNodes()
	out := g.Out()
	cur, res := make([]float64, n), make([]float64, n)
	for u := range cur {
		cur[u] = 1
	}
	for pulls := 1; pulls <= maxVisitPulls; pulls++ {
		next := make([]float64, n)
		for u := range n {
			wu := view.OutWeight(uint32(u))
			if wu == 0 {
				continue
			}
			for p := out.Offsets[u]; p < out.Offsets[u+1]; p++ {
				if !view.MaskedEdge(out.Edge[p]) {
					next[out.Nbr[p]] += d * cur[u] * out.Weight.At(p) / wu
				}
			}
		}
		lambda, loose, ok := visitUpdate(cur, next, res, pulls == 1)
		if ok {
			out := make([]float64, n)
			visitCandidate(out, cur, next, res, lambda, loose)
			return out, pulls
		}
		cur = next
	}
	return nil, maxVisitPulls
}

// check reports whether vb was built for this view and damping.
func (vb *VisitBounds) check(view *mask.View, damping float64) error {
	if vb.view != view || vb.damping != damping {
		return fmt.Errorf("ppr: visit bounds built for view %s at damping %g, used on view %s at damping %g; build them for the view and damping solved", vb.view.Name(), vb.damping, view.Name(), damping)
	}
	return nil
}

// at returns V(u) >= G(u) = sum_w M0[w][u] and Dg(u) >= M0[u][u].
func (vb *VisitBounds) at(u uint32) (v, dg float64) { return float64(vb.v[u]), float64(vb.dg[u]) }
