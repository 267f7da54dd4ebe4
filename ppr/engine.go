package ppr

import (
	"fmt"
	"math"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/internal/reuse"
	"github.com/authppr/authppr/mask"
)

// Stats counts the work an Engine has done.
type Stats struct {
	Sweeps int   // full sweeps
	Pushes int64 // single-node pushes
	ArcOps int64 // arcs read by sweeps and pushes (masked arcs included)
}

// Engine holds a residual state (X, R) for one view, seed vector and damping,
// and moves it towards the solution with pushes and sweeps. X and R may be
// read and written between calls; the engine keeps no other copy of them.
type Engine struct {
	view    *mask.View
	seeds   Seeds
	damping float64
	alpha   float64

	X, R []float64

	tune *tuning // defaultTuning unless a test set another

	// Support, when not nil, records every node whose X or R a push
	// changes, so a caller working on sparse states can read or clear
	// exactly those entries (replay's guard; the set type is internal to
	// the module).
	Support *nodeset.Set
	// Left, when not nil, accounts for the residual push rounds leave on
	// the nodes they visit (see Leftover).
	Left *Leftover
	// keepDangling makes pushes skip nodes that are dangling in the view:
	// their residual stays in R instead of being spread over every seed.
	// The tests set it.
	keepDangling bool

	// Scratch, one struct per feature, allocated on first use and kept,
	// so that an engine reused through Restart allocates nothing
	// proportional to the graph after its first query.
	sweeps pullScratch    // jacobiSweep, parallelSweep
	fifo   fifo           // pushUntil
	rounds roundScratch   // PushRounds, PushRoundsSigned
	refine topKRefinement // reverse pushes (SolveTopK, Proof.RefinedGap)
	marks  derivedMarks   // scratch of derived proofs' gaps (since.go)
	local  localState     // SolveTopK's local checks (see local.go)
	inSel  []bool         // SolveTopK's selection marks (all false between calls)

	Stats Stats
}

// NewEngine returns an engine in the native start state x = 0, r = alpha*s.
func NewEngine(view *mask.View, seeds Seeds, damping float64) (*Engine, error) {
	n := view.NumNodes()
	e := &Engine{view: view, X: make([]float64, n), R: make([]float64, n), tune: &defaultTuning}
	if err := e.SetProblem(seeds, damping); err != nil {
		return nil, err
	}
	e.reset()
	return e, nil
}

// SetProblem switches the engine to other seeds and damping, keeping its
// arrays and leaving X and R as they are (the caller sets them); use Restart
// for the native start state.
func (e *Engine) SetProblem(seeds Seeds, damping float64) error {
	if err := checkDamping(damping); err != nil {
		return err
	}
	n := e.view.NumNodes()
	for i, u := range seeds.Nodes {
		if int(u) >= n {
			return fmt.Errorf("ppr: seed %d: node %d out of range (graph has %d nodes)", i, u, n)
		}
	}
	e.seeds, e.damping, e.alpha = seeds, damping, 1-damping
	e.refine.reset() // reverse estimates depend on the damping
	e.refine.unshare()
	return nil
}

// Restart is SetProblem followed by a return to the native start state x
// = 0, r = alpha*s, with the stats cleared: a new query on the same arrays.
func (e *Engine) Restart(seeds Seeds, damping float64) error {
	if err := e.SetProblem(seeds, damping); err != nil {
		return err
	}
	e.reset()
	return nil
}

// Rebind moves the engine to another view (another version of a living
// graph, say), keeping its storage: X and R get the view's node count,
// their first entries kept and the others zero, in the same arrays when
// they fit; scratch sized by node count is resized the same way, and what
// depends on the view (the reverse estimates, estimates shared from
// another engine) is dropped. Call SetProblem or Restart before solving.
// A caller that aliases X and R between engines sets the aliases again
// afterwards.
func (e *Engine) Rebind(view *mask.View) {
	if view == e.view {
		return
	}
	n := view.NumNodes()
	e.view = view
	e.X, e.R = reuse.Slice(e.X, n), reuse.Slice(e.R, n)
	e.refine.rebind(n)
	// All false between calls: resizing keeps them so. (Made on first
	// use, as they are.)
	if e.fifo.queued != nil {
		e.fifo.queued = reuse.Slice(e.fifo.queued, n)
	}
	if e.inSel != nil {
		e.inSel = reuse.Slice(e.inSel, n)
	}
	e.rounds.resize(n)
	// Allocated only by solves a patched view never takes: again on
	// first use.
	e.sweeps = pullScratch{}
}

// View returns the view the engine solves on.
func (e *Engine) View() *mask.View { return e.view }

// reset returns to x = 0, r = alpha*s and clears the stats.
func (e *Engine) reset() {
	clear(e.X)
	clear(e.R)
	for i, u := range e.seeds.Nodes {
		e.R[u] = e.alpha * e.seeds.Weights[i]
	}
	e.Stats = Stats{}
}

// normalizeMass scales x to the solution's total mass, 1, keeping the
// residual identity: x' = c*x and r' = c*r + (1-c)*alpha*s with c =
// 1/sum(x), an affine combination (weights summing to 1) of the state and
// the native start, both of which satisfy r = alpha*s + d*x*P - x. Every
// state has sum(x) + sum(r)/alpha = 1 (the rows of P sum to 1, so those of
// (I - d*P)^-1 to 1/alpha), so afterwards r sums to zero: it is signed,
// and Jacobi sweeps keep its sum zero (see Normalized). It returns false,
// changing nothing, when sum(x) <= 0.
func (e *Engine) normalizeMass() bool {
	sum := 0.0
	for _, v := range e.X {
		sum += v
	}
	if !(sum > 0) {
		return false
	}
	e.scaleMass(1 / sum)
	return true
}

// scaleMass sets x' = c*x and r' = c*r + (1-c)*alpha*s (see normalizeMass)
// and returns ||r'||_1, summed in node order as residualL1 sums it, in one
// pass over the nodes: the seeds' share is added first, as
// (1-c)*alpha*s/c, so that the pass's scaling gives it its weight.
func (e *Engine) scaleMass(c float64) float64 {
	x, r := e.X, e.R[:len(e.X)]
	for i, u := range e.seeds.Nodes {
		r[u] += (1 - c) * e.alpha * e.seeds.Weights[i] / c
		if e.Support != nil {
			e.Support.Add(u)
		}
	}
	l1 := 0.0
	for u := range x {
		x[u] *= c
		r[u] *= c
		l1 += math.Abs(r[u])
	}
	return l1
}

// residualL1 returns ||r||_1, summed in node order.
func (e *Engine) residualL1() float64 {
	s := 0.0
	for _, v := range e.R {
		s += math.Abs(v)
	}
	return s
}

// errorBound returns ||r||_1/alpha, which bounds ||pi - x||_1 (see the
// package doc). It is +Inf when alpha is 0.
func (e *Engine) errorBound() float64 {
	return e.residualL1() / e.alpha
}

// jacobiSweep pushes every node at once: x += r; r = d*r*P. It pulls over
// the in-adjacency, so each new residual entry is one independent sum, and
// returns the new ||r||_1.
//
// It panics on a patched view (mask.Patched), which has no in-adjacency:
// solves choose Gauss-Seidel scans there (checkView).
func (e *Engine) jacobiSweep() float64 {
	e.needGraphRows("a Jacobi sweep")
	g := e.view.Graph()
	n := g.NumNodes()
	next, factor := e.sweeps.arrays(n)
	x, r := e.X[:n], e.R[:n]
	inv := e.view.InvOutWeights()[:n]

	// Per-node factor r(u)/W_A(u) (a multiply by 1/W_A: dividing cost a
	// fifth of the sweep), computed once per sweep; the residual of
	// dangling nodes goes to the seeds instead. 1/W_A(u) is 0 exactly when
	// W_A(u) is (1/w > 0 for every positive finite w), so the out-weights
	// need not be read.
	dangling := 0.0
	for u := range n {
		iu, ru := inv[u], r[u]
		factor[u] = ru * iu
		if iu == 0 {
			dangling += ru
		}
		x[u] += ru
	}

	in := g.In()
	l1 := e.pull(factor, next)
	if dangling != 0 {
		for i, u := range e.seeds.Nodes {
			l1 -= math.Abs(next[u])
			next[u] += e.damping * dangling * e.seeds.Weights[i]
			l1 += math.Abs(next[u])
		}
	}
	e.R, e.sweeps.next = next, r
	e.Stats.Sweeps++
	e.Stats.ArcOps += int64(len(in.Nbr))
	return l1
}

// pull runs the view's pull kernel: every arc summed (pulls, the CPU
// level's kernels; the pattern kernel when every weight is 1), then the few
// masked arcs' terms subtracted; or, when the view masks too many arcs to
// list, the bit-testing kernel.
func (e *Engine) pull(factor, next []float64) float64 {
	in := e.view.Graph().In()
	d := e.damping
	nodes, arcs, sparse := e.view.MaskedInArcs()
	if !sparse {
		return pullMaskedOf(in.Offsets, in.Nbr, in.Weight, in.Edge, e.view.MaskedBits(), factor, next, d)
	}
	l1 := pullAll(e.tune.pulls, e.view.Graph(), 0, len(next), factor, next, d)
	if len(nodes) > 0 {
		l1 = subtractArcsOf(nodes, arcs, in.Nbr, in.Weight, factor, next, d, l1)
	}
	return l1
}

// pullAll pulls every arc of rows lo..hi-1 of g's in-adjacency into next
// (len(next) = hi-lo) with the kernels of ps. It is the gate of the
// unchecked kernels (kernel_unchecked.go): it passes g's own validated
// arrays and checks that factor covers every node, so that every gathered
// neighbour (< g.NumNodes(), csr.validate) indexes factor.
func pullAll(ps *pullSet, g *csr.Graph, lo, hi int, factor, next []float64, d float64) float64 {
	if n := g.NumNodes(); len(factor) < n || lo < 0 || lo > hi || hi > n || len(next) != hi-lo {
		panic(fmt.Sprintf("ppr: pull of rows [%d, %d) into %d entries with %d factors; want rows within the %d nodes, one entry per row and a factor per node",
			lo, hi, len(next), len(factor), n))
	}
	in := g.In()
	offsets := in.Offsets[lo : hi+1]
	if g.UnitWeights() {
		return ps.pattern(offsets, in.Nbr, factor, next, d)
	}
	if wt := in.Weight.Float32s(); wt != nil {
		return ps.weighted32(offsets, in.Nbr, wt, factor, next, d)
	}
	return ps.weighted(offsets, in.Nbr, in.Weight.Float64s(), factor, next, d)
}

// pushSweep pushes every node once, in id order, updating the residual in
// place (Gauss-Seidel order): mass pushed to a later node moves on within
// the same sweep, so it needs about half the sweeps of jacobiSweep for the
// same bound (docs/benchmarks.md, "ppr: sweep orders"). Each step is a
// push, so the residual identity holds after the sweep. It scatters over the out-adjacency and returns the new ||r||_1.
func (e *Engine) pushSweep() float64 {
	e.PushScan(0)
	return e.residualL1()
}

// PushScan pushes, in one pass in id order with the residual updated in
// place, every node over its threshold (see pushUntil); with eps = 0 every
// node with residual. A scan reads every node once and needs no queue, so
// when most nodes are active it is much cheaper per arc than pushUntil's
// FIFO. The seeds' share of dangling pushes is added once at the end of the
// scan (a dense seed vector would otherwise cost |seeds| per dangling push);
// the residual identity holds when PushScan returns. It returns the pushes
// made.
func (e *Engine) PushScan(eps float64) int {
	pushes, _ := e.pushScanOver(eps, nil)
	return pushes
}

// pushScanOver is PushScan; with sup not nil it visits only the nodes of
// the bitset sup (which must hold every node with a non-zero residual) and
// adds to it every node the scan changes. The nodes it skips have r = 0,
// which PushScan skips too, so it makes the same pushes in the same order,
// to the same bits. It returns the pushes made and the mass they moved
// into x.
func (e *Engine) pushScanOver(eps float64, sup []uint64) (pushes int, pushed float64) {
	if wt := e.view.Graph().Out().Weight.Float32s(); wt != nil {
		return pushScan(e, wt, eps, sup)
	}
	return pushScan(e, e.view.Graph().Out().Weight.Float64s(), eps, sup)
}

// pushScan is pushScanOver with the out-adjacency's weights wts in their
// storage (csr.Weights), widened as read.
func pushScan[W weight](e *Engine, wts []W, eps float64, sup []uint64) (int, float64) {
	g := e.view.Graph()
	n := e.view.NumNodes()
	x, r := e.X[:n], e.R[:n]
	w := e.view.NodeOutWeights()
	out := g.Out()
	bits, tb := e.view.MaskedBits(), e.view.TouchedBits()
	rep := e.view.OutReplaced()
	d := e.damping
	pushes := 0
	dangling, pushed := 0.0, 0.0
	for u := 0; u < n; u++ {
		if sup != nil {
			// The next member at or after u: members added behind u
			// wait for the next scan, as they do in the full scan.
			if u = nextMember(sup, u); u >= n {
				break
			}
		}
		val := r[u]
		if val == 0 {
			continue
		}
		wu := w.At(uint32(u))
		if wu == 0 {
			if e.keepDangling || math.Abs(val) <= eps {
				continue
			}
			r[u] = 0
			x[u] += val
			pushes++
			dangling += val
			continue
		}
		if math.Abs(val) <= eps*wu {
			continue
		}
		r[u] = 0
		x[u] += val
		pushes++
		pushed += val
		c := d * val / wu
		// A touched node's row has masked arcs or is replaced (a patched
		// view); every other row is the graph's, read without a mask test.
		masked := tb != nil && tb[u/64]&(1<<(u%64)) != 0
		if masked && rep != nil {
			if i := rep.Index(uint32(u)); i >= 0 {
				pn, pw := rep.Row(i)
				e.Stats.ArcOps += int64(len(pn))
				scatterReplaced(r, pn, pw, c, sup)
				continue
			}
		}
		lo, hi := out.Offsets[u], out.Offsets[u+1]
		nbr, wt, eid := out.Nbr[lo:hi], wts[lo:hi], out.Edge[lo:hi]
		e.Stats.ArcOps += int64(len(nbr))
		switch {
		case !masked && sup == nil:
			wt = wt[:len(nbr)]
			for p, v := range nbr {
				r[v] += c * float64(wt[p])
			}
		case !masked:
			wt = wt[:len(nbr)]
			for p, v := range nbr {
				r[v] += c * float64(wt[p])
				sup[v/64] |= 1 << (v % 64)
			}
		default:
			wt, eid = wt[:len(nbr)], eid[:len(nbr)]
			if skip, listed := e.view.MaskedOutArcs(uint32(u)); listed {
				// The row but its masked arcs (ascending): the same terms
				// in the same order, with no test per arc.
				for from, to := range liveRuns(len(nbr), lo, skip) {
					for p := from; p < to; p++ {
						v := nbr[p]
						r[v] += c * float64(wt[p])
						if sup != nil {
							sup[v/64] |= 1 << (v % 64)
						}
					}
				}
				continue
			}
			for p, v := range nbr {
				if bits[eid[p]/64]&(1<<(eid[p]%64)) == 0 {
					r[v] += c * float64(wt[p])
					if sup != nil {
						sup[v/64] |= 1 << (v % 64)
					}
				}
			}
		}
	}
	if dangling != 0 {
		for i, s := range e.seeds.Nodes {
			r[s] += d * dangling * e.seeds.Weights[i]
			if sup != nil {
				sup[s/64] |= 1 << (s % 64)
			}
		}
	}
	e.Stats.Sweeps++
	e.Stats.Pushes += int64(pushes)
	return pushes, pushed + dangling
}

// needGraphRows panics when the engine's view is patched: what calls it
// reads every row from the graph's arrays (pulls over the in-adjacency),
// and Options.limits refuses such solves on patched views before they
// start.
func (e *Engine) needGraphRows(what string) {
	if e.view.Patched() {
		panic("ppr: " + what + " on a patched view (replaced rows have no in-adjacency)")
	}
}

// scatterReplaced spreads c times a replaced row's weights over its
// neighbours (every arc of a replaced row is live), marking them in sup
// when it is not nil.
func scatterReplaced(r []float64, nbr []uint32, wt []float64, c float64, sup []uint64) {
	wt = wt[:len(nbr)]
	for p, v := range nbr {
		r[v] += c * wt[p]
		if sup != nil {
			sup[v/64] |= 1 << (v % 64)
		}
	}
}

// SetResidual sets R to the exact residual of X, alpha*s + d*X*P - X
// (dangling mass of X to the seeds), reading every row with X > 0 once:
// the start state of a warm start from a vector solved for other seeds or
// on another version. It costs a pass over the arcs of X's support.
func (e *Engine) SetResidual() {
	r := e.R
	clear(r)
	for i, u := range e.seeds.Nodes {
		r[u] = e.alpha * e.seeds.Weights[i]
	}
	dangling := 0.0
	for u, xu := range e.X {
		if xu == 0 {
			continue
		}
		r[u] -= xu
		w := e.view.OutWeight(uint32(u))
		if w == 0 {
			dangling += xu
			continue
		}
		c := e.damping * xu / w
		row := e.view.OutRow(uint32(u))
		for p, v := range row.Nbr {
			if row.Live(p) {
				r[v] += c * row.Weight.At(p)
			}
		}
	}
	for i, u := range e.seeds.Nodes {
		r[u] += e.damping * dangling * e.seeds.Weights[i]
	}
}
