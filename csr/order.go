package csr

import "fmt"

// NodeOrder chooses how Build numbers the nodes.
type NodeOrder int

const (
	// StreamOrder numbers nodes in order of first appearance (the default).
	StreamOrder NodeOrder = iota
	// DegreeOrder numbers nodes by descending degree (arcs in plus arcs
	// out), ties by first appearance. A sweep gathers x(u) once per arc of
	// u, so this packs the entries read most into the fewest cache lines;
	// it pays off when the vectors outgrow the cache (measure with
	// 'pprbench sweep --reorder'). Names map to the new ids, edge ids do not
	// change, and Rank gives back each node's first-appearance rank, which
	// is what ties are broken by (ppr.TopKRanked), so reordering changes no
	// result by name.
	DegreeOrder
)

// String names the order as the CLI flags spell it.
func (o NodeOrder) String() string {
	switch o {
	case StreamOrder:
		return "stream"
	case DegreeOrder:
		return "degree"
	}
	return fmt.Sprintf("NodeOrder(%d)", int(o))
}

// ParseNodeOrder reads "stream" or "degree".
func ParseNodeOrder(s string) (NodeOrder, error) {
	switch s {
	case "stream", "":
		return StreamOrder, nil
	case "degree":
		return DegreeOrder, nil
	}
	return 0, fmt.Errorf("csr: node order %q, want stream or degree", s)
}

// SetNodeOrder chooses how Build numbers the nodes. Until Build, ids
// returned by AddNode and AddEdge are first-appearance ranks.
func (b *Builder) SetNodeOrder(o NodeOrder) { b.order = o }

// Rank returns u's first-appearance rank: its id had the graph been built in
// StreamOrder. It is u itself for a graph built in StreamOrder.
func (g *Graph) Rank(u uint32) uint32 {
	if g.rank == nil {
		return u
	}
	return g.rank[u]
}

// Ranks returns every node's first-appearance rank, indexed by id, or nil
// when ids are in stream order (every rank equals its id). The slice must
// not be modified.
func (g *Graph) Ranks() []uint32 { return g.rank }

// degreeOrder renumbers the builder's nodes by descending degree, ties by
// first appearance (a stable counting sort on degree), rewriting names, the
// name dictionary and every edge endpoint. It returns the rank of each new
// id.
func (b *Builder) degreeOrder() []uint32 {
	n := len(b.names)
	deg := make([]uint32, n)
	for e := range b.src {
		deg[b.src[e]]++
		deg[b.dst[e]]++
	}
	maxDeg := uint32(0)
	for _, d := range deg {
		maxDeg = max(maxDeg, d)
	}
	// start[d] is the first new id of the nodes of degree d, highest first.
	start := make([]uint32, int(maxDeg)+2)
	for _, d := range deg {
		start[maxDeg-d+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	newID := deg // reused: deg[u] is read before newID[u] is written
	rank := make([]uint32, n)
	for u := range n {
		slot := maxDeg - deg[u]
		id := start[slot]
		start[slot]++
		newID[u] = id
		rank[id] = uint32(u)
	}
	names := make([]string, n)
	for id, old := range rank {
		names[id] = b.names[old]
	}
	b.names = names
	for name, old := range b.ids {
		b.ids[name] = newID[old]
	}
	for e := range b.src {
		b.src[e], b.dst[e] = newID[b.src[e]], newID[b.dst[e]]
	}
	return rank
}

// Reorder returns a copy of g with its nodes numbered in order o: the graph
// Build would have made from g's edge stream with SetNodeOrder(o). Names,
// edges, edge ids, channels and relations are g's; only node ids change (and
// Rank records the first-appearance rank, so reordering twice is harmless).
// g is not modified.
func Reorder(g *Graph, o NodeOrder) (*Graph, error) {
	n, m := g.NumNodes(), g.NumEdges()
	b := &Builder{
		directed: g.directed,
		ids:      make(map[string]uint32, n),
		names:    make([]string, n),
		src:      make([]uint32, m),
		dst:      make([]uint32, m),
		weight:   append([]float64(nil), g.edgeWeight.AsFloat64()...),
		channel:  append([]uint32(nil), g.edgeChannel...),
		channels: g.channels,
		order:    o,
	}
	if !g.edgeWeight.Is32() {
		b.storage = Float64Storage // keep g's storage
	}
	if g.edgeRelation != nil {
		b.relation, b.relations, b.hasRelations = append([]uint32(nil), g.edgeRelation...), g.relations, true
	}
	for u, name := range g.Names() {
		r := g.Rank(uint32(u))
		b.names[r] = name
		b.ids[name] = r
	}
	for e := range m {
		b.src[e], b.dst[e] = g.Rank(g.edgeSrc[e]), g.Rank(g.edgeDst[e])
	}
	return b.Build()
}
