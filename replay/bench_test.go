package replay_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/replay"
)

// BenchmarkReplay measures replay overhead (replay time / native time, per
// query, same run) on generated memory graphs under each regime; it reports
// the median and p99 over the queries run and the replay's arc operations.
// The CLI's `pprbench overhead` runs the same measurement at full size.
func BenchmarkReplay(b *testing.B) {
	for _, nodes := range []int{50000, 250000} {
		for _, regime := range []bench.Regime{bench.Few, bench.OnePercent, bench.Attack} {
			b.Run(fmt.Sprintf("nodes=%d/%s", nodes, regime), func(b *testing.B) {
				c := bench.HippoMemory
				c.Entities, c.Passages = nodes*4/5, nodes/5
				w, err := bench.MemoryWorkload(c, regime, 50, 1)
				if err != nil {
					b.Fatal(err)
				}
				gd, err := replay.New(w.Graph, w.Labels, w.Trust, replay.Options{})
				if err != nil {
					b.Fatal(err)
				}
				var ratios []float64
				var nativeTotal, replayTotal time.Duration
				var ops int64
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					q := w.Queries[i%len(w.Queries)]
					d, err := gd.Select(replay.Query{Seeds: q.Seeds, K: q.K, Candidates: q.Candidates, Damping: w.Damping})
					if err != nil {
						b.Fatal(err)
					}
					ratios = append(ratios, float64(d.ReplayTime)/float64(d.NativeTime))
					nativeTotal += d.NativeTime
					replayTotal += d.ReplayTime
					ops += d.ReplayArcOps
				}
				slices.Sort(ratios)
				b.ReportMetric(100*ratios[len(ratios)/2], "median-overhead-%")
				b.ReportMetric(100*ratios[min(len(ratios)-1, len(ratios)*99/100)], "p99-overhead-%")
				b.ReportMetric(100*float64(replayTotal)/float64(nativeTotal), "total-overhead-%")
				b.ReportMetric(float64(ops)/float64(b.N), "replay-arcs/op")
			})
		}
	}
}
