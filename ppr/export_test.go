package ppr

import "github.com/authppr/authppr/internal/cpu"

// SetPullLevel makes Sweep, SweepParallel and PushScan run level l's
// kernels, for the external benchmarks that compare levels in one run
// (BenchmarkAnchorKernels); it returns the level that ran before.
func SetPullLevel(l cpu.Level) cpu.Level {
	old := pulls.level
	pulls = pullSetFor(l)
	return old
}
