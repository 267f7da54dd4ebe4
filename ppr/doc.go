// Package ppr solves Personalized PageRank on any mask.View with one residual
// engine, and selects top-k.
//
//	seeds, err := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: q, Weight: 1}})
//	res, err := ppr.Solve(view, seeds, 0.85, ppr.Options{Tol: 1e-10}) // res.ErrorBound >= ||pi - x||_1
//	top := ppr.TopK(res.Scores, 5, candidates, nil)                    // best first, ties by node id
//	cert, err := ppr.SolveTopK(view, seeds, 0.85, 5, candidates, ppr.Options{Tol: 1e-10, Ordered: true})
//	// cert.Certified: cert.TopK is the exact top-5; cert.Ordered: in the exact order
//
// (Example, ExampleSolveTopK and ExampleNotConvergedError run it.)
//
// # Definition
//
// For damping d in [0, 1) (igraph's: follow an edge with probability d),
// teleport alpha = 1-d, seeds s (non-negative, normalised to sum 1) and the
// view's transition matrix P (row u is w(u,v)/W_A(u) over u's surviving
// arcs, parallel arcs summed; a row with W_A(u) = 0 is dangling and equals s):
//
//	pi = alpha*s + d*pi*P
//
// This is igraph's personalized_pagerank(..., implementation="prpack") with
// the reset vector s: PRPACK also sends dangling mass to the reset vector.
//
// # The residual engine
//
// State is a pair (x, r) with r = alpha*s + d*x*P - x. Then
// pi - x = r*(I - d*P)^-1, and since every row of P sums to 1,
// ||pi - x||_1 <= ||r||_1/alpha. Both operations keep that identity exactly
// (in exact arithmetic), for any start and for signed residuals:
//
//   - push u: x(u) += r(u); r(v) += d*r(u)*P[u][v] for every v; r(u) = 0.
//   - sweep: x += r; r = d*r*P (every node pushed at once; this is the power
//     iteration x <- alpha*s + d*x*P written on residuals).
//
// A native solve starts from x = 0, r = alpha*s; replay and incremental
// updates start elsewhere (see docs/design.md). The bound reported as ErrorBound
// covers the truncation of the series, not floating-point rounding, which
// adds about 1e-16 relative per sweep.
//
// # Ways to move (x, r)
//
// All keep the identity; they differ in order and cost:
//
//   - Engine.Sweep(Jacobi, threads): every node pushed at once, a pull
//     over the in-adjacency (pull kernels in kernel.go, pullReference
//     their specification), split over goroutines with bit-identical
//     results.
//   - Engine.Sweep(GaussSeidel, 1), PushScan: Gauss-Seidel order, in place
//     over the out-adjacency, at a threshold or not; about half the sweeps
//     of Jacobi. Solve's default.
//   - PushRounds, PushRoundsSigned: push in id-ordered rounds over a bitset
//     frontier, scan-like cost per arc with work proportional to the
//     active nodes (the local push of replay and the store; fifo.go keeps
//     the plain FIFO push they are specified by).
//   - Normalized sweeps: x scaled to the solution's mass 1, r adjusted (an
//     affine combination with the native start); the residual then sums
//     to zero and shrinks at the rate the walk forgets its start rather
//     than by d. SolveTopK's default on directed views.
//
// # Solves
//
// Every solve runs one loop (solveToTolerance: check the bound, stop,
// else sweep, within one sweep cap) and fails at the cap with a
// *NotConvergedError holding the state reached. Solve and
// Engine.SolveSweeps stop at an L1 error bound; SolveTopK stops as soon as
// the top-k is proved (with Options.Ordered, its order too), and on
// undirected views replaces sweeps by threshold scans (PushScan at the
// threshold the proof waits for) after the first; on both kinds of view it
// refines the few candidates straddling the boundary (and unproved leads
// of an ordered solve) with reverse pushes (reverse.go proves the bounds),
// and on directed views with Options.Visits (NewVisitBounds, built once
// per view) bounds every node's error by per-node bounds on
// (I - d*P)^-1 (visits.go proves them). Engine.Prove gives the proof of
// any state, for callers that keep states of their own (replay's guard).
// SolvePair solves two views of one snapshot in one pass per sweep;
// SolveBatch solves eight seed vectors per pass, interleaved (16, two
// cache lines per node, at the AVX512 kernel level).
//
// # Kernels
//
// The pull kernels come in levels (internal/cpu), chosen once at start-up:
// Generic runs the plain reference loops, Unrolled the loops with four
// accumulators and the per-arc bounds checks reduced to the gather,
// Unchecked the Unrolled pull loops (same order, same bits) with no
// bounds checks, on a validated graph's arrays whose bounds are checked in
// O(1) at entry (kernel_unchecked.go has the proof). A graph whose every
// weight is 1 runs the pattern kernel, which reads no weights. AVX2 and AVX512 (amd64) add the batched kernels of
// SolveBatch (pull, push sweep, per-node pass, residual norm) in assembly,
// every lane bit-identical to its Go reference (batch_amd64.go).
// Every kernel that reads weights has a twin for graphs that store them as
// float32 (csr.Weights; generic Go loops, and batch32_amd64.s generated
// from batch_amd64.s): each weight is widened as read, exactly, so a
// float32 graph solves to the bits of the same graph stored as float64
// (TestFloat32StorageSameBits) with 4 fewer bytes streamed per arc.
// Every level is tested against Generic; the purego build tag runs Generic
// everywhere. Ties in a selection break by node id, or by first-appearance
// rank on a reordered graph (TopK with the graph's Ranks, csr.DegreeOrder).
// Measurements of the kernels, the solvers and their tuning are in
// docs/benchmarks.md, not here.
//
// # Errors
//
// Solve and NewSeeds validate their inputs (damping, seed ids and weights,
// tolerance) and return errors prefixed "ppr:"; Engine methods and TopK
// trust validated arguments and document what they expect. Seed weights
// whose sum overflows are normalised, not refused. A solve that reaches
// its sweep cap returns a *NotConvergedError carrying the state it
// reached. No solve returns a bound it did not prove: an error bound or
// score that is NaN or infinite is a *NotFiniteError (csr's weight range
// rules one out on every graph; the check guards states written from
// outside).
package ppr
