package ppr

import "fmt"

// NotFiniteError reports a solve whose error bound or scores are not
// finite numbers. The bound ||r||_1/alpha proves ||pi - x||_1 only when it
// is a number: a NaN compares false with the tolerance (a loop waiting
// for l1/alpha > tol would stop at once and report it) and an infinite
// one proves nothing. No graph csr accepts, with seeds NewSeeds accepts,
// produces one (csr.MinWeight and csr.MaxWeight bound every out-weight
// and its reciprocal); this check is the defence for a state given from
// outside (an Engine's X and R are the caller's to write).
type NotFiniteError struct {
	What   string  // "error bound" or "score of node N"
	Value  float64 // the value that is not finite
	Sweeps int     // sweeps done when it was found
}

func (e *NotFiniteError) Error() string {
	return fmt.Sprintf("ppr: %s is %v after %d sweeps: the solve proves nothing (every weight and seed weight in range? see csr.CheckWeight)", e.What, e.Value, e.Sweeps)
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return x-x == 0 }

// checkBound returns a *NotFiniteError when the error bound is not finite.
func checkBound(bound float64, sweeps int) error {
	if !finite(bound) {
		return &NotFiniteError{What: "error bound", Value: bound, Sweeps: sweeps}
	}
	return nil
}

// checkScores returns a *NotFiniteError naming the first score that is
// not finite.
func checkScores(x []float64, sweeps int) error {
	for u, v := range x {
		if !finite(v) {
			return &NotFiniteError{What: fmt.Sprintf("score of node %d", u), Value: v, Sweeps: sweeps}
		}
	}
	return nil
}

// CheckFinite returns a *NotFiniteError when bound or some score is NaN or
// infinite, else nil: the check every solver here makes before it returns
// a result, for callers that sweep on their own (store's overlay solves).
func CheckFinite(bound float64, scores []float64) error {
	if err := checkBound(bound, 0); err != nil {
		return err
	}
	return checkScores(scores, 0)
}
