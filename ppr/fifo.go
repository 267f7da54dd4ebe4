package ppr

import (
	"math"

	"github.com/authppr/authppr/mask"
)

// FIFO local push: the first push engine, kept for small frontiers and as
// the plain specification of the others (pushNode, overThreshold); replay
// and the store push in rounds (PushRounds), which cost several times less
// per arc.

// fifo is pushUntil's queue and queue marks (all false between calls),
// kept by the engine.
type fifo struct {
	queue  []uint32
	queued []bool
}

// pushNode pushes u once: x(u) += r(u), r(u)'s mass spread over u's
// surviving out-arcs (to the seeds when u is dangling in the view), r(u) =
// 0; with keepDangling set, a dangling node is left as it is. When visit
// is not nil it is called for every node whose residual the push changed.
func (e *Engine) pushNode(u uint32, visit func(v uint32)) {
	val := e.R[u]
	if val == 0 {
		return
	}
	wu := e.view.OutWeight(u)
	if wu == 0 && e.keepDangling {
		return
	}
	e.R[u] = 0
	e.X[u] += val
	e.Stats.Pushes++
	if e.Support != nil {
		e.Support.Add(u)
	}
	if wu == 0 {
		c := e.damping * val
		for i, s := range e.seeds.Nodes {
			e.R[s] += c * e.seeds.Weights[i]
			if e.Support != nil {
				e.Support.Add(s)
			}
			if visit != nil {
				visit(s)
			}
		}
		return
	}
	row := e.view.OutRow(u)
	e.Stats.ArcOps += int64(row.Len())
	c := e.damping * val / wu
	for p, v := range row.Nbr {
		if !row.Live(p) {
			continue
		}
		e.R[v] += c * row.Weight.At(p)
		if e.Support != nil {
			e.Support.Add(v)
		}
		if visit != nil {
			visit(v)
		}
	}
}

// overThreshold reports whether u should be pushed at eps: |r(u)| > eps*W_A(u)
// for a node with out-weight, |r(u)| > eps for a dangling one (never, with
// keepDangling set).
func (e *Engine) overThreshold(u uint32, eps float64) bool {
	t := eps * e.view.OutWeight(u)
	if t == 0 {
		if e.keepDangling {
			return false
		}
		t = eps
	}
	return math.Abs(e.R[u]) > t
}

// pushUntil runs FIFO local push: starting from the frontier, it pushes any
// node over its threshold (see overThreshold) and queues the nodes each push
// lifts over theirs. Nodes over threshold that are neither in the frontier
// nor reached by a push are left alone: the caller names them.
//
// budget caps the arc operations spent (0 = no cap). pushUntil reports
// whether the queue emptied, that is, whether every node it reached is at or
// below its threshold. When it returns false the state is still a valid
// (x, r) pair, only less converged.
func (e *Engine) pushUntil(eps float64, frontier []uint32, budget int64) bool {
	if wt := e.view.Graph().Out().Weight.Float32s(); wt != nil {
		return pushFIFO(e, wt, eps, frontier, budget)
	}
	return pushFIFO(e, e.view.Graph().Out().Weight.Float64s(), eps, frontier, budget)
}

// fifoRun is one pushUntil with the out-adjacency's weights wts in their
// storage (csr.Weights), widened as read: pushNode and overThreshold with
// the engine's arrays held and the mask tested only on touched rows.
type fifoRun[W weight] struct {
	e      *Engine
	wts    []W
	eps    float64
	x, r   []float64
	w      *mask.NodeWeights // out-weights
	queued []bool
	queue  []uint32
}

// pushFIFO is pushUntil on weights stored as W; it must make
// pushUntilReference's pushes, in its order, to the same bits
// (TestPushUntilMatchesReference).
func pushFIFO[W weight](e *Engine, wts []W, eps float64, frontier []uint32, budget int64) bool {
	n := e.view.NumNodes()
	if e.fifo.queued == nil {
		e.fifo.queued = make([]bool, n)
	}
	f := fifoRun[W]{e: e, wts: wts, eps: eps, x: e.X[:n], r: e.R[:n], w: e.view.NodeOutWeights(), queued: e.fifo.queued[:n], queue: e.fifo.queue[:0]}
	for _, u := range frontier {
		f.offer(u)
	}
	start := e.Stats.ArcOps
	head := 0
	for head < len(f.queue) {
		if budget > 0 && e.Stats.ArcOps-start >= budget {
			break
		}
		u := f.queue[head]
		head++
		f.queued[u] = false
		if f.over(u) {
			if val := f.r[u]; f.w.At(u) == 0 {
				f.pushDangling(u, val) // keepDangling is off, or over would be false
			} else {
				f.pushRow(u, val)
			}
		}
		// Compact the FIFO once its consumed prefix dominates.
		if head > 1024 && head*2 > len(f.queue) {
			f.queue = append(f.queue[:0], f.queue[head:]...)
			head = 0
		}
	}
	done := head == len(f.queue)
	for _, u := range f.queue[head:] {
		f.queued[u] = false
	}
	e.fifo.queue = f.queue[:0]
	return done
}

// over is overThreshold on the held arrays.
func (f *fifoRun[W]) over(v uint32) bool {
	t := f.eps * f.w.At(v)
	if t == 0 {
		if f.e.keepDangling {
			return false
		}
		t = f.eps
	}
	return math.Abs(f.r[v]) > t
}

// offer queues v when it is over its threshold and not queued.
func (f *fifoRun[W]) offer(v uint32) {
	if !f.queued[v] && f.over(v) {
		f.queued[v] = true
		f.queue = append(f.queue, v)
	}
}

// take moves r(u) = val into x(u).
func (f *fifoRun[W]) take(u uint32, val float64) {
	f.r[u] = 0
	f.x[u] += val
	f.e.Stats.Pushes++
	if sup := f.e.Support; sup != nil {
		sup.Add(u)
	}
}

// pushDangling pushes dangling u's residual val to the seeds.
func (f *fifoRun[W]) pushDangling(u uint32, val float64) {
	e := f.e
	f.take(u, val)
	d := e.damping
	for i, s := range e.seeds.Nodes {
		f.r[s] += d * val * e.seeds.Weights[i]
		if e.Support != nil {
			e.Support.Add(s)
		}
		f.offer(s)
	}
}

// pushRow pushes u's residual val over its live out-arcs. Only nodes with
// a masked out-arc test the mask per arc, and a replaced row (a patched
// view) lists only live arcs.
func (f *fifoRun[W]) pushRow(u uint32, val float64) {
	e := f.e
	view := e.view
	f.take(u, val)
	c := e.damping * val / f.w.At(u)
	var nbr, eid []uint32
	var wt []W
	var rwt []float64
	replaced := false
	arcBits := view.MaskedBits()
	if tb := view.TouchedBits(); tb == nil || tb[u/64]&(1<<(u%64)) == 0 {
		arcBits = nil
	} else if nbr, rwt, _, replaced = view.ReplacedRow(u); replaced {
		arcBits = nil
	}
	if !replaced {
		out := view.Graph().Out()
		lo, hi := out.Offsets[u], out.Offsets[u+1]
		nbr, wt, eid = out.Nbr[lo:hi], f.wts[lo:hi], out.Edge[lo:hi]
	}
	e.Stats.ArcOps += int64(len(nbr))
	sup := e.Support
	for p, v := range nbr {
		if arcBits != nil && arcBits[eid[p]/64]&(1<<(eid[p]%64)) != 0 {
			continue
		}
		if replaced {
			f.r[v] += c * rwt[p]
		} else {
			f.r[v] += c * float64(wt[p])
		}
		if sup != nil {
			sup.Add(v)
		}
		f.offer(v)
	}
}

// pushUntilReference is pushUntil written with the plain pushNode and
// overThreshold: the specification the fast loop is tested against
// (TestPushUntilMatchesReference: same pushes, same order, same bits).
func (e *Engine) pushUntilReference(eps float64, frontier []uint32, budget int64) bool {
	n := e.view.NumNodes()
	if e.fifo.queued == nil {
		e.fifo.queued = make([]bool, n)
	}
	queued := e.fifo.queued
	queue := e.fifo.queue[:0]
	enqueue := func(v uint32) {
		if !queued[v] && e.overThreshold(v, eps) {
			queued[v] = true
			queue = append(queue, v)
		}
	}
	for _, u := range frontier {
		enqueue(u)
	}
	start := e.Stats.ArcOps
	head := 0
	for head < len(queue) {
		if budget > 0 && e.Stats.ArcOps-start >= budget {
			break
		}
		u := queue[head]
		head++
		queued[u] = false
		if e.overThreshold(u, eps) {
			e.pushNode(u, enqueue)
		}
		// Compact the FIFO once its consumed prefix dominates.
		if head > 1024 && head*2 > len(queue) {
			queue = append(queue[:0], queue[head:]...)
			head = 0
		}
	}
	done := head == len(queue)
	for _, u := range queue[head:] {
		queued[u] = false
	}
	e.fifo.queue = queue[:0]
	return done
}
