package ppr

import (
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/mask"
)

// SetPullLevel makes Sweep, SweepParallel and PushScan run level l's
// kernels, for the external benchmarks that compare levels in one run
// (BenchmarkAnchorKernels); it returns the level that ran before.
func SetPullLevel(l cpu.Level) cpu.Level {
	old := pulls.level
	pulls = pullSetFor(l)
	return old
}

// BatchSweep returns one batched Jacobi sweep (batch.sweep) over the given
// seed vectors (at most batchWidth) from the native start state, for
// BenchmarkAnchorKernels.
func BatchSweep(view *mask.View, seeds []Seeds, damping float64) func() {
	b := newBatch(view, damping, pulls.b8)
	b.seeds = seeds
	for j, s := range seeds {
		for i, u := range s.Nodes {
			b.r[u][j] = b.alpha * s.Weights[i]
		}
	}
	return func() { b.jacobiSweep() }
}

// BatchPushSweep is BatchSweep for the batched Gauss-Seidel sweep
// (batch.pushSweep), for BenchmarkAnchorStorage.
func BatchPushSweep(view *mask.View, seeds []Seeds, damping float64) func() {
	b := newBatch(view, damping, pulls.b8)
	b.seeds = seeds
	for j, s := range seeds {
		for i, u := range s.Nodes {
			b.r[u][j] = b.alpha * s.Weights[i]
		}
	}
	return func() { b.pushSweep() }
}

// SetThresholdScans switches SolveTopK's threshold scans on or off, for
// BenchmarkAnchorTopK; it returns the previous setting.
func SetThresholdScans(on bool) bool {
	old := thresholdScans
	thresholdScans = on
	return old
}

// SetWideBatches lets SolveBatch use the wide layout (the default) or not,
// for BenchmarkAnchorBatch's comparison; it returns the previous setting.
func SetWideBatches(on bool) bool {
	old := wideBatches
	wideBatches = on
	return old
}

// SetRefineUndirected switches SolveTopK's reverse refinement on
// undirected views on or off, for BenchmarkAnchorTopKScans; it returns
// the previous setting.
func SetRefineUndirected(on bool) bool {
	old := refineUndirected
	refineUndirected = on
	return old
}
