package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// benchStore returns a compacted store of a random graph with n nodes and
// m edges, and the names used.
func benchStore(b *testing.B, n, m int) (*Store, []string) {
	b.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	s, err := New(nil, nil, Options{Directed: true})
	if err != nil {
		b.Fatal(err)
	}
	ops := make([]Op, m)
	for i := range ops {
		ops[i] = as("default", Edge(names[rng.IntN(n)], names[rng.IntN(n)], 1))
	}
	if _, err := s.applyBatch(ops); err != nil {
		b.Fatal(err)
	}
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	return s, names
}

// BenchmarkApply is the ingest rate into the delta: batches of 1000 edges
// between existing nodes, single writer, no wal.
func BenchmarkApply(b *testing.B) {
	s, names := benchStore(b, 100_000, 1_000_000)
	benchApply(b, s, names)
}

// benchApply times batches of 1000 edges between random existing names.
func benchApply(b *testing.B, s *Store, names []string) {
	rng := rand.New(rand.NewPCG(2, 2))
	ops := make([]Op, 1000)
	for i := range ops {
		ops[i] = as("w", Edge(names[rng.IntN(len(names))], names[rng.IntN(len(names))], 1))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.applyBatch(ops); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkCompactVsBuild: compaction of the same graph in one run, as a
// ratio to building it from an edge list.
func BenchmarkCompact(b *testing.B) {
	s, names := benchStore(b, 100_000, 1_000_000)
	rng := rand.New(rand.NewPCG(3, 3))
	for b.Loop() {
		b.StopTimer()
		ops := make([]Op, 10000)
		for i := range ops {
			ops[i] = as("w", Edge(names[rng.IntN(len(names))], names[rng.IntN(len(names))], 1))
		}
		if _, err := s.applyBatch(ops); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Compact(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatchedSolve: a solve on a version with a 10k-edge delta
// against one on the compacted version.
func BenchmarkPatchedSolve(b *testing.B) {
	s, names := benchStore(b, 100_000, 1_000_000)
	patchedSolves(b, s, names, 1e-6)
}

// patchedSolves adds 10,000 random edges to s and times a solve on that
// version (a patched view) and on the compacted one.
func patchedSolves(b *testing.B, s *Store, names []string, tol float64) {
	seeds, _ := ppr.NewSeeds(s.Current().NumNodes(), []ppr.Seed{{Node: 1, Weight: 1}})
	rng := rand.New(rand.NewPCG(3, 3))
	ops := make([]Op, 10000)
	for i := range ops {
		ops[i] = as("w", Edge(names[rng.IntN(len(names))], names[rng.IntN(len(names))], 1))
	}
	if _, err := s.applyBatch(ops); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		compact bool
	}{{"delta", false}, {"compacted", true}} {
		if bc.compact {
			if err := s.Compact(); err != nil {
				b.Fatal(err)
			}
		}
		v := s.Current()
		if _, _, err := v.solve(nil, seeds, 0.85, tol); err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				eng, _, err := v.solve(nil, seeds, 0.85, tol)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(eng.Stats.ArcOps), "arcs/op")
				b.ReportMetric(float64(eng.Stats.Sweeps), "sweeps/op")
			}
		})
	}
}

// BenchmarkPatchedSolveLargeGraph: BenchmarkPatchedSolve on STORE_BENCH_GRAPH.
func BenchmarkPatchedSolveLargeGraph(b *testing.B) {
	path := os.Getenv("STORE_BENCH_GRAPH")
	if path == "" {
		b.Skip("set STORE_BENCH_GRAPH to a PPREDGE1 file")
	}
	g, err := csr.ReadFile(path, csr.ReadOptions{Format: csr.FormatPPREDGE1})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(g, nil, Options{})
	if err != nil {
		b.Fatal(err)
	}
	patchedSolves(b, s, g.Names(), 1e-3)
}

// BenchmarkPatchedTopK: a certified top-5 of the passages from the native
// start, with a dense reset over a fifth of the entities, on the
// HippoRAG-sized memory graph with 2000 mentions added (a patched view, as
// queries read a living store) against the same version compacted: what
// reading the writes in place costs a query.
func BenchmarkPatchedTopK(b *testing.B) {
	mem, s := hippoStore(b)
	rng := rand.New(rand.NewPCG(7, 8))
	name := mem.Graph.Name
	ops := make([]Op, 2000)
	for i := range ops {
		e, p := mem.Entities[rng.IntN(len(mem.Entities))], mem.Passages[rng.IntN(len(mem.Passages))]
		ops[i] = as("default", Edge(name(e), name(p), 1))
	}
	if _, err := s.applyBatch(ops); err != nil {
		b.Fatal(err)
	}
	seeds := entitySeeds(rng, mem)
	for _, compact := range []bool{false, true} {
		if compact {
			if err := s.Compact(); err != nil {
				b.Fatal(err)
			}
		}
		v := s.Current()
		view, err := v.View(nil)
		if err != nil {
			b.Fatal(err)
		}
		sd, err := ppr.NewSeeds(view.NumNodes(), seeds)
		if err != nil {
			b.Fatal(err)
		}
		e, err := ppr.NewEngine(view, sd, 0.5)
		if err != nil {
			b.Fatal(err)
		}
		e.Reserve()
		b.Run(map[bool]string{false: "delta", true: "compacted"}[compact], func(b *testing.B) {
			for b.Loop() {
				if err := e.Restart(sd, 0.5); err != nil {
					b.Fatal(err)
				}
				res, err := e.SolveTopK(5, mem.Passages, ppr.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Sweeps), "sweeps/op")
			}
		})
	}
}

// BenchmarkGuardSelectDense is a guarded selection on the HippoRAG-sized
// memory graph with 10 untrusted edges between entities, asked again on
// the version its state was kept for, with a dense reset over a fifth of
// the entities in no particular order: what a query pays however little
// the graph changed (checking the query, the cache's key, the native proof
// from the kept state, the replay).
func BenchmarkGuardSelectDense(b *testing.B) {
	mem, s := hippoStore(b)
	w, err := s.Writer("peer")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	name := mem.Graph.Name
	ops := make([]Op, 10)
	for i := range ops {
		a, c := mem.Entities[rng.IntN(len(mem.Entities))], mem.Entities[rng.IntN(len(mem.Entities))]
		ops[i] = Edge(name(a), name(c), 1)
	}
	if _, err := w.Apply(ops...); err != nil {
		b.Fatal(err)
	}
	seeds := entitySeeds(rng, mem)
	rng.Shuffle(len(seeds), func(i, j int) { seeds[i], seeds[j] = seeds[j], seeds[i] })
	g := s.NewGuard(mask.Trust("default"), replay.Options{})
	v := s.Current()
	q := replay.Query{Seeds: seeds, K: 5, Candidates: mem.Passages, Damping: 0.5}
	if _, err := g.Select(v, q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Select(v, q); err != nil {
			b.Fatal(err)
		}
	}
}

// hippoStore returns the HippoRAG-sized memory graph and a store on it.
func hippoStore(b *testing.B) (*bench.Memory, *Store) {
	b.Helper()
	mem, err := bench.NewMemory(bench.HippoMemory)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(mem.Graph, nil, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return mem, s
}

// entitySeeds returns a dense reset over about a fifth of mem's entities,
// in id order, with weights in [1, 2).
func entitySeeds(rng *rand.Rand, mem *bench.Memory) []ppr.Seed {
	var seeds []ppr.Seed
	for _, u := range mem.Entities {
		if rng.IntN(5) == 0 {
			seeds = append(seeds, ppr.Seed{Node: u, Weight: 1 + rng.Float64()})
		}
	}
	return seeds
}

// BenchmarkGuardVersionAfterHubMerge builds a version's guard (its views
// and the rows that differ between them) after a trusted merge of an
// entity into the memory graph's largest hub, the rows the merge changed
// read in both views: what the first guarded query on such a version
// pays beyond its native view. Every merge leaves the delta longer (no
// compaction runs), so compare runs of a fixed count (-benchtime 300x).
func BenchmarkGuardVersionAfterHubMerge(b *testing.B) {
	mem, s := hippoStore(b)
	name := mem.Graph.Name
	peer, err := s.Writer("peer")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	hub, most := uint32(0), 0
	for _, u := range mem.Entities {
		if lo, hi := mem.Graph.Out().Span(u); hi-lo > most {
			hub, most = u, hi-lo
		}
	}
	ops := []Op{Edge(name(hub), name(mem.Entities[0]), 1)}
	for range 9 {
		a, c := mem.Entities[rng.IntN(len(mem.Entities))], mem.Entities[rng.IntN(len(mem.Entities))]
		ops = append(ops, Edge(name(a), name(c), 1))
	}
	if _, err := peer.Apply(ops...); err != nil {
		b.Fatal(err)
	}
	resolver, err := s.Writer("default")
	if err != nil {
		b.Fatal(err)
	}
	g := s.NewGuard(mask.Trust("default"), replay.Options{})
	if _, err := g.versionGuard(s.Current()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		from := mem.Entities[rng.IntN(len(mem.Entities))]
		if from == hub {
			continue
		}
		if _, err := resolver.Apply(MergeInto(name(from), name(hub))); err != nil {
			b.Fatal(err)
		}
		v := s.Current()
		b.StartTimer()
		if _, err := g.versionGuard(v); err != nil {
			b.Fatal(err)
		}
	}
}
