//go:build purego

package ppr

// uncheckedSet reports that purego builds have no unchecked kernels
// (kernel_unchecked.go is built without the tag).
func uncheckedSet() (pullSet, bool) { return pullSet{}, false }

// scatterUnchecked is never called in purego builds (no level runs it);
// it is the checked loop so that PushScan compiles.
func scatterUnchecked(r []float64, nbr []uint32, wt []float64, c float64) {
	wt = wt[:len(nbr)]
	for p, v := range nbr {
		r[v] += c * wt[p]
	}
}
