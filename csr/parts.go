package csr

import (
	"fmt"
	"hash/maphash"

	"github.com/authppr/authppr/internal/csrhook"
)

// graphParts are a graph's arrays, for code that stores and loads graphs
// (csrhook.Parts states the contract).
type graphParts = csrhook.Parts[Adjacency, Weights]

// parts returns the graph's arrays.
func (g *Graph) parts() graphParts {
	return graphParts{
		Directed: g.directed, Names: g.Names(), Owner: g.owner,
		EdgeSrc: g.edgeSrc, EdgeDst: g.edgeDst, EdgeWeight: g.edgeWeight,
		EdgeChannel: g.edgeChannel, Channels: g.channels,
		EdgeRelation: g.edgeRelation, Relations: g.relations,
		Out: g.out, In: g.in, OutWeight: g.outWeight, Rank: g.rank,
	}
}

// named returns a graph on g's arrays (shared, not copied) whose node i is
// named names[i]: for structure built by id (FromIDs) whose names are known
// apart, as a store's compaction knows them. g was checked when it was
// made and graphs never change, so only the names are checked here (as
// many as the nodes, non-empty, distinct); the name dictionary is built on
// first use, as assemble's is. g's own names are never made.
func named(g *Graph, names []string) (*Graph, error) {
	if len(names) != g.nodes {
		return nil, fmt.Errorf("csr: %d names for %d nodes", len(names), g.nodes)
	}
	if err := uniqueNames(names); err != nil {
		return nil, err
	}
	h := g.withArrays()
	h.names, h.lazyIDs = names, true
	return h, nil
}

// withArrays returns a graph sharing g's arrays, ranks and facts but none
// of its naming (names, dictionary, decimal names): the part every copy
// of a graph keeps, so that a field added to Graph is copied in one place.
// It holds g's owner, as every graph sharing an array of g must.
func (g *Graph) withArrays() *Graph {
	return &Graph{
		directed: g.directed, nodes: g.nodes, rank: g.rank, owner: g.owner,
		edgeSrc: g.edgeSrc, edgeDst: g.edgeDst, edgeWeight: g.edgeWeight,
		edgeChannel: g.edgeChannel, channels: g.channels,
		edgeRelation: g.edgeRelation, relations: g.relations,
		out: g.out, in: g.in, outWeight: g.outWeight, unit: g.unit,
	}
}

// hasRelations reports whether the graph's edges carry relations.
func (g *Graph) hasRelations() bool { return g.edgeRelation != nil }

// assemble makes a graph of parts that came from outside (a file) and
// checks every invariant checkAll checks before returning it: a corrupt or
// inconsistent part is an error, never a wrong graph.
func assemble(p graphParts) (*Graph, error) { return assembleVisit(p, nil) }

// assembleVisit is assemble calling visit (when not nil) for each block of
// the edge and arc arrays as its checks read them; see visitFunc.
func assembleVisit(p graphParts, visit visitFunc) (*Graph, error) {
	if len(p.Names) == 0 {
		return nil, fmt.Errorf("csr: assemble: no nodes")
	}
	g := &Graph{
		directed: p.Directed, nodes: len(p.Names), names: p.Names, lazyIDs: true, owner: p.Owner,
		edgeSrc: p.EdgeSrc, edgeDst: p.EdgeDst, edgeWeight: p.EdgeWeight,
		edgeChannel: p.EdgeChannel, channels: p.Channels,
		edgeRelation: p.EdgeRelation, relations: p.Relations,
		out: p.Out, in: p.In, outWeight: p.OutWeight, rank: p.Rank,
	}
	if !p.Directed {
		g.in = g.out
	}
	if g.channels == nil {
		g.channels = []string{}
	}
	if len(g.outWeight) != len(p.Names) {
		return nil, fmt.Errorf("csr: assemble: %d out-weights for %d nodes", len(g.outWeight), len(p.Names))
	}
	// The name dictionary is built on first use (Graph.ID); here the names
	// are only checked non-empty and distinct, which is what it needs.
	if err := g.validate(func() error { return uniqueNames(p.Names) }, visit); err != nil {
		return nil, err
	}
	g.unit = g.edgeWeight.allOnes()
	return g, nil
}

// uniqueNames reports the first empty or repeated name, without building a
// map: an open-addressing table of 64-bit words, each a 32-bit hash tag
// and a node index + 1, sized to at least twice the names. Equal tags are
// settled by comparing the names, so the answer is exact; the seed is
// random, so no input makes the probes slow on purpose. uniqueNamesMap (in
// the tests) is the plain map version it must agree with.
func uniqueNames(names []string) error {
	size := 1
	for size < 2*len(names) {
		size <<= 1
	}
	mask := uint64(size - 1)
	table := make([]uint64, size)
	seed := maphash.MakeSeed()
	for i, name := range names {
		if name == "" {
			return fmt.Errorf("csr: assemble: node %d has an empty name", i)
		}
		h := maphash.String(seed, name)
		tag := h >> 32 << 32
		for slot := h & mask; ; slot = (slot + 1) & mask {
			w := table[slot]
			if w == 0 {
				table[slot] = tag | uint64(i+1)
				break
			}
			if w>>32<<32 == tag {
				if j := int(uint32(w)) - 1; names[j] == name {
					return fmt.Errorf("csr: assemble: node %d: name %q repeats node %d", i, name, j)
				}
			}
		}
	}
	return nil
}
