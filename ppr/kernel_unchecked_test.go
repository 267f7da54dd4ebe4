//go:build !purego

package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The unchecked kernels sum in the Unrolled kernels' order, so they must
// match them bit for bit, over whole adjacencies and over row windows
// (parallelSweep's ranges, whose offsets do not start at 0), and write
// nothing outside next.
func TestUncheckedMatchesUnrolled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(43, 44))
	awkward := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65}
	for trial := range 200 {
		degrees := make([]int, 1+rng.IntN(40))
		for i := range degrees {
			if trial%2 == 0 {
				degrees[i] = awkward[rng.IntN(len(awkward))]
			} else {
				degrees[i] = rng.IntN(200)
			}
		}
		offsets, nbr, wt, _, _, factor := kernelCase(rng, degrees, 0)
		n := len(degrees)
		lo, hi := 0, n
		if trial%3 != 0 {
			lo = rng.IntN(n + 1)
			hi = lo + rng.IntN(n-lo+1)
		}
		win := offsets[lo : hi+1]
		// next sits between NaN guards that must survive.
		guarded := func() (all, next []float64) {
			all = make([]float64, hi-lo+2)
			for i := range all {
				all[i] = math.NaN()
			}
			return all, all[1 : len(all)-1 : len(all)-1]
		}
		same := func(name string, want, got []float64, wantL1, gotL1 float64) {
			t.Helper()
			require.Truef(t, math.IsNaN(got[0]) && math.IsNaN(got[len(got)-1]), "%s: trial %d: wrote outside next", name, trial)
			for i := 1; i < len(got)-1; i++ {
				require.Equalf(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%s: trial %d row %d: %v, want %v", name, trial, lo+i-1, got[i], want[i])
			}
			require.Equalf(t, math.Float64bits(wantL1), math.Float64bits(gotL1), "%s: trial %d: l1 %v, want %v", name, trial, gotL1, wantL1)
		}
		wantAll, want := guarded()
		wantL1 := pullUnmasked(win, nbr, wt, factor, want, 0.85)
		gotAll, got := guarded()
		same("weighted", wantAll, gotAll, wantL1, pullUnmaskedUnchecked(win, nbr, wt, factor, got, 0.85))
		// Float32 weights: read at 4-byte strides, the same bits as the
		// checked kernel on either storage.
		wt32, wide := float32Weights(wt)
		wantAll, want = guarded()
		wantL1 = pullUnmasked(win, nbr, wide, factor, want, 0.85)
		gotAll, got = guarded()
		same("weighted float32", wantAll, gotAll, wantL1, pullUnmaskedUnchecked(win, nbr, wt32, factor, got, 0.85))
		gotAll, got = guarded()
		same("weighted float32 checked", wantAll, gotAll, wantL1, pullUnmasked(win, nbr, wt32, factor, got, 0.85))
		wantAll, want = guarded()
		wantL1 = pullPattern(win, nbr, factor, want, 0.85)
		gotAll, got = guarded()
		same("pattern", wantAll, gotAll, wantL1, pullPatternUnchecked(win, nbr, factor, got, 0.85))

	}
}

// Arrays that do not belong together are a programmer error: the unchecked
// kernels refuse them before reading anything.
func TestUncheckedRejectsMismatchedArrays(t *testing.T) {
	t.Parallel()
	offsets := []int{0, 2, 3}
	nbr := []uint32{1, 0, 1}
	wt := []float64{1, 2, 3}
	factor := []float64{1, 1}
	for _, c := range []struct {
		name    string
		offsets []int
		nbr     []uint32
		wt      []float64
		next    int
	}{
		{"too few offsets", offsets[:2], nbr, wt, 2},
		{"too many offsets", offsets, nbr, wt, 1},
		{"weights short", offsets, nbr, wt[:2], 2},
		{"window past the arcs", offsets, nbr[:2], wt[:2], 2},
		{"negative start", []int{-1, 2, 3}, nbr, wt, 2},
		{"window reversed", []int{3, 2, 2}, nbr, wt, 2},
	} {
		next := make([]float64, c.next)
		require.Panicsf(t, func() { pullUnmaskedUnchecked(c.offsets, c.nbr, c.wt, factor, next, 0.5) }, "weighted: %s", c.name)
		wt32, _ := float32Weights(c.wt)
		require.Panicsf(t, func() { pullUnmaskedUnchecked(c.offsets, c.nbr, wt32, factor, next, 0.5) }, "weighted float32: %s", c.name)
		if len(c.wt) == len(c.nbr) {
			require.Panicsf(t, func() { pullPatternUnchecked(c.offsets, c.nbr, factor, next, 0.5) }, "pattern: %s", c.name)
		}
	}
	// Offsets that decrease inside the window (which csr.validate rules
	// out) keep every read inside the window: rows may come out wrong, but
	// no arc before or after it is read. The arcs around the window gather
	// a NaN that sits just past the end of factor.
	backing := []float64{1, 1, math.NaN()}
	factor = backing[:2]
	arcs := []uint32{2, 1, 0, 1, 2} // window: positions 1..3
	wts := []float64{1, 1, 1, 1, 1} // same shape
	win := []int{1, 4, 0, 2, 4}     // decreasing in the middle
	next := make([]float64, len(win)-1)
	l1 := pullUnmaskedUnchecked(win, arcs[:4], wts[:4], factor, next, 0.5)
	require.False(t, math.IsNaN(l1), "weighted: read outside the window")
	l1 = pullPatternUnchecked(win, arcs[:4], factor, next, 0.5)
	require.False(t, math.IsNaN(l1), "pattern: read outside the window")
	// The same arrays with a window that reaches the poisoned arc do read
	// it: the check above can fail.
	l1 = pullPatternUnchecked([]int{1, 5}, arcs, factor, next[:1], 0.5)
	require.True(t, math.IsNaN(l1))
}
