package ppr

import (
	"errors"
	"math"

	"github.com/authppr/authppr/mask"
)

// SolvePair solves the same query on two views of one snapshot (typically
// native and authenticated) with one pass over the in-adjacency per sweep:
// the per-node factors of both residuals are interleaved, so each arc's
// source is gathered once for both. The sweeps are Jacobi sweeps
// (Options.Order is ignored: a fused Gauss-Seidel pass would need both
// residuals updated in place at once), and each result equals, bit for bit,
// what Solve returns for its view with Order Jacobi (the same terms are
// summed in the same order).
func SolvePair(a, b *mask.View, seeds Seeds, damping float64, opt Options) (*Result, *Result, error) {
	if a.Graph() != b.Graph() {
		return nil, nil, errors.New("ppr: SolvePair needs two views of the same snapshot")
	}
	if a.Patched() || b.Patched() {
		return nil, nil, errors.New("ppr: SolvePair pulls over the in-adjacency, which a patched view does not have")
	}
	ea, err := NewEngine(a, seeds, damping)
	if err != nil {
		return nil, nil, err
	}
	eb, err := NewEngine(b, seeds, damping)
	if err != nil {
		return nil, nil, err
	}
	ea.adopt(opt)
	eb.adopt(opt)
	l1a, l1b := ea.residualL1(), eb.residualL1()
	tol, maxSweeps, err := opt.limits(a, max(l1a, l1b), damping)
	if err != nil {
		return nil, nil, err
	}
	n := a.Graph().NumNodes()
	p := &pairSolve{
		pairSweep: pairSweep{factor: make([]float64, 2*n), nextA: make([]float64, n), nextB: make([]float64, n)},
		ea:        ea, eb: eb, l1a: l1a, l1b: l1b, tol: tol,
	}
	if err := solveToTolerance(p, tol, maxSweeps); err != nil {
		return nil, nil, err
	}
	if err := errors.Join(checkScores(ea.X, p.sweepsA), checkScores(eb.X, p.sweepsB)); err != nil {
		return nil, nil, err
	}
	res := p.partial()
	return res[0], res[1], nil
}

// pairSolve is SolvePair's state, as the solve loop drives it.
type pairSolve struct {
	pairSweep
	ea, eb           *Engine
	l1a, l1b         float64 // ||r||_1 of each
	tol              float64
	sweepsA, sweepsB int
}

func (p *pairSolve) bound() (float64, error) {
	alpha := p.ea.alpha
	if err := errors.Join(checkBound(p.l1a/alpha, p.sweepsA), checkBound(p.l1b/alpha, p.sweepsB)); err != nil {
		return 0, err
	}
	return max(p.l1a/alpha, p.l1b/alpha), nil
}

func (p *pairSolve) settle(converged, _ bool) (bool, bool, error) { return converged, false, nil }

// sweep sweeps the views whose bound is above the tolerance: a view that
// has converged stops moving, exactly as Solve stops.
func (p *pairSolve) sweep() {
	alpha := p.ea.alpha
	doA, doB := p.l1a/alpha > p.tol, p.l1b/alpha > p.tol
	switch {
	case doA && doB:
		p.l1a, p.l1b = p.pairSweep.sweep(p.ea, p.eb)
		p.sweepsA++
		p.sweepsB++
	case doA:
		p.l1a = p.ea.jacobiSweep()
		p.sweepsA++
	default:
		p.l1b = p.eb.jacobiSweep()
		p.sweepsB++
	}
}

func (p *pairSolve) partial() []*Result {
	alpha := p.ea.alpha
	return []*Result{
		{Scores: p.ea.X, ResidualL1: p.l1a, ErrorBound: p.l1a / alpha, Sweeps: p.sweepsA},
		{Scores: p.eb.X, ResidualL1: p.l1b, ErrorBound: p.l1b / alpha, Sweeps: p.sweepsB},
	}
}

// pairSweep holds the scratch of a fused sweep.
type pairSweep struct {
	factor       []float64 // factor[2u], factor[2u+1]: r_a(u)/W_a(u), r_b(u)/W_b(u)
	nextA, nextB []float64
}

// sweep performs Engine.jacobiSweep on both engines at once. Its reference is two
// calls of Engine.jacobiSweep; TestSolvePairMatchesSeparateSolves checks that they
// agree bit for bit: each view's sum runs in pullUnmasked's order, then its
// masked arcs are subtracted as subtractArcs does. A view that masks too many
// arcs to list them (see mask.View.MaskedInArcs) has no fused form: both
// engines then sweep separately.
func (p *pairSweep) sweep(ea, eb *Engine) (l1a, l1b float64) {
	nodesA, arcsA, okA := ea.view.MaskedInArcs()
	nodesB, arcsB, okB := eb.view.MaskedInArcs()
	if !okA || !okB {
		return ea.jacobiSweep(), eb.jacobiSweep()
	}
	g := ea.view.Graph()
	n := g.NumNodes()
	xa, ra, xb, rb := ea.X[:n], ea.R[:n], eb.X[:n], eb.R[:n]
	wa, wb := ea.view.OutWeights()[:n], eb.view.OutWeights()[:n]
	ia, ib := ea.view.InvOutWeights()[:n], eb.view.InvOutWeights()[:n]
	factor := p.factor[:2*n]
	danglingA, danglingB := 0.0, 0.0
	for u := range n {
		factor[2*u] = ra[u] * ia[u]
		factor[2*u+1] = rb[u] * ib[u]
		if wa[u] == 0 {
			danglingA += ra[u]
		}
		if wb[u] == 0 {
			danglingB += rb[u]
		}
		xa[u] += ra[u]
		xb[u] += rb[u]
	}
	in := g.In()
	nextA, nextB := p.nextA[:n], p.nextB[:n]
	d := ea.damping
	if wt := in.Weight.Float32s(); wt != nil {
		l1a, l1b = pairPull(in.Offsets[:n+1], in.Nbr, wt, factor, nextA, nextB, d)
	} else {
		l1a, l1b = pairPull(in.Offsets[:n+1], in.Nbr, in.Weight.Float64s(), factor, nextA, nextB, d)
	}
	for i, v := range nodesA {
		q := arcsA[i]
		old := nextA[v]
		nextA[v] = old - d*factor[2*in.Nbr[q]]*in.Weight.At(q)
		l1a += math.Abs(nextA[v]) - math.Abs(old)
	}
	for i, v := range nodesB {
		q := arcsB[i]
		old := nextB[v]
		nextB[v] = old - d*factor[2*in.Nbr[q]+1]*in.Weight.At(q)
		l1b += math.Abs(nextB[v]) - math.Abs(old)
	}
	for i, u := range ea.seeds.Nodes {
		sw := ea.seeds.Weights[i]
		if danglingA != 0 {
			l1a -= math.Abs(nextA[u])
			nextA[u] += d * danglingA * sw
			l1a += math.Abs(nextA[u])
		}
		if danglingB != 0 {
			l1b -= math.Abs(nextB[u])
			nextB[u] += d * danglingB * sw
			l1b += math.Abs(nextB[u])
		}
	}
	ea.R, p.nextA = nextA, ra
	eb.R, p.nextB = nextB, rb
	ea.Stats.Sweeps++
	eb.Stats.Sweeps++
	ea.Stats.ArcOps += int64(len(in.Nbr))
	eb.Stats.ArcOps += int64(len(in.Nbr))
	return l1a, l1b
}

// pairPull is the fused pull of pairSweep.sweep over every arc: for each
// node, both views' sums in pullUnmasked's order, the weights wt in their
// storage (csr.Weights) widened as read.
func pairPull[W weight](offsets []int, nbr []uint32, wt []W, factor, nextA, nextB []float64, d float64) (l1a, l1b float64) {
	n := len(offsets) - 1
	nextA, nextB = nextA[:n], nextB[:n]
	for v := range n {
		lo, hi := offsets[v], offsets[v+1]
		ns, ws := nbr[lo:hi], wt[lo:hi]
		var a0, a1, a2, a3, b0, b1, b2, b3 float64
		for len(ns) >= 4 && len(ws) >= 4 {
			u0, u1, u2, u3 := 2*ns[0], 2*ns[1], 2*ns[2], 2*ns[3]
			a0 += factor[u0] * float64(ws[0])
			b0 += factor[u0+1] * float64(ws[0])
			a1 += factor[u1] * float64(ws[1])
			b1 += factor[u1+1] * float64(ws[1])
			a2 += factor[u2] * float64(ws[2])
			b2 += factor[u2+1] * float64(ws[2])
			a3 += factor[u3] * float64(ws[3])
			b3 += factor[u3+1] * float64(ws[3])
			ns, ws = ns[4:], ws[4:]
		}
		ws = ws[:len(ns)]
		for i, u := range ns {
			a0 += factor[2*u] * float64(ws[i])
			b0 += factor[2*u+1] * float64(ws[i])
		}
		xA := d * ((a0 + a1) + (a2 + a3))
		xB := d * ((b0 + b1) + (b2 + b3))
		nextA[v], nextB[v] = xA, xB
		l1a += math.Abs(xA)
		l1b += math.Abs(xB)
	}
	return l1a, l1b
}
