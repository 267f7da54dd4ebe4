package ppr

import (
	"math"

	"github.com/authppr/authppr/csr"
)

// batchWidth is the number of seed vectors a batched sweep carries in its
// narrow layout: eight float64s are one 64-byte cache line, so each random
// gather of a neighbour's factors fetches one line for all eight queries.
// The wide layout carries 2*batchWidth (two lines per node; see
// batchKernels).
const batchWidth = 8

// lanes is a node's line of interleaved vectors: one cache line (narrow)
// or two adjacent ones (wide).
type lanes interface {
	[batchWidth]float64 | [2 * batchWidth]float64
}

// batchKernels are the batched sweeps' kernels for one layout. Their
// specifications are the generic references below, instantiated per
// layout; every lane does its single-vector arithmetic in its order. pull32
// and push32 are pull and push on weights stored as float32 (csr.Weights),
// widened as read: the same arithmetic on the same values.
type batchKernels[L lanes] struct {
	pull   func(offsets []int, nbr []uint32, wt []float64, factor, next []L, d float64) L
	pull32 func(offsets []int, nbr []uint32, wt []float32, factor, next []L, d float64) L
	push   func(offsets []int, nbr []uint32, wt, w []float64, x, r []L, lo, hi int, d float64, dangling *L)
	push32 func(offsets []int, nbr []uint32, wt []float32, w []float64, x, r []L, lo, hi int, d float64, dangling *L)
	l1     func(r []L) L
	factor func(r, x, factor []L, inv []float64, dangling *L)
}

// referenceKernels returns the references as kernels.
func referenceKernels[L lanes]() batchKernels[L] {
	return batchKernels[L]{
		pullBatchReference[L, float64], pullBatchReference[L, float32],
		pushBatchReference[L, float64], pushBatchReference[L, float32],
		l1BatchReference[L], factorBatchReference[L],
	}
}

// pullOf runs the pull kernel of wt's storage.
func (k *batchKernels[L]) pullOf(offsets []int, nbr []uint32, wt csr.Weights, factor, next []L, d float64) L {
	if w := wt.Float32s(); w != nil {
		return k.pull32(offsets, nbr, w, factor, next, d)
	}
	return k.pull(offsets, nbr, wt.Float64s(), factor, next, d)
}

// pushOf runs the push kernel of wt's storage.
func (k *batchKernels[L]) pushOf(offsets []int, nbr []uint32, wt csr.Weights, w []float64, x, r []L, lo, hi int, d float64, dangling *L) {
	if w32 := wt.Float32s(); w32 != nil {
		k.push32(offsets, nbr, w32, w, x, r, lo, hi, d, dangling)
		return
	}
	k.push(offsets, nbr, wt.Float64s(), w, x, r, lo, hi, d, dangling)
}

// pullBatchReference is pullReference for interleaved vectors:
// factor[u][j] is vector j's factor at node u. It writes next[v][j] and
// returns the L1 norm of each vector.
func pullBatchReference[L lanes, W weight](offsets []int, nbr []uint32, wt []W, factor, next []L, d float64) L {
	var l1 L
	for v := range next {
		for j := range len(l1) {
			acc := 0.0
			for p := offsets[v]; p < offsets[v+1]; p++ {
				acc += factor[nbr[p]][j] * float64(wt[p])
			}
			next[v][j] = d * acc
			l1[j] += math.Abs(next[v][j])
		}
	}
	return l1
}

// pullBatch is pullBatchReference with one pass over the arcs for all
// vectors; per vector the sum runs in arc order, so it matches the
// reference bit for bit.
func pullBatch[W weight](offsets []int, nbr []uint32, wt []W, factor, next [][batchWidth]float64, d float64) [batchWidth]float64 {
	var l1 [batchWidth]float64
	n := len(next)
	offsets = offsets[:n+1]
	lo, his := offsets[0], offsets[1:]
	next = next[:len(his)]
	for v, hi := range his {
		ns, ws := nbr[lo:hi], wt[lo:hi]
		lo = hi
		ws = ws[:len(ns)]
		var a0, a1, a2, a3, a4, a5, a6, a7 float64
		for i, u := range ns {
			f := &factor[u]
			w := float64(ws[i])
			a0 += f[0] * w
			a1 += f[1] * w
			a2 += f[2] * w
			a3 += f[3] * w
			a4 += f[4] * w
			a5 += f[5] * w
			a6 += f[6] * w
			a7 += f[7] * w
		}
		out := &next[v]
		out[0], out[1], out[2], out[3] = d*a0, d*a1, d*a2, d*a3
		out[4], out[5], out[6], out[7] = d*a4, d*a5, d*a6, d*a7
		for j, x := range out {
			l1[j] += math.Abs(x)
		}
	}
	return l1
}

// pushBatchReference is batch.pushSweep's node loop over nodes lo..hi-1 of
// a view that masks none of their out-arcs: Engine.PushScan(0)'s arithmetic
// for every vector at once. A node whose eight residuals are all zero is
// skipped; otherwise its residuals move into x (lanes with zero add zero,
// which changes no value), a dangling node's (w[u] = 0) go to dangling, and
// a node with out-weight sends c[j]*wt[p] with c[j] = d*r[u][j]/w[u] to
// each out-neighbour, in arc order, with r[u] zeroed first (so a self-loop
// lands after the zeroing, as in PushScan). The SIMD kernels must match it
// bit for bit (TestPushBatchMatchesReference).
func pushBatchReference[L lanes, W weight](offsets []int, nbr []uint32, wt []W, w []float64, x, r []L, lo, hi int, d float64, dangling *L) {
	for u := lo; u < hi; u++ {
		c, ok := takeBatchResidual(x, r, u, w[u], d, dangling)
		if !ok {
			continue
		}
		for p := offsets[u]; p < offsets[u+1]; p++ {
			rv, wp := &r[nbr[p]], float64(wt[p])
			for j := range len(*rv) {
				(*rv)[j] += c[j] * wp
			}
		}
	}
}

// takeBatchResidual is the node part of a batch push of u: its residuals
// move into x and r[u] is zeroed; a dangling node's (wu = 0) go to
// dangling; otherwise it returns c[j] = d*r[u][j]/wu, what each out-arc of
// weight w carries (c[j]*w), and true. All-zero residuals change nothing
// and return false.
func takeBatchResidual[L lanes](x, r []L, u int, wu, d float64, dangling *L) (c L, ok bool) {
	var zero L
	val := r[u]
	if val == zero {
		return c, false
	}
	r[u] = zero
	for j := range len(c) {
		x[u][j] += val[j]
		if wu == 0 {
			(*dangling)[j] += val[j]
		} else {
			c[j] = d * val[j] / wu
		}
	}
	return c, wu != 0
}

// l1BatchReference returns sum_u |r[u][j]| for every lane j, in node order
// (Engine.residualL1's order per lane).
func l1BatchReference[L lanes](r []L) L {
	var l1 L
	for u := range r {
		for j := range len(l1) {
			l1[j] += math.Abs(r[u][j])
		}
	}
	return l1
}

// factorBatchReference is batch.jacobiSweep's per-node pass, Engine.jacobiSweep's for
// every vector: factor[u][j] = r[u][j]*inv[u], x[u][j] += r[u][j], and a
// dangling node's residual (inv[u] = 0: 1/W_A(u) is 0 exactly when W_A(u)
// is) added to dangling[j], in node order.
func factorBatchReference[L lanes](r, x, factor []L, inv []float64, dangling *L) {
	for u := range r {
		iu := inv[u]
		for j := range len(*dangling) {
			factor[u][j] = r[u][j] * iu
			x[u][j] += r[u][j]
		}
		if iu == 0 {
			for j := range len(*dangling) {
				(*dangling)[j] += r[u][j]
			}
		}
	}
}
