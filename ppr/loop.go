package ppr

import "fmt"

// NotConvergedError reports a solve that reached its sweep cap
// (Options.MaxSweeps, or the cap Options.limits sets) before its error
// bound reached the tolerance. The state it stopped in is a valid state
// of the problem, only less converged than asked: Partial holds it, one
// Result per vector solved (one for Solve, SolveSweeps and SolveTopK, the
// two views' for SolvePair, the batch's for SolveBatch), each proving
// its own ErrorBound.
type NotConvergedError struct {
	Bound   float64   // the error bound reached (the largest of the vectors')
	Sweeps  int       // the passes made (sweeps, and a top-k's threshold scans)
	Tol     float64   // the tolerance asked for
	Partial []*Result // the state reached, per vector
}

func (e *NotConvergedError) Error() string {
	switch len(e.Partial) {
	case 2:
		return fmt.Sprintf("ppr: error bounds %.3g and %.3g after %d sweeps, tolerance %.3g not reached",
			e.Partial[0].ErrorBound, e.Partial[1].ErrorBound, e.Sweeps, e.Tol)
	case 0, 1:
		return fmt.Sprintf("ppr: error bound %.3g after %d sweeps, tolerance %.3g not reached", e.Bound, e.Sweeps, e.Tol)
	}
	return fmt.Sprintf("ppr: error bound %.3g (the largest of %d vectors') after %d sweeps, tolerance %.3g not reached",
		e.Bound, len(e.Partial), e.Sweeps, e.Tol)
}

// solver is the state of one solve to a tolerance, as the solve loop
// (solveToTolerance) drives it: one engine's sweeps, a pair's, a batch's,
// or a certified top-k.
type solver interface {
	// bound returns the error bound the tolerance is compared with (the
	// largest over the solve's vectors), or a *NotFiniteError when one of
	// them is not a number: a NaN compares false with the tolerance and
	// would pass for converged.
	bound() (float64, error)
	// settle runs before every pass. It reports done when the solve may
	// stop now: every solver stops once the bound is within the
	// tolerance (converged), a certified top-k also once its selection is
	// proved. It reports moved when it has made a pass of its own that
	// the cap does not count (a threshold scan). capped says that the cap
	// is reached: unless settle stops or moves, the solve fails.
	settle(converged, capped bool) (done, moved bool, err error)
	// sweep makes one pass that the cap counts.
	sweep()
	// partial returns the state as Results, for a NotConvergedError.
	partial() []*Result
}

// solveToTolerance is the loop of every solve: check the bound, stop when
// settle says so, else make a pass, at most maxSweeps counted ones; past
// them the solve fails with a *NotConvergedError carrying the state
// reached. The cap is Options.limits's, the one rule every solve uses.
func solveToTolerance(s solver, tol float64, maxSweeps int) error {
	swept, passes := 0, 0
	for {
		bound, err := s.bound()
		if err != nil {
			return err
		}
		done, moved, err := s.settle(bound <= tol, swept >= maxSweeps)
		switch {
		case err != nil || done:
			return err
		case moved:
			passes++
			continue
		case swept >= maxSweeps:
			return &NotConvergedError{Bound: bound, Sweeps: passes, Tol: tol, Partial: s.partial()}
		}
		s.sweep()
		swept++
		passes++
	}
}

// sweepSolve is a solve by sweeps on one engine (SolveSweeps).
type sweepSolve struct {
	e       *Engine
	order   Order // resolved
	threads int
	norm    normalizedRun
	l1      float64 // ||r||_1
	sweeps  int
}

func (s *sweepSolve) bound() (float64, error) {
	b := s.l1 / s.e.alpha
	return b, checkBound(b, s.sweeps)
}

func (s *sweepSolve) settle(converged, _ bool) (bool, bool, error) { return converged, false, nil }

func (s *sweepSolve) sweep() {
	s.l1 = s.e.sweep(s.order, s.threads, &s.norm)
	s.sweeps++
}

func (s *sweepSolve) partial() []*Result { return []*Result{s.result()} }

func (s *sweepSolve) result() *Result {
	return &Result{Scores: s.e.X, ResidualL1: s.l1, ErrorBound: s.l1 / s.e.alpha, Sweeps: s.sweeps}
}
