package csr

import "fmt"

// Parts are the arrays a snapshot is made of, for code that stores and
// loads snapshots. Slices returned by Graph.Parts belong to the graph and
// must not be modified; slices given to Assemble become the graph's.
type Parts struct {
	Directed bool
	Names    []string

	EdgeSrc, EdgeDst []uint32
	EdgeWeight       []float64
	EdgeChannel      []uint32 // index into Channels
	Channels         []string
	EdgeRelation     []uint32 // index into Relations; nil when the stream had none
	Relations        []string

	Out Adjacency
	In  Adjacency // ignored by Assemble for undirected graphs (In is Out)

	OutWeight []float64

	// Rank is each node's first-appearance rank when the ids were
	// reordered (Builder.SetNodeOrder), nil when they were not.
	Rank []uint32
}

// Parts returns the graph's arrays.
func (g *Graph) Parts() Parts {
	return Parts{
		Directed: g.directed, Names: g.names,
		EdgeSrc: g.edgeSrc, EdgeDst: g.edgeDst, EdgeWeight: g.edgeWeight,
		EdgeChannel: g.edgeChannel, Channels: g.channels,
		EdgeRelation: g.edgeRelation, Relations: g.relations,
		Out: g.out, In: g.in, OutWeight: g.outWeight, Rank: g.rank,
	}
}

// Assemble makes a graph of parts that came from outside (a file) and
// checks every invariant with Validate before returning it: a corrupt or
// inconsistent part is an error, never a wrong graph.
func Assemble(p Parts) (*Graph, error) {
	if len(p.Names) == 0 {
		return nil, fmt.Errorf("csr: assemble: no nodes")
	}
	g := &Graph{
		directed: p.Directed, names: p.Names, ids: make(map[string]uint32, len(p.Names)),
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
	for i, name := range p.Names {
		if name == "" {
			return nil, fmt.Errorf("csr: assemble: node %d has an empty name", i)
		}
		g.ids[name] = uint32(i)
	}
	if len(g.outWeight) != len(p.Names) {
		return nil, fmt.Errorf("csr: assemble: %d out-weights for %d nodes", len(g.outWeight), len(p.Names))
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	g.unit = true
	for _, w := range g.edgeWeight {
		if w != 1 {
			g.unit = false
			break
		}
	}
	return g, nil
}
