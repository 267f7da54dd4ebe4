package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/snapshot"
	"github.com/authppr/authppr/store"
)

// runStoreBench measures the living store on one graph in one run, as
// ratios: ingest rate into the delta (with and without the wal), compaction
// against building from the edge file, query latency during compaction
// against idle, a cached PPR update after 100 writes against a solve, and
// snapshot load against rebuilding.
func runStoreBench(args []string, stdout, stderr io.Writer) error {
	b, err := newStoreBench(args, stdout)
	if err != nil {
		return err
	}
	defer b.cleanup()
	for _, step := range []func() error{b.load, b.snapshot, b.ingest, b.compaction, b.latency, b.cached} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// storeBench is one store-bench run: its settings, the graph, the store
// the steps share, and the random source they draw from in turn.
type storeBench struct {
	path                  string
	scale                 int
	damping, tol, qtol    float64
	trials, writes        int
	batch, walBatch, nice int
	dir                   string
	limit                 int64
	cleanup               func()
	say                   func(format string, a ...any)
	g                     *csr.Graph
	build                 time.Duration
	labels                *mask.Labels
	s                     *store.Store
	rng                   *rand.Rand
}

// newStoreBench parses store-bench's flags and makes its directory.
func newStoreBench(args []string, stdout io.Writer) (*storeBench, error) {
	fs := flag.NewFlagSet("store-bench", flag.ContinueOnError)
	b := &storeBench{cleanup: func() {}, rng: rand.New(rand.NewPCG(1, 2))}
	b.say = func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	fs.StringVar(&b.path, "graph-bin", "", "PPREDGE1 edge file (anchors/gen_graph.py); default: a generated R-MAT graph of --scale")
	fs.IntVar(&b.scale, "scale", 18, "without --graph-bin: the generated directed R-MAT graph's scale (2^scale nodes, 16 edges per node)")
	registerDamping(fs, &b.damping)
	fs.Float64Var(&b.tol, "tol", 1e-6, "L1 tolerance of the cached answers and the solves they are compared with")
	fs.Float64Var(&b.qtol, "query-tol", 1e-4, "L1 tolerance of the latency queries (idle and during compaction)")
	fs.IntVar(&b.trials, "trials", 7, "trials for medians")
	fs.IntVar(&b.writes, "writes", 2_000_000, "structural writes for the ingest rate")
	fs.IntVar(&b.batch, "batch", 1000, "writes per batch (one store write) in memory")
	fs.IntVar(&b.walBatch, "wal-batch", 10000, "writes per batch on disk (one store write: one log record, one fsync)")
	fs.IntVar(&b.nice, "compact-nice", 10, "nice value (0..19) of the compaction thread in the latency rounds that lower it (alternate rounds keep 0)")
	fs.StringVar(&b.dir, "dir", "", "directory for the snapshot and wal files (default: a temporary directory)")
	var maxMemory string
	registerMaxMemory(fs, &maxMemory)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	set := given(fs)
	if err := firstErr(
		checkDamping(b.damping), checkTol("tol", b.tol), checkTol("query-tol", b.qtol),
		checkAtLeast("trials", b.trials, 1), checkAtLeast("writes", b.writes, 1),
		checkAtLeast("batch", b.batch, 1), checkAtLeast("wal-batch", b.walBatch, 1),
		checkRange("compact-nice", b.nice, 0, 19), checkRange("scale", b.scale, 1, 30),
		onlyWith(set, b.path == "", "without --graph-bin", "scale"),
	); err != nil {
		return nil, err
	}
	var err error
	if b.limit, err = parseMaxMemory(maxMemory); err != nil {
		return nil, err
	}
	if b.dir == "" {
		d, err := os.MkdirTemp("", "store-bench")
		if err != nil {
			return nil, err
		}
		b.dir, b.cleanup = d, func() { os.RemoveAll(d) }
	}
	return b, nil
}

// load builds the graph from scratch: the reference for compaction and
// snapshot load.
func (b *storeBench) load() error {
	t0 := time.Now()
	var err error
	name := b.path
	if b.path != "" {
		b.g, err = csr.ReadFile(b.path, csr.ReadOptions{Format: csr.FormatPPREDGE1, MaxMemory: b.limit})
	} else {
		name = fmt.Sprintf("R-MAT scale %d (generated)", b.scale)
		b.g, err = bench.RMAT(b.scale, 16, 1)
	}
	if err != nil {
		return memoryHint(err)
	}
	b.build = time.Since(t0)
	b.say("graph %s: %d nodes, %d edges; build %.2fs", name, b.g.NumNodes(), b.g.NumEdges(), b.build.Seconds())
	b.labels = mask.FromGraph(b.g)
	b.s, err = store.New(b.g, b.labels, store.Options{})
	return err
}

// snapshot saves the graph, loads it (mmap and validation) and reports
// the sizes.
func (b *storeBench) snapshot() error {
	snapPath := filepath.Join(b.dir, "graph.snap")
	if err := snapshot.Save(snapPath, b.g, b.labels); err != nil {
		return err
	}
	st, err := os.Stat(snapPath)
	if err != nil {
		return err
	}
	t0 := time.Now()
	snap, err := snapshot.Load(snapPath)
	if err != nil {
		return err
	}
	load := time.Since(t0)
	snap.Close()
	m := float64(b.g.NumEdges())
	b.say("snapshot load %.2fs = %.3f x build (target <= 0.2); %.1f bytes/edge on disk, %.1f bytes/edge in memory (csr arrays)",
		load.Seconds(), load.Seconds()/b.build.Seconds(), float64(st.Size())/m, float64(b.g.MemoryBytes())/m)
	return nil
}

// randomEdges returns count edges between random existing nodes.
func (b *storeBench) randomEdges(count int) []store.Op {
	names := b.g.Names()
	ops := make([]store.Op, count)
	for i := range ops {
		ops[i] = store.Edge(names[b.rng.IntN(len(names))], names[b.rng.IntN(len(names))], 0.5)
	}
	return ops
}

// ingestRate applies ops to s in batches as one writer: writes per second.
func ingestRate(s *store.Store, ops []store.Op, batch int) (float64, error) {
	w, err := s.Writer("ingest")
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	for lo := 0; lo < len(ops); lo += batch {
		if _, err := w.Apply(ops[lo:min(lo+batch, len(ops))]...); err != nil {
			return 0, err
		}
	}
	return float64(len(ops)) / time.Since(t0).Seconds(), nil
}

// ingest measures writes into the delta: in memory by name, by id and
// creating nodes, then through a wal with one record (one fsync) per batch.
func (b *storeBench) ingest() error {
	ops := b.randomEdges(b.writes)
	rate, err := ingestRate(b.s, ops, b.batch)
	if err != nil {
		return err
	}
	b.say("ingest (in memory, %d writes, batches of %d, existing names): %.2fM writes/s (target >= 1M)", b.writes, b.batch, rate/1e6)
	n := b.g.NumNodes()
	byID := make([]store.Op, b.writes)
	for i := range byID {
		byID[i] = store.EdgeByID(uint32(b.rng.IntN(n)), uint32(b.rng.IntN(n)), 0.5)
	}
	if rate, err = ingestRate(b.s, byID, b.batch); err != nil {
		return err
	}
	b.say("ingest (in memory, %d writes by node id, batches of %d): %.2fM writes/s (target >= 1M)", b.writes, b.batch, rate/1e6)
	names := b.g.Names()
	fresh := make([]store.Op, b.writes/4)
	for i := range fresh {
		fresh[i] = store.Edge("new-"+strconv.Itoa(i), names[b.rng.IntN(len(names))], 1)
	}
	empty, err := store.New(nil, nil, store.Options{Directed: true})
	if err != nil {
		return err
	}
	if rate, err = ingestRate(empty, fresh, b.batch); err != nil {
		return err
	}
	b.say("ingest (in memory, %d writes each creating a node): %.2fM writes/s", len(fresh), rate/1e6)
	ds, err := store.Open(filepath.Join(b.dir, "durable"), store.Options{Directed: true})
	if err != nil {
		return err
	}
	defer ds.Close()
	if rate, err = ingestRate(ds, ops[:b.writes/4], b.walBatch); err != nil {
		return err
	}
	b.say("ingest (wal, one record and one fsync per batch of %d): %.2fM writes/s", b.walBatch, rate/1e6)
	return nil
}

// compaction compacts base + the ingested delta, alone.
func (b *storeBench) compaction() error {
	t0 := time.Now()
	if err := b.s.Compact(); err != nil {
		return err
	}
	compact := time.Since(t0)
	b.say("compaction of %d base + %d delta edges into one csr snapshot: %.2fs = %.2f x build (target <= 2)",
		b.g.NumEdges(), 2*b.writes, compact.Seconds(), compact.Seconds()/b.build.Seconds())
	return nil
}

// seeds returns a seed set of one random node with out-edges, on v.
func (b *storeBench) seeds(v *store.Version) (ppr.Seeds, error) {
	for {
		u := uint32(b.rng.IntN(b.g.NumNodes()))
		if b.g.OutWeight(u) > 0 {
			return ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: u, Weight: 1}})
		}
	}
}

// latencyRun times fresh solves of the same seed sets, in the same order,
// on a version idle and during compactions.
type latencyRun struct {
	b     *storeBench
	seeds []ppr.Seeds
	next  int
}

func (l *latencyRun) query(v *store.Version) (time.Duration, error) {
	seeds := l.seeds[l.next%len(l.seeds)]
	l.next++
	t0 := time.Now()
	view, err := v.View(nil)
	if err == nil {
		_, err = ppr.Solve(view, seeds, l.b.damping, ppr.Options{Tol: l.b.qtol})
	}
	return time.Since(t0), err
}

// latency measures query latency idle and during a compaction, on a
// version with a small delta; rounds alternate the compaction thread's
// priority: normal, then lowered to --compact-nice.
func (b *storeBench) latency() error {
	small := b.writes / 20
	if _, err := writeAs(b.s, "w", b.randomEdges(small)); err != nil {
		return err
	}
	l := &latencyRun{b: b, seeds: make([]ppr.Seeds, b.trials)}
	for i := range l.seeds {
		var err error
		if l.seeds[i], err = b.seeds(b.s.Current()); err != nil {
			return err
		}
	}
	var idle, busy, busyNice []time.Duration
	for round := 0; round < 6 && (len(busy) < b.trials || len(busyNice) < b.trials); round++ {
		roundNice := 0
		if round%2 == 1 {
			roundNice = b.nice
		}
		b.s.SetCompactNice(roundNice)
		if round > 0 {
			if _, err := writeAs(b.s, "w", b.randomEdges(small)); err != nil {
				return err
			}
		}
		v := b.s.Current()
		t0 := time.Now()
		if _, err := l.query(v); err != nil { // builds the version's view
			return err
		}
		if round == 0 {
			b.say("first query on a version with a %d-edge delta (builds its view): %.0f ms", small, ms(time.Since(t0)))
		}
		l.next = 0
		for range b.trials {
			d, err := l.query(v)
			if err != nil {
				return err
			}
			idle = append(idle, d)
		}
		during, took, err := l.duringCompaction(v)
		if err != nil {
			return err
		}
		if roundNice > 0 {
			busyNice = append(busyNice, during...)
		} else {
			busy = append(busy, during...)
		}
		b.say("round %d (compaction nice %d): compaction with queries running %.2fs", round, roundNice, took.Seconds())
	}
	b.reportLatency(small, idle, busy, busyNice)
	var after []time.Duration
	for range b.trials {
		d, err := l.query(b.s.Current())
		if err != nil {
			return err
		}
		after = append(after, d)
	}
	b.say("query latency after compaction (empty delta, ppr kernels): median %.0f ms", ms(median(after)))
	return nil
}

// duringCompaction runs a compaction and queries v while it runs: the
// times of the queries that finished before it did, and its time.
func (l *latencyRun) duringCompaction(v *store.Version) ([]time.Duration, time.Duration, error) {
	var compacting atomic.Bool
	compacting.Store(true)
	t0 := time.Now()
	done := make(chan error, 1)
	go func() { done <- l.b.s.Compact(); compacting.Store(false) }()
	l.next = 0
	var during []time.Duration
	for compacting.Load() {
		d, err := l.query(v)
		if err != nil {
			<-done
			return nil, 0, err
		}
		if compacting.Load() { // finished while the compaction ran
			during = append(during, d)
		}
	}
	if err := <-done; err != nil {
		return nil, 0, err
	}
	return during, time.Since(t0), nil
}

func (b *storeBench) reportLatency(small int, idle, busy, busyNice []time.Duration) {
	if len(busy) > 0 {
		b.say("query latency (solve to %.0e, d=%.2f, delta of %d edges): idle median %.0f ms, during compaction median %.0f ms (%d queries) = %.2f x (target <= 1.2)",
			b.qtol, b.damping, small, ms(median(idle)), ms(median(busy)), len(busy), ms(median(busy))/ms(median(idle)))
	} else {
		b.say("query latency: no query finished during a compaction")
	}
	if len(busyNice) > 0 {
		b.say("query latency with the compaction thread at nice %d: during compaction median %.0f ms (%d queries) = %.2f x idle",
			b.nice, ms(median(busyNice)), len(busyNice), ms(median(busyNice))/ms(median(idle)))
	}
}

// cached measures the cache's update after 100 random writes against a
// solve of the new version.
func (b *storeBench) cached() error {
	cache := &store.Cache{Tol: b.tol}
	var upd, scratch []time.Duration
	var updArcs, scratchArcs []float64
	for range b.trials {
		v := b.s.Current()
		seeds, err := b.seeds(v)
		if err != nil {
			return err
		}
		if _, err := cache.Query(v, nil, seeds, b.damping); err != nil {
			return err
		}
		if _, err := writeAs(b.s, "w", b.randomEdges(100)); err != nil {
			return err
		}
		v = b.s.Current()
		t0 := time.Now()
		sol, err := cache.Query(v, nil, seeds, b.damping)
		if err != nil {
			return err
		}
		upd = append(upd, time.Since(t0))
		if sol.How != "updated" {
			return fmt.Errorf("store-bench: cache answered %s, want updated", sol.How)
		}
		t0 = time.Now()
		ref, err := solveEngine(v, seeds, b.damping, b.tol)
		if err != nil {
			return err
		}
		scratch = append(scratch, time.Since(t0))
		updArcs = append(updArcs, float64(sol.Stats.ArcOps))
		scratchArcs = append(scratchArcs, float64(ref.Stats.ArcOps))
	}
	b.say("cached update after 100 random writes (tol %.0e): median %.1f ms vs solve %.1f ms = %.3f x (target <= 0.1); arc ops median %.3g vs %.3g",
		b.tol, ms(median(upd)), ms(median(scratch)), ms(median(upd))/ms(median(scratch)), medianF(updArcs), medianF(scratchArcs))
	return nil
}

// solveEngine solves PPR on v's native view from the native start state
// and returns the engine, whose Stats count the solve's work.
func solveEngine(v *store.Version, seeds ppr.Seeds, damping, tol float64) (*ppr.Engine, error) {
	view, err := v.View(nil)
	if err != nil {
		return nil, err
	}
	eng, err := ppr.NewEngine(view, seeds, damping)
	if err != nil {
		return nil, err
	}
	_, err = eng.SolveSweeps(ppr.Options{Tol: tol})
	return eng, err
}

func medianF(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// writeAs applies ops to s as channel.
func writeAs(s *store.Store, channel string, ops []store.Op) (store.Result, error) {
	w, err := s.Writer(channel)
	if err != nil {
		return store.Result{}, err
	}
	return w.Apply(ops...)
}
