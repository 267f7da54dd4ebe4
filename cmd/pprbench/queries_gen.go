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
	r, err := newQueriesRun(args, stderr)
	if err != nil {
		return err
	}
	defer r.ld.close()
	if r.kind == "live" {
		return writeLiveStream(r.ld.g, r.entities, r.live, r.outPath, stdout)
	}
	qs, err := r.make()
	if err != nil {
		return err
	}
	return r.write(stdout, qs)
}

// queriesRun is one queries run: what to draw, and the graph.
type queriesRun struct {
	kind, outPath      string
	count, k, perQuery int
	entities           int
	seed               uint64
	live               liveStreamConfig // --kind live
	ld                 *loaded
}

// newQueriesRun parses queries' flags, checks them and loads the graph.
// The caller must close r.ld.
func newQueriesRun(args []string, stderr io.Writer) (*queriesRun, error) {
	fs := flag.NewFlagSet("queries", flag.ContinueOnError)
	var gf graphFlags
	gf.registerOrdered(fs, "stream") // ids are drawn in stream order
	r := &queriesRun{}
	fs.StringVar(&r.kind, "kind", "seeds", "seeds (a few random seeds with out-edges), dense (HippoRAG2 dense passage reset; needs --entities), entities (HippoRAG: entity seeds, passages as candidates; needs --entities) or live (an event stream for 'pprbench live': write batches between queries drawn from a pool of recurring ones; needs --entities)")
	fs.IntVar(&r.live.pool, "pool", 50, "--kind live: recurring queries the stream draws from")
	fs.IntVar(&r.live.batch, "batch", 10, "--kind live: writes per batch, one batch between queries")
	fs.Float64Var(&r.live.untrusted, "untrusted", 0.1, "--kind live: share of batches written by the untrusted channel 'peer' (the others by 'default'; a fifth of the slots also carry a merge by 'resolver')")
	reset := fs.String("reset", "dense", "--kind live: the pool's queries: dense (HippoRAG2's passage reset) or entities (entity seeds only)")
	fs.IntVar(&r.count, "count", 20, "how many queries")
	fs.IntVar(&r.k, "k", 10, "top-k per query")
	fs.IntVar(&r.perQuery, "seeds-per-query", 5, "--kind seeds and entities: distinct seeds per query, weight 1 each")
	fs.IntVar(&r.entities, "entities", 0, "--kind dense and entities: the first N nodes (stream order) are entities, the rest passages")
	fs.Uint64Var(&r.seed, "seed", 1, "random seed (the same seed gives the same file)")
	fs.StringVar(&r.outPath, "out", "", "output file (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := r.check(given(fs), &gf, *reset); err != nil {
		return nil, err
	}
	r.live.queries, r.live.k, r.live.dense, r.live.seed, r.live.seedsPerQuery = r.count, r.k, *reset == "dense", r.seed, r.perQuery
	var err error
	if r.ld, _, err = gf.load(stderr); err != nil {
		return nil, err
	}
	if n := r.ld.g.NumNodes(); r.kind != "seeds" && (r.entities < 1 || r.entities >= n) {
		r.ld.close()
		return nil, fmt.Errorf("%w: --kind %s needs --entities between 1 and %d (the graph has %d nodes), got %d", errUsage, r.kind, n-1, n, r.entities)
	}
	return r, nil
}

// check checks the flags given (set) before the graph is read.
func (r *queriesRun) check(set map[string]bool, gf *graphFlags, reset string) error {
	if r.count < 1 || r.k < 1 {
		return fmt.Errorf("%w: --count %d and --k %d, want both at least 1", errUsage, r.count, r.k)
	}
	if err := firstErr(
		gf.check(set), checkChoice("kind", r.kind, "seeds", "dense", "entities", "live"),
		checkAtLeast("seeds-per-query", r.perQuery, 1),
		checkAtLeast("pool", r.live.pool, 1), checkAtLeast("batch", r.live.batch, 1),
		checkChoice("reset", reset, "dense", "entities"),
		onlyWith(set, r.kind == "live", "with --kind live", "pool", "batch", "untrusted", "reset"),
		onlyWith(set, r.kind != "seeds", "with --kind dense, entities or live", "entities"),
		onlyWith(set, r.kind != "dense", "with --kind seeds or entities", "seeds-per-query"),
	); err != nil {
		return err
	}
	if gf.order != "stream" && gf.order != "" {
		return fmt.Errorf("%w: queries name nodes, so --order changes nothing: leave it out", errUsage)
	}
	if u := r.live.untrusted; !(u >= 0 && u <= 1) {
		return fmt.Errorf("%w: --untrusted %v, want a share in [0, 1]", errUsage, u)
	}
	return nil
}

// make draws the queries of --kind seeds, entities or dense.
func (r *queriesRun) make() ([]bench.Query, error) {
	g := r.ld.g
	ids := make([]uint32, g.NumNodes())
	for i := range ids {
		ids[i] = uint32(i)
	}
	switch r.kind {
	case "seeds":
		return randomSeedQueries(g, ids, nil, r.count, r.k, r.perQuery, r.seed)
	case "entities":
		return randomSeedQueries(g, ids[:r.entities], ids[r.entities:], r.count, r.k, r.perQuery, r.seed)
	default: // dense
		return bench.DenseQueries(ids[:r.entities], ids[r.entities:], r.count, r.k, r.seed), nil
	}
}

// write writes the queries to --out (or stdout).
func (r *queriesRun) write(stdout io.Writer, qs []bench.Query) error {
	out, closeOut, err := createOutput(r.outPath, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	if err := writeQueries(w, r.ld.g, qs); err != nil {
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
