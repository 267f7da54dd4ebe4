package attack

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/authppr/authppr/csr"
)

// Memory is a graph with the roles selectors need: passages (the
// candidates) and entities (everything else).
type Memory struct {
	Name        string
	Graph       *csr.Graph
	Entities    []uint32
	Passages    []uint32
	isCandidate []bool
	// spare lists the entities by arcs to passages, then arcs, then id:
	// the low-value entities a laundering attack plants its edges at.
	spare []uint32
}

// NewMemory makes a memory of an undirected graph whose passages (the
// candidates) are given; every other node is an entity. Generated memory
// graphs (internal/bench's NewMemory) give their passages; SplitRoles
// draws them for a graph that has none.
func NewMemory(name string, g *csr.Graph, passages []uint32) (*Memory, error) {
	if g.Directed() {
		return nil, fmt.Errorf("attack: %s: directed graphs are not supported (merges and distances assume undirected edges)", name)
	}
	m := &Memory{Name: name, Graph: g, Passages: passages, isCandidate: make([]bool, g.NumNodes())}
	for _, p := range passages {
		m.isCandidate[p] = true
	}
	for u := range g.NumNodes() {
		if !m.isCandidate[u] {
			m.Entities = append(m.Entities, uint32(u))
		}
	}
	if len(m.Entities) == 0 || len(passages) == 0 {
		return nil, fmt.Errorf("attack: %s: %d entities and %d passages, want both", name, len(m.Entities), len(passages))
	}
	out := g.Out()
	type linked struct{ passages, arcs int }
	links := make([]linked, g.NumNodes())
	for _, e := range m.Entities {
		lo, hi := out.Span(e)
		n := 0
		for _, x := range out.Nbr[lo:hi] {
			if m.isCandidate[x] {
				n++
			}
		}
		links[e] = linked{n, hi - lo}
	}
	m.spare = slices.Clone(m.Entities)
	slices.SortFunc(m.spare, func(a, b uint32) int {
		la, lb := links[a], links[b]
		return cmp.Or(cmp.Compare(la.passages, lb.passages), cmp.Compare(la.arcs, lb.arcs), cmp.Compare(a, b))
	})
	return m, nil
}

// SplitRoles turns a graph without passages (a knowledge graph such as
// WN18RR) into a memory: a share of its nodes, drawn from seed, play the
// passages, the rest the entities.
func SplitRoles(name string, g *csr.Graph, passageShare float64, seed uint64) (*Memory, error) {
	if !(passageShare > 0 && passageShare < 1) {
		return nil, fmt.Errorf("attack: %s: passage share %v, want (0, 1)", name, passageShare)
	}
	rng := rand.New(rand.NewPCG(seed, 0x726f6c6573))
	var passages []uint32
	for u := range g.NumNodes() {
		if rng.Float64() < passageShare {
			passages = append(passages, uint32(u))
		}
	}
	return NewMemory(name, g, passages)
}

// Queries draws count questions about the memory: each picks a passage
// that mentions at least one entity and asks about 1-3 of its entities.
// The content score of a passage is half noise, half the share of the
// question's entities it mentions (a stand-in for a dense retriever that
// reads passage text), in [0, 1).
func (m *Memory) Queries(count, k int, seed uint64) ([]Query, error) {
	if k < 1 || count < 1 {
		return nil, fmt.Errorf("attack: %s: %d queries with k = %d, want both at least 1", m.Name, count, k)
	}
	rng := rand.New(rand.NewPCG(seed, 0x71756572696573))
	g := m.Graph
	out := g.Out()
	var usable []uint32 // passages that mention an entity
	for _, p := range m.Passages {
		if len(m.mentions(p)) > 0 {
			usable = append(usable, p)
		}
	}
	if len(usable) == 0 {
		return nil, fmt.Errorf("attack: %s: no passage mentions an entity", m.Name)
	}
	qs := make([]Query, count)
	for i := range qs {
		ents := m.mentions(usable[rng.IntN(len(usable))])
		rng.Shuffle(len(ents), func(a, b int) { ents[a], ents[b] = ents[b], ents[a] })
		ents = ents[:min(len(ents), 1+rng.IntN(3))]
		q := Query{ID: "q" + strconv.Itoa(i), Entities: ents, Candidates: m.Passages, K: k,
			Content: make([]float64, len(m.Passages))}
		for j, p := range m.Passages {
			lo, hi := out.Span(p)
			hits := 0
			for _, e := range ents {
				if slices.Contains(out.Nbr[lo:hi], e) {
					hits++
				}
			}
			// rng.Float64() < 1 keeps the sum below 1.
			q.Content[j] = 0.5*rng.Float64() + 0.5*float64(hits)/float64(len(ents))
		}
		qs[i] = q
	}
	return qs, nil
}

// mentions returns the distinct entities adjacent to p, ascending.
func (m *Memory) mentions(p uint32) []uint32 {
	out := m.Graph.Out()
	lo, hi := out.Span(p)
	var ents []uint32
	for _, x := range out.Nbr[lo:hi] {
		if !m.isCandidate[x] {
			ents = append(ents, x)
		}
	}
	slices.Sort(ents)
	return slices.Compact(ents)
}
