package ppr_test

import (
	"fmt"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// sweepGraphs are the graphs sweep benchmarks run on: a HippoRAG-like
// memory graph (undirected, weighted) and R-MAT scale 16 (directed).
func sweepGraphs(b *testing.B) map[string]*csr.Graph {
	b.Helper()
	mem, err := bench.NewMemory(bench.HippoMemory)
	if err != nil {
		b.Fatal(err)
	}
	rmat, err := bench.RMAT(16, 16, 1)
	if err != nil {
		b.Fatal(err)
	}
	return map[string]*csr.Graph{"memory250k": mem.Graph, "rmat16": rmat}
}

// BenchmarkSweep times one residual sweep; bytes/op counts the in-adjacency
// (12 bytes per arc: uint32 neighbour and float64 weight) so that MB/s is
// the streamed bandwidth.
func BenchmarkSweep(b *testing.B) {
	for name, g := range sweepGraphs(b) {
		labels := bench.RelabelRandom(g, 0.01, 1)
		native, err := mask.Native(g, labels)
		if err != nil {
			b.Fatal(err)
		}
		auth, err := mask.Authenticated(g, labels, mask.Trust(bench.TrustedChannel))
		if err != nil {
			b.Fatal(err)
		}
		seeds, err := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: 1, Weight: 1}, {Node: 7, Weight: 1}})
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []*mask.View{native, auth} {
			for _, kind := range []string{"jacobi", "jacobi-2threads", "gauss-seidel"} {
				b.Run(fmt.Sprintf("%s/%s/%s", name, v.Name(), kind), func(b *testing.B) {
					e, err := ppr.NewEngine(v, seeds, 0.85)
					if err != nil {
						b.Fatal(err)
					}
					for range 5 { // spread the residual over the graph first
						e.Sweep(ppr.Jacobi, 1)
					}
					b.SetBytes(int64(12 * g.NumArcs()))
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						switch kind {
						case "jacobi":
							e.Sweep(ppr.Jacobi, 1)
						case "jacobi-2threads":
							e.Sweep(ppr.Jacobi, 2)
						default:
							e.Sweep(ppr.GaussSeidel, 1)
						}
					}
					b.ReportMetric(float64(g.NumArcs())*float64(b.N)/b.Elapsed().Seconds(), "arcs/s")
				})
			}
		}
	}
}
