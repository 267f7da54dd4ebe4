package csr

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// DefaultChannel is the channel of an edge written without one.
const DefaultChannel = "default"

// Adjacency is one direction of a graph in CSR form. The arcs of node u are
// the positions Offsets[u]..Offsets[u+1]-1 of Nbr (the other endpoint),
// Weight and Edge (the id of the edge the arc belongs to). The slices belong
// to the snapshot and must not be modified.
type Adjacency struct {
	Offsets []int
	Nbr     []uint32
	Weight  []float64
	Edge    []uint32
}

// Span returns the arc positions [lo, hi) of node u.
func (a Adjacency) Span(u uint32) (lo, hi int) {
	return a.Offsets[u], a.Offsets[u+1]
}

// Edge describes one edge of a snapshot by node ids.
type Edge struct {
	Src, Dst uint32
	Weight   float64
	Channel  string
	Relation string // empty when the stream carried no relation
}

// Graph is an immutable snapshot. Build one with a Builder or a reader.
type Graph struct {
	directed bool

	nodes int
	names []string // nil until namesOnce runs when decimalNames
	// decimalNames: FromIDs made the graph; node i is named
	// strconv.Itoa(i), and neither names nor ids is stored until asked for
	// (Names materializes names under namesOnce; ID parses, never a map).
	decimalNames bool
	namesOnce    sync.Once
	namesMade    atomic.Bool       // set once names is stored (MemoryParts reads it)
	ids          map[string]uint32 // nil until idsOnce runs when lazyIDs
	// lazyIDs: Assemble checked the names unique without a map; ids is
	// built on first use (ID, Validate) under idsOnce.
	lazyIDs bool
	idsOnce sync.Once
	rank    []uint32 // first-appearance rank per id; nil in stream order

	// Per edge, indexed by edge id.
	edgeSrc, edgeDst []uint32
	edgeWeight       []float64
	edgeChannel      []uint32 // index into channels
	edgeRelation     []uint32 // index into relations; nil when no relations
	channels         []string
	relations        []string

	out, in   Adjacency
	outWeight []float64 // W(u): sum of u's out-arc weights, in arc order
	unit      bool      // every edge weight is 1 (set by Build and Assemble)
}

// Directed reports whether edges are directed.
func (g *Graph) Directed() bool { return g.directed }

// NumNodes returns the number of nodes.
func (g *Graph) NumNodes() int { return g.nodes }

// NumEdges returns the number of edges (an undirected edge counts once).
func (g *Graph) NumEdges() int { return len(g.edgeSrc) }

// NumArcs returns the number of stored arcs: NumEdges for a directed graph,
// twice that for an undirected one.
func (g *Graph) NumArcs() int { return len(g.out.Nbr) }

// Name returns the name of node u.
func (g *Graph) Name(u uint32) string {
	if g.decimalNames {
		if int(u) >= g.nodes {
			panic(fmt.Sprintf("csr: Name(%d) of a graph with %d nodes", u, g.nodes))
		}
		return strconv.Itoa(int(u))
	}
	return g.names[u]
}

// Names returns all node names, indexed by id. The slice must not be modified.
func (g *Graph) Names() []string {
	g.needNames()
	return g.names
}

// ID returns the id of the node with the given name.
func (g *Graph) ID(name string) (uint32, bool) {
	if g.decimalNames {
		return decimalID(name, g.nodes)
	}
	g.needIDs()
	id, ok := g.ids[name]
	return id, ok
}

// needNames materializes the names of a FromIDs graph on first use: one
// string holding every decimal id, each name a slice of it (one allocation
// instead of n).
func (g *Graph) needNames() {
	if !g.decimalNames {
		return
	}
	g.namesOnce.Do(func() {
		g.names = decimalNames(g.nodes)
		g.namesMade.Store(true)
	})
}

// decimalNames returns strconv.Itoa(i) for i in 0..n-1.
func decimalNames(n int) []string {
	// The ids in [10^(k-1), 10^k) have k digits ("0" has one): the
	// buffer's exact size, so it never regrows.
	size := 0
	for lo, hi, digits := 0, 10, 1; lo < n; lo, hi, digits = hi, hi*10, digits+1 {
		size += (min(n, hi) - lo) * digits
	}
	buf := make([]byte, 0, size)
	ends := make([]int, n)
	for i := range n {
		buf = strconv.AppendInt(buf, int64(i), 10)
		ends[i] = len(buf)
	}
	all := string(buf)
	names := make([]string, n)
	start := 0
	for i, end := range ends {
		names[i] = all[start:end]
		start = end
	}
	return names
}

// decimalID is the name dictionary of a graph whose node i is named
// strconv.Itoa(i), for i < n: name's id when name is the canonical decimal
// form of a number below n (digits only, no sign, no leading zero unless
// it is "0"). A map from every such name (the test's reference) gives the
// same answers.
func decimalID(name string, n int) (uint32, bool) {
	// Ids are below 2^32, so canonical names have at most 10 digits; the
	// bound also keeps v below 10^10, far from overflow.
	if len(name) == 0 || len(name) > 10 || (name[0] == '0' && len(name) > 1) {
		return 0, false
	}
	v := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	if v >= n {
		return 0, false
	}
	return uint32(v), true
}

// Out returns the out-adjacency.
func (g *Graph) Out() Adjacency { return g.out }

// In returns the in-adjacency (the out-adjacency itself when undirected).
func (g *Graph) In() Adjacency { return g.in }

// OutWeight returns W(u), the total weight of u's out-arcs.
func (g *Graph) OutWeight(u uint32) float64 { return g.outWeight[u] }

// OutWeights returns W for every node. The slice must not be modified.
func (g *Graph) OutWeights() []float64 { return g.outWeight }

// Edge returns edge e.
func (g *Graph) Edge(e uint32) Edge {
	out := Edge{
		Src:     g.edgeSrc[e],
		Dst:     g.edgeDst[e],
		Weight:  g.edgeWeight[e],
		Channel: g.channels[g.edgeChannel[e]],
	}
	if g.edgeRelation != nil {
		out.Relation = g.relations[g.edgeRelation[e]]
	}
	return out
}

// Channels returns the channel names in order of first appearance; an edge's
// channel index (EdgeChannel) points into it. Must not be modified.
func (g *Graph) Channels() []string { return g.channels }

// EdgeChannel returns the index into Channels of the channel that wrote e.
func (g *Graph) EdgeChannel(e uint32) uint32 { return g.edgeChannel[e] }

// needIDs builds the name dictionary of an assembled graph on first use.
func (g *Graph) needIDs() {
	if !g.lazyIDs {
		return
	}
	g.idsOnce.Do(func() {
		ids := make(map[string]uint32, len(g.names))
		for i, name := range g.names {
			ids[name] = uint32(i)
		}
		g.ids = ids
	})
}

// Validate checks every invariant stated in the package doc. A snapshot made
// by Builder always passes; Validate is for snapshots that come from outside.
func (g *Graph) Validate() error {
	if g.decimalNames {
		// Names are generated, distinct and non-empty by construction,
		// and ID parses them: nothing stored to check.
		return g.validate(func() error { return nil })
	}
	g.needIDs()
	return g.validate(g.checkNameDictionary)
}

// checkNameDictionary checks that ids maps every name to its node.
func (g *Graph) checkNameDictionary() error {
	n := len(g.names)
	if n != g.nodes {
		return fmt.Errorf("csr: %d names for %d nodes", n, g.nodes)
	}
	if len(g.ids) != n {
		return fmt.Errorf("csr: name dictionary has %d entries for %d nodes (duplicate names?)", len(g.ids), n)
	}
	for i, name := range g.names {
		if id, ok := g.ids[name]; !ok || id != uint32(i) {
			return fmt.Errorf("csr: node %d: name %q maps to another id", i, name)
		}
	}
	return nil
}

// validate is Validate with the name check given: the dictionary's, or
// Assemble's uniqueness check before the dictionary exists.
func (g *Graph) validate(checkNames func() error) error {
	n, m := g.nodes, len(g.edgeSrc)
	if len(g.edgeDst) != m || len(g.edgeWeight) != m || len(g.edgeChannel) != m {
		return fmt.Errorf("csr: edge arrays have lengths %d, %d, %d, %d; want all %d",
			m, len(g.edgeDst), len(g.edgeWeight), len(g.edgeChannel), m)
	}
	if g.edgeRelation != nil && len(g.edgeRelation) != m {
		return fmt.Errorf("csr: %d edge relations for %d edges", len(g.edgeRelation), m)
	}
	if err := checkNames(); err != nil {
		return err
	}
	if g.rank != nil {
		if len(g.rank) != n {
			return fmt.Errorf("csr: %d node ranks for %d nodes", len(g.rank), n)
		}
		seen := make([]bool, n)
		for u, r := range g.rank {
			if int(r) >= n || seen[r] {
				return fmt.Errorf("csr: node %d: rank %d repeated or out of range (want a permutation of 0..%d)", u, r, n-1)
			}
			seen[r] = true
		}
	}
	for e := 0; e < m; e++ {
		if g.edgeSrc[e] >= uint32(n) || g.edgeDst[e] >= uint32(n) {
			return fmt.Errorf("csr: edge %d: endpoint out of range (want < %d nodes)", e, n)
		}
		if w := g.edgeWeight[e]; math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return fmt.Errorf("csr: edge %d: weight %v, want finite and non-negative", e, w)
		}
		if int(g.edgeChannel[e]) >= len(g.channels) {
			return fmt.Errorf("csr: edge %d: channel index %d out of range", e, g.edgeChannel[e])
		}
		if g.edgeRelation != nil && int(g.edgeRelation[e]) >= len(g.relations) {
			return fmt.Errorf("csr: edge %d: relation index %d out of range", e, g.edgeRelation[e])
		}
	}
	arcs := m
	if !g.directed {
		arcs = 2 * m
	}
	// The fast check decides; when it rejects, the plain arc-by-arc check
	// (the reference it is tested against) finds and names the fault.
	if !g.adjacencyOK(g.out, n, arcs, true) {
		return g.adjacencyError("out", g.out, n, arcs, true)
	}
	if !g.directed && sameAdjacency(g.in, g.out) {
		// Undirected graphs share one adjacency: checked above.
	} else if !g.adjacencyOK(g.in, n, arcs, false) {
		return g.adjacencyError("in", g.in, n, arcs, false)
	}
	if len(g.outWeight) != n {
		return fmt.Errorf("csr: %d out-weights for %d nodes", len(g.outWeight), n)
	}
	for u := 0; u < n; u++ {
		lo, hi := g.out.Span(uint32(u))
		if w := sumWeights(g.out.Weight[lo:hi]); w != g.outWeight[u] {
			return fmt.Errorf("csr: node %d: out-weight %v, arcs sum to %v", u, g.outWeight[u], w)
		}
	}
	return nil
}

// validateAdjacency checks one CSR direction: shape, ordering by edge id, and
// that every edge is represented by exactly the arcs it should be.
func (g *Graph) validateAdjacency(dir string, a Adjacency, n, arcs int, outgoing bool) error {
	if len(a.Offsets) != n+1 || a.Offsets[0] != 0 || a.Offsets[n] != arcs {
		return fmt.Errorf("csr: %s-adjacency: offsets malformed (want %d entries from 0 to %d arcs)", dir, n+1, arcs)
	}
	if len(a.Nbr) != arcs || len(a.Weight) != arcs || len(a.Edge) != arcs {
		return fmt.Errorf("csr: %s-adjacency: arc arrays have lengths %d, %d, %d; want %d",
			dir, len(a.Nbr), len(a.Weight), len(a.Edge), arcs)
	}
	// Check every span before reading arcs: with Offsets[0] = 0 and
	// Offsets[n] = arcs, non-decreasing offsets keep every span in range.
	for u := 0; u < n; u++ {
		if a.Offsets[u] > a.Offsets[u+1] {
			return fmt.Errorf("csr: %s-adjacency: node %d: offsets decrease", dir, u)
		}
	}
	seen := make([]uint8, len(g.edgeSrc))
	// atSrc counts, for an undirected edge {u,v} with u != v, its arcs
	// stored at u; the arc count alone cannot tell u->v twice from u->v
	// and v->u.
	var atSrc []uint8
	if !g.directed {
		atSrc = make([]uint8, len(g.edgeSrc))
	}
	for u := 0; u < n; u++ {
		lo, hi := a.Offsets[u], a.Offsets[u+1]
		for p := lo; p < hi; p++ {
			e := a.Edge[p]
			if int(e) >= len(g.edgeSrc) {
				return fmt.Errorf("csr: %s-adjacency: node %d arc %d: edge id %d out of range", dir, u, p-lo, e)
			}
			if p > lo && a.Edge[p-1] > e {
				return fmt.Errorf("csr: %s-adjacency: node %d: arcs not ordered by edge id", dir, u)
			}
			src, dst := g.edgeSrc[e], g.edgeDst[e]
			here, there := src, dst
			if !outgoing {
				here, there = dst, src
			}
			ok := here == uint32(u) && a.Nbr[p] == there
			if !g.directed {
				ok = (src == uint32(u) && a.Nbr[p] == dst) || (dst == uint32(u) && a.Nbr[p] == src)
			}
			if !ok || a.Weight[p] != g.edgeWeight[e] {
				return fmt.Errorf("csr: %s-adjacency: node %d arc %d does not match edge %d", dir, u, p-lo, e)
			}
			seen[e]++
			if atSrc != nil && src == uint32(u) {
				atSrc[e]++
			}
		}
	}
	want := uint8(1)
	if !g.directed {
		want = 2
	}
	for e, c := range seen {
		if c != want {
			return fmt.Errorf("csr: %s-adjacency: edge %d stored as %d arcs, want %d", dir, e, c, want)
		}
		if atSrc != nil && g.edgeSrc[e] != g.edgeDst[e] && atSrc[e] != 1 {
			return fmt.Errorf("csr: %s-adjacency: edge %d (%d -- %d) has %d of its 2 arcs at node %d, want one at each endpoint",
				dir, e, g.edgeSrc[e], g.edgeDst[e], atSrc[e], g.edgeSrc[e])
		}
	}
	return nil
}

// adjacencyError runs validateAdjacency on an adjacency the fast check
// rejected, for its message.
func (g *Graph) adjacencyError(dir string, a Adjacency, n, arcs int, outgoing bool) error {
	if err := g.validateAdjacency(dir, a, n, arcs, outgoing); err != nil {
		return err
	}
	return fmt.Errorf("csr: %s-adjacency: arcs differ from the edges (the plain check found no single fault; a bug)", dir)
}

// sameAdjacency reports whether a and b are the same arrays.
func sameAdjacency(a, b Adjacency) bool {
	same := func(x, y int, px, py unsafe.Pointer) bool { return x == y && px == py }
	return same(len(a.Offsets), len(b.Offsets), unsafe.Pointer(unsafe.SliceData(a.Offsets)), unsafe.Pointer(unsafe.SliceData(b.Offsets))) &&
		same(len(a.Nbr), len(b.Nbr), unsafe.Pointer(unsafe.SliceData(a.Nbr)), unsafe.Pointer(unsafe.SliceData(b.Nbr))) &&
		same(len(a.Weight), len(b.Weight), unsafe.Pointer(unsafe.SliceData(a.Weight)), unsafe.Pointer(unsafe.SliceData(b.Weight))) &&
		same(len(a.Edge), len(b.Edge), unsafe.Pointer(unsafe.SliceData(a.Edge)), unsafe.Pointer(unsafe.SliceData(b.Edge)))
}

// adjacencyOK is the fast form of validateAdjacency and accepts exactly
// what it accepts . It needs no per-edge counters: every
// arc must match an edge incident to its node (endpoint, neighbour and
// weight), and the edge ids of a node's arcs must strictly increase, except
// that the two arcs of an undirected self-loop sit side by side (never
// three). So an edge has at most one arc at each endpoint (two at a
// self-loop's node), hence at most want arcs (1 directed, 2 undirected);
// the arcs number want*edges, so every edge has exactly want arcs, one at
// each endpoint: what validateAdjacency counts. With no writes, the nodes
// split into independent ranges; ok runs them on two goroutines.
func (g *Graph) adjacencyOK(a Adjacency, n, arcs int, outgoing bool) bool {
	if len(a.Offsets) != n+1 || a.Offsets[0] != 0 || a.Offsets[n] != arcs ||
		len(a.Nbr) != arcs || len(a.Weight) != arcs || len(a.Edge) != arcs {
		return false
	}
	for u := 0; u < n; u++ {
		if a.Offsets[u] > a.Offsets[u+1] {
			return false
		}
	}
	directed := g.directed
	m := uint32(len(g.edgeSrc))
	src, dst, wt := g.edgeSrc, g.edgeDst[:m], g.edgeWeight[:m]
	nbr, weight, edge := a.Nbr[:arcs], a.Weight[:arcs], a.Edge[:arcs]
	check := func(from, to int) bool {
		for u := from; u < to; u++ {
			lo, hi := a.Offsets[u], a.Offsets[u+1]
			uu := uint32(u)
			prev := int64(-1)
			for p := lo; p < hi; p++ {
				e := edge[p]
				if e >= m {
					return false
				}
				s, d := src[e], dst[e]
				var ok bool
				switch {
				case !directed:
					ok = (s == uu && nbr[p] == d) || (d == uu && nbr[p] == s)
				case outgoing:
					ok = s == uu && nbr[p] == d
				default:
					ok = d == uu && nbr[p] == s
				}
				if !ok || weight[p] != wt[e] {
					return false
				}
				if int64(e) <= prev {
					// Only an undirected self-loop repeats an id, once.
					if int64(e) < prev || directed || s != d || (p >= lo+2 && edge[p-2] == e) {
						return false
					}
				}
				prev = int64(e)
			}
		}
		return true
	}
	// Split where half the arcs are behind.
	mid := sort.Search(n, func(u int) bool { return a.Offsets[u] >= arcs/2 })
	var second bool
	var wg sync.WaitGroup
	wg.Go(func() { second = check(mid, n) })
	first := check(0, mid)
	wg.Wait()
	return first && second
}

func sumWeights(w []float64) float64 {
	s := 0.0
	for _, x := range w {
		s += x
	}
	return s
}
