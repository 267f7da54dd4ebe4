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
	fs := flag.NewFlagSet("store-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("graph-bin", "/tmp/anchors-data/rmat20.edges.bin", "PPREDGE1 edge file (shared/anchors/gen_graph.py)")
	damping := fs.Float64("damping", 0.85, "damping d")
	tol := fs.Float64("tol", 1e-6, "L1 tolerance of the cached answers and the solves they are compared with")
	qtol := fs.Float64("query-tol", 1e-4, "L1 tolerance of the latency queries (idle and during compaction)")
	trials := fs.Int("trials", 7, "trials for medians")
	writes := fs.Int("writes", 2_000_000, "structural writes for the ingest rate")
	batch := fs.Int("batch", 1000, "writes per Apply batch in memory")
	walBatch := fs.Int("wal-batch", 10000, "writes per Apply batch (one wal record, one fsync) on disk")
	nice := fs.Int("compact-nice", 10, "nice value (0..19) of the compaction thread in the latency rounds that lower it (alternate rounds keep 0)")
	dir := fs.String("dir", "", "directory for the snapshot and wal files (default: a temporary directory)")
	var maxMemory string
	registerMaxMemory(fs, &maxMemory)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := firstErr(
		checkDamping(*damping), checkTol("tol", *tol), checkTol("query-tol", *qtol),
		checkAtLeast("trials", *trials, 1), checkAtLeast("writes", *writes, 1),
		checkAtLeast("batch", *batch, 1), checkAtLeast("wal-batch", *walBatch, 1),
		checkRange("compact-nice", *nice, 0, 19),
	); err != nil {
		return err
	}
	limit, err := parseMaxMemory(maxMemory)
	if err != nil {
		return err
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "store-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	say := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }

	// Build from scratch: the reference for compaction and snapshot load.
	t0 := time.Now()
	g, err := csr.ReadFile(*path, csr.ReadOptions{Format: csr.FormatPPREDGE1, MaxMemory: limit})
	if err != nil {
		return memoryHint(err)
	}
	build := time.Since(t0)
	say("graph %s: %d nodes, %d edges; build from the edge file %.2fs", *path, g.NumNodes(), g.NumEdges(), build.Seconds())

	// Snapshot: save, load (mmap + validate), sizes.
	snapPath := filepath.Join(*dir, "graph.snap")
	labels := mask.FromGraph(g)
	if err := snapshot.Save(snapPath, g, labels); err != nil {
		return err
	}
	st, err := os.Stat(snapPath)
	if err != nil {
		return err
	}
	t0 = time.Now()
	snap, err := snapshot.Load(snapPath)
	if err != nil {
		return err
	}
	load := time.Since(t0)
	snap.Close()
	m := float64(g.NumEdges())
	say("snapshot load %.2fs = %.3f x build (target <= 0.2); %.1f bytes/edge on disk, %.1f bytes/edge in memory (csr arrays)",
		load.Seconds(), load.Seconds()/build.Seconds(), float64(st.Size())/m, float64(g.MemoryBytes())/m)

	s, err := store.New(g, labels, store.Options{})
	if err != nil {
		return err
	}
	names := g.Names()
	rng := rand.New(rand.NewPCG(1, 2))
	randomEdges := func(count int) []store.Op {
		ops := make([]store.Op, count)
		for i := range ops {
			ops[i] = store.Edge(names[rng.IntN(len(names))], names[rng.IntN(len(names))], 0.5)
		}
		return ops
	}

	// Ingest into the delta: in memory, then through a wal with one
	// record (one fsync) per batch.
	ingest := func(s *store.Store, ops []store.Op, batch int) (float64, error) {
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
	ops := randomEdges(*writes)
	rate, err := ingest(s, ops, *batch)
	if err != nil {
		return err
	}
	say("ingest (in memory, %d writes, batches of %d, existing names): %.2fM writes/s (target >= 1M)", *writes, *batch, rate/1e6)
	byID := make([]store.Op, *writes)
	for i := range byID {
		byID[i] = store.EdgeByID(uint32(rng.IntN(len(names))), uint32(rng.IntN(len(names))), 0.5)
	}
	rateID, err := ingest(s, byID, *batch)
	if err != nil {
		return err
	}
	say("ingest (in memory, %d writes by node id, batches of %d): %.2fM writes/s (target >= 1M)", *writes, *batch, rateID/1e6)
	fresh := make([]store.Op, *writes/4)
	for i := range fresh {
		fresh[i] = store.Edge("new-"+strconv.Itoa(i), names[rng.IntN(len(names))], 1)
	}
	empty, err := store.New(nil, nil, store.Options{Directed: true})
	if err != nil {
		return err
	}
	rateNew, err := ingest(empty, fresh, *batch)
	if err != nil {
		return err
	}
	say("ingest (in memory, %d writes each creating a node): %.2fM writes/s", len(fresh), rateNew/1e6)
	ds, err := store.Open(filepath.Join(*dir, "durable"), store.Options{Directed: true})
	if err != nil {
		return err
	}
	rateWal, err := ingest(ds, ops[:*writes/4], *walBatch)
	if err != nil {
		return err
	}
	ds.Close()
	say("ingest (wal, one record and one fsync per batch of %d): %.2fM writes/s", *walBatch, rateWal/1e6)

	// Compaction of base + the ingested delta, alone.
	t0 = time.Now()
	if err := s.Compact(); err != nil {
		return err
	}
	compact := time.Since(t0)
	say("compaction of %d base + %d delta edges into one csr snapshot: %.2fs = %.2f x build (target <= 2)",
		g.NumEdges(), 2**writes, compact.Seconds(), compact.Seconds()/build.Seconds())

	// Query latency idle and during a compaction, on a version with a
	// small delta (fresh solves, seeds at random nodes with out-edges).
	small := *writes / 20
	if _, err := writeAs(s, "w", randomEdges(small)); err != nil {
		return err
	}
	v := s.Current()
	seedOf := func() (ppr.Seeds, error) {
		for {
			u := uint32(rng.IntN(g.NumNodes()))
			if g.OutWeight(u) > 0 {
				return ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: u, Weight: 1}})
			}
		}
	}
	// The same seed sets, in the same order, idle and during compaction.
	qseeds := make([]ppr.Seeds, *trials)
	for i := range qseeds {
		if qseeds[i], err = seedOf(); err != nil {
			return err
		}
	}
	nq := 0
	query := func(v *store.Version) (time.Duration, error) {
		seeds := qseeds[nq%len(qseeds)]
		nq++
		t0 := time.Now()
		_, err := v.Solve(nil, seeds, *damping, *qtol)
		return time.Since(t0), err
	}
	// Rounds alternate the compaction thread's priority: normal, then
	// lowered to --compact-nice.
	var idle, busy, busyNice []time.Duration
	for round := 0; round < 6 && (len(busy) < *trials || len(busyNice) < *trials); round++ {
		roundNice := 0
		if round%2 == 1 {
			roundNice = *nice
		}
		s.SetCompactNice(roundNice)
		if round > 0 {
			if _, err := writeAs(s, "w", randomEdges(small)); err != nil {
				return err
			}
		}
		v := s.Current()
		t0 := time.Now()
		if _, err := query(v); err != nil { // builds the version's overlay
			return err
		}
		if round == 0 {
			say("first query on a version with a %d-edge delta (builds its overlay): %.0f ms", small, ms(time.Since(t0)))
		}
		nq = 0
		for range *trials {
			d, err := query(v)
			if err != nil {
				return err
			}
			idle = append(idle, d)
		}
		var compacting atomic.Bool
		compacting.Store(true)
		t0 = time.Now()
		done := make(chan error, 1)
		go func() { done <- s.Compact(); compacting.Store(false) }()
		nq = 0
		for compacting.Load() {
			d, err := query(v)
			if err != nil {
				return err
			}
			if compacting.Load() { // finished while the compaction ran
				if roundNice > 0 {
					busyNice = append(busyNice, d)
				} else {
					busy = append(busy, d)
				}
			}
		}
		if err := <-done; err != nil {
			return err
		}
		say("round %d (compaction nice %d): compaction with queries running %.2fs", round, roundNice, time.Since(t0).Seconds())
	}
	if len(busy) > 0 {
		say("query latency (solve to %.0e, d=%.2f, delta of %d edges): idle median %.0f ms, during compaction median %.0f ms (%d queries) = %.2f x (target <= 1.2)",
			*qtol, *damping, small, ms(median(idle)), ms(median(busy)), len(busy), ms(median(busy))/ms(median(idle)))
	} else {
		say("query latency: no query finished during a compaction")
	}
	if len(busyNice) > 0 {
		say("query latency with the compaction thread at nice %d: during compaction median %.0f ms (%d queries) = %.2f x idle",
			*nice, ms(median(busyNice)), len(busyNice), ms(median(busyNice))/ms(median(idle)))
	}
	var after []time.Duration
	for range *trials {
		d, err := query(s.Current())
		if err != nil {
			return err
		}
		after = append(after, d)
	}
	say("query latency after compaction (empty delta, ppr kernels): median %.0f ms", ms(median(after)))

	// Cached PPR: 100 random writes, then update against a solve.
	cache := &store.Cache{Tol: *tol}
	var upd, scratch []time.Duration
	var updArcs, scratchArcs []float64
	for range *trials {
		v := s.Current()
		seeds, err := seedOf()
		if err != nil {
			return err
		}
		if _, _, err := cache.Query(v, nil, seeds, *damping); err != nil {
			return err
		}
		if _, err := writeAs(s, "w", randomEdges(100)); err != nil {
			return err
		}
		v = s.Current()
		t0 := time.Now()
		sol, how, err := cache.Query(v, nil, seeds, *damping)
		if err != nil {
			return err
		}
		upd = append(upd, time.Since(t0))
		if how != store.Updated {
			return fmt.Errorf("store-bench: cache answered %s, want updated", how)
		}
		t0 = time.Now()
		ref, err := v.Solve(nil, seeds, *damping, *tol)
		if err != nil {
			return err
		}
		scratch = append(scratch, time.Since(t0))
		updArcs = append(updArcs, float64(sol.Stats.ArcOps))
		scratchArcs = append(scratchArcs, float64(ref.Stats.ArcOps))
	}
	say("cached update after 100 random writes (tol %.0e): median %.1f ms vs solve %.1f ms = %.3f x (target <= 0.1); arc ops median %.3g vs %.3g",
		*tol, ms(median(upd)), ms(median(scratch)), ms(median(upd))/ms(median(scratch)), medianF(updArcs), medianF(scratchArcs))
	return nil
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
