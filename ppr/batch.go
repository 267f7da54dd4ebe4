package ppr

import (
	"errors"
	"fmt"
	"math"

	"github.com/authppr/authppr/mask"
)

// SolveBatch solves PPR for several seed vectors on one view with sweeps
// over interleaved vectors: one pass over the adjacency serves the whole
// batch, and each random access to a neighbour's entries touches one cache
// line (batchWidth = 8 vectors) or two adjacent ones (16 vectors, the wide
// layout, used for more than 8 queries at a kernel level that has wide
// kernels: AVX512) for all of its vectors. Each
// result is what Solve gives for that seed vector in the same order
// (opt.Order: Gauss-Seidel by default, as Engine.pushSweep; Jacobi as
// Engine.jacobiSweep, bit for bit with the Generic kernel level), except that
// every vector of a batch sweeps until the slowest reaches opt.Tol, so it
// may be more accurate than asked; Sweeps says how many it got
// (TestSolveBatchMatchesSolve). Jacobi on a view masking more arcs than
// MaskedInArcs lists, and Normalized (whose normalization is per vector),
// fall back to one Solve per vector. opt.Threads is
// ignored. The state takes four lines per node: 256 bytes per node
// narrow, 512 wide (both when a wide batch leaves at most 8 queries).
func SolveBatch(view *mask.View, seeds []Seeds, damping float64, opt Options) ([]*Result, error) {
	if err := checkDamping(damping); err != nil {
		return nil, err
	}
	if view.Patched() {
		return nil, errors.New("ppr: SolveBatch pulls over the in-adjacency, which a patched view does not have")
	}
	n := view.Graph().NumNodes()
	for i, s := range seeds {
		if len(s.Nodes) == 0 {
			return nil, fmt.Errorf("ppr: batch query %d: no seeds", i)
		}
		for _, u := range s.Nodes {
			if int(u) >= n {
				return nil, fmt.Errorf("ppr: batch query %d: seed node %d out of range (graph has %d nodes)", i, u, n)
			}
		}
	}
	out := make([]*Result, 0, len(seeds))
	if _, _, sparse := view.MaskedInArcs(); !sparse && opt.Order == Jacobi || opt.Order == Normalized {
		for _, s := range seeds {
			res, err := Solve(view, s, damping, Options{Tol: opt.Tol, MaxSweeps: opt.MaxSweeps, Order: opt.Order, tune: opt.tune})
			if err != nil {
				return nil, err
			}
			out = append(out, res)
		}
		return out, nil
	}
	tune := opt.tuning()
	kernels := tune.pulls
	var narrow *batch[[batchWidth]float64]
	var wide *batch[[2 * batchWidth]float64]
	for lo := 0; lo < len(seeds); {
		var part []*Result
		var err error
		if rest := len(seeds) - lo; kernels.b16 != nil && tune.wideBatches && rest > batchWidth {
			if wide == nil {
				wide = newBatch(view, damping, *kernels.b16)
			}
			part, err = wide.solve(seeds[lo:lo+min(rest, 2*batchWidth)], opt)
		} else {
			if narrow == nil {
				narrow = newBatch(view, damping, kernels.b8)
			}
			part, err = narrow.solve(seeds[lo:lo+min(rest, batchWidth)], opt)
		}
		if err != nil {
			return nil, fmt.Errorf("%w (batch from query %d)", err, lo)
		}
		lo += len(part)
		out = append(out, part...)
	}
	return out, nil
}

// batch is the interleaved state of up to len(L) residual engines.
type batch[L lanes] struct {
	view              *mask.View
	damping, alpha    float64
	x, r, next, factr []L
	seeds             []Seeds
	k                 batchKernels[L]
	// The solve's progress: ||r||_1 per vector, the sweeps made, and
	// whether they are Jacobi sweeps (else Gauss-Seidel).
	l1     L
	sweeps int
	jacobi bool
}

func newBatch[L lanes](view *mask.View, damping float64, k batchKernels[L]) *batch[L] {
	n := view.Graph().NumNodes()
	return &batch[L]{
		view: view, damping: damping, alpha: 1 - damping,
		x: make([]L, n), r: make([]L, n), next: make([]L, n), factr: make([]L, n),
		k: k,
	}
}

// solve runs one batch of at most len(L) seed vectors from the native
// start state x = 0, r = alpha*s.
func (b *batch[L]) solve(seeds []Seeds, opt Options) ([]*Result, error) {
	clear(b.x)
	clear(b.r)
	b.seeds = seeds
	for j, s := range seeds {
		for i, u := range s.Nodes {
			b.r[u][j] = b.alpha * s.Weights[i]
		}
	}
	// ||r||_1 in node order, as Engine.residualL1 sums it.
	b.l1 = b.k.l1(b.r)
	b.jacobi, b.sweeps = opt.Order == Jacobi, 0
	tol, maxSweeps := 0.0, 0
	for j := range seeds {
		t, m, err := opt.limits(b.view, b.l1[j], b.damping)
		if err != nil {
			return nil, err
		}
		tol, maxSweeps = t, max(maxSweeps, m)
	}
	if err := solveToTolerance(b, tol, maxSweeps); err != nil {
		return nil, err
	}
	out := b.results()
	for j, res := range out {
		if err := checkScores(res.Scores, b.sweeps); err != nil {
			return nil, fmt.Errorf("%w (batch query %d)", err, j)
		}
	}
	return out, nil
}

// bound returns the largest error bound of the batch's vectors (the solve
// loop's solver).
func (b *batch[L]) bound() (float64, error) {
	worst := 0.0
	for j := range b.seeds {
		bj := b.l1[j] / b.alpha
		if err := checkBound(bj, b.sweeps); err != nil {
			return 0, fmt.Errorf("%w (batch query %d)", err, j)
		}
		worst = max(worst, bj)
	}
	return worst, nil
}

func (b *batch[L]) settle(converged, _ bool) (bool, bool, error) { return converged, false, nil }

// sweep sweeps every vector of the batch once.
func (b *batch[L]) sweep() {
	if b.jacobi {
		b.l1 = b.jacobiSweep()
	} else {
		b.l1 = b.pushSweep()
	}
	b.sweeps++
}

func (b *batch[L]) partial() []*Result { return b.results() }

// results returns the batch's vectors as Results.
func (b *batch[L]) results() []*Result {
	// One pass over x for all the vectors (a pass per vector would read
	// the interleaved x once per vector).
	scores := make([][]float64, len(b.seeds))
	for j := range scores {
		scores[j] = make([]float64, len(b.x))
	}
	for u, line := range b.x {
		for j, s := range scores {
			s[u] = line[j]
		}
	}
	out := make([]*Result, len(b.seeds))
	for j := range b.seeds {
		out[j] = &Result{Scores: scores[j], ResidualL1: b.l1[j], ErrorBound: b.l1[j] / b.alpha, Sweeps: b.sweeps}
	}
	return out
}

// jacobiSweep is Engine.jacobiSweep for every vector of the batch: x += r, r = d*r*P,
// with the same operations in the same order per vector (the dangling
// residual to the vector's seeds, masked arcs subtracted after the pull).
func (b *batch[L]) jacobiSweep() L {
	g := b.view.Graph()
	n := g.NumNodes()
	x, r, factor := b.x[:n], b.r[:n], b.factr[:n]
	inv := b.view.InvOutWeights()[:n]
	var dangling L
	b.k.factor(r, x, factor, inv, &dangling)
	in := g.In()
	d := b.damping
	l1 := b.k.pullOf(in.Offsets, in.Nbr, in.Weight, factor, b.next, d)
	nodes, arcs, _ := b.view.MaskedInArcs()
	for i, v := range nodes {
		p := arcs[i]
		f, w := &factor[in.Nbr[p]], in.Weight.At(p)
		for j := range len(*f) {
			old := b.next[v][j]
			b.next[v][j] = old - d*(*f)[j]*w
			l1[j] += math.Abs(b.next[v][j]) - math.Abs(old)
		}
	}
	for j, s := range b.seeds {
		if dangling[j] == 0 {
			continue
		}
		for i, u := range s.Nodes {
			l1[j] -= math.Abs(b.next[u][j])
			b.next[u][j] += d * dangling[j] * s.Weights[i]
			l1[j] += math.Abs(b.next[u][j])
		}
	}
	b.r, b.next = b.next, b.r
	return l1
}

// pushSweep is Engine.pushSweep (PushScan with eps = 0, then ||r||_1) for
// every vector of the batch: nodes pushed in id order with the residual
// updated in place, each vector's dangling residual sent to its seeds at
// the end of the scan. Runs of nodes the mask leaves untouched go to the
// level's push kernel (pushBatchReference is its specification); a node
// with masked out-arcs is pushed here, skipping them, in its place in the
// id order, so the result does not depend on where the runs break.
func (b *batch[L]) pushSweep() L {
	g := b.view.Graph()
	n := g.NumNodes()
	x, r := b.x[:n], b.r[:n]
	w := b.view.OutWeights()[:n]
	out := g.Out()
	bits := b.view.MaskedBits()
	d := b.damping
	var dangling L
	lo := 0
	if bits != nil {
		// Touched is ascending and every entry is a node (< n).
		for _, t := range b.view.Touched() {
			u := int(t)
			b.k.pushOf(out.Offsets, out.Nbr, out.Weight, w, x, r, lo, u, d, &dangling)
			b.pushMasked(u, bits, &dangling)
			lo = u + 1
		}
	}
	b.k.pushOf(out.Offsets, out.Nbr, out.Weight, w, x, r, lo, n, d, &dangling)
	for j, s := range b.seeds {
		if dangling[j] == 0 {
			continue
		}
		for i, u := range s.Nodes {
			r[u][j] += d * dangling[j] * s.Weights[i]
		}
	}
	return b.k.l1(r)
}

// pushMasked is pushBatchReference for node u alone, skipping the out-arcs
// whose edge ids are set in bits.
func (b *batch[L]) pushMasked(u int, bits []uint64, dangling *L) {
	r := b.r
	c, ok := takeBatchResidual(b.x, r, u, b.view.OutWeights()[u], b.damping, dangling)
	if !ok {
		return
	}
	out := b.view.Graph().Out()
	lo, hi := out.Offsets[u], out.Offsets[u+1]
	nbr, wt, eid := out.Nbr[lo:hi], out.Weight.Slice(lo, hi), out.Edge[lo:hi]
	eid = eid[:len(nbr)]
	for p, v := range nbr {
		if bits[eid[p]/64]&(1<<(eid[p]%64)) != 0 {
			continue
		}
		rv, wp := &r[v], wt.At(p)
		for j := range len(*rv) {
			(*rv)[j] += c[j] * wp
		}
	}
}
