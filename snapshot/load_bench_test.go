package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/mask"
)

// BenchmarkLoadVsRebuild times, in one run on one graph, rebuilding the
// graph from its edge file (csr.ReadFile of a PPREDGE1 file) and loading
// its saved snapshot (mmap + validate), and reports load/rebuild as a
// ratio.
//
//	go test ./snapshot -run '^$' -bench LoadVsRebuild -benchtime 3x
func BenchmarkLoadVsRebuild(b *testing.B) {
	// The 16M-edge graph of the load target (R-MAT scale 20).
	loadBenchGraph := filepath.Join(bench.AnchorsDir(), "rmat20.edges.bin")
	if _, err := os.Stat(loadBenchGraph); err != nil {
		b.Skipf("%s absent (make it with anchors/gen_graph.py rmat --scale 20, see anchors/README.md)", loadBenchGraph)
	}
	snapPath := os.Getenv("LOAD_BENCH_SNAP")
	if snapPath == "" {
		snapPath = b.TempDir() + "/rmat20.snap"
	}
	var rebuild, load time.Duration
	for i := range b.N {
		t0 := time.Now()
		g, err := csr.ReadFile(loadBenchGraph, csr.ReadOptions{Format: csr.FormatPPREDGE1})
		if err != nil {
			b.Fatal(err)
		}
		rebuild += time.Since(t0)
		if i == 0 {
			if _, err := os.Stat(snapPath); err != nil {
				if err := Save(snapPath, g, mask.FromGraph(g)); err != nil {
					b.Fatal(err)
				}
			}
		}
		g = nil
		t0 = time.Now()
		s, err := Load(snapPath)
		if err != nil {
			b.Fatal(err)
		}
		load += time.Since(t0)
		s.Close()
	}
	b.ReportMetric(rebuild.Seconds()/float64(b.N), "rebuild-s/op")
	b.ReportMetric(load.Seconds()/float64(b.N), "load-s/op")
	b.ReportMetric(load.Seconds()/rebuild.Seconds(), "load/rebuild")
}

// BenchmarkLoad times Load alone on a saved snapshot (LOAD_BENCH_SNAP), for
// profiling.
func BenchmarkLoad(b *testing.B) {
	snapPath := os.Getenv("LOAD_BENCH_SNAP")
	if _, err := os.Stat(snapPath); snapPath == "" || err != nil {
		b.Skip("LOAD_BENCH_SNAP unset or absent")
	}
	for range b.N {
		s, err := Load(snapPath)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkSaveLoad times Save and Load of the anchors' KG and Load of
// R-MAT scale 18 (internal/bench.Input; docs/benchmarks.md, package
// snapshot, has a run):
//
//	go test ./snapshot -run '^$' -bench SaveLoad -count 10
func BenchmarkSaveLoad(b *testing.B) {
	dir := b.TempDir()
	for _, c := range []struct {
		name, input string
		save        bool
	}{{"save/kg", "kg", true}, {"load/kg", "kg", false}, {"load/rmat18", "rmat18", false}} {
		b.Run(c.name, func(b *testing.B) {
			src, err := bench.Input(c.input)
			if errors.Is(err, bench.ErrNoInput) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			g, err := csr.ReadFile(src, csr.ReadOptions{Format: csr.FormatPPREDGE1})
			if err != nil {
				b.Fatal(err)
			}
			l := mask.FromGraph(g)
			path := filepath.Join(dir, c.input+".snap")
			if err := Save(path, g, l); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if c.save {
					if err := Save(path, g, l); err != nil {
						b.Fatal(err)
					}
					continue
				}
				s, err := Load(path)
				if err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}
