package csr

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// index is an integer type that node ids and channel indices may come in:
// FromIDs reads the caller's arrays in place, whatever their width.
type index interface {
	~int32 | ~int64 | ~uint32 | ~uint64
}

// IDEdges is a graph over nodes 0..Nodes-1 given by integer ids: the input
// of FromIDs. Node i is named strconv.Itoa(i). The node ids (T) and the
// channel indices (C) may be int32, int64, uint32 or uint64 (or types
// defined on them): FromIDs reads the caller's arrays in place, whatever
// their width.
type IDEdges[T, C index] struct {
	Directed bool
	Nodes    int
	// Pairs holds 2*m node ids: edge e runs from Pairs[2e] to Pairs[2e+1].
	Pairs []T
	// Weights holds m weights, each 0 or within [MinWeight, MaxWeight]
	// (CheckWeight), or is nil: every weight is 1 (unless Weights32 holds
	// them).
	Weights []float64
	// Weights32 holds the m weights as float32 (as binary edge lists
	// carry them) in place of Weights, which must then be nil: no float64
	// copy of them is ever made unless Float64Weights asks for one.
	Weights32 []float32
	// Float64Weights stores every weight array of the graph as float64;
	// by default they are float32 when every weight is exactly one (the
	// same values, half the bytes: no weight is ever rounded).
	Float64Weights bool
	// ChannelOf holds m indices into ChannelNames, or is nil: every edge
	// is on DefaultChannel. An empty name means DefaultChannel, as in
	// AddEdge; two equal names are one channel.
	ChannelOf    []C
	ChannelNames []string
	// Order numbers the nodes (StreamOrder, the zero value: node i is id
	// i). With DegreeOrder (or AutoOrder choosing it) the graph is built
	// straight in degree order, node i keeping the name strconv.Itoa(i)
	// (its rank, Graph.Ranks): the graph Reorder would make of the
	// stream-order one,
	// without building that one first.
	Order NodeOrder
	// MaxMemory is the memory limit of the build in bytes (0: half the
	// memory available, MemoryError.Default; negative: none). FromIDs
	// refuses, with a *MemoryError and before allocating anything, a graph
	// whose estimated peak (fromIDsBytes of Nodes and the edges) is over it: a
	// node count far beyond the edges given is refused, not allocated.
	MaxMemory int64
}

// checkShape checks the counts and array lengths (every check that reads
// no edge) and returns the edge count.
func (in IDEdges[T, C]) checkShape() (int, error) {
	n := in.Nodes
	if n < 1 {
		return 0, errors.New("csr: graph has no nodes")
	}
	if n > maxIDs {
		return 0, fmt.Errorf("csr: %d nodes, more than %d", n, maxIDs)
	}
	if len(in.Pairs)%2 != 0 {
		return 0, fmt.Errorf("csr: %d node ids, want an even number (src, dst pairs)", len(in.Pairs))
	}
	m := len(in.Pairs) / 2
	if m >= maxIDs {
		return 0, fmt.Errorf("csr: more than %d edges", maxIDs)
	}
	if err := in.checkWeights(m); err != nil {
		return 0, err
	}
	if in.ChannelOf != nil && len(in.ChannelOf) != m {
		return 0, fmt.Errorf("csr: %d channel indices for %d edges", len(in.ChannelOf), m)
	}
	return m, nil
}

// checkWeights checks that at most one weight array is given, of m weights.
func (in IDEdges[T, C]) checkWeights(m int) error {
	switch {
	case in.Weights != nil && in.Weights32 != nil:
		return errors.New("csr: both Weights and Weights32 given, want at most one")
	case in.Weights != nil && len(in.Weights) != m:
		return fmt.Errorf("csr: %d weights for %d edges", len(in.Weights), m)
	case in.Weights32 != nil && len(in.Weights32) != m:
		return fmt.Errorf("csr: %d weights for %d edges", len(in.Weights32), m)
	}
	return nil
}

// weight returns edge e's weight from Weights or Weights32.
func (in IDEdges[T, C]) weight(e int) float64 {
	if in.Weights32 != nil {
		return float64(in.Weights32[e])
	}
	return in.Weights[e]
}

// FromIDs returns the graph the Builder makes from the same input (AddNode
// of strconv.Itoa(i) for every node i in order, then AddEdgeByID for every
// edge in order, then Build; fromIDsByBuilder is that reference and the
// differential test holds the two equal, array for array), built in bulk:
//
//   - the names are not stored: Name, Names, ID and parts answer as for
//     names strconv.Itoa(i), Names making them on first use;
//   - every array is allocated once at its final size;
//   - one pass over the caller's arrays checks each edge (ids below Nodes,
//     weight 0 or within [MinWeight, MaxWeight], channel index in range; the first
//     bad edge is the error, named by its index) while it fills the edge
//     table and counts the degrees; one counting sort per adjacency (one
//     for an undirected graph) then places the arcs, and W(u) is summed
//     over u's arcs. The weights are copied as float32 (half the bytes)
//     unless in.Float64Weights asks for float64; only when some weight is
//     not exactly a float32 does a second pass read the caller's weights,
//     to copy them as float64. No other pass reads the caller's arrays,
//     and no check is made twice.
//
// bulkBuild can split the edge list into parts, each checked, counted and
// scattered on its own goroutine; FromIDs uses bulkParts of them: a
// machine with a free core is the case worth serving, and one without
// waits for the second goroutine (docs/benchmarks.md has the
// measurements). The differential tests run every part count.
//
// FromIDs keeps none of the caller's slices (they may be C memory read
// during the call only) except ChannelNames' strings. Before it allocates
// anything it checks the counts against in.MaxMemory (fromIDsBytes; a
// *MemoryError).
func FromIDs[T, C index](in IDEdges[T, C]) (*Graph, error) {
	if err := in.Order.check(); err != nil {
		return nil, err
	}
	m, err := in.checkShape()
	if err != nil {
		return nil, err
	}
	if err := checkMemory("", int64(in.Nodes), int64(m), fromIDsBytes(int64(in.Nodes), int64(m)), in.MaxMemory); err != nil {
		return nil, err
	}
	parts := bulkParts(in.Nodes, m, runtime.GOMAXPROCS(0))
	if in.Order.resolve(in.Nodes) != DegreeOrder || in.Nodes < 1 {
		return bulkBuild(in, parts)
	}
	// Degree order: count the degrees, number the nodes, and build from
	// the renumbered pairs (a copy: the caller's arrays are read only).
	// A bad id stops the count; the stream build then reports it exactly
	// as it would have.
	n := in.Nodes
	deg := make([]uint32, n)
	for _, u := range in.Pairs {
		if u < 0 || uint64(u) >= uint64(n) {
			return bulkBuild(in, parts)
		}
		deg[u]++
	}
	newID := make([]uint32, n)
	rank := ranksByDegree(deg, nil, newID) // in stream order node i is id i
	pairs := make([]uint32, len(in.Pairs))
	for i, u := range in.Pairs {
		pairs[i] = newID[u]
	}
	g, err := bulkBuild(IDEdges[uint32, C]{
		Directed: in.Directed, Nodes: n, Pairs: pairs,
		Weights: in.Weights, Weights32: in.Weights32, Float64Weights: in.Float64Weights,
		ChannelOf: in.ChannelOf, ChannelNames: in.ChannelNames, MaxMemory: in.MaxMemory,
	}, parts)
	if err != nil {
		return nil, err
	}
	// Node i of the input is named strconv.Itoa(i) and now numbered
	// newID[i]: its rank is i, and newID is the rank -> id map.
	g.rank, g.idOfRank = rank, newID
	return g, nil
}

// bulkParts is how many parts FromIDs splits m edges over n nodes into with
// procs usable cores: one per core up to four, for graphs large enough that
// a goroutine's start (microseconds) is noise, and only while the edges
// outnumber the nodes, since every part carries its own degree counts (n
// words per adjacency) and the merge of the parts' counts reads them all.
func bulkParts(n, m, procs int) int {
	const minEdges = 1 << 17
	if m < minEdges || m < 2*n {
		return 1
	}
	return max(1, min(procs, 4, m/minEdges))
}

// bulkPart is one contiguous range of edges [lo, hi) and what its pass
// found: the degree counts of its edges alone, two places ahead (count[u+2],
// so that count[1:] can serve as the part's cursors), and its facts.
type bulkPart struct {
	lo, hi            int
	outCount, inCount []uint32 // uint32: see the arc bound in bulkBuild
	err               error
	unit, sorted      bool
	exact             bool   // every weight is exactly a float32
	first, last       uint32 // sources of the first and last edge
	// chanFirst[c]: the first edge of the part on the caller's channel c,
	// or -1.
	chanFirst []int
}

// bulkBuild is FromIDs on parts goroutines (1 or more): the edges split
// into parts contiguous ranges. A counting sort parallelizes over edge
// ranges without changing its result: every node's arcs from range k go
// after those from ranges before k (its cursor starts past their count)
// and keep edge order within the range, so each node's arcs stay in edge
// order, as the one-range sort places them. The differential test runs
// every part count against the Builder.
//
// Its steps: pass 1 checks, copies and counts each part's edges
// (countEdges), the weights take their storage (storeWeights), and the
// arcs are scattered into the adjacencies (placeArcs); W(u) is summed last.
func bulkBuild[T, C index](in IDEdges[T, C], parts int) (*Graph, error) {
	m, err := in.checkShape()
	if err != nil {
		return nil, err
	}
	parts = max(1, min(parts, m))
	arcs := m
	if !in.Directed {
		arcs = 2 * m
	}
	if arcs > math.MaxUint32 {
		// The counts and cursors below are uint32 (half the cache
		// footprint of int in the random-access passes), so every arc
		// position must fit; a graph this large (over 64 GB of arcs)
		// takes the reference path instead.
		return fromIDsByBuilder(in)
	}
	b := newBulk(in, m, arcs, parts)
	facts, err := b.countEdges()
	if err != nil {
		return nil, err
	}
	g := b.g
	g.channels = internChannels(in, b.ps, b.channel)
	g.edgeSrc, g.edgeDst, g.edgeChannel = b.src, b.dst, b.channel
	g.unit = facts.unit
	// The storage of every weight array: float32 when every weight is
	// exactly one and the caller lets it (a unit graph's are).
	want32 := !in.Float64Weights && facts.exact
	ones, arcWeight := b.storeWeights(facts.unit, want32)
	g.outWeight = make([]float64, in.Nodes)
	b.placeArcs(ones, arcWeight, want32, facts.sorted)
	outWeights(g.out, facts.unit, g.outWeight, parts)
	return g, nil
}

// bulk is one bulkBuild: the graph it fills, the parts' ranges and
// counts, and the edge table's arrays as pass 1 copies them.
type bulk[T, C index] struct {
	in         IDEdges[T, C]
	m, arcs    int
	g          *Graph
	ps         []bulkPart
	src, dst   []uint32
	channel    []uint32
	w32        []float32 // pass 1's weights, when float32 is asked
	w64        []float64 // or float64 (both nil: unit weights)
	edgeWeight Weights   // the graph's, once storeWeights chose
}

// newBulk allocates the graph and the edge table of a build of m edges
// (arcs arcs) in parts parts. The edge weights are copied in pass 1 in the
// storage they will most likely keep: float32 unless float64 is asked for
// (a graph whose weights turn out not all float32 is copied again, as
// float64, by storeWeights).
func newBulk[T, C index](in IDEdges[T, C], m, arcs, parts int) *bulk[T, C] {
	b := &bulk[T, C]{in: in, m: m, arcs: arcs}
	b.g = &Graph{directed: in.Directed, nodes: in.Nodes, decimalNames: true}
	b.src, b.dst = make([]uint32, m), make([]uint32, m)
	if in.Weights != nil || in.Weights32 != nil {
		if !in.Float64Weights {
			b.w32 = make([]float32, m)
		} else {
			b.w64 = make([]float64, m)
		}
	}
	b.channel = make([]uint32, m)
	b.ps = make([]bulkPart, parts)
	for k := range b.ps {
		p := &b.ps[k]
		p.lo, p.hi = k*m/parts, (k+1)*m/parts
		p.outCount = make([]uint32, in.Nodes+2)
		if in.Directed {
			p.inCount = make([]uint32, in.Nodes+2)
		}
	}
	return b
}

// edgeFacts are what pass 1 found of all the edges.
type edgeFacts struct {
	unit   bool // every weight is 1
	sorted bool // the sources never decrease (directed graphs)
	exact  bool // every weight is exactly a float32
}

// countEdges is pass 1, each part on its own goroutine (checkAndCount):
// the first bad edge is the error (the parts are in edge order).
func (b *bulk[T, C]) countEdges() (edgeFacts, error) {
	runParts(b.ps, func(p *bulkPart) { checkAndCount(b.in, p, b.src, b.dst, b.w32, b.w64, b.channel) })
	f := edgeFacts{unit: true, sorted: true, exact: true}
	for k, p := range b.ps {
		if p.err != nil {
			return f, p.err
		}
		f.unit = f.unit && p.unit
		f.exact = f.exact && p.exact
		f.sorted = f.sorted && p.sorted && (k == 0 || p.lo == p.hi || b.ps[k-1].last <= p.first)
	}
	return f, nil
}

// storeWeights sets the graph's edge weights in their storage and returns
// the weights the scatters copy to the arcs (arcWeight; empty for unit
// weights) and, for a unit-weight graph, ones: every weight array, as
// shareArrays makes it, the longest (arcs long) and prefixes of it, so the
// scatters get no weights to copy. Pass 1's copies are dropped here.
func (b *bulk[T, C]) storeWeights(unit, want32 bool) (ones, arcWeight Weights) {
	switch {
	case unit:
		ones = onesOf(b.arcs, want32)
		b.edgeWeight = ones.Slice(0, b.m)
	case want32:
		b.edgeWeight = weights32(b.w32)
		arcWeight = b.edgeWeight
	default:
		if b.w64 == nil {
			// Pass 1 copied float32s, but some weight is not one: copy
			// the weights again as float64 (checked in pass 1; they are
			// in.Weights, since float32s are exact).
			w64 := make([]float64, b.m)
			runParts(b.ps, func(p *bulkPart) {
				for e := p.lo; e < p.hi; e++ {
					w64[e] = b.in.Weights[e] + 0 // +0 turns -0 into 0
				}
			})
			b.w64 = w64
		}
		b.edgeWeight = weights64(b.w64)
		arcWeight = b.edgeWeight
	}
	b.w32, b.w64 = nil, nil
	b.g.edgeWeight = b.edgeWeight
	return ones, arcWeight
}

// placeArcs makes the graph's adjacencies from the parts' counts and
// scatters every part's arcs into them on its own goroutine.
func (b *bulk[T, C]) placeArcs(ones, arcWeight Weights, want32, sorted bool) {
	g, ps, n := b.g, b.ps, b.in.Nodes
	src, dst := b.src, b.dst
	outCount := func(p *bulkPart) []uint32 { return p.outCount }
	if !b.in.Directed {
		g.out = newAdjacency(ps, outCount, n, b.arcs, ones, want32)
		g.in = g.out
		runParts(ps, func(p *bulkPart) {
			scatterUndirected(g.out, p.outCount[1:n+1], src[p.lo:p.hi], dst[p.lo:p.hi], arcWeight, p.lo)
		})
		return
	}
	g.in = newAdjacency(ps, func(p *bulkPart) []uint32 { return p.inCount }, n, b.arcs, ones, want32)
	if !sorted {
		g.out = newAdjacency(ps, outCount, n, b.arcs, ones, want32)
		runParts(ps, func(p *bulkPart) {
			scatter(g.out, p.outCount[1:n+1], src[p.lo:p.hi], dst[p.lo:p.hi], arcWeight, p.lo)
			scatter(g.in, p.inCount[1:n+1], dst[p.lo:p.hi], src[p.lo:p.hi], arcWeight, p.lo)
		})
		return
	}
	// As Build: the out-adjacency is the edge table itself, in stream
	// order, with identity edge ids.
	g.out = Adjacency{Offsets: make([]int, n+1), Nbr: dst, Weight: b.edgeWeight, Edge: make([]uint32, b.m)}
	run := 0
	for u := range n {
		g.out.Offsets[u] = run
		for _, p := range ps {
			run += int(p.outCount[u+2])
		}
	}
	g.out.Offsets[n] = run
	for e := range g.out.Edge {
		g.out.Edge[e] = uint32(e)
	}
	runParts(ps, func(p *bulkPart) {
		scatter(g.in, p.inCount[1:n+1], dst[p.lo:p.hi], src[p.lo:p.hi], arcWeight, p.lo)
	})
}

// runParts runs f on every part, the first on this goroutine.
func runParts(ps []bulkPart, f func(*bulkPart)) {
	var wg sync.WaitGroup
	for k := 1; k < len(ps); k++ {
		wg.Go(func() { f(&ps[k]) })
	}
	f(&ps[0])
	wg.Wait()
}

// checkAndCount is pass 1 on the part's edges: it checks each edge (the
// first fault is p.err), copies it into the edge table (the caller's
// channel index as is: internChannels maps it) and counts its arcs.
// The weights go to w32 (rounded; p.exact says whether every one was
// exact) or w64, whichever is not nil; both nil: unit weights.
func checkAndCount[T, C index](in IDEdges[T, C], p *bulkPart, src, dst []uint32, w32 []float32, w64 []float64, channel []uint32) {
	n := uint64(in.Nodes)
	lo, hi := p.lo, p.hi
	pairs := in.Pairs[2*lo : 2*hi]
	src, dst, channel = src[lo:hi], dst[lo:hi], channel[lo:hi]
	outCount, inCount := p.outCount, p.inCount
	p.unit, p.sorted, p.exact = true, true, true
	if in.ChannelOf != nil {
		p.chanFirst = make([]int, len(in.ChannelNames))
		for c := range p.chanFirst {
			p.chanFirst[c] = -1
		}
	}
	prev := uint32(0)
	for i := range src {
		e := lo + i
		s, d := pairs[2*i], pairs[2*i+1]
		// A negative signed id converts to at least 2^63 > n: one
		// comparison per endpoint covers both ends of the range.
		if uint64(s) >= n || uint64(d) >= n {
			p.err = fmt.Errorf("csr: edge %d: node %d -> %d out of range (graph has %d nodes, ids 0..%d)", e, s, d, n, n-1)
			return
		}
		if p.chanFirst != nil {
			c := in.ChannelOf[e]
			if uint64(c) >= uint64(len(p.chanFirst)) {
				p.err = fmt.Errorf("csr: edge %d: channel %d out of range (%d channel names)", e, c, len(p.chanFirst))
				return
			}
			if p.chanFirst[c] < 0 {
				p.chanFirst[c] = e
			}
			channel[i] = uint32(c)
		}
		if in.Weights != nil || in.Weights32 != nil {
			w := in.weight(e)
			// CheckWeight's test: false for NaN, negative, infinite and
			// out-of-range weights.
			if !(w >= MinWeight && w <= MaxWeight) && w != 0 {
				p.err = fmt.Errorf("csr: edge %d (%d -> %d): %w", e, s, d, CheckWeight(w))
				return
			}
			w += 0 // +0 turns -0 into 0
			if w32 != nil {
				x := float32(w)
				w32[e] = x
				p.exact = p.exact && float64(x) == w
			} else {
				w64[e] = w
			}
			p.unit = p.unit && w == 1
		}
		su, du := uint32(s), uint32(d)
		src[i], dst[i] = su, du
		outCount[su+2]++
		if inCount != nil {
			inCount[du+2]++
			p.sorted = p.sorted && (i == 0 || prev <= su)
			prev = su
		} else {
			outCount[du+2]++
		}
	}
	if len(src) > 0 {
		p.first, p.last = src[0], src[len(src)-1]
	}
}

// internChannels returns the graph's channel table, in order of first
// appearance as the Builder interns it (an empty name is DefaultChannel,
// equal names one channel), and rewrites channel from the caller's indices
// to it unless the two agree (as when the caller numbered its channels in
// order of first appearance, which the Python binding does).
func internChannels[T, C index](in IDEdges[T, C], ps []bulkPart, channel []uint32) []string {
	if in.ChannelOf == nil {
		if len(channel) > 0 {
			return []string{DefaultChannel}
		}
		return []string{}
	}
	type firstUse struct{ edge, c int }
	var used []firstUse
	for c := range in.ChannelNames {
		first := -1
		for _, p := range ps {
			if p.chanFirst[c] >= 0 {
				first = p.chanFirst[c]
				break // parts are in edge order
			}
		}
		if first >= 0 {
			used = append(used, firstUse{first, c})
		}
	}
	slices.SortFunc(used, func(a, b firstUse) int { return a.edge - b.edge })
	channels := []string{}
	ids := make(map[string]uint32)
	remap := make([]uint32, len(in.ChannelNames))
	identity := true
	for _, u := range used {
		name := in.ChannelNames[u.c]
		if name == "" {
			name = DefaultChannel
		}
		remap[u.c] = intern(name, ids, &channels)
		identity = identity && remap[u.c] == uint32(u.c)
	}
	if !identity {
		for e, c := range channel {
			channel[e] = remap[c]
		}
	}
	return channels
}

// newAdjacency turns the parts' counts (count(p)[u+2]: p's arcs at u) into
// the offsets and each part's cursors (count(p)[u+1]: the first arc of u
// from p's edges, after those of the parts before), and allocates the arc
// arrays (float32 weights when want32); ones (when not empty) is the
// graph's shared array of unit weights.
func newAdjacency(ps []bulkPart, count func(*bulkPart) []uint32, n, arcs int, ones Weights, want32 bool) Adjacency {
	counts := make([][]uint32, len(ps))
	for k := range ps {
		counts[k] = count(&ps[k])[:n+2]
	}
	offsets := make([]int, n+1)
	run := uint32(0) // at most arcs <= MaxUint32
	for u := range n {
		offsets[u] = int(run)
		for _, c := range counts {
			c[u+1], run = run, run+c[u+2]
		}
	}
	offsets[n] = int(run)
	a := Adjacency{Offsets: offsets, Nbr: make([]uint32, arcs), Edge: make([]uint32, arcs)}
	switch {
	case ones.Len() > 0:
		a.Weight = ones.Slice(0, arcs)
	case want32:
		a.Weight = weights32(make([]float32, arcs))
	default:
		a.Weight = weights64(make([]float64, arcs))
	}
	return a
}

// outWeights sets W(u) from the out-adjacency, the nodes split into parts
// ranges: the arc count for unit weights (a sum of that many ones, exact
// below 2^53), else sumWeights over u's arcs, as Build does.
func outWeights(out Adjacency, unit bool, w []float64, parts int) {
	n := len(w)
	sum := func(lo, hi int) {
		for u := lo; u < hi; u++ {
			a, b := out.Offsets[u], out.Offsets[u+1]
			if unit {
				w[u] = float64(b - a)
			} else {
				w[u] = sumWeightsAt(out.Weight, a, b)
			}
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < parts; k++ {
		wg.Go(func() { sum(k*n/parts, (k+1)*n/parts) })
	}
	sum(0, n/parts)
	wg.Wait()
}

// onesOf returns n unit weights in the storage asked.
func onesOf(n int, want32 bool) Weights {
	if want32 {
		w := make([]float32, n)
		for p := range w {
			w[p] = 1
		}
		return weights32(w)
	}
	w := make([]float64, n)
	for p := range w {
		w[p] = 1
	}
	return weights64(w)
}

// scatterUndirected places the arcs src[i]->dst[i] and dst[i]->src[i] of
// edges first+i into a at the cursors next (next[u]: u's next free arc), as
// buildAdjacency(n, src, dst, weight, dst, src) does for the whole list.
// weight (indexed by edge id, in a.Weight's storage) empty means unit
// weights: a.Weight is already all ones.
func scatterUndirected(a Adjacency, next []uint32, src, dst []uint32, weight Weights, first int) {
	switch {
	case weight.Len() == 0:
		scatterUndirectedOf[float64](a, nil, next, src, dst, nil, first)
	case weight.is32():
		scatterUndirectedOf(a, a.Weight.f32, next, src, dst, weight.f32, first)
	default:
		scatterUndirectedOf(a, a.Weight.f64, next, src, dst, weight.f64, first)
	}
}

// scatterUndirectedOf is scatterUndirected with the arc weights aw and the
// edge weights weight of one storage (nil: unit weights).
func scatterUndirectedOf[W weightValue](a Adjacency, aw []W, next []uint32, src, dst []uint32, weight []W, first int) {
	dst = dst[:len(src)]
	nbr, edge := a.Nbr, a.Edge
	for i, s := range src {
		d, e := dst[i], uint32(first+i)
		p := next[s]
		next[s]++
		nbr[p], edge[p] = d, e
		q := next[d]
		next[d]++
		nbr[q], edge[q] = s, e
		if weight != nil {
			x := weight[e]
			aw[p], aw[q] = x, x
		}
	}
}

// scatter places the arcs from[i]->to[i] of edges first+i into a at the
// cursors next, as buildAdjacency(n, from, to, weight, nil, nil) does for
// the whole list; weight empty means a.Weight is already all ones.
func scatter(a Adjacency, next []uint32, from, to []uint32, weight Weights, first int) {
	switch {
	case weight.Len() == 0:
		scatterOf[float64](a, nil, next, from, to, nil, first)
	case weight.is32():
		scatterOf(a, a.Weight.f32, next, from, to, weight.f32, first)
	default:
		scatterOf(a, a.Weight.f64, next, from, to, weight.f64, first)
	}
}

// scatterOf is scatter with the arc and edge weights of one storage.
func scatterOf[W weightValue](a Adjacency, aw []W, next []uint32, from, to []uint32, weight []W, first int) {
	to = to[:len(from)]
	nbr, edge := a.Nbr, a.Edge
	for i, u := range from {
		e := uint32(first + i)
		p := next[u]
		next[u]++
		nbr[p], edge[p] = to[i], e
		if weight != nil {
			aw[p] = weight[e]
		}
	}
}

// fromIDsByBuilder is FromIDs' reference: the Builder fed the same input
// node by node and edge by edge, with FromIDs' checks (ids in range and
// channel indices, which AddEdgeByID cannot see, in the same words).
func fromIDsByBuilder[T, C index](in IDEdges[T, C]) (*Graph, error) {
	if in.Nodes < 1 {
		return nil, errors.New("csr: graph has no nodes")
	}
	if len(in.Pairs)%2 != 0 {
		return nil, fmt.Errorf("csr: %d node ids, want an even number (src, dst pairs)", len(in.Pairs))
	}
	m := len(in.Pairs) / 2
	if err := in.checkWeights(m); err != nil {
		return nil, err
	}
	if in.ChannelOf != nil && len(in.ChannelOf) != m {
		return nil, fmt.Errorf("csr: %d channel indices for %d edges", len(in.ChannelOf), m)
	}
	b := NewBuilder(in.Directed)
	b.setWeightStorage(storageOf(in.Float64Weights))
	b.SetMaxMemory(in.MaxMemory)
	for i := range in.Nodes {
		if _, err := b.AddNode(strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	for e := range m {
		s, d := int64(in.Pairs[2*e]), int64(in.Pairs[2*e+1])
		// int64 of a uint64 above 2^63 is negative: out of range either way.
		if s < 0 || s >= int64(in.Nodes) || d < 0 || d >= int64(in.Nodes) {
			return nil, fmt.Errorf("csr: edge %d: node %d -> %d out of range (graph has %d nodes, ids 0..%d)",
				e, in.Pairs[2*e], in.Pairs[2*e+1], in.Nodes, in.Nodes-1)
		}
		channel := DefaultChannel
		if in.ChannelOf != nil {
			c := int64(in.ChannelOf[e])
			if c < 0 || c >= int64(len(in.ChannelNames)) {
				return nil, fmt.Errorf("csr: edge %d: channel %d out of range (%d channel names)", e, in.ChannelOf[e], len(in.ChannelNames))
			}
			channel = in.ChannelNames[c]
		}
		w := 1.0
		if in.Weights != nil || in.Weights32 != nil {
			w = in.weight(e)
		}
		if _, err := b.AddEdgeByID(uint32(s), uint32(d), w, channel); err != nil {
			return nil, err
		}
	}
	return b.Build()
}
