package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/query"
	"github.com/authppr/authppr/ppr"
)

// runQueries writes a query file (the format readQueries reads) for a
// graph, so that compare, solve and replay runs on the anchors' graphs can
// be reproduced: --kind seeds draws a few distinct seeds with out-edges
// (anchors/igraph_ppr.py's queries: 5 seeds of weight 1), --kind dense makes
// HippoRAG2-style retrievals (bench.DenseQueries: 2-4 entity seeds and a
// dense reset over every passage, top-k over the passages), --kind
// entities HippoRAG (v1) ones (--seeds-per-query entity seeds of weight 1,
// top-k over the passages), with the first --entities nodes in stream
// order as the entities (for anchors/gen_graph.py's KG file: its own ids
// 0..199999) and the rest as passages.
func runQueries(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("queries", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var gf graphFlags
	gf.registerOrdered(fs, "stream") // ids are drawn in stream order
	kind := fs.String("kind", "seeds", "seeds (a few random seeds with out-edges), dense (HippoRAG2 dense passage reset; needs --entities), entities (HippoRAG: entity seeds, passages as candidates; needs --entities) or live (an event stream for 'pprbench live': write batches between queries drawn from a pool of recurring ones; needs --entities)")
	pool := fs.Int("pool", 50, "--kind live: recurring queries the stream draws from")
	batchSize := fs.Int("batch", 10, "--kind live: writes per batch, one batch between queries")
	untrusted := fs.Float64("untrusted", 0.1, "--kind live: share of batches written by the untrusted channel 'peer' (the others by 'default'; a fifth of the slots also carry a merge by 'resolver')")
	reset := fs.String("reset", "dense", "--kind live: the pool's queries: dense (HippoRAG2's passage reset) or entities (entity seeds only)")
	count := fs.Int("count", 20, "how many queries")
	k := fs.Int("k", 10, "top-k per query")
	perQuery := fs.Int("seeds-per-query", 5, "--kind seeds and entities: distinct seeds per query, weight 1 each")
	entities := fs.Int("entities", 0, "--kind dense and entities: the first N nodes (stream order) are entities, the rest passages")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same file)")
	outPath := fs.String("out", "", "output file (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *count < 1 || *k < 1 {
		return fmt.Errorf("%w: --count %d and --k %d, want both at least 1", errUsage, *count, *k)
	}
	set := given(fs)
	if err := firstErr(
		gf.check(set), checkChoice("kind", *kind, "seeds", "dense", "entities", "live"),
		checkAtLeast("seeds-per-query", *perQuery, 1),
		checkAtLeast("pool", *pool, 1), checkAtLeast("batch", *batchSize, 1),
		checkChoice("reset", *reset, "dense", "entities"),
		onlyWith(set, *kind == "live", "with --kind live", "pool", "batch", "untrusted", "reset"),
		onlyWith(set, *kind != "seeds", "with --kind dense, entities or live", "entities"),
		onlyWith(set, *kind != "dense", "with --kind seeds or entities", "seeds-per-query"),
	); err != nil {
		return err
	}
	if gf.order != "stream" && gf.order != "" {
		return fmt.Errorf("%w: queries name nodes, so --order changes nothing: leave it out", errUsage)
	}
	ld, _, err := gf.load(stderr)
	if err != nil {
		return err
	}
	defer ld.close()
	g := ld.g
	var qs []bench.Query
	n := g.NumNodes()
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = uint32(i)
	}
	if !(*untrusted >= 0 && *untrusted <= 1) {
		return fmt.Errorf("%w: --untrusted %v, want a share in [0, 1]", errUsage, *untrusted)
	}
	if *kind != "seeds" && (*entities < 1 || *entities >= n) {
		return fmt.Errorf("%w: --kind %s needs --entities between 1 and %d (the graph has %d nodes), got %d", errUsage, *kind, n-1, n, *entities)
	}
	switch *kind {
	case "seeds":
		if qs, err = randomSeedQueries(g, ids, nil, *count, *k, *perQuery, *seed); err != nil {
			return err
		}
	case "entities":
		if qs, err = randomSeedQueries(g, ids[:*entities], ids[*entities:], *count, *k, *perQuery, *seed); err != nil {
			return err
		}
	case "dense":
		qs = bench.DenseQueries(ids[:*entities], ids[*entities:], *count, *k, *seed)
	case "live":
		return writeLiveStream(g, *entities, liveStreamConfig{queries: *count, pool: *pool, k: *k, batch: *batchSize,
			untrusted: *untrusted, dense: *reset == "dense", seed: *seed, seedsPerQuery: *perQuery}, *outPath, stdout)
	}
	out, closeOut, err := createOutput(*outPath, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	if err := writeQueries(w, g, qs); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return closeOut()
}

// randomSeedQueries draws count queries of perQuery distinct seeds each,
// uniformly among the nodes of pool with out-edges (a seed without
// out-edges would only send its mass back to itself), each ranking the
// candidates (nil: every node).
func randomSeedQueries(g *csr.Graph, pool, candidates []uint32, count, k, perQuery int, seed uint64) ([]bench.Query, error) {
	out := g.Out()
	var live []uint32
	for _, u := range pool {
		if lo, hi := out.Span(u); hi > lo {
			live = append(live, u)
		}
	}
	if perQuery < 1 || perQuery > len(live) {
		return nil, fmt.Errorf("%w: --seeds-per-query %d, want 1..%d (the nodes with out-edges)", errUsage, perQuery, len(live))
	}
	rng := rand.New(rand.NewPCG(seed, 0x7365656473))
	qs := make([]bench.Query, count)
	for i := range qs {
		q := bench.Query{ID: fmt.Sprintf("q%d", i), K: k, Candidates: candidates}
		chosen := make(map[uint32]bool, perQuery)
		for len(q.Seeds) < perQuery {
			u := live[rng.IntN(len(live))]
			if !chosen[u] {
				chosen[u] = true
				q.Seeds = append(q.Seeds, ppr.Seed{Node: u, Weight: 1})
			}
		}
		qs[i] = q
	}
	return qs, nil
}

// writeQueries writes one query line (internal/query) per query, nodes by
// name.
func writeQueries(w io.Writer, g *csr.Graph, qs []bench.Query) error {
	enc := json.NewEncoder(w)
	for _, q := range qs {
		if err := enc.Encode(query.Named(q.ID, q.Seeds, q.K, q.Candidates, g.Name)); err != nil {
			return err
		}
	}
	return nil
}
