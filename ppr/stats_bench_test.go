package ppr

import (
	"math/rand/v2"
	"testing"

	"fmt"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// BenchmarkResidualStats times the statistics pass of every check
// (residualStats) against the plain per-node pass (the reference), on a
// random graph of 250k nodes seen plain and through a patch of 2000 edges.
func BenchmarkResidualStats(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 250000
	bl := csr.NewBuilder(false)
	for u := range n {
		if _, err := bl.AddNode(fmt.Sprint("n", u)); err != nil {
			b.Fatal(err)
		}
	}
	for range 1000000 {
		if _, err := bl.AddEdge(csr.Input{Src: fmt.Sprint("n", rng.IntN(n)), Dst: fmt.Sprint("n", rng.IntN(n)), Weight: 1, Channel: "c"}); err != nil {
			b.Fatal(err)
		}
	}
	g, err := bl.Build()
	if err != nil {
		b.Fatal(err)
	}
	plain, err := mask.Native(g, mask.FromGraph(g))
	if err != nil {
		b.Fatal(err)
	}
	d := mask.Delta{Nodes: g.NumNodes()}
	for i := range 2000 {
		d.Src = append(d.Src, uint32(rng.IntN(n)))
		d.Dst = append(d.Dst, uint32(rng.IntN(n)))
		d.Weight = append(d.Weight, 1)
		d.Edge = append(d.Edge, uint32(g.NumEdges()+i))
	}
	patched, err := mask.WithDelta(plain, d)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []*mask.View{plain, patched} {
		e, err := NewEngine(v, Seeds{Nodes: []uint32{0}, Weights: []float64{1}}, 0.5)
		if err != nil {
			b.Fatal(err)
		}
		for u := range e.R {
			e.R[u] = rng.Float64() * 1e-9
		}
		b.Run(map[bool]string{false: "plain", true: "patched"}[v.Patched()]+"/pass", func(b *testing.B) {
			for b.Loop() {
				_ = e.residualStats()
			}
		})
		b.Run(map[bool]string{false: "plain", true: "patched"}[v.Patched()]+"/reference", func(b *testing.B) {
			for b.Loop() {
				_ = residualStatsReference(e)
			}
		})
	}
}
