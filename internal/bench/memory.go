package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/ppr"
)

// Channel names used by generated graphs.
const (
	TrustedChannel   = csr.DefaultChannel
	UntrustedChannel = "peer"
)

// MemoryConfig shapes a HippoRAG-like memory graph (undirected): entity
// nodes, passage nodes, passage-entity mention edges (entities drawn from a
// Zipf popularity law), relation edges between entities mentioned in the
// same passage (the extracted triples) and synonym edges between entities.
type MemoryConfig struct {
	Entities, Passages       int
	MentionsMin, MentionsMax int     // entity mentions per passage, uniform in [min, max]
	Relations                int     // relation edges per passage, among its entities
	Synonyms                 float64 // synonym edges per entity
	UntrustedShare           float64 // each edge is written by UntrustedChannel with this probability
	Seed                     uint64
	// Extra edges are appended after the generated ones (attacks use this).
	Extra []csr.Input
}

// DefaultMemory is a small memory graph that builds in well under a second.
var DefaultMemory = MemoryConfig{
	Entities: 40000, Passages: 10000, MentionsMin: 3, MentionsMax: 9, Relations: 2, Synonyms: 0.2,
	UntrustedShare: 0.01, Seed: 1,
}

// HippoMemory is the size the replay targets are stated for: 250k nodes and
// about 2.5M arcs, like anchors/gen_graph.py's KG.
var HippoMemory = MemoryConfig{
	Entities: 200000, Passages: 50000, MentionsMin: 5, MentionsMax: 20, Relations: 6, Synonyms: 0.25,
	Seed: 1,
}

// Memory is a generated memory graph with its node roles.
type Memory struct {
	Graph    *csr.Graph
	Entities []uint32 // ids of entity nodes
	Passages []uint32 // ids of passage nodes: the candidates a retriever selects from
	config   MemoryConfig
}

// EntityName and PassageName give generated node names.
func EntityName(i int) string  { return "e" + strconv.Itoa(i) }
func PassageName(i int) string { return "p" + strconv.Itoa(i) }

// NewMemory generates the graph. Entities take ids 0..Entities-1 and
// passages the ids after them.
func NewMemory(c MemoryConfig) (*Memory, error) {
	if c.Entities < 2 || c.Passages < 1 || c.MentionsMin < 1 || c.MentionsMax < c.MentionsMin {
		return nil, fmt.Errorf("bench: memory config %+v: need at least 2 entities, 1 passage, 1 <= MentionsMin <= MentionsMax", c)
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
		id, err := b.AddNode(EntityName(i))
		if err != nil {
			return nil, err
		}
		m.Entities = append(m.Entities, id)
	}
	for i := range c.Passages {
		id, err := b.AddNode(PassageName(i))
		if err != nil {
			return nil, err
		}
		m.Passages = append(m.Passages, id)
	}
	add := func(src, dst string, w float64) error {
		ch := TrustedChannel
		if c.UntrustedShare > 0 && rng.Float64() < c.UntrustedShare {
			ch = UntrustedChannel
		}
		_, err := b.AddEdge(csr.Input{Src: src, Dst: dst, Weight: w, Channel: ch})
		return err
	}
	var mentioned []string
	for p := range c.Passages {
		mentioned = mentioned[:0]
		for range c.MentionsMin + rng.IntN(c.MentionsMax-c.MentionsMin+1) {
			e := EntityName(int(popular.Uint64()))
			mentioned = append(mentioned, e)
			if err := add(PassageName(p), e, 1); err != nil {
				return nil, err
			}
		}
		for range c.Relations {
			i, j := rng.IntN(len(mentioned)), rng.IntN(len(mentioned))
			if mentioned[i] == mentioned[j] {
				continue
			}
			if err := add(mentioned[i], mentioned[j], 1); err != nil {
				return nil, err
			}
		}
	}
	// Synonyms link entities by embedding similarity, with the similarity as
	// weight, as HippoRAG2 builds them.
	for range int(c.Synonyms * float64(c.Entities)) {
		e, f := rng.IntN(c.Entities), rng.IntN(c.Entities)
		if e == f {
			continue
		}
		if err := add(EntityName(e), EntityName(f), 0.8+0.2*rng.Float64()); err != nil {
			return nil, err
		}
	}
	for i, in := range c.Extra {
		if _, err := b.AddEdge(in); err != nil {
			return nil, fmt.Errorf("bench: extra edge %d: %w", i, err)
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
