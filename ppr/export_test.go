package ppr

import (
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/mask"
)

// The tuning of tests and benchmarks: a test's switches live in its own
// tuning value, which its solves carry (Options.with) or its engines hold,
// never in a package variable, so tests run in parallel.

// tuned returns a copy of the default tuning changed by set.
func tuned(set func(*tuning)) *tuning {
	t := defaultTuning
	set(&t)
	return &t
}

// atLevel returns the default tuning with level l's pull kernels.
func atLevel(l cpu.Level) *tuning {
	ps := pullSetFor(l)
	return tuned(func(t *tuning) { t.pulls = &ps })
}

// with returns opt carrying tuning t (nil: the default).
func (opt Options) with(t *tuning) Options {
	opt.tune = t
	return opt
}

// tunedEngine is NewEngine with tuning t.
func tunedEngine(view *mask.View, seeds Seeds, damping float64, t *tuning) (*Engine, error) {
	e, err := NewEngine(view, seeds, damping)
	if err == nil {
		e.tune = t
	}
	return e, err
}

// AtPullLevel returns opt with level l's pull kernels, for the external
// benchmarks that compare levels in one run (BenchmarkAnchorBatch).
func AtPullLevel(opt Options, l cpu.Level) Options { return opt.with(atLevel(l)) }

// SetPullLevel makes e's sweeps run level l's kernels, for
// BenchmarkAnchorKernels.
func SetPullLevel(e *Engine, l cpu.Level) { e.tune = atLevel(l) }

// NarrowBatches returns opt with SolveBatch's wide layout off, for
// BenchmarkAnchorBatch's comparison.
func NarrowBatches(opt Options) Options {
	return opt.with(tuned(func(t *tuning) { t.wideBatches = false }))
}

// WithScans returns opt with SolveTopK's threshold scans and its reverse
// refinement on undirected views switched on or off, for
// BenchmarkAnchorTopKScans.
func WithScans(opt Options, scans, refineUndirected bool) Options {
	return opt.with(tuned(func(t *tuning) { t.thresholdScans, t.refineUndirected = scans, refineUndirected }))
}

// BatchSweep returns one batched Jacobi sweep (batch.jacobiSweep) at level
// l over the given seed vectors (at most batchWidth) from the native start
// state, for BenchmarkAnchorKernels.
func BatchSweep(view *mask.View, seeds []Seeds, damping float64, l cpu.Level) func() {
	b := newStartedBatch(view, seeds, damping, l)
	return func() { b.jacobiSweep() }
}

// BatchPushSweep is BatchSweep for the batched Gauss-Seidel sweep
// (batch.pushSweep), for BenchmarkAnchorStorage.
func BatchPushSweep(view *mask.View, seeds []Seeds, damping float64, l cpu.Level) func() {
	b := newStartedBatch(view, seeds, damping, l)
	return func() { b.pushSweep() }
}

func newStartedBatch(view *mask.View, seeds []Seeds, damping float64, l cpu.Level) *batch[[batchWidth]float64] {
	b := newBatch(view, damping, pullSetFor(l).b8)
	b.seeds = seeds
	for j, s := range seeds {
		for i, u := range s.Nodes {
			b.r[u][j] = b.alpha * s.Weights[i]
		}
	}
	return b
}
