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
	pool, err := livePool(g, entities, c)
	if err != nil {
		return err
	}
	out, closeOut, err := createOutput(path, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	s := &liveStream{g: g, entities: entities, rng: rand.New(rand.NewPCG(c.seed, 0x6c697665)), enc: json.NewEncoder(w)}
	for i := range c.queries {
		if err := s.batch(c.batch, c.untrusted); err != nil {
			return err
		}
		if err := s.maybeMerge(); err != nil {
			return err
		}
		q := pool[s.rng.IntN(len(pool))]
		ev := map[string]any{"query": query.Named(fmt.Sprintf("%s-%d", q.ID, i), q.Seeds, q.K, q.Candidates, g.Name)}
		if err := s.enc.Encode(ev); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return closeOut()
}

// livePool draws the stream's recurring queries: dense (HippoRAG2's
// passage reset) or entity seeds, top-k over the passages.
func livePool(g *csr.Graph, entities int, c liveStreamConfig) ([]bench.Query, error) {
	ids := make([]uint32, g.NumNodes())
	for i := range ids {
		ids[i] = uint32(i)
	}
	if c.dense {
		return bench.DenseQueries(ids[:entities], ids[entities:], c.pool, c.k, c.seed), nil
	}
	return randomSeedQueries(g, ids[:entities], ids[entities:], c.pool, c.k, c.seedsPerQuery, c.seed)
}

// liveOp and liveWrite are a write event's JSON (internal/live's format).
type liveOp struct {
	Op     string   `json:"op"`
	Src    string   `json:"src,omitempty"`
	Dst    string   `json:"dst,omitempty"`
	Weight *float64 `json:"weight,omitempty"`
	From   string   `json:"from,omitempty"`
	Into   string   `json:"into,omitempty"`
}

type liveWrite struct {
	Channel string   `json:"channel"`
	Ops     []liveOp `json:"ops"`
}

// liveStream writes the events of a stream over g, drawing from rng.
type liveStream struct {
	g        *csr.Graph
	entities int // the first entities nodes are entities, the rest passages
	rng      *rand.Rand
	enc      *json.Encoder
}

func (s *liveStream) entity() string { return s.g.Name(uint32(s.rng.IntN(s.entities))) }
func (s *liveStream) passage() string {
	return s.g.Name(uint32(s.entities + s.rng.IntN(s.g.NumNodes()-s.entities)))
}

// batch writes one batch of size edge writes (entity-entity facts and
// entity-passage links, half each on average) by "default", or with
// probability untrusted by "peer".
func (s *liveStream) batch(size int, untrusted float64) error {
	channel := "default"
	if s.rng.Float64() < untrusted {
		channel = "peer"
	}
	wr := liveWrite{Channel: channel}
	one := 1.0
	for range size {
		if s.rng.IntN(2) == 0 {
			wr.Ops = append(wr.Ops, liveOp{Op: "edge", Src: s.entity(), Dst: s.entity(), Weight: &one})
		} else {
			wr.Ops = append(wr.Ops, liveOp{Op: "edge", Src: s.entity(), Dst: s.passage(), Weight: &one})
		}
	}
	return s.enc.Encode(map[string]any{"write": wr})
}

// maybeMerge writes, one time in five, a merge by "resolver": entity
// resolution merging duplicates, a low-degree entity (a hub would rewire
// thousands of edges) into another.
func (s *liveStream) maybeMerge() error {
	if s.rng.IntN(5) != 0 {
		return nil
	}
	from, into := s.entity(), s.entity()
	for try := 0; try < 100 && degree(s.g, from) > 16; try++ {
		from = s.entity()
	}
	if from == into {
		return nil
	}
	merge := liveWrite{Channel: "resolver", Ops: []liveOp{{Op: "merge", From: from, Into: into}}}
	return s.enc.Encode(map[string]any{"write": merge})
}

// degree returns the out-degree of the node named name in g.
func degree(g *csr.Graph, name string) int {
	u, _ := g.ID(name)
	lo, hi := g.Out().Span(u)
	return hi - lo
}
