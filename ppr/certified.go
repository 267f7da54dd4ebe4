package ppr

import (
	"fmt"
	"math"

	"github.com/authppr/authppr/mask"
)

// TopKResult is a top-k selection with the evidence that it is exact.
type TopKResult struct {
	TopK []Scored
	// Certified reports that the selection is the top-k of the exact
	// vector: ProvedGap > 0. It is false when the solve reached its
	// tolerance first (a tie, or a gap smaller than the tolerance).
	Certified bool
	// Gap is the k-th score minus the best unselected one (+Inf when every
	// candidate is selected).
	Gap float64
	// ProvedGap is a lower bound on the exact vector's gap between the
	// selection and the best unselected candidate (see SolveTopK).
	ProvedGap  float64
	ErrorBound float64 // ||pi - x||_1 bound at the end
	// CoordBound, on undirected views, bounds the error per coordinate:
	// 0 <= pi(v) - x(v) <= CoordBound*W(v) + (dangling residual)/alpha;
	// 0 on directed views.
	CoordBound float64
	Sweeps     int
	Scores     []float64 // the engine's vector (not a copy)
}

// SolveTopK sweeps until the top-k over the candidates (nil: every node) is
// proved, or the error bound reaches opt.Tol, whichever comes first. Ties
// break by the graph's Rank (TopKRanked), so a reordered graph selects the
// same names.
//
// Proof of the stopping rule. The solve starts from x = 0, r = alpha*s >= 0
// and every sweep or push keeps r >= 0, so e = pi - x = r*(I-dP)^-1 >= 0
// (the inverse is a sum of non-negative matrices). For a selected v and an
// unselected u, pi(v) - pi(u) >= x(v) - x(u) - e(u), so
//
//	gap(pi) >= min_sel x - max_rest (x(u) + E(u)) =: ProvedGap
//
// for any bound E(u) >= e(u). Directed views use E(u) = ||e||_1 <=
// ||r||_1/alpha. Undirected views use the per-coordinate bound of
// DESIGN.md: e(u) <= W(u)*max_w(r(w)/W(w))/alpha + D/alpha, with D the
// residual on nodes without out-weight (their rows are the seeds, outside
// the symmetric part; bounded in L1). Proof of the first term: with A
// symmetric and D_W = diag(W), (I-dP)^-1 = K*D_W with K = (D_W - d*A)^-1
// symmetric and non-negative, so e(u) = W(u)*sum_w (r(w)/W(w))*W(w)*K[u][w]
// <= W(u)*max_w(r(w)/W(w))*((I-dP)^-1*1)(u) = W(u)*max_w(r(w)/W(w))/alpha.
// From a caller's warm start the residual may be signed; then E(u) bounds
// |e(u)| and the selected side takes -E(v) as well (coordGap).
// When ProvedGap > 0 every selected candidate beats every unselected one
// in pi, and the selection (as a set) is exact. Exact ties can never be
// certified; they run to opt.Tol and come back with Certified false.
func SolveTopK(view *mask.View, seeds Seeds, damping float64, k int, candidates []uint32, opt Options) (*TopKResult, error) {
	if k < 1 {
		return nil, fmt.Errorf("ppr: k = %d, want at least 1", k)
	}
	e, err := NewEngine(view, seeds, damping)
	if err != nil {
		return nil, err
	}
	return e.SolveTopK(k, candidates, opt)
}

// SolveTopK is the function SolveTopK on this engine's problem, from its
// current state: the native start state after NewEngine or Restart, or any
// state (x, r) of the problem, such as a warm start. A signed residual
// (only a warm start has one) makes the undirected proof bound the error
// on both sides of the gap, as the L1 proof always does. An engine reused
// through Restart allocates nothing proportional to the graph after its
// first query.
func (e *Engine) SolveTopK(k int, candidates []uint32, opt Options) (*TopKResult, error) {
	if k < 1 {
		return nil, fmt.Errorf("ppr: k = %d, want at least 1", k)
	}
	view := e.view
	l1 := e.ResidualL1()
	tol, maxSweeps, err := opt.limits(l1, e.damping)
	if err != nil {
		return nil, err
	}
	g := view.Graph()
	w := view.OutWeights()
	perCoord := !g.Directed()
	res := &TopKResult{Scores: e.X}
	nextCheck := 0
	for {
		bound := l1 / e.alpha
		if res.Sweeps < nextCheck && bound > tol {
			l1 = e.sweep(opt)
			res.Sweeps++
			continue
		}
		top := TopKRanked(e.X, k+1, candidates, g.Ranks())
		res.TopK, res.Gap = top, math.Inf(1)
		if len(top) > k {
			res.TopK, res.Gap = top[:k], top[k-1].Score-top[k].Score
		}
		res.ErrorBound = bound
		// slack is how far the proof is from certifying, as an error
		// scale for the scheduling below.
		slack := bound
		if math.IsInf(res.Gap, 1) {
			res.ProvedGap = math.Inf(1)
		} else if perCoord {
			if e.inSel == nil {
				e.inSel = make([]bool, len(e.X))
			}
			res.CoordBound, res.ProvedGap, slack = coordGap(e, w, res.TopK, candidates, e.inSel, bound)
		} else {
			res.ProvedGap = res.Gap - bound
		}
		if res.ProvedGap > 0 {
			res.Certified = true
			return res, nil
		}
		if bound <= tol {
			return res, nil
		}
		// A non-negative residual shrinks by d per sweep, so the bound
		// cannot pass the current gap sooner than log(gap/slack)/log(d)
		// sweeps; the gap itself still moves, so wait half of that before
		// recomputing the top-k (it costs O(candidates) per check).
		if res.Gap > 0 && e.damping > 0 && slack > res.Gap {
			nextCheck = res.Sweeps + int(math.Log(res.Gap/slack)/math.Log(e.damping))/2
		}
		if res.Sweeps == maxSweeps {
			return nil, fmt.Errorf("ppr: error bound %.3g after %d sweeps, tolerance %.3g not reached", bound, res.Sweeps, tol)
		}
		l1 = e.sweep(opt)
		res.Sweeps++
	}
}

// coordGap returns, for an undirected view, the per-coordinate bound C
// (e(u) <= C*W(u) + L/alpha, see SolveTopK), the proved gap
// min_sel x - max_rest(x(u) + E(u)) with E(u) the smaller of
// C*W(u) + L/alpha and the L1 bound l1Bound (both bound e(u); the L1 one is
// the tighter while the residual sits on a few nodes), and the error term
// at the unselected candidate that sets it (for scheduling). One pass over
// the nodes and one over the candidates; inSel is all false on entry and
// on return.
func coordGap(e *Engine, w []float64, sel []Scored, candidates []uint32, inSel []bool, l1Bound float64) (coord, proved, slack float64) {
	r, x := e.R, e.X
	// 1/W multiplies instead of dividing (a division per node cost as much
	// as the rest of the check); it is 0 exactly on the dangling nodes.
	inv := e.view.InvOutWeights()[:len(r)]
	maxRatio, dangling := 0.0, 0.0
	signed := false
	for v, rv := range r {
		signed = signed || rv < 0
		a := math.Abs(rv)
		if iv := inv[v]; iv > 0 {
			maxRatio = max(maxRatio, a*iv)
		} else {
			dangling += a
		}
	}
	coord = maxRatio / e.alpha
	l1 := dangling / e.alpha
	bound := func(u uint32) float64 { return min(coord*w[u]+l1, l1Bound) }
	// A non-negative residual gives pi >= x, so a selected candidate needs
	// no error term; a signed one (a caller's warm start) bounds |e| on
	// both sides.
	minSel := math.Inf(1)
	for _, s := range sel {
		lo := s.Score
		if signed {
			lo -= bound(s.Node)
		}
		minSel = min(minSel, lo)
	}
	for _, s := range sel {
		inSel[s.Node] = true
	}
	maxRest, at := math.Inf(-1), 0.0
	rest := func(u uint32) {
		err := bound(u)
		if hi := x[u] + err; !inSel[u] && hi > maxRest {
			maxRest, at = hi, err
		}
	}
	if candidates == nil {
		for u := range x {
			rest(uint32(u))
		}
	} else {
		for _, u := range candidates {
			rest(u)
		}
	}
	for _, s := range sel {
		inSel[s.Node] = false
	}
	return coord, minSel - maxRest, at
}
