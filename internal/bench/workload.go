package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Regime says how much structure comes from untrusted channels.
type Regime int

const (
	// Few: a handful of untrusted writes, 0.01% of edges (at least 1): the
	// selection-integrity paper's threat model.
	Few Regime = iota
	// OnePercent: 1% of all edges from an untrusted channel, spread at random.
	OnePercent
	// Attack: no random untrusted edges; per query a few untrusted edges
	// placed to pull a passage just outside the top-k into it.
	Attack
)

func (r Regime) String() string {
	switch r {
	case Few:
		return "few"
	case OnePercent:
		return "one-percent"
	case Attack:
		return "attack"
	}
	return fmt.Sprintf("Regime(%d)", int(r))
}

// ParseRegime accepts the names String returns.
func ParseRegime(s string) (Regime, error) {
	for r := Few; r <= Attack; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("bench: unknown regime %q, want few, one-percent or attack", s)
}

// Workload is a graph with provenance labels, a trust policy and queries.
type Workload struct {
	Name    string
	Graph   *csr.Graph
	Labels  *mask.Labels
	Trust   mask.Policy
	Damping float64
	Queries []Query
}

// share returns the untrusted share of edges for a random regime.
func (r Regime) share() float64 {
	switch r {
	case Few:
		return 0.0001
	case OnePercent:
		return 0.01
	}
	return 0
}

// RelabelRandom labels each edge of g as written by UntrustedChannel with
// probability share (at least one edge when share > 0), the rest by
// TrustedChannel, deterministic in seed.
func RelabelRandom(g *csr.Graph, share float64, seed uint64) *mask.Labels {
	rng := rand.New(rand.NewPCG(seed, 0x6c6162656c))
	m := g.NumEdges()
	var trusted, untrusted []uint32
	for e := range m {
		if rng.Float64() < share {
			untrusted = append(untrusted, uint32(e))
		} else {
			trusted = append(trusted, uint32(e))
		}
	}
	if share > 0 && len(untrusted) == 0 && m > 0 {
		untrusted = append(untrusted, trusted[len(trusted)-1])
		trusted = trusted[:len(trusted)-1]
	}
	l := mask.NewLabels(m)
	// Edge ids come from g, so they are in range: errors cannot happen.
	if err := l.Add(TrustedChannel, trusted...); err != nil {
		panic(err)
	}
	if err := l.Add(UntrustedChannel, untrusted...); err != nil {
		panic(err)
	}
	return l
}

// HippoQueries returns HippoRAG2-style retrievals on the memory graph (see
// DenseQueries).
func (m *Memory) HippoQueries(count, k int, seed uint64) []Query {
	return DenseQueries(m.Entities, m.Passages, count, k, seed)
}

// DenseQueries returns HippoRAG2-style retrievals, shaped like
// anchors/igraph_ppr.py's dense reset: 2-4 entity seeds with weight
// 1 each, plus every passage at 0.05 times a dense-retrieval score in
// [0, 1) (HippoRAG2's passage node weight), top-k over the passages.
func DenseQueries(entities, passages []uint32, count, k int, seed uint64) []Query {
	rng := rand.New(rand.NewPCG(seed, 0x686970706f))
	qs := make([]Query, count)
	for i := range qs {
		q := Query{ID: "q" + strconv.Itoa(i), K: k, Candidates: passages}
		for range 2 + rng.IntN(3) {
			q.Seeds = append(q.Seeds, ppr.Seed{Node: entities[rng.IntN(len(entities))], Weight: 1})
		}
		for _, p := range passages {
			q.Seeds = append(q.Seeds, ppr.Seed{Node: p, Weight: 0.05 * rng.Float64()})
		}
		qs[i] = q
	}
	return qs
}

// KGWorkload labels a graph from anchors/gen_graph.py kg (entity ids
// 0..entities-1, passages after them) under a random regime, with count
// dense HippoRAG-style queries (d = 0.5, top-5 passages).
func KGWorkload(name string, g *csr.Graph, entities int, regime Regime, count int, seed uint64) (*Workload, error) {
	if regime == Attack {
		return nil, fmt.Errorf("bench: %s: the attack regime needs a generated memory graph", name)
	}
	n := g.NumNodes()
	if entities < 1 || entities >= n {
		return nil, fmt.Errorf("bench: %s: %d entities in a %d-node graph", name, entities, n)
	}
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = uint32(i)
	}
	return &Workload{
		Name:    fmt.Sprintf("%s/%s", name, regime),
		Graph:   g,
		Labels:  RelabelRandom(g, regime.share(), seed),
		Trust:   mask.Trust(TrustedChannel),
		Damping: 0.5,
		Queries: DenseQueries(ids[:entities], ids[entities:], count, 5, seed),
	}, nil
}

// MemoryWorkload generates a memory graph of the given shape under a regime,
// with count HippoRAG-style queries (d = 0.5, top-5 passages). Under Attack,
// each query gets its own attack: untrusted edges from each of its seed
// entities to the passage ranked just outside its clean top-k (rank k+2),
// all written into one attacked graph.
func MemoryWorkload(c MemoryConfig, regime Regime, count int, seed uint64) (*Workload, error) {
	const k, damping = 5, 0.5
	c.UntrustedShare = 0
	m, err := NewMemory(c)
	if err != nil {
		return nil, err
	}
	queries := m.HippoQueries(count, k, seed)
	if regime == Attack {
		extra, err := attackEdges(m, queries, damping)
		if err != nil {
			return nil, err
		}
		c.Extra = extra
		if m, err = NewMemory(c); err != nil {
			return nil, err
		}
	}
	w := &Workload{
		Name:    fmt.Sprintf("memory-%dk/%s", (c.Entities+c.Passages)/1000, regime),
		Graph:   m.Graph,
		Trust:   mask.Trust(TrustedChannel),
		Damping: damping,
		Queries: queries,
	}
	if regime == Attack {
		w.Labels = mask.FromGraph(m.Graph)
	} else {
		w.Labels = RelabelRandom(m.Graph, regime.share(), seed)
	}
	return w, nil
}

// attackEdges solves each query on the clean graph and returns, per query,
// untrusted edges from its entity seeds to its rank-(k+2) passage.
func attackEdges(m *Memory, queries []Query, damping float64) ([]csr.Input, error) {
	view := mask.Full(m.Graph)
	var extra []csr.Input
	for _, q := range queries {
		seeds, err := ppr.NewSeeds(m.Graph.NumNodes(), q.Seeds)
		if err != nil {
			return nil, err
		}
		res, err := ppr.Solve(view, seeds, damping, ppr.Options{Tol: 1e-9})
		if err != nil {
			return nil, err
		}
		top := ppr.TopK(res.Scores, q.K+2, q.Candidates, nil)
		target := m.Graph.Name(top[len(top)-1].Node)
		for _, s := range q.Seeds {
			if int(s.Node) >= len(m.Entities) {
				break // passages follow the entities in the seed list
			}
			extra = append(extra, csr.Input{Src: m.Graph.Name(s.Node), Dst: target, Weight: 1, Channel: UntrustedChannel})
		}
	}
	return extra, nil
}

// GraphWorkload labels a loaded graph under a random regime and adds count
// queries of 1-5 uniformly drawn seed nodes, top-k over every node.
func GraphWorkload(name string, g *csr.Graph, regime Regime, damping float64, count, k int, seed uint64) (*Workload, error) {
	if regime == Attack {
		return nil, fmt.Errorf("bench: %s: the attack regime needs a memory graph", name)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6772617068))
	w := &Workload{
		Name:    fmt.Sprintf("%s/%s", name, regime),
		Graph:   g,
		Labels:  RelabelRandom(g, regime.share(), seed),
		Trust:   mask.Trust(TrustedChannel),
		Damping: damping,
	}
	for i := range count {
		q := Query{ID: "q" + strconv.Itoa(i), K: k}
		for range 1 + rng.IntN(5) {
			q.Seeds = append(q.Seeds, ppr.Seed{Node: uint32(rng.IntN(g.NumNodes())), Weight: 1})
		}
		w.Queries = append(w.Queries, q)
	}
	return w, nil
}
