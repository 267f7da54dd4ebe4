package ppr_test

import (
	"os"
	"sync"
	"testing"

	"github.com/authppr/authppr/bench"
	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// anchorGraphs caches the graphs of shared/anchors (R-MAT scale 20 and the
// KG) read from $AUTHPPR_ANCHORS (default /tmp/anchors-data); benchmarks on
// them skip when the files are absent.
var anchorGraphs sync.Map

func anchorGraph(b *testing.B, name string) *csr.Graph {
	b.Helper()
	if g, ok := anchorGraphs.Load(name); ok {
		return g.(*csr.Graph)
	}
	dir := os.Getenv("AUTHPPR_ANCHORS")
	if dir == "" {
		dir = "/tmp/anchors-data"
	}
	path := dir + "/" + name + ".edges.bin"
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not found (run shared/anchors/gen_graph.py)", path)
	}
	g, err := bench.ReadPPREDGE1(path)
	if err != nil {
		b.Fatal(err)
	}
	anchorGraphs.Store(name, g)
	return g
}

// BenchmarkAnchorSweep times one Jacobi sweep on the anchors' graphs, for
// profiling (-cpuprofile); pprbench sweep gives the ratios.
func BenchmarkAnchorSweep(b *testing.B) {
	for _, name := range []string{"rmat20", "kg"} {
		b.Run(name, func(b *testing.B) {
			g := anchorGraph(b, name)
			seeds, err := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: 1, Weight: 1}, {Node: 1000, Weight: 1}})
			if err != nil {
				b.Fatal(err)
			}
			e, err := ppr.NewEngine(mask.Full(g), seeds, 0.85)
			if err != nil {
				b.Fatal(err)
			}
			for range 3 {
				e.Sweep()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.Sweep()
			}
		})
	}
}

// BenchmarkAnchorBuild reads and builds R-MAT scale 20 from its PPREDGE1
// file (profile with -cpuprofile; pprbench compare --format ppredge gives
// the ratio to igraph's build).
func BenchmarkAnchorBuild(b *testing.B) {
	anchorGraph(b, "rmat20") // skips when absent
	dir := os.Getenv("AUTHPPR_ANCHORS")
	if dir == "" {
		dir = "/tmp/anchors-data"
	}
	b.ReportAllocs()
	for range b.N {
		if _, err := bench.ReadPPREDGE1(dir + "/rmat20.edges.bin"); err != nil {
			b.Fatal(err)
		}
	}
}
