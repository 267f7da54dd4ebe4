package ppr

import (
	"math/rand/v2"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// BenchmarkResidualStats times the statistics pass of every check
// (residualStats) against the plain per-node pass (the reference), on a
// random graph of 250k nodes seen plain and through a patch of 2000 edges.
func BenchmarkResidualStats(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 250000
	pairs := make([]uint32, 0, 2_000_000)
	for range 1_000_000 {
		pairs = append(pairs, uint32(rng.IntN(n)), uint32(rng.IntN(n)))
	}
	g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Nodes: n, Pairs: pairs})
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
