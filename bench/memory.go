package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/ppr"
)

// Channel names used by generated graphs.
const (
	TrustedChannel   = csr.DefaultChannel
	UntrustedChannel = "peer"
)

// MemoryConfig shapes a HippoRAG-like memory graph: entity nodes, passage
// nodes, passage-entity (mention) edges, power-law entity-entity relation
// edges and synonym edges, undirected.
type MemoryConfig struct {
	Entities, Passages int
	Mentions           int     // entity mentions per passage (1..2*Mentions-1, mean Mentions)
	Relations          float64 // relation edges per entity
	Synonyms           float64 // synonym edges per entity
	UntrustedShare     float64 // each edge is written by UntrustedChannel with this probability
	Seed               uint64
}

// DefaultMemory is a small memory graph that builds in well under a second.
var DefaultMemory = MemoryConfig{
	Entities: 40000, Passages: 10000, Mentions: 6, Relations: 2, Synonyms: 0.2,
	UntrustedShare: 0.01, Seed: 1,
}

// Memory is a generated memory graph with its node roles.
type Memory struct {
	Graph    *csr.Graph
	Entities []uint32 // ids of entity nodes
	Passages []uint32 // ids of passage nodes: the candidates a retriever selects from
	config   MemoryConfig
}

// NewMemory generates the graph. Node names are "e<i>" and "p<i>"; entities
// take ids 0..Entities-1 and passages the ids after them.
func NewMemory(c MemoryConfig) (*Memory, error) {
	if c.Entities < 2 || c.Passages < 1 || c.Mentions < 1 {
		return nil, fmt.Errorf("bench: memory config %+v: need at least 2 entities, 1 passage, 1 mention", c)
	}
	if c.UntrustedShare < 0 || c.UntrustedShare > 1 {
		return nil, fmt.Errorf("bench: untrusted share %v, want [0, 1]", c.UntrustedShare)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6d656d6f7279))
	// Entity popularity follows a Zipf law, as mention counts do in text.
	popular := rand.NewZipf(rng, 1.1, 4, uint64(c.Entities-1))
	b := csr.NewBuilder(false)
	m := &Memory{config: c}
	for i := range c.Entities {
		id, err := b.AddNode(fmt.Sprint("e", i))
		if err != nil {
			return nil, err
		}
		m.Entities = append(m.Entities, id)
	}
	for i := range c.Passages {
		id, err := b.AddNode(fmt.Sprint("p", i))
		if err != nil {
			return nil, err
		}
		m.Passages = append(m.Passages, id)
	}
	add := func(src, dst string, w float64) error {
		ch := TrustedChannel
		if rng.Float64() < c.UntrustedShare {
			ch = UntrustedChannel
		}
		_, err := b.AddEdge(csr.Input{Src: src, Dst: dst, Weight: w, Channel: ch})
		return err
	}
	for p := range c.Passages {
		for range 1 + rng.IntN(2*c.Mentions-1) {
			if err := add(fmt.Sprint("p", p), fmt.Sprint("e", popular.Uint64()), 1); err != nil {
				return nil, err
			}
		}
	}
	for range int(c.Relations * float64(c.Entities)) {
		if err := add(fmt.Sprint("e", popular.Uint64()), fmt.Sprint("e", rng.IntN(c.Entities)), 1); err != nil {
			return nil, err
		}
	}
	// Synonyms link entities with similar names, here neighbouring ids, with
	// a similarity weight as HippoRAG2 gives them.
	for range int(c.Synonyms * float64(c.Entities)) {
		e := rng.IntN(c.Entities - 1)
		if err := add(fmt.Sprint("e", e), fmt.Sprint("e", e+1), 0.8+0.2*rng.Float64()); err != nil {
			return nil, err
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, err
	}
	m.Graph = g
	return m, nil
}

// Query is one retrieval: seeds, how many to select, and among which nodes
// (nil: all).
type Query struct {
	ID         string
	Seeds      []ppr.Seed
	K          int
	Candidates []uint32
}

// Queries returns count retrievals over the passages, each seeded by a few
// entities (as a question's extracted entities would be), deterministic in
// seed.
func (m *Memory) Queries(count, entitiesPerQuery, k int, seed uint64) []Query {
	rng := rand.New(rand.NewPCG(seed, 0x7175657279))
	qs := make([]Query, count)
	for i := range qs {
		q := Query{ID: fmt.Sprint("q", i), K: k, Candidates: m.Passages}
		for range entitiesPerQuery {
			q.Seeds = append(q.Seeds, ppr.Seed{Node: m.Entities[rng.IntN(len(m.Entities))], Weight: 0.5 + rng.Float64()})
		}
		qs[i] = q
	}
	return qs
}
