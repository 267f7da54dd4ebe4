package consensus

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSelect times Select on random and adversarial contradiction
// graphs; each iteration draws the next graph of a fixed seeded sequence of
// 64, so ns/op is a mean over graphs (consensusbench medians reports
// medians over 200).
func BenchmarkSelect(b *testing.B) {
	type shape struct {
		name string
		make func(rng *rand.Rand, k int) (*Graph, error)
	}
	var shapes []shape
	for _, d := range []float64{0.05, 0.1, 0.2, 0.3} {
		shapes = append(shapes, shape{fmt.Sprintf("random-%.2f", d), func(rng *rand.Rand, k int) (*Graph, error) { return randomGraph(rng, k, d) }})
	}
	shapes = append(shapes, shape{"collusion", func(rng *rand.Rand, k int) (*Graph, error) { return collusionGraph(rng, k, k/4, 0.1, 1) }})
	for _, k := range []int{64, 128} {
		for _, sh := range shapes {
			b.Run(fmt.Sprintf("k=%d/%s", k, sh.name), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, uint64(k)))
				graphs := make([]*Graph, 64)
				for i := range graphs {
					g, err := sh.make(rng, k)
					if err != nil {
						b.Fatal(err)
					}
					graphs[i] = g
				}
				b.ReportAllocs()
				nodes := int64(0)
				i := 0
				for b.Loop() {
					sel, err := Select(graphs[i%len(graphs)], Options{})
					if err != nil {
						b.Fatal(err)
					}
					nodes += sel.Nodes
					i++
				}
				b.ReportMetric(float64(nodes)/float64(i), "nodes/op")
			})
		}
	}
}
