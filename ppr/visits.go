package ppr

import (
	"fmt"
	"math"

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
// P0 sums to 1) elsewhere. So |c| <= cbar := d*||r||_1/alpha (the bound
// reverse.go uses, 1/alpha, is looser), and when cbar < 1, e = (r*M0 +
// c*x)/(1 - c) gives
//
//	|e(u)| <= (max|r| * V(u) + cbar*|x(u)|) / (1 - cbar)
//
// for any V >= G := 1*M0 (the column sums of M0: |(r*M0)(u)| <= max|r| *
// sum_w M0[w][u]); from the native start r, x, c >= 0 and 0 <= e(u). G(u)
// is the expected number of visits to u, discounted by d per step and
// stopped at dangling nodes, summed over walks starting at every node
// once: 1 for a node nothing links to, thousands for an R-MAT hub, where
// max|r|*V(u) is loose. There a second bound holds: every entry of column
// u of M0 is at most its diagonal entry (M0[w][u] is the discounted chance
// of reaching u from w times M0[u][u]), so
//
//	|(r*M0)(u)| <= ||r||_1 * Dg(u)   for any Dg(u) >= M0[u][u],
//
// and M0[u][u] = 1 plus the discounted returns to u: about 1 on R-MAT 20
// (at most 1.07 found), against the 1/alpha of the L1 bound. So
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
// increases to G. With m = max_u (G_{k+1} - G_k)(u) < 1, V = G_k/(1 - m)
// is a supersolution, V*(I - d*P0) = (1 - (G_{k+1} - G_k))/(1 - m) >= 1,
// and every supersolution is >= G: V = f*M0 with f >= 1 and M0 >= 0. V is
// within a factor 1/(1-m) of G_k <= G, so visitTol bounds how loose it is.
// Rounding: V is checked once more as a supersolution with the plain pull
// (pullReference), each node's sum allowed (in-degree + 4) * 2^-52 of the
// magnitudes it adds (a sum of n non-negative terms, each a product of
// two rounded factors, is within n*2^-53 of its value, relatively, to
// first order), and V is divided by the smallest margin when that is
// below 1, so that V*(I - d*P0) >= 1 holds for the matrix the engine
// pushes with (the 1/W its sweeps use).
//
// # Building Dg
//
// Dg(u) = min(V(u), 1/alpha) holds for every node (a column sum, a row
// sum). Where V(u) > visitDiagFrom (any V(u) > 1 on small graphs), where
// max|r|*V(u) is loose, a reverse
// push from u to threshold visitDiagEps (ReversePusher, reverse.go) gives
// M0*e_u = q + M0*s with 0 <= (M0*s)(u) <= max(s)/alpha, so Dg(u) = q(u) +
// max(s)/alpha. V and Dg are stored as float32 rounded up, which keeps
// them upper bounds at half the memory: 8 bytes per node for both.

// VisitBounds is an upper bound V >= G on the column sums G = 1*M0 of M0 =
// (I - d*P0)^-1 for one view and damping (see above), 8 bytes per node.
// Build it once per view and damping with NewVisitBounds and pass it in
// Options.Visits to every SolveTopK on that view: it is read-only, so
// concurrent queries may share it.
type VisitBounds struct {
	view    *mask.View
	damping float64
	v, dg   []float32 // V and Dg, rounded up
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

// visitDiagFrom is the V(u) above which NewVisitBounds bounds M0[u][u]
// by a reverse push. The two terms of the bound cross where max|r|*V(u)
// = ||r||_1*Dg(u), at V(u) = ||r||_1/max|r| (times Dg, about 1): 200 to
// 500 on R-MAT 20 in the sweeps where proofs end, so pushing every node
// above 64 leaves a margin. R-MAT 20 at d = 0.85 has about 9,000 such
// nodes (of 1M).
const visitDiagFrom = 64

// visitDiagAll: on graphs of at most this many nodes, every node with
// V(u) > 1 gets a push (cheap there, and the tests' small graphs exercise
// the pushes).
const visitDiagAll = 4096

// visitDiagEps is the reverse push threshold for Dg: Dg(u) <= q(u) +
// visitDiagEps/alpha, 1.13 at d = 0.85 against M0[u][u] of about 1.
const visitDiagEps = 0.02

// roundUp32 returns the smallest float32 >= x (x finite, non-negative).
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// visitTol is the overestimate NewVisitBounds stops at: a bound 5% too
// large delays a proof waiting on it by about log(1.05)/log(1/0.73) = 0.16
// sweeps on R-MAT 20 (the residual shrinks by about 0.73 per sweep).
const visitTol = 0.05

// maxVisitPulls caps the construction; at d = 0.85 on R-MAT 20 the bound
// reaches visitTol after about 60 pulls, and the pulls needed grow like
// 1/alpha.
const maxVisitPulls = 20000

// NewVisitBounds builds the per-node visit bounds of view at damping d.
func NewVisitBounds(view *mask.View, damping float64) (*VisitBounds, error) {
	if err := checkDamping(damping); err != nil {
		return nil, err
	}
	n := view.Graph().NumNodes()
	e := &Engine{view: view, damping: damping}
	inv := view.InvOutWeights()[:n]
	g, next, factor := make([]float64, n), make([]float64, n), make([]float64, n)
	for u := range g {
		g[u] = 1
	}
	vb := &VisitBounds{view: view, damping: damping}
	for {
		if vb.Pulls == maxVisitPulls {
			return nil, fmt.Errorf("ppr: visit bounds of view %s at damping %g: not within %g after %d pulls", view.Name(), damping, visitTol, vb.Pulls)
		}
		for u, gu := range g {
			factor[u] = gu * inv[u]
		}
		e.pull(factor, next)
		vb.Pulls++
		m := 0.0
		for u, nu := range next {
			m = max(m, nu+1-g[u])
		}
		if m <= visitTol/(1+visitTol) {
			for u := range g {
				g[u] /= 1 - m
			}
			vb.Loose = 1/(1-m) - 1
			break
		}
		for u, nu := range next {
			next[u] = nu + 1
		}
		g, next = next, g
	}
	scale, err := supersolutionMargin(view, damping, g, factor, next)
	vb.Pulls++
	if err != nil {
		return nil, err
	}
	if scale < 1 {
		for u := range g {
			g[u] /= scale
		}
		vb.Loose = (1+vb.Loose)/scale - 1
	}
	alpha := 1 - damping
	vb.v, vb.dg = make([]float32, n), make([]float32, n)
	var rp *ReversePusher
	for u, vu := range g {
		vb.v[u] = roundUp32(vu)
		dg := min(vu, 1/alpha)
		if vu > 1 && (vu > visitDiagFrom || n <= visitDiagAll) {
			if rp == nil {
				rp = NewReversePusher(n)
			}
			est := rp.Push(view, damping, uint32(u), visitDiagEps, math.MaxInt64)
			q := 0.0
			for i, w := range est.Nodes {
				if w == uint32(u) {
					q = est.Q[i]
				}
			}
			dg = min(dg, q+est.MaxS/alpha)
			vb.Pushed++
			vb.MaxDiag = max(vb.MaxDiag, dg)
		}
		vb.dg[u] = roundUp32(dg)
	}
	if rp != nil {
		vb.ReverseArcs = rp.Ops
	}
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
	pullReference(in.Offsets, in.Nbr, in.Weight, in.Edge, view.MaskedBits(), factor, next, damping)
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

// visitsReference is the construction written plainly: Jacobi steps
// scattered over the out-adjacency with every arc's mask tested, the same
// stopping rule, no final check. NewVisitBounds must match it to rounding
// (TestVisitBoundsMatchReference).
func visitsReference(view *mask.View, d float64) []float64 {
	g := view.Graph()
	n := g.NumNodes()
	out := g.Out()
	cur := make([]float64, n)
	for u := range cur {
		cur[u] = 1
	}
	for range maxVisitPulls {
		next := make([]float64, n)
		for u := range n {
			wu := view.OutWeight(uint32(u))
			if wu == 0 {
				continue
			}
			for p := out.Offsets[u]; p < out.Offsets[u+1]; p++ {
				if !view.MaskedEdge(out.Edge[p]) {
					next[out.Nbr[p]] += d * cur[u] * out.Weight[p] / wu
				}
			}
		}
		m := 0.0
		for u := range next {
			next[u]++
			m = max(m, next[u]-cur[u])
		}
		if m <= visitTol/(1+visitTol) {
			for u := range cur {
				cur[u] /= 1 - m
			}
			return cur
		}
		cur = next
	}
	return nil
}

// check reports whether vb was built for this view and damping.
func (vb *VisitBounds) check(view *mask.View, damping float64) error {
	if vb.view != view || vb.damping != damping {
		return fmt.Errorf("ppr: visit bounds built for view %s at damping %g, used on view %s at damping %g; build them for the view and damping solved", vb.view.Name(), vb.damping, view.Name(), damping)
	}
	return nil
}

// At returns V(u) >= G(u) = sum_w M0[w][u] and Dg(u) >= M0[u][u].
func (vb *VisitBounds) At(u uint32) (v, dg float64) { return float64(vb.v[u]), float64(vb.dg[u]) }
