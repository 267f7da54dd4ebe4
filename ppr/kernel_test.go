package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/authppr/authppr/internal/cpu"
	"github.com/stretchr/testify/require"
)

// kernelCase builds a CSR with the given in-degrees, random data and a
// random mask over a share of the arcs.
func kernelCase(rng *rand.Rand, degrees []int, maskShare float64) (offsets []int, nbr []uint32, wt []float64, eid []uint32, bits []uint64, factor []float64) {
	n := len(degrees)
	offsets = make([]int, n+1)
	for v, d := range degrees {
		offsets[v+1] = offsets[v] + d
	}
	m := offsets[n]
	nbr, wt, eid = make([]uint32, m), make([]float64, m), make([]uint32, m)
	bits = make([]uint64, m/64+1)
	for p := range m {
		nbr[p] = uint32(rng.IntN(n))
		wt[p] = rng.Float64()
		eid[p] = uint32(p)
		if rng.Float64() < maskShare {
			bits[p/64] |= 1 << (p % 64)
		}
	}
	factor = make([]float64, n)
	for u := range factor {
		factor[u] = rng.Float64()*2 - 1
	}
	return
}

func TestPullKernelsMatchReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	awkward := []int{0, 1, 2, 3, 7, 8, 15, 16, 17, 63, 64, 65}
	for trial := range 100 {
		degrees := make([]int, 1+rng.IntN(40))
		for i := range degrees {
			if trial%2 == 0 {
				degrees[i] = awkward[rng.IntN(len(awkward))]
			} else {
				degrees[i] = rng.IntN(200)
			}
		}
		offsets, nbr, wt, eid, bits, factor := kernelCase(rng, degrees, []float64{0, 0.05, 0.5}[trial%3])
		d := 0.85
		check := func(name string, want, got []float64, wantL1, gotL1 float64) {
			t.Helper()
			for v := range want {
				// Reordered sums of k terms of magnitude <= 1 differ by about
				// k*2^-52 at most.
				require.InDeltaf(t, want[v], got[v], 1e-13*float64(1+degrees[v]), "%s: trial %d node %d degree %d", name, trial, v, degrees[v])
			}
			require.InDeltaf(t, wantL1, gotL1, 1e-12*float64(1+len(nbr)), "%s: l1", name)
		}
		fresh := func() []float64 {
			out := make([]float64, len(degrees))
			for i := range out {
				out[i] = math.NaN() // every entry must be written
			}
			return out
		}
		// Unmasked.
		want := fresh()
		wantL1 := pullReference(offsets, nbr, wt, eid, nil, factor, want, d)
		got := fresh()
		check("pullUnmasked", want, got, wantL1, pullUnmasked(offsets, nbr, wt, factor, got, d))
		for _, l := range cpu.Supported() {
			set := pullSetFor(l)
			require.Equal(t, l, set.level)
			got = fresh()
			check(l.String()+" weighted", want, got, wantL1, set.weighted(offsets, nbr, wt, factor, got, d))
		}
		// Float32 weights (csr.Weights): each level's float32 kernel
		// gives its float64 kernel's bits on the widened weights.
		wt32, wide := float32Weights(wt)
		for _, l := range cpu.Supported() {
			set := pullSetFor(l)
			want64, got32 := fresh(), fresh()
			l164 := set.weighted(offsets, nbr, wide, factor, want64, d)
			l132 := set.weighted32(offsets, nbr, wt32, factor, got32, d)
			for v := range want64 {
				require.Equalf(t, math.Float64bits(want64[v]), math.Float64bits(got32[v]), "%v float32 weights: trial %d node %d", l, trial, v)
			}
			require.Equalf(t, math.Float64bits(l164), math.Float64bits(l132), "%v float32 weights: trial %d l1", l, trial)
		}
		{
			want64, got32 := fresh(), fresh()
			l164 := pullMasked(offsets, nbr, wide, eid, bits, factor, want64, d)
			l132 := pullMasked(offsets, nbr, wt32, eid, bits, factor, got32, d)
			require.Equal(t, want64, got32, "pullMasked float32 weights: trial %d", trial)
			require.Equal(t, l164, l132, "pullMasked float32 weights: trial %d", trial)
		}
		// Every weight 1: the pattern kernels against the reference.
		ones := make([]float64, len(wt))
		for i := range ones {
			ones[i] = 1
		}
		wantOnes := fresh()
		onesL1 := pullReference(offsets, nbr, ones, eid, nil, factor, wantOnes, d)
		got = fresh()
		check("pullPatternReference", wantOnes, got, onesL1, pullPatternReference(offsets, nbr, factor, got, d))
		for _, l := range cpu.Supported() {
			got = fresh()
			check(l.String()+" pattern", wantOnes, got, onesL1, pullSetFor(l).pattern(offsets, nbr, factor, got, d))
		}
		// Masked: bit tests, and every arc minus the listed masked ones.
		wantL1 = pullReference(offsets, nbr, wt, eid, bits, factor, want, d)
		got = fresh()
		check("pullMasked", want, got, wantL1, pullMasked(offsets, nbr, wt, eid, bits, factor, got, d))
		var nodes []uint32
		var arcs []int
		for v := range degrees {
			for p := offsets[v]; p < offsets[v+1]; p++ {
				if bits[p/64]&(1<<(p%64)) != 0 {
					nodes = append(nodes, uint32(v))
					arcs = append(arcs, p)
				}
			}
		}
		got = fresh()
		l1 := pullUnmasked(offsets, nbr, wt, factor, got, d)
		check("pullUnmasked+subtractArcs", want, got, wantL1, subtractArcs(nodes, arcs, nbr, wt, factor, got, d, l1))
	}
}
