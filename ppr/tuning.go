package ppr

import "github.com/authppr/authppr/internal/cpu"

// tuning holds the kernels the sweeps run and the switches of the solvers
// that tests and benchmarks flip to compare a path with its alternative.
// Production code runs defaultTuning only. An engine holds a pointer to
// its tuning (defaultTuning unless a test gave it another, through
// Options.tune or export_test.go), never a package variable, so that tests
// flipping a switch run in parallel with the others.
type tuning struct {
	// pulls is the pull kernels' CPU level (pullSet): the best the CPU
	// has, chosen once at start-up.
	pulls *pullSet
	// thresholdScans lets SolveTopK replace sweeps by threshold scans on
	// undirected views (see scanFraction).
	thresholdScans bool
	// refineDirected and refineUndirected switch on SolveTopK's reverse
	// refinement (refineTopK, refineLeads, Proof.RefinedGap) on directed
	// and undirected views; tests switch them off to compare with the
	// unrefined proofs.
	refineDirected, refineUndirected bool
	// localChecks lets SolveTopK check over the nodes it reached (local.go).
	localChecks bool
	// wideBatches lets SolveBatch use the wide layout where the kernel
	// level has it; benchmarks switch it off to compare with narrow passes.
	wideBatches bool
	// boundScale multiplies every error bound of SolveTopK and of a
	// Proof, and visitScale (after it) the per-node terms of visit bounds
	// only. Both are 1; tests shrink them to check that they catch bounds
	// that are too tight.
	boundScale, visitScale float64
}

// bestPulls is the kernel set of cpu.Best().
var bestPulls = pullSetFor(cpu.Best())

// defaultTuning is the tuning of every engine no test has tuned. It is
// never written.
var defaultTuning = tuning{
	pulls:            &bestPulls,
	thresholdScans:   true,
	refineDirected:   true,
	refineUndirected: true,
	localChecks:      true,
	wideBatches:      true,
	boundScale:       1,
	visitScale:       1,
}

// refining reports whether SolveTopK refines on this kind of view.
func (t *tuning) refining(perCoord bool) bool {
	if perCoord {
		return t.refineUndirected
	}
	return t.refineDirected
}

// tuning returns the tuning opt carries, defaultTuning when none.
func (opt Options) tuning() *tuning {
	if opt.tune != nil {
		return opt.tune
	}
	return &defaultTuning
}

// adopt makes opt's tuning, when it carries one, the engine's.
func (e *Engine) adopt(opt Options) {
	if opt.tune != nil {
		e.tune = opt.tune
	}
}
