//go:build !purego

package ppr

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/authppr/authppr/internal/cpu"
)

// The unchecked kernels (cpu.Unchecked) are pullUnmasked and pullPattern
// without bounds checks: one arc index p runs over the whole window of
// arcs, and nbr, wt and factor are read through unsafe pointer arithmetic.
// Per arc the checked kernels pay a compare-and-branch on factor[nbr[p]],
// and per row the re-slicing of nbr and wt (with its spills and reloads at
// the row start), which made a checked pull about twice the C loop's time
// (anchors/c/ppr_csr.c; docs/benchmarks.md, "Pull kernels").
//
// Safety rests on two facts, one checked here and one by the graph:
//
//  1. Arc positions. uncheckedWindow checks in O(1) at entry that
//     len(offsets) = len(next)+1, len(wt) = len(nbr) (weighted), and
//     0 <= offsets[0] <= offsets[n] <= len(nbr), n = len(next). Row v's
//     arcs are read from p (the running position, which starts at
//     offsets[0] and only grows) up to hi = min(offsets[v+1], offsets[n]),
//     so every p read satisfies offsets[0] <= p < offsets[n] <= len(nbr):
//     in range whatever the offsets in between hold. When they are
//     non-decreasing (csr.validate checks it for every graph) p equals
//     offsets[v] at the start of row v, so the rows are exactly the
//     reference's. The weights are read at p too, each at its storage's
//     width (wt is []W, W float32 or float64 as csr stored the graph's
//     weights: the address is base + p*sizeof(W), the address of wt[p]),
//     so p < len(nbr) = len(wt) keeps them in range for either storage.
//  2. Gathers. factor[nbr[p]] needs nbr[p] < len(factor). csr.validate
//     (run by Builder.Build, Assemble and Validate for every snapshot)
//     checks every arc's neighbour is below the graph's node count, and
//     pullAll, the only caller of the pulls outside the tests, checks
//     len(factor) >= the graph's node count and passes the graph's own
//     in-adjacency. This is the fact the kernels trust and cannot check in
//     O(1); callers that do not hold a validated graph's arrays must not
//     call them.
//
// The unsafe.Add offsets stay inside the arrays (facts 1 and 2), never
// one past the end, as the unsafe.Pointer rules require (go test -race
// runs checkptr over them).
//
// Only the pulls run unchecked: a push sweep waits on its random
// read-modify-writes and a batched gather on whole cache lines, not on
// the bounds checks (the batch level runs pullBatch; what the batch waits
// on is instructions, eight scalar multiply-adds per arc, which the AVX2
// and AVX512 levels run in assembly, batch_amd64.go). The gains and the
// variants tried and dropped are in docs/benchmarks.md, "ppr: pull
// kernels".

// uncheckedWindow checks fact 1's preconditions and returns the window of
// arc positions [lo, end). A failure is a programmer error (the arrays do
// not belong together) and panics.
func uncheckedWindow(offsets []int, nbr int, wt int, next int) (lo, end int) {
	if len(offsets) != next+1 || wt != nbr {
		panic(fmt.Sprintf("ppr: unchecked pull: %d offsets, %d neighbours and %d weights for %d rows; want rows+1 offsets and as many weights as neighbours",
			len(offsets), nbr, wt, next))
	}
	lo, end = offsets[0], offsets[next]
	if lo < 0 || end < lo || end > nbr {
		panic(fmt.Sprintf("ppr: unchecked pull: arc window [%d, %d) outside the %d arcs", lo, end, nbr))
	}
	return lo, end
}

// pullUnmaskedUnchecked is pullUnmasked (same four accumulators, same
// order, so the same bits) without bounds checks; see the proof above. It
// must match pullReference to rounding (TestPullKernelsMatchReference) and
// pullUnmasked bit for bit (TestUncheckedMatchesUnrolled).
//
// W is the weights' storage (csr.Weights): each weight is read at its own
// width (wsize bytes: the same in-range positions p as for float64) and
// widened, exactly.
func pullUnmaskedUnchecked[W weight](offsets []int, nbr []uint32, wt []W, factor, next []float64, d float64) float64 {
	n := len(next)
	p, end := uncheckedWindow(offsets, len(nbr), len(wt), n)
	offsets = offsets[1 : n+1]
	nb := unsafe.Pointer(unsafe.SliceData(nbr))
	wb := unsafe.Pointer(unsafe.SliceData(wt))
	fb := unsafe.Pointer(unsafe.SliceData(factor))
	nbrAt := func(p int) uintptr { return uintptr(*(*uint32)(unsafe.Add(nb, uintptr(p)*4))) }
	wsize := unsafe.Sizeof(W(0)) // 4 or 8, a constant in each instantiation
	wtAt := func(p int) float64 { return float64(*(*W)(unsafe.Add(wb, uintptr(p)*wsize))) }
	factorAt := func(u uintptr) float64 { return *(*float64)(unsafe.Add(fb, u*8)) }
	l1 := 0.0
	next = next[:len(offsets)]
	for v, hi := range offsets {
		hi = min(hi, end)
		var a0, a1, a2, a3 float64
		for ; p+4 <= hi; p += 4 {
			a0 += factorAt(nbrAt(p)) * wtAt(p)
			a1 += factorAt(nbrAt(p+1)) * wtAt(p+1)
			a2 += factorAt(nbrAt(p+2)) * wtAt(p+2)
			a3 += factorAt(nbrAt(p+3)) * wtAt(p+3)
		}
		for ; p < hi; p++ {
			a0 += factorAt(nbrAt(p)) * wtAt(p)
		}
		x := d * ((a0 + a1) + (a2 + a3))
		next[v] = x
		l1 += math.Abs(x)
	}
	return l1
}

// pullPatternUnchecked is pullPattern without bounds checks (the proof
// above, with no weight array); it must match pullPattern bit for bit.
func pullPatternUnchecked(offsets []int, nbr []uint32, factor, next []float64, d float64) float64 {
	n := len(next)
	p, end := uncheckedWindow(offsets, len(nbr), len(nbr), n)
	offsets = offsets[1 : n+1]
	nb := unsafe.Pointer(unsafe.SliceData(nbr))
	fb := unsafe.Pointer(unsafe.SliceData(factor))
	nbrAt := func(p int) uintptr { return uintptr(*(*uint32)(unsafe.Add(nb, uintptr(p)*4))) }
	factorAt := func(u uintptr) float64 { return *(*float64)(unsafe.Add(fb, u*8)) }
	l1 := 0.0
	next = next[:len(offsets)]
	for v, hi := range offsets {
		hi = min(hi, end)
		var a0, a1, a2, a3 float64
		for ; p+4 <= hi; p += 4 {
			a0 += factorAt(nbrAt(p))
			a1 += factorAt(nbrAt(p + 1))
			a2 += factorAt(nbrAt(p + 2))
			a3 += factorAt(nbrAt(p + 3))
		}
		for ; p < hi; p++ {
			a0 += factorAt(nbrAt(p))
		}
		x := d * ((a0 + a1) + (a2 + a3))
		next[v] = x
		l1 += math.Abs(x)
	}
	return l1
}

// uncheckedSet returns the kernels of cpu.Unchecked.
func uncheckedSet() (pullSet, bool) {
	return pullSet{cpu.Unchecked, pullUnmaskedUnchecked[float64], pullUnmaskedUnchecked[float32], pullPatternUnchecked, unrolledBatch(), nil}, true
}
