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
	// defaultOrder, Order's zero value, lets the solve choose: Normalized
	// for SolveTopK on a directed view, GaussSeidel everywhere else.
	defaultOrder Order = iota
	// GaussSeidel pushes nodes in id order, in place: mass pushed to a
	// later node moves on within the same sweep, so it needs about half
	// the sweeps of Jacobi, and it skips the nodes no residual reaches.
	GaussSeidel Order = iota
	// Jacobi pushes every node at once from the previous residual, a pull
	// over the in-adjacency: each sweep's result is independent of node
	// order, and Options.Threads can split it.
	Jacobi
	// Normalized runs Gauss-Seidel sweeps, each followed by scaling x to
	// the whole mass of the solution (Jacobi sweeps after one
	// normalization with Options.Threads > 1; see Engine.sweep). The
	// residual then sums to zero and shrinks at the rate the walk forgets
	// where it started rather than by d: positive and negative mass meet
	// and cancel. Where many rows coincide that rate is far below d (a
	// dangling node's row is the seeds); a walk that alternates between
	// two sides forgets slowly, and there Gauss-Seidel's threshold scans
	// prove sooner. So Normalized is the default of SolveTopK on directed
	// views only, and Gauss-Seidel that of undirected views and of full
	// solves (Solve, SolveSweeps). Measurements: docs/benchmarks.md, "ppr:
	// sweep orders".
	Normalized
)

// String names the order: "default" (the zero value), "gauss-seidel",
// "jacobi" or "normalized".
func (o Order) String() string {
	switch o {
	case defaultOrder:
		return "default"
	case GaussSeidel:
		return "gauss-seidel"
	case Jacobi:
		return "jacobi"
	case Normalized:
		return "normalized"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// resolve returns the order a solve runs: o, or for defaultOrder
// Normalized in a certified top-k solve on a directed view and GaussSeidel
// otherwise.
func (o Order) resolve(directed, topK bool) Order {
	if o != defaultOrder {
		return o
	}
	if directed && topK {
		return Normalized
	}
	return GaussSeidel
}

// Options controls a solve.
type Options struct {
	// Tol is the L1 error bound to reach: the solve stops when
	// ||r||_1/alpha <= Tol, which proves ||pi - x||_1 <= Tol. Zero means
	// DefaultTol.
	Tol float64
	// MaxSweeps caps the sweeps; zero means enough for Tol in exact
	// arithmetic plus a margin. Reaching it is an error, not a silent stop.
	MaxSweeps int
	// Order is the sweep order; the zero value lets the solve choose:
	// Normalized for SolveTopK on a directed view, GaussSeidel elsewhere.
	Order Order
	// Threads > 1 runs each sweep on that many goroutines, bit-identical
	// in X and R to one goroutine's. The sweeps are then Jacobi sweeps
	// whatever Order says: Gauss-Seidel's in-place order is sequential.
	Threads int
	// Visits, when not nil, gives SolveTopK on a directed view per-node
	// error bounds (see visits.go), usually proving a selection a few
	// sweeps before the L1 bound and its reverse refinement alone would.
	// Build it once per view and damping (NewVisitBounds: a few dozen
	// pulls and reverse pushes reading about 1.5 times the arcs, 8 bytes
	// per node kept) and reuse it across queries. Using it on another view
	// or damping is an error; undirected views ignore it (their
	// per-coordinate bound needs none), and so does every solve but
	// SolveTopK.
	Visits *VisitBounds
	// PriorPasses is how many passes (sweeps, scans, updates) made the
	// engine's start state, when it is a warm start: every pass may round
	// each entry once, and the rounding margin of a proof counts them all
	// (see roundoff). Zero for the native start (SolveTopK then checks
	// its proof first after one sweep: at x = 0 it proves nothing).
	PriorPasses int
	// Ordered makes SolveTopK prove the order within the selection too
	// (see Engine.SolveTopK); other solves ignore it.
	Ordered bool

	// tune, when not nil, is the tuning of the solve (tests and
	// benchmarks set it, export_test.go): the engines the solve runs on
	// adopt it.
	tune *tuning
}

// normalizedRun is where a Normalized solve stands: whether it has
// started, the mass of x when known (after a normalization it is 1; a
// Gauss-Seidel scan adds what it pushed), the sweeps since the start and
// the last ||r||_1, and whether it has fallen back to plain Gauss-Seidel.
type normalizedRun struct {
	started  bool
	mass     float64 // sum(x), when known (> 0)
	sweeps   int
	last     float64
	fellBack bool
}

// sweep runs one sweep in order o (resolved) and returns ||r||_1.
//
// A Normalized sweep is a Gauss-Seidel scan followed by a normalization
// (normalizeMass; its sum of x is the last one plus the mass the scan
// pushed, so the normalization is one pass, which also sums ||r||_1, as
// pushSweep's own pass would). Pushes in place do not keep the sum of r at
// zero, the normalization restores it every sweep. With threads > 1 only
// the first sweep is one (a scan reads only the arcs of what it pushes,
// where a pull reads every arc); the others are Jacobi sweeps (parallel
// pulls), which keep the sum zero by themselves.
//
// The zero sum is what pays: positive and negative mass meet and cancel
// as the walk forgets its start, so ||r||_1 shrinks at the walk's mixing
// rate, not by d; normalizing after every scan, rather than once before
// Jacobi sweeps, shortens the transient. A walk that cycles forgets slowly
// (at worst by d a sweep under Jacobi, about d^2 under Gauss-Seidel):
// from the third sweep on, a sweep that shrinks ||r||_1 by less than d^2
// switches the solve to plain Gauss-Seidel sweeps (pushes keep the
// identity for any sign of r). The first two sweeps are exempt: they are
// the transient. Measurements: docs/benchmarks.md, "ppr: sweep orders".
func (e *Engine) sweep(o Order, threads int, nr *normalizedRun) float64 {
	if o != Normalized {
		return e.sweepIn(o, threads)
	}
	if nr.fellBack {
		return e.pushSweep()
	}
	var l1 float64
	if threads > 1 && nr.started {
		l1 = e.parallelSweep(threads)
	} else {
		if !nr.started {
			nr.mass = 0
			for _, v := range e.X {
				nr.mass += v
			}
		}
		_, pushed := e.pushScanOver(0, nil)
		if nr.mass += pushed; nr.mass > 0 {
			l1 = e.scaleMass(1 / nr.mass)
			nr.mass = 1
		} else {
			l1 = e.residualL1()
		}
	}
	if nr.sweeps++; nr.sweeps >= 3 && l1 > e.damping*e.damping*nr.last {
		nr.fellBack = true
	}
	nr.started, nr.last = true, l1
	return l1
}

// Sweep makes one sweep from the engine's current state and returns the
// new ||r||_1: for Jacobi, every node pushed at once (x += r; r = d*r*P),
// pulled over the in-adjacency; for GaussSeidel (and the zero Order),
// every node pushed once in id order, the residual updated in place; for
// Normalized, a Gauss-Seidel sweep followed by scaling x to the
// solution's mass 1 (see Normalized). With threads > 1 the sweep is a
// Jacobi sweep on that many goroutines whatever o says, bit-identical in X
// and R to the one-goroutine sweep (as Options.Threads).
//
// Jacobi sweeps read the in-adjacency, which a patched view
// (mask.Patched) does not have: asking for one there panics.
func (e *Engine) Sweep(o Order, threads int) float64 {
	var nr normalizedRun
	return e.sweep(o.resolve(e.view.Directed(), false), threads, &nr)
}

// sweepIn runs one Gauss-Seidel or Jacobi sweep (Jacobi on threads > 1
// goroutines) and returns ||r||_1.
func (e *Engine) sweepIn(o Order, threads int) float64 {
	switch {
	case threads > 1:
		return e.parallelSweep(threads)
	case o == Jacobi:
		return e.jacobiSweep()
	}
	return e.pushSweep()
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
// reaches opt.Tol, and returns the engine's X (not a copy) as Scores. At
// the sweep cap it returns a *NotConvergedError holding the state reached.
func (e *Engine) SolveSweeps(opt Options) (*Result, error) {
	e.adopt(opt)
	l1 := e.residualL1()
	tol, maxSweeps, err := opt.limits(e.view, l1, e.damping)
	if err != nil {
		return nil, err
	}
	s := &sweepSolve{e: e, order: opt.Order.resolve(e.view.Graph().Directed(), false), threads: opt.Threads, l1: l1}
	if err := solveToTolerance(s, tol, maxSweeps); err != nil {
		return nil, err
	}
	if err := checkScores(e.X, s.sweeps); err != nil {
		return nil, err
	}
	return s.result(), nil
}

// limits returns the tolerance (DefaultTol when unset) and the sweep cap
// (opt.MaxSweeps, or sweepsFor) for a solve starting from residual mass l1.
//
// On a patched view (mask.Patched) sweeps are Gauss-Seidel scans: Jacobi
// sweeps, threads and visit bounds pull over the in-adjacency, which it does
// not have, and asking for them is an error.
func (opt Options) limits(view *mask.View, l1, damping float64) (tol float64, maxSweeps int, err error) {
	if view.Patched() && (opt.Order == Jacobi || opt.Threads > 1 || opt.Visits != nil) {
		return 0, 0, fmt.Errorf("ppr: Jacobi sweeps, threads and visit bounds need the in-adjacency, which a patched view does not have (order %s, %d threads)", opt.Order, opt.Threads)
	}
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
