package csr

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/authppr/authppr/internal/csrhook"
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
	Weight  Weights
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
	namesMade    atomic.Bool       // set once names is stored (memoryParts reads it)
	ids          map[string]uint32 // nil until idsOnce runs when lazyIDs
	// lazyIDs: assemble checked the names unique without a map; ids is
	// built on first use (ID, checkAll) under idsOnce.
	lazyIDs bool
	idsOnce sync.Once
	rank    []uint32 // first-appearance rank per id; nil in stream order
	// idOfRank inverts rank for a FromIDs graph built in degree order
	// (decimalNames: node named strconv.Itoa(r) has id idOfRank[r]).
	idOfRank []uint32

	// Per edge, indexed by edge id.
	edgeSrc, edgeDst []uint32
	edgeWeight       Weights
	edgeChannel      []uint32 // index into channels
	edgeRelation     []uint32 // index into relations; nil when no relations
	channels         []string
	relations        []string

	out, in   Adjacency
	outWeight []float64 // W(u): sum of u's out-arc weights, in arc order
	unit      bool      // every edge weight is 1 (set by Build and assemble)

	// owner keeps memory the arrays view reachable (csrhook.Parts.Owner); every
	// graph sharing one of them holds it too. Never read.
	owner any
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
		return strconv.Itoa(int(g.rankOf(u)))
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
		r, ok := decimalID(name, g.nodes)
		if ok && g.idOfRank != nil {
			return g.idOfRank[r], true
		}
		return r, ok
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
		names := decimalNames(g.nodes)
		if g.rank != nil {
			byID := make([]string, g.nodes)
			for u, r := range g.rank {
				byID[u] = names[r]
			}
			names = byID
		}
		g.names = names
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

// outWeights returns W for every node (internal/csrhook: mask's views
// alias it). The slice must not be modified.
func (g *Graph) outWeights() []float64 { return g.outWeight }

// Edge returns edge e.
func (g *Graph) Edge(e uint32) Edge {
	out := Edge{
		Src:     g.edgeSrc[e],
		Dst:     g.edgeDst[e],
		Weight:  g.edgeWeight.At(int(e)),
		Channel: g.channels[g.edgeChannel[e]],
	}
	if g.edgeRelation != nil {
		out.Relation = g.relations[g.edgeRelation[e]]
	}
	return out
}

// Channels returns the channel names in order of first appearance (an
// edge's Channel is one of them). Must not be modified.
func (g *Graph) Channels() []string { return g.channels }

// edgeChannels returns the index into Channels of the channel that wrote
// each edge (internal/csrhook: mask's labels of a graph). Must not be
// modified.
func (g *Graph) edgeChannels() []uint32 { return g.edgeChannel }

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

// checkAll checks every invariant stated in the package doc. Every graph
// this package makes passes (its constructors and the assembly of a loaded
// snapshot check what they take from outside), so checkAll is the oracle
// tests hold graphs to (internal/csrhook's Validate).
func (g *Graph) checkAll() error {
	if g.decimalNames {
		// Names are generated, distinct and non-empty by construction,
		// and ID parses them: nothing stored to check.
		return g.validate(func() error { return nil }, nil)
	}
	g.needIDs()
	return g.validate(g.checkNameDictionary, nil)
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

// validate is checkAll with the name check given: the dictionary's, or
// assemble's uniqueness check before the dictionary exists.
//
// It reports the fault the plain checks would report first (lengths,
// names, ranks, the first bad edge, the out-adjacency, the in-adjacency,
// the out-weights), but reads every array once and in order: the edge
// checks, the names and the arcs run on several goroutines, and the arcs are
// matched to the edges by arcsMatch (a fingerprint) instead of a random
// read of the edge table per arc. validatePlain (in the tests) is the
// sequential form it must agree with.
func (g *Graph) validate(checkNames func() error, visit visitFunc) error {
	n, m := g.nodes, len(g.edgeSrc)
	if len(g.edgeDst) != m || g.edgeWeight.Len() != m || len(g.edgeChannel) != m {
		return fmt.Errorf("csr: edge arrays have lengths %d, %d, %d, %d; want all %d",
			m, len(g.edgeDst), g.edgeWeight.Len(), len(g.edgeChannel), m)
	}
	if g.edgeRelation != nil && len(g.edgeRelation) != m {
		return fmt.Errorf("csr: %d edge relations for %d edges", len(g.edgeRelation), m)
	}
	// The names are checked beside the edges; their fault comes first.
	var namesErr error
	var wg sync.WaitGroup
	wg.Go(func() { namesErr = checkNames() })
	key := newArcKey()
	badEdge, edgeSum := g.edgesOK(&key, visit)
	wg.Wait()
	if namesErr != nil {
		return namesErr
	}
	if err := g.checkRanks(); err != nil {
		return err
	}
	if badEdge >= 0 {
		return g.edgeError(badEdge)
	}
	arcs := m
	if !g.directed {
		arcs = 2 * m
	}
	// The fast check decides; when it rejects, the plain arc-by-arc check
	// (the reference it is tested against) finds and names the fault.
	ow := g.outWeight
	if len(ow) != n {
		ow = nil // reported below, after the adjacencies
	}
	ok, badWeight := g.arcsMatch(g.out, n, arcs, true, &key, edgeSum, ow, visit)
	if !ok {
		return g.adjacencyError("out", g.out, n, arcs, true)
	}
	if !g.directed && sameAdjacency(g.in, g.out) {
		// Undirected graphs share one adjacency: checked above.
	} else if ok, _ := g.arcsMatch(g.in, n, arcs, false, &key, edgeSum, nil, visit); !ok {
		return g.adjacencyError("in", g.in, n, arcs, false)
	}
	if len(g.outWeight) != n {
		return fmt.Errorf("csr: %d out-weights for %d nodes", len(g.outWeight), n)
	}
	if badWeight >= 0 {
		lo, hi := g.out.Span(uint32(badWeight))
		return fmt.Errorf("csr: node %d: out-weight %v, arcs sum to %v", badWeight, g.outWeight[badWeight], sumWeightsAt(g.out.Weight, lo, hi))
	}
	return nil
}

// checkRanks checks that the ranks, when kept, are a permutation of the
// node ids (validate and its plain reference share it: it has no fast form).
func (g *Graph) checkRanks() error {
	if g.rank == nil {
		return nil
	}
	n := g.nodes
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
	return nil
}

// edgeError describes what is wrong with edge e (edgesOK found it bad).
func (g *Graph) edgeError(e int) error {
	n := uint32(g.nodes)
	if g.edgeSrc[e] >= n || g.edgeDst[e] >= n {
		return fmt.Errorf("csr: edge %d: endpoint out of range (want < %d nodes)", e, n)
	}
	if err := CheckWeight(g.edgeWeight.At(e)); err != nil {
		return fmt.Errorf("csr: edge %d (%d -> %d): %w", e, g.edgeSrc[e], g.edgeDst[e], err)
	}
	if int(g.edgeChannel[e]) >= len(g.channels) {
		return fmt.Errorf("csr: edge %d: channel index %d out of range", e, g.edgeChannel[e])
	}
	if g.edgeRelation != nil && int(g.edgeRelation[e]) >= len(g.relations) {
		return fmt.Errorf("csr: edge %d: relation index %d out of range", e, g.edgeRelation[e])
	}
	return fmt.Errorf("csr: edge %d: rejected by the edge check but no fault found (a bug)", e)
}

// edgesOK checks every edge's endpoints, weight, channel and relation (the
// conditions edgeError names) and returns the first bad edge (-1 if none)
// and the fingerprint arcsMatch compares the arcs with: the sum mod 2^64 of
// key.mix over the edge tuples (src, dst, weight, e), and for an undirected
// graph also (dst, src, weight, e). It splits the edges in visitLanes
// ranges, one per goroutine (each lane visiting its blocks in order); the
// first lane's bad edge, if any, comes first.
func (g *Graph) edgesOK(key *arcKey, visit visitFunc) (bad int, sum uint64) {
	m := len(g.edgeSrc)
	n := uint32(g.nodes)
	nch, nrel := uint32(len(g.channels)), uint32(len(g.relations))
	both := !g.directed
	check := func(lane, from, to int) (int, uint64) {
		var sum uint64
		for lo := from; lo < to; lo += visitEdges {
			hi := min(lo+visitEdges, to)
			// Re-slicing to [lo:hi] lets the compiler drop the bounds checks.
			src, dst, ch := g.edgeSrc[lo:hi], g.edgeDst[lo:hi], g.edgeChannel[lo:hi]
			wt := g.edgeWeight.Slice(lo, hi)
			var rel []uint32
			if g.edgeRelation != nil {
				rel = g.edgeRelation[lo:hi]
			}
			for i := range src {
				s, d, w := src[i], dst[i], wt.At(i)
				// CheckWeight's test: false for NaN, negative, infinite
				// and out-of-range weights.
				if s >= n || d >= n || (!(w >= MinWeight && w <= MaxWeight) && w != 0) || ch[i] >= nch || (rel != nil && rel[i] >= nrel) {
					return lo + i, 0
				}
				e, wb := uint32(lo+i), weightBits(w)
				sum += key.mix(s, d, wb, e)
				if both {
					sum += key.mix(d, s, wb, e)
				}
			}
			if visit != nil {
				visit(lane, edgeBlock, lo, hi)
			}
		}
		return -1, sum
	}
	var bads [visitLanes]int
	var sums [visitLanes]uint64
	inLanes(func(lane int) {
		bads[lane], sums[lane] = check(lane, m*lane/visitLanes, m*(lane+1)/visitLanes)
	})
	for lane := range visitLanes {
		if bads[lane] >= 0 {
			return bads[lane], 0
		}
		sum += sums[lane]
	}
	return -1, sum
}

// inLanes runs f(0), ..., f(visitLanes-1) on as many goroutines and waits
// for them. More lanes than cores: on a machine shared with other work,
// when a thread is descheduled the other cores take the lanes still
// waiting, and the wait for the last lane is a fraction of the whole.
func inLanes(f func(lane int)) {
	var wg sync.WaitGroup
	for lane := 1; lane < visitLanes; lane++ {
		wg.Go(func() { f(lane) })
	}
	f(0)
	wg.Wait()
}

// validateAdjacency checks one CSR direction: shape, ordering by edge id, and
// that every edge is represented by exactly the arcs it should be.
func (g *Graph) validateAdjacency(dir string, a Adjacency, n, arcs int, outgoing bool) error {
	if len(a.Offsets) != n+1 || a.Offsets[0] != 0 || a.Offsets[n] != arcs {
		return fmt.Errorf("csr: %s-adjacency: offsets malformed (want %d entries from 0 to %d arcs)", dir, n+1, arcs)
	}
	if len(a.Nbr) != arcs || a.Weight.Len() != arcs || len(a.Edge) != arcs {
		return fmt.Errorf("csr: %s-adjacency: arc arrays have lengths %d, %d, %d; want %d",
			dir, len(a.Nbr), a.Weight.Len(), len(a.Edge), arcs)
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
			if !ok || a.Weight.At(p) != g.edgeWeight.At(int(e)) {
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
		same(len(a.Weight.f64), len(b.Weight.f64), unsafe.Pointer(unsafe.SliceData(a.Weight.f64)), unsafe.Pointer(unsafe.SliceData(b.Weight.f64))) &&
		same(len(a.Weight.f32), len(b.Weight.f32), unsafe.Pointer(unsafe.SliceData(a.Weight.f32)), unsafe.Pointer(unsafe.SliceData(b.Weight.f32))) &&
		same(len(a.Edge), len(b.Edge), unsafe.Pointer(unsafe.SliceData(a.Edge)), unsafe.Pointer(unsafe.SliceData(b.Edge)))
}

// The block visit of assembleVisit (csrhook.VisitFunc states its
// contract): the kinds of block, and the lanes (goroutines) of the checks.
type (
	blockKind = csrhook.BlockKind
	visitFunc = csrhook.VisitFunc
)

const (
	edgeBlock   = csrhook.EdgeBlock
	outArcBlock = csrhook.OutArcBlock
	inArcBlock  = csrhook.InArcBlock
	visitLanes  = csrhook.Lanes
)

// Block sizes: the arrays of one block (20-24 bytes per edge, 16 per arc;
// 4 less each with float32 weights) fit a 256 KiB L2 cache with room to
// spare.
const (
	visitEdges = 8192
	visitArcs  = 8192
)

// arcKey is the random key of one fingerprint check (arcsMatch), drawn
// from crypto/rand for every validation, so no file can be made to collide
// on purpose: its contents cannot depend on a key drawn after it is read.
type arcKey [4]uint64

func newArcKey() arcKey {
	var b [32]byte
	crand.Read(b[:]) // never fails (crypto/rand.Read crashes the program rather than return an error)
	var k arcKey
	for i := range k {
		k[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return k
}

// mix is a keyed 64-bit hash of an arc tuple (tail, head, weight bits,
// edge id): two rounds of wyhash's multiply-fold (the 128-bit product of
// two keyed words, high half xor low half); the first round mixes the
// endpoints with the weight, the second that with the edge id.
func (k *arcKey) mix(tail, head uint32, wbits uint64, e uint32) uint64 {
	hi, lo := bits.Mul64(uint64(tail)|uint64(head)<<32^k[0], wbits^k[1])
	hi, lo = bits.Mul64(hi^lo^k[2], uint64(e)^k[3])
	return hi ^ lo
}

// weightBits is w's bit pattern with -0 read as +0: the plain check
// compares weights with ==, under which the two zeros are equal (and NaN
// equals nothing; edge weights are never NaN, so an arc weight that is NaN
// has bits no edge tuple has).
func weightBits(w float64) uint64 {
	b := math.Float64bits(w)
	if b == 1<<63 {
		b = 0
	}
	return b
}

// adjacencyOK is arcsMatch with a fresh key and the fingerprint of the
// edges computed here: the form the differential tests call beside
// validateAdjacency. It assumes the edges themselves passed edgesOK.
func (g *Graph) adjacencyOK(a Adjacency, n, arcs int, outgoing bool) bool {
	key := newArcKey()
	_, sum := g.edgesOK(&key, nil)
	ok, _ := g.arcsMatch(a, n, arcs, outgoing, &key, sum, nil, nil)
	return ok
}

// arcsMatch is the fast form of validateAdjacency, which it must agree
// with (TestValidateAdjacencyMatchesReference, TestValidateMatchesPlain);
// edgeSum is edgesOK's fingerprint under the same key, for edges that
// passed edgesOK. It reads the arc arrays once, in order, and the edge
// table not at all.
//
// Why it is the same check. Write each arc at node u as the tuple
// (tail, head, weight, edge id): (u, Nbr) for an out-arc or an undirected
// arc, (Nbr, u) for a directed in-arc; and each edge e as (src, dst,
// weight, e), plus (dst, src, weight, e) when undirected. validateAdjacency
// accepts iff the shape is right, each node's edge ids never decrease, and
// the arcs' tuples are the edges' tuples as multisets: each arc must equal
// the tuple of the edge it names, weights compared with == (weightBits),
// and each edge needs exactly its one (directed) or two (undirected: one at
// each endpoint, both at a self-loop's node) arcs. The shape and the order
// are checked here exactly; the multisets are compared by their sums of
// key.mix mod 2^64. Equal multisets give equal sums, so every adjacency
// validateAdjacency accepts is accepted.
//
// False accepts. Let the multisets differ, c_t be the arc count minus the
// edge count of tuple t, and 2^j the largest power of two dividing every
// c_t. Then j <= 1, and j = 0 for a directed graph: each edge tuple occurs
// once among the edges (twice for an undirected self-loop), and if 4
// divided every c_t, each edge tuple would occur among the arcs at least
// as often as among the edges (a count = 1 or 2 mod 4 is >= 1 or 2); both
// sides hold `arcs` tuples, so the multisets would be equal (likewise with
// 2 for a directed graph). With mix modelled as a random function of the
// tuple (the key is drawn after the file is written), pick t with c_t/2^j
// odd; given every other value, sum_t c_t mix(t) = 0 mod 2^64 holds for
// 2^j values of mix(t): probability 2^(j-64), so at most 2^-64 per check
// of a directed adjacency and 2^-63 of an undirected one. For corruption
// that does not know the key the bound holds as far as the mix is
// indistinguishable from random.
//
// With ow non-nil (the out-adjacency, len(ow) = n) it also returns the
// first node whose arc weights, summed in arc order, differ from ow (-1 if
// none), sumWeights's sum exactly (same additions, same order).
//
// The nodes split in visitLanes ranges of about equal arcs, one per
// goroutine (lane); each lane visits its arc blocks in order.
func (g *Graph) arcsMatch(a Adjacency, n, arcs int, outgoing bool, key *arcKey, edgeSum uint64, ow []float64, visit visitFunc) (ok bool, badWeight int) {
	if len(a.Offsets) != n+1 || a.Offsets[0] != 0 || a.Offsets[n] != arcs ||
		len(a.Nbr) != arcs || a.Weight.Len() != arcs || len(a.Edge) != arcs {
		return false, -1
	}
	for u := 0; u < n; u++ {
		if a.Offsets[u] > a.Offsets[u+1] {
			return false, -1
		}
	}
	// Offsets run from 0 to arcs without decreasing, so every span
	// [Offsets[u], Offsets[u+1]) lies within the arc arrays.
	swap := g.directed && !outgoing
	m := uint32(len(g.edgeSrc))
	nbr, weight, edge := a.Nbr[:arcs], a.Weight.Slice(0, arcs), a.Edge[:arcs]
	type part struct {
		ok        bool
		sum       uint64
		badWeight int
	}
	kind := outArcBlock
	if !outgoing {
		kind = inArcBlock
	}
	check := func(lane, from, to int) part {
		res := part{ok: true, badWeight: -1}
		var sum uint64
		block := a.Offsets[from] // the first arc not yet visited
		for u := from; u < to; u++ {
			lo, hi := a.Offsets[u], a.Offsets[u+1]
			uu := uint32(u)
			prev := uint32(0)
			w := 0.0
			for p := lo; p < hi; p++ {
				e := edge[p]
				if e >= m || e < prev {
					return part{badWeight: -1}
				}
				prev = e
				tail, head := uu, nbr[p]
				if swap {
					tail, head = head, tail
				}
				wp := weight.At(p)
				sum += key.mix(tail, head, weightBits(wp), e)
				w += wp
			}
			if ow != nil && res.badWeight < 0 && w != ow[u] {
				res.badWeight = u
			}
			if visit != nil && (hi-block >= visitArcs || u == to-1) && hi > block {
				visit(lane, kind, block, hi)
				block = hi
			}
		}
		res.sum = sum
		return res
	}
	// Split where half the arcs are behind.
	// Lane i starts at the first node with at least i/visitLanes of the
	// arcs behind it (so the splits never decrease, the last is n).
	var splits [visitLanes + 1]int
	for i := 1; i < visitLanes; i++ {
		splits[i] = sort.Search(n, func(u int) bool { return a.Offsets[u] >= arcs*i/visitLanes })
	}
	splits[visitLanes] = n
	var parts [visitLanes]part
	inLanes(func(lane int) { parts[lane] = check(lane, splits[lane], splits[lane+1]) })
	var sum uint64
	badWeight = -1
	for _, pt := range parts {
		if !pt.ok {
			return false, -1
		}
		sum += pt.sum
		if badWeight < 0 {
			badWeight = pt.badWeight
		}
	}
	if sum != edgeSum {
		return false, -1
	}
	return true, badWeight
}

func sumWeights(w []float64) float64 {
	s := 0.0
	for _, x := range w {
		s += x
	}
	return s
}

// emptyGraph returns a graph with no nodes and no edges: what a host that adds
// everything through a delta (an empty store's versions, mask.WithDelta)
// starts from. Readers and builders refuse to make one from input, where no
// nodes means a mistake.
func emptyGraph(directed bool) *Graph {
	a := Adjacency{Offsets: []int{0}, Weight: weights32([]float32{})}
	return &Graph{directed: directed, names: []string{}, ids: map[string]uint32{}, edgeWeight: weights32([]float32{}),
		channels: []string{}, out: a, in: a, outWeight: []float64{}, unit: true}
}
