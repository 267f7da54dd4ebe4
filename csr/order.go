package csr

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/authppr/authppr/internal/cpu"
)

// NodeOrder chooses how a graph's nodes are numbered, spelled as the
// CLI's --order flag spells it. The zero NodeOrder is StreamOrder.
type NodeOrder string

const (
	// StreamOrder numbers nodes in order of first appearance (the default).
	StreamOrder NodeOrder = "stream"
	// DegreeOrder numbers nodes by descending degree (arcs in plus arcs
	// out), ties by first appearance. A sweep gathers x(u) once per arc of
	// u, so this packs the entries read most into the fewest cache lines;
	// it pays off when the vectors outgrow the cache (measure with
	// 'pprbench sweep --reorder'). Names map to the new ids, edge ids do not
	// change, and Graph.Ranks gives back each node's first-appearance rank,
	// which is what ties are broken by (ppr.TopK with the graph's Ranks), so
	// reordering changes no result by name.
	DegreeOrder NodeOrder = "degree"
	// AutoOrder is DegreeOrder when the graph's vectors outgrow a core's
	// L2 cache (8 bytes per node > L2, the size cpuid reports, 1 MiB when
	// it reports none) and StreamOrder otherwise: a sweep's random gathers
	// then miss L2, and degree order keeps the most-read entries in it,
	// while a graph whose vectors fit gains less per sweep than the extra
	// sweeps a certified query can need in degree order cost (measured in
	// docs/benchmarks.md, package csr).
	AutoOrder NodeOrder = "auto"
)

// unknownL2 is the L2 size AutoOrder assumes when the CPU reports none.
const unknownL2 = 1 << 20

// check returns an error unless o names an order (empty: StreamOrder).
func (o NodeOrder) check() error {
	switch o {
	case "", StreamOrder, DegreeOrder, AutoOrder:
		return nil
	}
	return fmt.Errorf("csr: node order %q, want stream, degree or auto", string(o))
}

// resolve returns the order a graph of the given node count is built in:
// StreamOrder for the zero NodeOrder, o itself, or for AutoOrder the order
// it picks (see AutoOrder). o must pass check.
func (o NodeOrder) resolve(nodes int) NodeOrder {
	switch o {
	case "":
		return StreamOrder
	case AutoOrder:
	default:
		return o
	}
	l2 := cpu.L2Bytes()
	if l2 == 0 {
		l2 = unknownL2
	}
	if 8*nodes > l2 {
		return DegreeOrder
	}
	return StreamOrder
}

// setNodeOrder chooses how Build numbers the nodes (o must pass check).
// Until Build, ids returned by AddNode and AddEdge are first-appearance
// ranks.
func (b *Builder) setNodeOrder(o NodeOrder) { b.order = o }

// rankOf returns u's first-appearance rank: its id had the graph been built in
// StreamOrder. It is u itself for a graph built in StreamOrder.
func (g *Graph) rankOf(u uint32) uint32 {
	if g.rank == nil {
		return u
	}
	return g.rank[u]
}

// order returns the order g's nodes are numbered in: DegreeOrder for a
// graph built or reordered into it (its ranks differ from its ids), else
// StreamOrder.
func (g *Graph) order() NodeOrder {
	if g.rank != nil {
		return DegreeOrder
	}
	return StreamOrder
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
	newID := make([]uint32, n)
	rank := degreeRanks(n, b.src, b.dst, nil, newID) // ids are still first-appearance ranks
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

// Reorder returns a copy of g with its nodes numbered in order o (AutoOrder
// resolved for g's node count): the graph Build would have made from g's
// edge stream in order o, array for array. Names, edges, edge ids,
// channels and relations are g's; only node ids change (and Ranks records
// the first-appearance rank, so reordering twice is harmless). g
// is not modified; the new graph shares g's immutable per-edge arrays
// (weights, channels, relations) and names.
//
// It permutes g's arrays instead of rebuilding: Build places each node's
// arcs in edge-id order (both arcs of a self-loop together), whatever the
// numbering, so the new graph's row for a node is g's row for it with the
// neighbours renamed. That reads every arc once, where a rebuild through
// the Builder sorted them again and made a name dictionary (the times are
// in docs/benchmarks.md). reorderByBuilder is that rebuild, kept as the
// reference (TestReorderMatchesBuilder).
func Reorder(g *Graph, o NodeOrder) (*Graph, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	n, m := g.NumNodes(), g.NumEdges()
	// byRank[r]: g's id of the node first seen r-th.
	byRank := make([]uint32, n)
	for u := range n {
		byRank[g.rankOf(uint32(u))] = uint32(u)
	}
	// newID[u]: u's id in the new graph; rank: the new graph's ranks.
	newID := make([]uint32, n)
	var rank []uint32
	if o.resolve(n) == DegreeOrder {
		rank = degreeRanks(n, g.edgeSrc, g.edgeDst, byRank, newID)
	} else {
		for r, u := range byRank {
			newID[u] = uint32(r)
		}
	}
	h := &Graph{
		directed:     g.directed,
		owner:        g.owner, // the edge weights, channels and relations are g's
		nodes:        n,
		names:        make([]string, n),
		lazyIDs:      true,
		rank:         rank,
		edgeSrc:      make([]uint32, m),
		edgeDst:      make([]uint32, m),
		edgeWeight:   g.edgeWeight,
		edgeChannel:  g.edgeChannel,
		edgeRelation: g.edgeRelation,
		channels:     g.channels,
		relations:    g.relations,
		outWeight:    make([]float64, n),
	}
	names := g.Names()
	for u, id := range newID {
		h.names[id] = names[u]
		h.outWeight[id] = g.outWeight[u]
	}
	for e := range m {
		h.edgeSrc[e], h.edgeDst[e] = newID[g.edgeSrc[e]], newID[g.edgeDst[e]]
	}
	parts := bulkParts(n, len(g.out.Nbr), runtime.GOMAXPROCS(0))
	h.out = permuteRows(g.out, newID, parts)
	if g.directed {
		h.in = permuteRows(g.in, newID, parts)
	} else {
		h.in = h.out
	}
	h.shareArrays()
	return h, nil
}

// degreeRanks numbers n nodes by descending degree (edge endpoints: an
// edge counts once at each end), ties by first appearance (byRank lists
// the nodes in that order; nil: ids are ranks), as Builder.degreeOrder
// does. It fills newID
// (old id -> new id) and returns each new id's first-appearance rank.
func degreeRanks(n int, src, dst, byRank, newID []uint32) []uint32 {
	deg := make([]uint32, n)
	for e := range src {
		deg[src[e]]++
		deg[dst[e]]++
	}
	return ranksByDegree(deg, byRank, newID)
}

// ranksByDegree is degreeRanks from the degrees; byRank nil is the
// identity (ids are first-appearance ranks, as in a Builder before Build
// and in FromIDs' input).
func ranksByDegree(deg, byRank, newID []uint32) []uint32 {
	n := len(deg)
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
	rank := make([]uint32, n)
	for r := range n {
		u := uint32(r)
		if byRank != nil {
			u = byRank[r]
		}
		slot := maxDeg - deg[u]
		id := start[slot]
		start[slot]++
		newID[u] = id
		rank[id] = uint32(r)
	}
	return rank
}

// permuteRows returns a with node u's row moved to newID[u] and every
// neighbour renamed by newID; arcs keep their order within a row, filled
// on parts goroutines over ranges of new ids.
func permuteRows(a Adjacency, newID []uint32, parts int) Adjacency {
	n := len(newID)
	old := make([]uint32, n) // old[id]: the node now numbered id
	for u, id := range newID {
		old[id] = uint32(u)
	}
	arcs := len(a.Nbr)
	b := Adjacency{
		Offsets: make([]int, n+1),
		Nbr:     make([]uint32, arcs),
		Edge:    make([]uint32, arcs),
	}
	for id, u := range old {
		b.Offsets[id+1] = b.Offsets[id] + a.Offsets[u+1] - a.Offsets[u]
	}
	var fill func(from, to int)
	if a.Weight.is32() {
		w := make([]float32, arcs)
		b.Weight = weights32(w)
		fill = func(from, to int) { fillRows(a, b, a.Weight.Float32s(), w, old, newID, from, to) }
	} else {
		w := make([]float64, arcs)
		b.Weight = weights64(w)
		fill = func(from, to int) { fillRows(a, b, a.Weight.Float64s(), w, old, newID, from, to) }
	}
	if parts <= 1 {
		fill(0, n)
		return b
	}
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { fill(k*n/parts, (k+1)*n/parts) })
	}
	wg.Wait()
	return b
}

// fillRows fills rows from..to-1 of b (offsets set) from a's rows old[id],
// with a's weights aw and b's bw in one storage type.
func fillRows[W weightValue](a, b Adjacency, aw, bw []W, old, newID []uint32, from, to int) {
	for id := from; id < to; id++ {
		u := old[id]
		lo, hi := a.Offsets[u], a.Offsets[u+1]
		p := b.Offsets[id]
		nbr, wt, edge := a.Nbr[lo:hi], aw[lo:hi], a.Edge[lo:hi]
		bn, bwr, be := b.Nbr[p:p+len(nbr)], bw[p:p+len(nbr)], b.Edge[p:p+len(nbr)]
		wt, edge = wt[:len(nbr)], edge[:len(nbr)]
		for q, v := range nbr {
			bn[q], bwr[q], be[q] = newID[v], wt[q], edge[q]
		}
	}
}

// reorderByBuilder is Reorder through the Builder: the rebuild it must
// equal, array for array.
func reorderByBuilder(g *Graph, o NodeOrder) (*Graph, error) {
	n, m := g.NumNodes(), g.NumEdges()
	b := &Builder{
		directed: g.directed,
		ids:      make(map[string]uint32, n),
		names:    make([]string, n),
		src:      make([]uint32, m),
		dst:      make([]uint32, m),
		weight:   append([]float64(nil), g.edgeWeight.asFloat64()...),
		channel:  append([]uint32(nil), g.edgeChannel...),
		channels: g.channels,
		order:    o,
	}
	if !g.edgeWeight.is32() {
		b.storage = float64Storage // keep g's storage
	}
	if g.edgeRelation != nil {
		b.relation, b.relations, b.hasRelations = append([]uint32(nil), g.edgeRelation...), g.relations, true
	}
	for u, name := range g.Names() {
		r := g.rankOf(uint32(u))
		b.names[r] = name
		b.ids[name] = r
	}
	for e := range m {
		b.src[e], b.dst[e] = g.rankOf(g.edgeSrc[e]), g.rankOf(g.edgeDst[e])
	}
	return b.Build()
}
