package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/query"
)

// liveStreamConfig shapes the event stream of `queries --kind live`.
type liveStreamConfig struct {
	queries, pool, k, batch, seedsPerQuery int
	untrusted                              float64
	dense                                  bool
	seed                                   uint64
}

// writeLiveStream writes a living memory's event stream over g, whose
// first entities nodes (stream order) are entities and the rest passages:
// before each of c.queries queries (drawn from a pool of c.pool recurring
// ones, so that their states carry across versions), one batch of c.batch
// edge writes (entity-entity facts and entity-passage links) by "default",
// or with probability c.untrusted by "peer"; every fifth slot on average
// also a merge of one entity into another by "resolver".
func writeLiveStream(g *csr.Graph, entities int, c liveStreamConfig, path string, stdout io.Writer) error {
	n := g.NumNodes()
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = uint32(i)
	}
	var pool []bench.Query
	if c.dense {
		pool = bench.DenseQueries(ids[:entities], ids[entities:], c.pool, c.k, c.seed)
	} else {
		var err error
		if pool, err = randomSeedQueries(g, ids[:entities], ids[entities:], c.pool, c.k, c.seedsPerQuery, c.seed); err != nil {
			return err
		}
	}
	out, closeOut, err := createOutput(path, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	rng := rand.New(rand.NewPCG(c.seed, 0x6c697665))
	entity := func() string { return g.Name(uint32(rng.IntN(entities))) }
	passage := func() string { return g.Name(uint32(entities + rng.IntN(n-entities))) }
	type op struct {
		Op     string   `json:"op"`
		Src    string   `json:"src,omitempty"`
		Dst    string   `json:"dst,omitempty"`
		Weight *float64 `json:"weight,omitempty"`
		From   string   `json:"from,omitempty"`
		Into   string   `json:"into,omitempty"`
	}
	type write struct {
		Channel string `json:"channel"`
		Ops     []op   `json:"ops"`
	}
	one := 1.0
	for i := range c.queries {
		channel := "default"
		if rng.Float64() < c.untrusted {
			channel = "peer"
		}
		wr := write{Channel: channel}
		for range c.batch {
			if rng.IntN(2) == 0 {
				wr.Ops = append(wr.Ops, op{Op: "edge", Src: entity(), Dst: entity(), Weight: &one})
			} else {
				wr.Ops = append(wr.Ops, op{Op: "edge", Src: entity(), Dst: passage(), Weight: &one})
			}
		}
		if err := enc.Encode(map[string]any{"write": wr}); err != nil {
			return err
		}
		if rng.IntN(5) == 0 {
			// Entity resolution merges duplicates: a low-degree entity
			// (a hub would rewire thousands of edges) into another.
			from, into := entity(), entity()
			for try := 0; try < 100 && degree(g, from) > 16; try++ {
				from = entity()
			}
			if from != into {
				merge := write{Channel: "resolver", Ops: []op{{Op: "merge", From: from, Into: into}}}
				if err := enc.Encode(map[string]any{"write": merge}); err != nil {
					return err
				}
			}
		}
		q := pool[rng.IntN(len(pool))]
		ev := map[string]any{"query": query.Named(fmt.Sprintf("%s-%d", q.ID, i), q.Seeds, q.K, q.Candidates, g.Name)}
		if err := enc.Encode(ev); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return closeOut()
}

// degree returns the out-degree of the node named name in g.
func degree(g *csr.Graph, name string) int {
	u, _ := g.ID(name)
	lo, hi := g.Out().Span(u)
	return hi - lo
}
