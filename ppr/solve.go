package ppr

import (
	"fmt"
	"math"

	"github.com/authppr/authppr/mask"
)

// DefaultTol is the default L1 error bound of a solve: PRPACK's tolerance.
const DefaultTol = 1e-10

// Order chooses how a sweep visits the nodes.
type Order int

const (
	// GaussSeidel pushes nodes in id order, in place (Engine.PushSweep):
	// about half the sweeps of Jacobi. The default. Tried and dropped: the
	// same iterates as pulls (x(v) updated in place from the
	// in-adjacency, gathers instead of the push's scatter, the residual
	// bounded by d*||dx||_1 and computed exactly at the end) ran at 0.99x
	// the push's time to 1e-10 on the anchors' KG and 1.6x on R-MAT 20,
	// where the push skips the many nodes no residual reaches (one run
	// each, load 4-5, 2026-11-30).
	GaussSeidel Order = iota
	// Jacobi pulls every node from the previous residual (Engine.Sweep):
	// each sweep's result is independent of node order.
	Jacobi
)

// Options controls a solve.
type Options struct {
	// Tol is the L1 error bound to reach: the solve stops when
	// ||r||_1/alpha <= Tol, which proves ||pi - x||_1 <= Tol. Zero means
	// DefaultTol.
	Tol float64
	// MaxSweeps caps the sweeps; zero means enough for Tol in exact
	// arithmetic plus a margin. Reaching it is an error, not a silent stop.
	MaxSweeps int
	// Order is the sweep order (default GaussSeidel).
	Order Order
	// Threads > 1 runs each sweep on that many goroutines
	// (Engine.SweepParallel). The sweeps are then Jacobi sweeps whatever
	// Order says: Gauss-Seidel's in-place order is sequential.
	Threads int
	// Visits, when not nil, gives SolveTopK on a directed view per-node
	// error bounds (see visits.go), usually proving a selection a few
	// sweeps before the L1 bound and its reverse refinement alone would.
	// Build it once per view and damping (NewVisitBounds) and reuse it
	// across queries: building costs about two certified queries on R-MAT
	// 20 and on wiki-Vote (20 pulls, reverse pushes reading 1.5 times the
	// arcs; 8 bytes per node kept). Using it
	// on another view or damping is an error; undirected views ignore it
	// (their per-coordinate bound needs none), and so does every solve but
	// SolveTopK and SolveTopKOrdered.
	Visits *VisitBounds
}

// sweep runs one sweep in the chosen order and returns ||r||_1.
func (e *Engine) sweep(opt Options) float64 {
	switch {
	case opt.Threads > 1:
		return e.SweepParallel(opt.Threads)
	case opt.Order == Jacobi:
		return e.Sweep()
	}
	return e.PushSweep()
}

// Result is a solved PPR vector with the evidence of its accuracy.
type Result struct {
	Scores     []float64 // x, indexed by node id
	ResidualL1 float64   // ||r||_1 at the end
	ErrorBound float64   // ResidualL1/alpha >= ||pi - x||_1
	Sweeps     int
}

// Solve computes PPR on view from the native start state by sweeps until
// the error bound reaches opt.Tol.
func Solve(view *mask.View, seeds Seeds, damping float64, opt Options) (*Result, error) {
	e, err := NewEngine(view, seeds, damping)
	if err != nil {
		return nil, err
	}
	return e.SolveSweeps(opt)
}

// SolveSweeps sweeps from the engine's current state until the error bound
// reaches opt.Tol, and returns the engine's X (not a copy) as Scores.
func (e *Engine) SolveSweeps(opt Options) (*Result, error) {
	l1 := e.ResidualL1()
	tol, maxSweeps, err := opt.limits(l1, e.damping)
	if err != nil {
		return nil, err
	}
	sweeps := 0
	for l1/e.alpha > tol {
		if sweeps == maxSweeps {
			return nil, fmt.Errorf("ppr: error bound %.3g after %d sweeps, tolerance %.3g not reached", l1/e.alpha, sweeps, tol)
		}
		l1 = e.sweep(opt)
		sweeps++
	}
	return &Result{Scores: e.X, ResidualL1: l1, ErrorBound: l1 / e.alpha, Sweeps: sweeps}, nil
}

// limits returns the tolerance (DefaultTol when unset) and the sweep cap
// (opt.MaxSweeps, or sweepsFor) for a solve starting from residual mass l1.
func (opt Options) limits(l1, damping float64) (tol float64, maxSweeps int, err error) {
	tol = opt.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	if !(tol > 0) || math.IsInf(tol, 0) {
		return 0, 0, fmt.Errorf("ppr: tolerance %v, want a positive finite number", opt.Tol)
	}
	maxSweeps = opt.MaxSweeps
	if maxSweeps == 0 {
		maxSweeps = sweepsFor(l1, 1-damping, damping, tol)
	}
	return tol, maxSweeps, nil
}

// sweepsFor returns a sweep cap for reaching tol from residual mass l1. For a
// non-negative residual a Jacobi sweep multiplies ||r||_1 by exactly d, so
// ceil(log(tol*alpha/l1)/log(d)) sweeps suffice, and a Gauss-Seidel sweep
// pushes every node at least once, so no more. Signed residuals need not
// shrink monotonically; the cap is doubled for them, plus a margin for
// rounding.
func sweepsFor(l1, alpha, d, tol float64) int {
	if l1/alpha <= tol || d == 0 {
		return 1
	}
	need := math.Log(tol*alpha/l1) / math.Log(d)
	if need > 1e7 {
		return 1e7
	}
	return 2*int(need) + 10
}
