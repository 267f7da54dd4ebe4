package ppr_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// anchorGraphs caches the graphs anchors/gen_graph.py makes (R-MAT scale
// 20 and the KG), read from bench.AnchorsDir (anchors-data/ at the
// repository root, or $AUTHPPR_ANCHORS); benchmarks on them skip when the
// files are absent.
var anchorGraphs sync.Map

func anchorGraph(b *testing.B, name string) *csr.Graph {
	b.Helper()
	if g, ok := anchorGraphs.Load(name); ok {
		return g.(*csr.Graph)
	}
	path := anchorPath(name)
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not found (make it with anchors/gen_graph.py, see anchors/README.md)", path)
	}
	g, err := csr.ReadFile(path, csr.ReadOptions{Format: csr.FormatPPREDGE1})
	if err != nil {
		b.Fatal(err)
	}
	anchorGraphs.Store(name, g)
	return g
}

// anchorPath is where the anchors' graph name (rmat20, kg) is.
func anchorPath(name string) string {
	return filepath.Join(bench.AnchorsDir(), name+".edges.bin")
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
				e.Sweep(ppr.Jacobi, 1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.Sweep(ppr.Jacobi, 1)
			}
		})
	}
}

// BenchmarkAnchorBuild reads and builds R-MAT scale 20 from its PPREDGE1
// file (profile with -cpuprofile; pprbench compare --format ppredge gives
// the ratio to igraph's build).
func BenchmarkAnchorBuild(b *testing.B) {
	anchorGraph(b, "rmat20") // skips when absent
	b.ReportAllocs()
	for range b.N {
		if _, err := csr.ReadFile(anchorPath("rmat20"), csr.ReadOptions{Format: csr.FormatPPREDGE1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnchorBatch solves 16 queries (5 seeds each, L1 tolerance 1e-6)
// on the anchors' graphs one by one and as one ppr.SolveBatch, in Gauss-Seidel order (the default) and in Jacobi order, all
// in turn within each iteration, at the best kernel level; it reports the
// batch's time relative to the 16 single solves (= per-query cost relative
// to a single query): the default batch against single Gauss-Seidel and
// single Jacobi queries, the Jacobi batch against single Jacobi queries,
// and against single Gauss-Seidel queries the default batch as two narrow
// batches of 8 (batch-2x8; the same as the default below AVX512, which has
// the wide layout) and at every other batch level (the levels' batch
// kernels differ from Unchecked up).
// Arc rates count sweeps x arcs per query (an upper bound for
// Gauss-Seidel, which skips nodes with no residual).
func BenchmarkAnchorBatch(b *testing.B) {
	const queries = 16
	for _, name := range []string{"kg", "rmat20"} {
		b.Run(name, func(b *testing.B) {
			g := anchorGraph(b, name)
			view := mask.Full(g)
			rng := rand.New(rand.NewPCG(5, 5))
			out := g.Out()
			var seeds []ppr.Seeds
			for range queries {
				var in []ppr.Seed
				for len(in) < 5 {
					u := uint32(rng.IntN(g.NumNodes()))
					if lo, hi := out.Span(u); hi > lo {
						in = append(in, ppr.Seed{Node: u, Weight: 1})
					}
				}
				s, err := ppr.NewSeeds(g.NumNodes(), in)
				if err != nil {
					b.Fatal(err)
				}
				seeds = append(seeds, s)
			}
			d := 0.85
			if name == "kg" {
				d = 0.5
			}
			opt := ppr.Options{Tol: 1e-6}
			jac := ppr.Options{Tol: opt.Tol, Order: ppr.Jacobi}
			arcs := float64(len(g.Out().Nbr))
			singles := func(o ppr.Options) (time.Duration, int) {
				start, sweeps := time.Now(), 0
				for _, s := range seeds {
					res, err := ppr.Solve(view, s, d, o)
					if err != nil {
						b.Fatal(err)
					}
					sweeps += res.Sweeps
				}
				return time.Since(start), sweeps
			}
			batch := func(o ppr.Options) (time.Duration, int) {
				start := time.Now()
				res, err := ppr.SolveBatch(view, seeds, d, o)
				if err != nil {
					b.Fatal(err)
				}
				el := time.Since(start)
				sweeps := 0
				for _, r := range res {
					sweeps += r.Sweeps
				}
				return el, sweeps
			}
			var others []cpu.Level
			for _, l := range cpu.Supported() {
				if l >= cpu.Unchecked && l != cpu.Best() {
					others = append(others, l)
				}
			}
			var gs, jc, bat, batJ, narrow []float64
			other := make([][]float64, len(others))
			var gsSweeps, batSweeps int
			for range b.N {
				t, sw := singles(opt)
				gs, gsSweeps = append(gs, float64(t)), sw
				t, _ = singles(jac)
				jc = append(jc, float64(t))
				t, sw = batch(opt)
				bat, batSweeps = append(bat, float64(t)), sw
				t, _ = batch(jac)
				batJ = append(batJ, float64(t))
				// The same 16 queries as two narrow batches of 8.
				t, _ = batch(ppr.NarrowBatches(opt))
				narrow = append(narrow, float64(t))
				for i, l := range others {
					t, _ = batch(ppr.AtPullLevel(opt, l))
					other[i] = append(other[i], float64(t))
				}
			}
			med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
			mb := med(bat)
			b.ReportMetric(mb/queries/1e6, "batch-ms/query")
			b.ReportMetric(mb/med(gs), "batch/single-gauss-seidel")
			b.ReportMetric(mb/med(jc), "batch/single-jacobi")
			b.ReportMetric(med(batJ)/med(jc), "batch-jacobi/single-jacobi")
			b.ReportMetric(med(narrow)/med(gs), "batch-2x8/single-gauss-seidel")
			for i, l := range others {
				b.ReportMetric(med(other[i])/med(gs), "batch-"+l.String()+"/single-gauss-seidel")
			}
			b.ReportMetric(float64(gsSweeps)*arcs/(med(gs)/1e9), "single-arcs/s")
			b.ReportMetric(float64(batSweeps)*arcs/(mb/1e9), "batch-arcs/s")
			b.ReportMetric(float64(batSweeps)/float64(gsSweeps), "batch/single-sweeps")
		})
	}
}

// BenchmarkAnchorTopK solves HippoRAG-style retrievals on the anchors' KG
// (dense passage reset, d = 0.5, top-5 passages: bench.DenseQueries) with
// certified top-k termination on one reused engine, for profiling the
// whole query (-cpuprofile); it reports sweeps and allocations per query.
func BenchmarkAnchorTopK(b *testing.B) {
	g := anchorGraph(b, "kg")
	const entities = 200000
	ids := make([]uint32, g.NumNodes())
	for i := range ids {
		ids[i] = uint32(i)
	}
	queries := bench.DenseQueries(ids[:entities], ids[entities:], 4, 5, 1)
	view := mask.Full(g)
	var seeds []ppr.Seeds
	for _, q := range queries {
		s, err := ppr.NewSeeds(g.NumNodes(), q.Seeds)
		if err != nil {
			b.Fatal(err)
		}
		seeds = append(seeds, s)
	}
	e, err := ppr.NewEngine(view, seeds[0], 0.5)
	if err != nil {
		b.Fatal(err)
	}
	sweeps := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		q := queries[i%len(queries)]
		if err := e.Restart(seeds[i%len(seeds)], 0.5); err != nil {
			b.Fatal(err)
		}
		res, err := e.SolveTopK(q.K, q.Candidates, ppr.Options{Tol: 1e-10})
		if err != nil {
			b.Fatal(err)
		}
		sweeps += res.Sweeps
	}
	b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/op")
}

// BenchmarkAnchorKernels runs one Jacobi sweep, one parallel Jacobi sweep
// (2 goroutines), one Gauss-Seidel sweep and one batched Jacobi
// sweep at every supported level from Unrolled up on the anchors' graphs, all in turn within each
// iteration (each kernel and level on its own engine, so every engine
// follows the same trajectory), and reports each kernel's median time at
// each level relative to Unrolled (below 1 is faster) and Unrolled's ms, in
// wall time and (single-thread kernels, Linux) in thread CPU time, which
// a loaded machine disturbs less.
func BenchmarkAnchorKernels(b *testing.B) {
	if !slices.Contains(cpu.Supported(), cpu.Unchecked) {
		b.Skip("no level past unrolled in this build")
	}
	for _, name := range []string{"kg", "rmat20"} {
		b.Run(name, func(b *testing.B) {
			g := anchorGraph(b, name)
			// Five seeds with out-arcs, so that push sweeps spread.
			rng := rand.New(rand.NewPCG(7, 7))
			var in []ppr.Seed
			for len(in) < 5 {
				u := uint32(rng.IntN(g.NumNodes()))
				if lo, hi := g.Out().Span(u); hi > lo {
					in = append(in, ppr.Seed{Node: u, Weight: 1})
				}
			}
			seeds, err := ppr.NewSeeds(g.NumNodes(), in)
			if err != nil {
				b.Fatal(err)
			}
			d := 0.85
			if name == "kg" {
				d = 0.5
			}
			// Eight seed vectors for the batched sweep, each of the five
			// seeds alone and three pairs.
			var batchSeeds []ppr.Seeds
			for j := range 8 {
				pick := []ppr.Seed{in[j%5]}
				if j >= 5 {
					pick = append(pick, in[(j+1)%5])
				}
				s, err := ppr.NewSeeds(g.NumNodes(), pick)
				if err != nil {
					b.Fatal(err)
				}
				batchSeeds = append(batchSeeds, s)
			}
			view := mask.Full(g)
			batchSweeps := map[*ppr.Engine]func(){}
			kernels := []struct {
				name string
				step func(e *ppr.Engine, l cpu.Level)
			}{
				{"jacobi", func(e *ppr.Engine, _ cpu.Level) { e.Sweep(ppr.Jacobi, 1) }},
				{"parallel", func(e *ppr.Engine, _ cpu.Level) { e.Sweep(ppr.Jacobi, 2) }},
				{"gauss-seidel", func(e *ppr.Engine, _ cpu.Level) { e.Sweep(ppr.GaussSeidel, 1) }},
				// The batch has its own state; e only names it.
				{"batch-jacobi", func(e *ppr.Engine, l cpu.Level) {
					if batchSweeps[e] == nil {
						batchSweeps[e] = ppr.BatchSweep(view, batchSeeds, d, l)
					}
					batchSweeps[e]()
				}},
			}
			var levels []cpu.Level
			for _, l := range cpu.Supported() {
				if l >= cpu.Unrolled {
					levels = append(levels, l)
				}
			}
			engines := make([][]*ppr.Engine, len(kernels))
			times := make([][][]float64, len(kernels))
			cpuTimes := make([][][]float64, len(kernels))
			for k := range kernels {
				for _, l := range levels {
					e, err := ppr.NewEngine(view, seeds, d)
					if err != nil {
						b.Fatal(err)
					}
					for range 3 {
						e.Sweep(ppr.Jacobi, 1)
					}
					ppr.SetPullLevel(e, l)
					engines[k] = append(engines[k], e)
				}
				times[k] = make([][]float64, len(levels))
				cpuTimes[k] = make([][]float64, len(levels))
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			for range b.N {
				for k, kern := range kernels {
					for i, l := range levels {
						c0, _ := threadCPU()
						start := time.Now()
						kern.step(engines[k][i], l)
						times[k][i] = append(times[k][i], float64(time.Since(start)))
						c1, _ := threadCPU()
						cpuTimes[k][i] = append(cpuTimes[k][i], float64(c1-c0))
					}
				}
			}
			med := func(xs []float64) float64 {
				s := slices.Clone(xs)
				slices.Sort(s)
				return s[len(s)/2]
			}
			_, haveCPU := threadCPU()
			for k, kern := range kernels {
				base := med(times[k][0])
				b.ReportMetric(base/1e6, kern.name+"-unrolled-ms")
				for i, l := range levels[1:] {
					b.ReportMetric(med(times[k][i+1])/base, kern.name+"-"+l.String()+"/unrolled")
					// Thread CPU time leaves out waits for a core (not the
					// other goroutine of the parallel sweep).
					if haveCPU && kern.name != "parallel" {
						b.ReportMetric(med(cpuTimes[k][i+1])/med(cpuTimes[k][0]), kern.name+"-"+l.String()+"/unrolled-cpu")
					}
				}
			}
		})
	}
}

// BenchmarkAnchorTopKScans proves the ordered top-5 and top-10 passages of the
// anchors' KG (HippoRAG's dense reset: every passage at random*0.05 and 5
// entities at 1, d = 0.5; 8 queries per iteration) with plain sweeps and
// with threshold scans (SolveTopK's default), in turn within each
// iteration, and reports the arcs read per query in sweeps (2.49M arcs)
// and scans' time relative to sweeps'.
func BenchmarkAnchorTopKScans(b *testing.B) {
	g := anchorGraph(b, "kg")
	n := g.NumNodes()
	view := mask.Full(g)
	const passages = 200000 // the KG generator's first passage id
	var cands []uint32
	for u := passages; u < n; u++ {
		cands = append(cands, uint32(u))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var queries []ppr.Seeds
	for range 8 {
		var in []ppr.Seed
		for u := passages; u < n; u++ {
			in = append(in, ppr.Seed{Node: uint32(u), Weight: rng.Float64() * 0.05})
		}
		for range 5 {
			in = append(in, ppr.Seed{Node: uint32(rng.IntN(passages)), Weight: 1})
		}
		s, err := ppr.NewSeeds(n, in)
		if err != nil {
			b.Fatal(err)
		}
		queries = append(queries, s)
	}
	for _, k := range []int{5, 10} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			e, err := ppr.NewEngine(view, queries[0], 0.5)
			if err != nil {
				b.Fatal(err)
			}
			// modes: plain sweeps, threshold scans, scans with reverse
			// refinement; arcs counted in sweeps' worth, reverse-push
			// arcs included.
			var secs, arcs [3]float64
			for range b.N {
				for mode := range 3 {
					opt := ppr.WithScans(ppr.Options{Ordered: true}, mode >= 1, mode == 2)
					start := time.Now()
					for _, s := range queries {
						if err := e.Restart(s, 0.5); err != nil {
							b.Fatal(err)
						}
						r, err := e.SolveTopK(k, cands, opt)
						if err != nil || !r.Certified || !r.Ordered {
							b.Fatalf("not proved: %v", err)
						}
						arcs[mode] += float64(e.Stats.ArcOps+r.ReverseArcs) / float64(len(g.Out().Nbr))
					}
					secs[mode] += time.Since(start).Seconds()
				}
			}
			q := float64(b.N * len(queries))
			b.ReportMetric(arcs[0]/q, "sweep-arcs/query")
			b.ReportMetric(arcs[1]/q, "scan-arcs/query")
			b.ReportMetric(arcs[2]/q, "refined-arcs/query")
			b.ReportMetric(secs[1]/secs[0], "scans/sweeps-time")
			b.ReportMetric(secs[2]/secs[1], "refined/scans-time")
		})
	}
}

// BenchmarkAnchorStorage times each kernel on the anchors' graphs with
// their weights stored as float32 (as read: PPREDGE1 weights are float32)
// and the same graph stored as float64 (csrhook's WithWeightStorage), in
// turn within each iteration at the best CPU level, and reports the median
// time ratio float32/float64 per kernel (the results are the same bits,
// TestFloat32StorageSameBits). Batched kernels run 8 seed vectors.
func BenchmarkAnchorStorage(b *testing.B) {
	for _, name := range []string{"kg", "rmat20"} {
		b.Run(name, func(b *testing.B) {
			g32 := anchorGraph(b, name)
			if !csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().Float32(g32) {
				b.Fatal("the anchors' graph does not store float32 weights")
			}
			g64 := csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().WithWeightStorage(g32, true)
			rng := rand.New(rand.NewPCG(7, 7))
			var in []ppr.Seed
			for len(in) < 5 {
				u := uint32(rng.IntN(g32.NumNodes()))
				if lo, hi := g32.Out().Span(u); hi > lo {
					in = append(in, ppr.Seed{Node: u, Weight: 1})
				}
			}
			seeds, err := ppr.NewSeeds(g32.NumNodes(), in)
			if err != nil {
				b.Fatal(err)
			}
			var batchSeeds []ppr.Seeds
			for j := range 8 {
				s, err := ppr.NewSeeds(g32.NumNodes(), []ppr.Seed{in[j%5], in[(j+2)%5]})
				if err != nil {
					b.Fatal(err)
				}
				batchSeeds = append(batchSeeds, s)
			}
			d := 0.85
			if name == "kg" {
				d = 0.5
			}
			type kernel struct {
				name string
				make func(v *mask.View) func()
			}
			engine := func(v *mask.View) *ppr.Engine {
				e, err := ppr.NewEngine(v, seeds, d)
				if err != nil {
					b.Fatal(err)
				}
				for range 3 {
					e.Sweep(ppr.Jacobi, 1)
				}
				return e
			}
			kernels := []kernel{
				{"jacobi", func(v *mask.View) func() { e := engine(v); return func() { e.Sweep(ppr.Jacobi, 1) } }},
				{"parallel", func(v *mask.View) func() { e := engine(v); return func() { e.Sweep(ppr.Jacobi, 2) } }},
				{"gauss-seidel", func(v *mask.View) func() { e := engine(v); return func() { e.Sweep(ppr.GaussSeidel, 1) } }},
				{"batch-jacobi", func(v *mask.View) func() { return ppr.BatchSweep(v, batchSeeds, d, cpu.Best()) }},
				{"batch-gauss-seidel", func(v *mask.View) func() { return ppr.BatchPushSweep(v, batchSeeds, d, cpu.Best()) }},
			}
			steps := make([][2]func(), len(kernels))
			for k, kern := range kernels {
				steps[k] = [2]func(){kern.make(mask.Full(g32)), kern.make(mask.Full(g64))}
			}
			times := make([][2][]float64, len(kernels))
			b.ResetTimer()
			for i := range b.N {
				for k := range kernels {
					for s := range 2 {
						s = (s + i) % 2 // alternate which storage goes first
						start := time.Now()
						steps[k][s]()
						times[k][s] = append(times[k][s], float64(time.Since(start)))
					}
				}
			}
			med := func(xs []float64) float64 {
				s := slices.Clone(xs)
				slices.Sort(s)
				return s[len(s)/2]
			}
			for k, kern := range kernels {
				b.ReportMetric(med(times[k][1])/1e6, kern.name+"-f64-ms")
				b.ReportMetric(med(times[k][0])/med(times[k][1]), kern.name+"-f32/f64")
			}
		})
	}
}

// BenchmarkAnchorTopKVisits proves the top-10 of R-MAT 20 (8 queries)
// and of SNAP wiki-Vote (testdata/, 20 queries), both directed, d =
// 0.85, 5 seeds with out-arcs per query, without and with the view's
// visit bounds (Options.Visits), in turn within each iteration, with one
// engine reused through Restart; it reports sweeps and reverse arcs per
// query, the time with visit bounds relative to without (wall and, on
// Linux, thread CPU time), and the one-off build of the bounds in
// queries' worth (build time over a query's time without them).
func BenchmarkAnchorTopKVisits(b *testing.B) {
	b.Run("rmat20", func(b *testing.B) {
		topKVisits(b, anchorGraph(b, "rmat20"), 8)
	})
	b.Run("wiki-Vote", func(b *testing.B) {
		g, err := csr.ReadFile(filepath.Join("..", "testdata", "wiki-Vote.txt.gz"), csr.ReadOptions{Directed: true})
		if err != nil {
			b.Fatal(err)
		}
		topKVisits(b, g, 20)
	})
}

func topKVisits(b *testing.B, g *csr.Graph, count int) {
	n := g.NumNodes()
	view := mask.Full(g)
	const d, k = 0.85, 10
	rng := rand.New(rand.NewPCG(7, 11))
	var queries []ppr.Seeds
	for range count {
		var in []ppr.Seed
		for len(in) < 5 {
			u := uint32(rng.IntN(n))
			if lo, hi := g.Out().Span(u); hi > lo {
				in = append(in, ppr.Seed{Node: u, Weight: 1})
			}
		}
		s, err := ppr.NewSeeds(n, in)
		if err != nil {
			b.Fatal(err)
		}
		queries = append(queries, s)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, haveCPU := threadCPU()
	start := time.Now()
	vb, err := ppr.NewVisitBounds(view, d)
	if err != nil {
		b.Fatal(err)
	}
	buildSecs := time.Since(start).Seconds()
	c1, _ := threadCPU()
	buildCPU := float64(c1-c0) / 1e9
	e, err := ppr.NewEngine(view, queries[0], d)
	if err != nil {
		b.Fatal(err)
	}
	var secs, cpuSecs, sweeps, rev [2]float64
	b.ResetTimer()
	for range b.N {
		for mode := range 2 { // 0: L1 bound and refinement, 1: visit bounds too
			opt := ppr.Options{Tol: 1e-6}
			if mode == 1 {
				opt.Visits = vb
			}
			c0, _ := threadCPU()
			start := time.Now()
			for _, s := range queries {
				if err := e.Restart(s, d); err != nil {
					b.Fatal(err)
				}
				r, err := e.SolveTopK(k, nil, opt)
				if err != nil || !r.Certified {
					b.Fatalf("not proved: %v", err)
				}
				sweeps[mode] += float64(r.Sweeps)
				rev[mode] += float64(r.ReverseArcs)
			}
			secs[mode] += time.Since(start).Seconds()
			c1, _ := threadCPU()
			cpuSecs[mode] += float64(c1-c0) / 1e9
		}
	}
	q := float64(b.N * len(queries))
	b.ReportMetric(sweeps[0]/q, "l1-sweeps/query")
	b.ReportMetric(sweeps[1]/q, "visits-sweeps/query")
	b.ReportMetric(rev[0]/q, "l1-reverse-arcs/query")
	b.ReportMetric(rev[1]/q, "visits-reverse-arcs/query")
	b.ReportMetric(secs[1]/secs[0], "visits/l1-time")
	b.ReportMetric(buildSecs/(secs[0]/q), "build/l1-query")
	if haveCPU {
		b.ReportMetric(cpuSecs[1]/cpuSecs[0], "visits/l1-cpu")
		b.ReportMetric(buildCPU/(cpuSecs[0]/q), "build/l1-query-cpu")
	}
	b.ReportMetric(float64(vb.Pulls), "build-pulls")
	b.ReportMetric(float64(vb.ReverseArcs)/float64(len(g.Out().Nbr)), "build-reverse-arcs/arcs")
}
