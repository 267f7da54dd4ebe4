package ppr

import (
	"math"

	"github.com/authppr/authppr/csr"
)

// The pull kernels compute, for every node v,
//
//	next[v] = d * (sum over v's in-arcs p that the view keeps of factor[nbr[p]] * wt[p])
//
// and return sum_v |next[v]|. pullReference is the specification: one
// accumulator, arcs in CSR order, masked arcs skipped by testing the bitset.
// The fast kernels sum in another order and must match it to rounding;
// TestPullKernelsMatchReference checks each at awkward degrees (0-3, 7, 8,
// 15-17, 63-65) and with masks.
//
// Every kernel takes the weights in the graph's storage (weight: float64,
// or float32 when csr stored them so, see csr.Weights) and widens each as
// it reads it: widening is exact, so a float32 graph's kernel does the
// float64 graph's arithmetic on the same values and gives the same bits
// (TestFloat32StorageSameBits). The gain is memory, four bytes fewer
// streamed per arc; the gathers of factor, not the weight stream, set a
// sweep's pace (docs/benchmarks.md, "ppr: float32 weights").

// weight is a storage type of csr.Weights.
type weight interface{ float32 | float64 }

// pullReference is the plain loop.
func pullReference[W weight](offsets []int, nbr []uint32, wt []W, eid []uint32, bits []uint64, factor, next []float64, d float64) float64 {
	l1 := 0.0
	for v := range next {
		acc := 0.0
		for p := offsets[v]; p < offsets[v+1]; p++ {
			if bits != nil && bits[eid[p]/64]&(1<<(eid[p]%64)) != 0 {
				continue
			}
			acc += factor[nbr[p]] * float64(wt[p])
		}
		next[v] = d * acc
		l1 += math.Abs(next[v])
	}
	return l1
}

// pullUnmasked sums every arc with four independent accumulators, so the
// additions of one node do not wait on each other (a float add has a
// latency of several cycles, and the loads of factor are independent). The
// partial sums combine as (a0+a1)+(a2+a3). Slices are re-cut to equal
// lengths so that per arc only the random factor[] index keeps a bounds
// check, and per row only the cut of the row's arcs (verified with
// go build -gcflags='github.com/authppr/authppr/ppr=-d=ssa/check_bce/debug=1' ./ppr;
// the same holds for pullPattern).
func pullUnmasked[W weight](offsets []int, nbr []uint32, wt []W, factor, next []float64, d float64) float64 {
	n := len(next)
	offsets = offsets[:n+1]
	l1 := 0.0
	lo, his := offsets[0], offsets[1:]
	next = next[:len(his)]
	for v, hi := range his {
		ns, ws := nbr[lo:hi], wt[lo:hi]
		lo = hi
		var a0, a1, a2, a3 float64
		for len(ns) >= 4 && len(ws) >= 4 {
			a0 += factor[ns[0]] * float64(ws[0])
			a1 += factor[ns[1]] * float64(ws[1])
			a2 += factor[ns[2]] * float64(ws[2])
			a3 += factor[ns[3]] * float64(ws[3])
			ns, ws = ns[4:], ws[4:]
		}
		ws = ws[:len(ns)]
		for i, u := range ns {
			a0 += factor[u] * float64(ws[i])
		}
		x := d * ((a0 + a1) + (a2 + a3))
		next[v] = x
		l1 += math.Abs(x)
	}
	return l1
}

// pullMasked is pullUnmasked that skips masked arcs by testing the bitset:
// for views that mask a large share of the arcs.
func pullMasked[W weight](offsets []int, nbr []uint32, wt []W, eid []uint32, bits []uint64, factor, next []float64, d float64) float64 {
	n := len(next)
	offsets = offsets[:n+1]
	l1 := 0.0
	for v := range n {
		lo, hi := offsets[v], offsets[v+1]
		ns, ws, es := nbr[lo:hi], wt[lo:hi], eid[lo:hi]
		ws, es = ws[:len(ns)], es[:len(ns)]
		var a0, a1 float64
		i := 0
		for ; i+1 < len(ns); i += 2 {
			if bits[es[i]/64]&(1<<(es[i]%64)) == 0 {
				a0 += factor[ns[i]] * float64(ws[i])
			}
			if bits[es[i+1]/64]&(1<<(es[i+1]%64)) == 0 {
				a1 += factor[ns[i+1]] * float64(ws[i+1])
			}
		}
		if i < len(ns) && bits[es[i]/64]&(1<<(es[i]%64)) == 0 {
			a0 += factor[ns[i]] * float64(ws[i])
		}
		x := d * (a0 + a1)
		next[v] = x
		l1 += math.Abs(x)
	}
	return l1
}

// subtractArcs removes the given arcs' terms from a pull over every arc:
// next[node[i]] -= d*factor[nbr[arc[i]]]*wt[arc[i]], keeping l1 current.
// With pullUnmasked it computes a masked sweep in O(arcs + masked arcs)
// without a per-arc mask test.
func subtractArcs[W weight](node []uint32, arc []int, nbr []uint32, wt []W, factor, next []float64, d, l1 float64) float64 {
	arc = arc[:len(node)]
	for i, v := range node {
		p := arc[i]
		old := next[v]
		next[v] = old - d*factor[nbr[p]]*float64(wt[p])
		l1 += math.Abs(next[v]) - math.Abs(old)
	}
	return l1
}

// pullMaskedOf is pullMasked on the storage of wt.
func pullMaskedOf(offsets []int, nbr []uint32, wt csr.Weights, eid []uint32, bits []uint64, factor, next []float64, d float64) float64 {
	if w := wt.Float32s(); w != nil {
		return pullMasked(offsets, nbr, w, eid, bits, factor, next, d)
	}
	return pullMasked(offsets, nbr, wt.Float64s(), eid, bits, factor, next, d)
}

// subtractArcsOf is subtractArcs on the storage of wt.
func subtractArcsOf(node []uint32, arc []int, nbr []uint32, wt csr.Weights, factor, next []float64, d, l1 float64) float64 {
	if w := wt.Float32s(); w != nil {
		return subtractArcs(node, arc, nbr, w, factor, next, d, l1)
	}
	return subtractArcs(node, arc, nbr, wt.Float64s(), factor, next, d, l1)
}
