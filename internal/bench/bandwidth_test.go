package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestGatherMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 1000)
	for i := range x {
		x[i] = rng.Float64()*2 - 1
	}
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 10000} {
		idx := make([]uint32, n)
		for i := range idx {
			idx[i] = uint32(rng.IntN(len(x)))
		}
		// Reordered sums of n terms of magnitude <= 1 differ by about n*2^-52.
		require.InDelta(t, GatherReference(x, idx), Gather(x, idx), 1e-15*float64(n+1), "length %d", n)
	}
}

func TestCopy(t *testing.T) {
	t.Parallel()
	src := []float64{1, 2, 3}
	dst := make([]float64, 4)
	Copy(dst, src)
	require.Equal(t, []float64{1, 2, 3, 0}, dst)
}

func TestMedian(t *testing.T) {
	t.Parallel()
	require.Equal(t, time.Duration(0), Median(nil))
	require.Equal(t, 2*time.Second, Median([]time.Duration{3 * time.Second, time.Second, 2 * time.Second}))
	ds := []time.Duration{4, 1, 3, 2}
	require.Equal(t, time.Duration(2), Median(ds)) // (2+3)/2 in integer nanoseconds
	require.Equal(t, []time.Duration{4, 1, 3, 2}, ds, "Median must not sort its argument")
}

func TestMeasureFloor(t *testing.T) {
	s := SweepShape{Nodes: 1000, Arcs: 20000, WeightBytes: 8}
	require.Equal(t, int64(20000*12+1000*64), s.StreamBytes())
	for _, threads := range []int{1, 2} {
		f := MeasureFloor(s, threads, 1)
		require.Positive(t, f.CopyGBps)
		require.Positive(t, f.GatherNs)
		require.Equal(t, max(f.StreamTime, f.GatherTime), f.OverlapFloor)
		require.Equal(t, f.StreamTime+f.GatherTime, f.SerialFloor)
	}
}

// BenchmarkFloor measures the copy bandwidth and the random-gather cost for
// R-MAT scale 20's shape (1M nodes, 16M arcs) on one and two threads.
func BenchmarkFloor(b *testing.B) {
	s := SweepShape{Nodes: 1 << 20, Arcs: 16085168, WeightBytes: 8}
	for _, threads := range []int{1, 2} {
		b.Run(map[int]string{1: "1thread", 2: "2threads"}[threads], func(b *testing.B) {
			var f Floor
			for range b.N {
				f = MeasureFloor(s, threads, 3)
			}
			b.ReportMetric(f.CopyGBps, "copyGB/s")
			b.ReportMetric(f.GatherNs, "gather-ns/arc")
			b.ReportMetric(float64(f.OverlapFloor)/1e6, "floor-ms/sweep")
		})
	}
}
