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
	// vector: Gap > ErrorBound. It is false when the solve reached its
	// tolerance first (a tie, or a gap smaller than the tolerance).
	Certified bool
	// Gap is the k-th score minus the best unselected one (+Inf when every
	// candidate is selected).
	Gap        float64
	ErrorBound float64 // ||pi - x||_1 bound at the end
	Sweeps     int
	Scores     []float64 // the engine's vector (not a copy)
}

// SolveTopK sweeps until the top-k over the candidates (nil: every node) is
// proved, or the error bound reaches opt.Tol, whichever comes first. Ties
// break by the graph's Rank (TopKRanked), so a reordered graph selects the
// same names.
//
// Proof of the stopping rule: for any two nodes v and u,
// |(pi(v) - pi(u)) - (x(v) - x(u))| <= |e(v)| + |e(u)| <= ||e||_1 <=
// ||r||_1/alpha with e = pi - x. So when x's k-th candidate beats its best
// unselected one by more than ||r||_1/alpha, every selected candidate beats
// every unselected one in pi too, and the selection (as a set) is exact.
// Exact ties can never be certified; they run to opt.Tol and come back with
// Certified false.
func SolveTopK(view *mask.View, seeds Seeds, damping float64, k int, candidates []uint32, opt Options) (*TopKResult, error) {
	if k < 1 {
		return nil, fmt.Errorf("ppr: k = %d, want at least 1", k)
	}
	e, err := NewEngine(view, seeds, damping)
	if err != nil {
		return nil, err
	}
	l1 := e.ResidualL1()
	tol, maxSweeps, err := opt.limits(l1, damping)
	if err != nil {
		return nil, err
	}
	res := &TopKResult{Scores: e.X}
	nextCheck := 0
	for {
		bound := l1 / e.alpha
		if res.Sweeps < nextCheck && bound > tol {
			l1 = e.sweep(opt)
			res.Sweeps++
			continue
		}
		top := TopKRanked(e.X, k+1, candidates, view.Graph().Ranks())
		res.TopK, res.Gap = top, math.Inf(1)
		if len(top) > k {
			res.TopK, res.Gap = top[:k], top[k-1].Score-top[k].Score
		}
		res.ErrorBound = bound
		if res.Gap > bound {
			res.Certified = true
			return res, nil
		}
		if bound <= tol {
			return res, nil
		}
		// A non-negative residual shrinks by d per sweep, so the bound
		// cannot pass the current gap sooner than log(gap/bound)/log(d)
		// sweeps; the gap itself still moves, so wait half of that before
		// recomputing the top-k (it costs O(candidates) per check).
		if res.Gap > 0 && e.damping > 0 {
			nextCheck = res.Sweeps + int(math.Log(res.Gap/bound)/math.Log(e.damping))/2
		}
		if res.Sweeps == maxSweeps {
			return nil, fmt.Errorf("ppr: error bound %.3g after %d sweeps, tolerance %.3g not reached", bound, res.Sweeps, tol)
		}
		l1 = e.sweep(opt)
		res.Sweeps++
	}
}
