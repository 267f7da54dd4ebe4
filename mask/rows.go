package mask

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/internal/rowindex"
)

// csrHooks makes csr.Weights over a patched row's weights.
var csrHooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()

// rowSet lists whole rows: row i belongs to node Nodes[i] and holds the
// arcs Nbr[i] (the other endpoint), Weight[i] and Edge[i] (the id of the
// edge the arc belongs to). Each row is its own slices, so a view derived
// from another shares the rows it keeps (see patched).
type rowSet struct {
	Nodes  []uint32 // ascending, distinct
	Nbr    [][]uint32
	Weight [][]float64
	Edge   [][]uint32
}

// Len returns the number of rows.
func (s *rowSet) Len() int { return len(s.Nodes) }

// Row is one node's arcs in a view. Arcs whose edge bit is set in the
// view's mask are not in the view (Live says which); a replaced row lists
// only the arcs the view has.
type Row struct {
	Nbr    []uint32
	Weight csr.Weights
	Edge   []uint32
	masked []uint64 // nil: every arc is live
}

// Len returns the number of arcs, live or not.
func (r Row) Len() int { return len(r.Nbr) }

// Live reports whether arc p is in the view.
func (r Row) Live(p int) bool {
	e := r.Edge[p]
	return r.masked == nil || r.masked[e/64]&(1<<(e%64)) == 0
}

// AllLive reports whether every arc of the row is in the view: a replaced
// row's, or any row of a view that masks nothing.
func (r Row) AllLive() bool { return r.masked == nil }

// Paired is one arc of a node's rows in two views (see PairArcs): its
// neighbour, weight and edge id, and the rows it is live in.
type Paired struct {
	Nbr      uint32
	Weight   float64
	Edge     uint32
	InA, InB bool
}

// PairArcs yields every arc live in row a or in row b, in edge-id order,
// with the rows it is live in, an arc of both rows once: a and b are one
// node's rows in two views whose edge ids name the same edges (views of
// one graph, or of a store's versions), an edge's neighbour and weight
// the same in both. An undirected self-loop is two arcs of its node's row.
// One walk over both rows (a view's rows are in edge-id order).
func PairArcs(a, b Row) iter.Seq[Paired] {
	return func(yield func(Paired) bool) {
		i, j := a.nextLive(0), b.nextLive(0)
		for i < a.Len() || j < b.Len() {
			var p Paired
			switch {
			case j == b.Len() || i < a.Len() && a.Edge[i] < b.Edge[j]:
				p = Paired{Nbr: a.Nbr[i], Weight: a.Weight.At(i), Edge: a.Edge[i], InA: true}
				i = a.nextLive(i + 1)
			case i == a.Len() || b.Edge[j] < a.Edge[i]:
				p = Paired{Nbr: b.Nbr[j], Weight: b.Weight.At(j), Edge: b.Edge[j], InB: true}
				j = b.nextLive(j + 1)
			default:
				p = Paired{Nbr: a.Nbr[i], Weight: a.Weight.At(i), Edge: a.Edge[i], InA: true, InB: true}
				i, j = a.nextLive(i+1), b.nextLive(j+1)
			}
			if !yield(p) {
				return
			}
		}
	}
}

// nextLive returns the first live arc at or after p (Len() when none is).
func (r Row) nextLive(p int) int {
	for p < r.Len() && !r.Live(p) {
		p++
	}
	return p
}

// replaced holds the rows a patched view replaces (see patched) and their
// index by node (the zero value: none).
type replaced struct {
	rows rowSet
	idx  rowindex.Rows
}

func newReplaced(rows rowSet, n int) replaced {
	return replaced{rows: rows, idx: rowindex.New(rows.Nodes, rows.Nbr, rows.Weight, n)}
}

// index returns the row number of u, or -1 when u's row is not replaced.
func (r *replaced) index(u uint32) int {
	if r.rows.Len() == 0 {
		return -1
	}
	return r.idx.Index(u)
}

// row returns row i's arcs, through the index's Row: one slicing for this
// package and the kernels (whose inlining of Row needs its body in this
// package's export data, as a call here puts it).
func (r *replaced) row(i int) (nbr []uint32, wt []float64, eid []uint32) {
	nbr, wt = r.idx.Row(i)
	return nbr, wt, r.rows.Edge[i]
}

// patched returns the view prev with the out-rows of out replaced and with
// n >= prev.NumNodes() nodes: the view a host presents when it keeps a
// delta beside an immutable snapshot (a store version). prev is the
// snapshot's view or a view patched from it (an earlier version's): the
// result patches the same snapshot view, with prev's replaced rows and
// those of out (which win where both have a node's row). Nodes from the
// snapshot's count on exist only in the patch; such a node without a
// replaced row has no arcs. On a directed graph in replaces the in-rows
// (reverse pushes read them); on an undirected one in must be empty, as
// in-rows are out-rows.
//
// The caller vouches that the rows are consistent: a replaced out-row lists
// every arc of the view leaving its node, in edge-id order, and on a
// directed graph every node whose in-arcs differ from prev's has its
// in-row replaced, listing them in edge-id order (patched checks the new
// rows' shapes, ranges, order and weights, not this cross-check; the
// store's tests compare its patched views with materialised graphs). W(u)
// of a replaced row is summed in arc order, so with rows in edge-id order
// it equals the out-weight of the materialised graph's view bit for bit.
//
// The view shares the snapshot's arrays, its snapshot view's out-weights
// (NodeWeights), prev's rows and the row sets (which must not be modified
// afterwards); what it owns is O(rows) words (slice headers, a weight per
// row) and O(n/64) for the row index and the touched bits. Its cost is
// that and O(the arcs of out and in). Every node from prev's count to n
// must have an out-row (empty when it has no arcs).
func patched(prev *View, n int, out, in rowSet) (*View, error) {
	g := prev.g
	if n < prev.n || int64(n) > math.MaxUint32 {
		return nil, fmt.Errorf("mask: patched view of %d nodes over a view of %d", n, prev.n)
	}
	if err := out.check("out", n); err != nil {
		return nil, err
	}
	if !g.Directed() && in.Len() > 0 {
		return nil, fmt.Errorf("mask: in-rows replaced on an undirected graph (in-rows are out-rows)")
	}
	if err := in.check("in", n); err != nil {
		return nil, err
	}
	if err := out.coversFrom(prev.n, n); err != nil {
		return nil, err
	}
	base := prev
	if prev.patch != nil {
		base = prev.patch.base
		out = mergeRows(prev.patch.out.rows, out)
		in = mergeRows(prev.patch.in.rows, in)
	}
	v := &View{
		g: g, name: base.name, n: n, masked: base.masked, maskedBits: base.maskedBits,
		maskedInNode: base.maskedInNode, maskedInArc: base.maskedInArc,
		maskedOutArc: base.maskedOutArc, maskedOut: base.maskedOut, maskedOutStart: base.maskedOutStart,
		patch: &patch{out: newReplaced(out, n), base: base},
	}
	if in.Len() > 0 {
		v.patch.in = newReplaced(in, n)
	}
	if err := v.sumOutWeights(prev); err != nil {
		return nil, err
	}
	v.touchedBit = make([]uint64, (n+63)/64)
	copy(v.touchedBit, base.touchedBit)
	for i, w := range v.patch.out.idx.Bits() {
		v.touchedBit[i] |= w
	}
	v.touched = nodeset.Union(base.touched, out.Nodes)
	return v, nil
}

// sumOutWeights sets the out-weights: the snapshot view's array, shared,
// under a value per replaced row, summed in arc order (prev's value where
// this view keeps prev's row: the same slice).
func (v *View) sumOutWeights(prev *View) error {
	var kept *replaced
	if prev.patch != nil {
		kept = &prev.patch.out
	}
	rows := &v.patch.out.rows
	vals := make([]float64, rows.Len())
	for i, u := range rows.Nodes {
		if kept != nil && int(u) < prev.n {
			if j := kept.index(u); j >= 0 && sameRow(kept.rows.Edge[j], rows.Edge[i]) {
				vals[i] = prev.outW.vals[j]
				continue
			}
		}
		w := 0.0
		for _, wt := range rows.Weight[i] {
			w += wt
		}
		if math.IsInf(w, 0) {
			return fmt.Errorf("mask: patched row of node %d: out-weight overflows", u)
		}
		vals[i] = w
	}
	idx := &v.patch.out.idx
	v.outW = NodeWeights{flat: v.patch.base.outW.flat, bits: idx.Bits(), rows: idx, nodes: rows.Nodes, vals: vals}
	return nil
}

// sameRow reports whether two rows are the same slice (a row a derived
// view shares).
func sameRow(a, b []uint32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// mergeRows returns the rows of old and of new, new's where both have a
// node's row: O(the rows), sharing every row.
func mergeRows(old, new rowSet) rowSet {
	if old.Len() == 0 {
		return new
	}
	if new.Len() == 0 {
		return old
	}
	k := old.Len() + new.Len() // at most
	m := rowSet{Nodes: make([]uint32, 0, k), Nbr: make([][]uint32, 0, k), Weight: make([][]float64, 0, k), Edge: make([][]uint32, 0, k)}
	put := func(s *rowSet, i int) {
		m.Nodes = append(m.Nodes, s.Nodes[i])
		m.Nbr, m.Weight, m.Edge = append(m.Nbr, s.Nbr[i]), append(m.Weight, s.Weight[i]), append(m.Edge, s.Edge[i])
	}
	i, j := 0, 0
	for i < old.Len() || j < new.Len() {
		switch {
		case j == new.Len() || i < old.Len() && old.Nodes[i] < new.Nodes[j]:
			put(&old, i)
			i++
		case i < old.Len() && old.Nodes[i] == new.Nodes[j]:
			put(&new, j)
			i, j = i+1, j+1
		default:
			put(&new, j)
			j++
		}
	}
	return m
}

// patch is what a patched view replaces (see patched).
type patch struct {
	out, in replaced
	base    *View // the snapshot's view patched (its inverse out-weights serve this one's)
}

// check validates a row set's shape for a view of n nodes.
func (s *rowSet) check(dir string, n int) error {
	if len(s.Nbr) != len(s.Nodes) || len(s.Weight) != len(s.Nodes) || len(s.Edge) != len(s.Nodes) {
		return fmt.Errorf("mask: %s-rows: %d, %d and %d rows of neighbours, weights and edge ids for %d nodes", dir, len(s.Nbr), len(s.Weight), len(s.Edge), len(s.Nodes))
	}
	for i, u := range s.Nodes {
		if int64(u) >= int64(n) {
			return fmt.Errorf("mask: %s-row %d: node %d out of range (%d nodes)", dir, i, u, n)
		}
		if i > 0 && u <= s.Nodes[i-1] {
			return fmt.Errorf("mask: %s-row %d: node %d after node %d, want ascending", dir, i, u, s.Nodes[i-1])
		}
		nbr, wt, eid := s.Nbr[i], s.Weight[i], s.Edge[i]
		if len(wt) != len(nbr) || len(eid) != len(nbr) {
			return fmt.Errorf("mask: %s-row of node %d: %d neighbours, %d weights and %d edge ids", dir, u, len(nbr), len(wt), len(eid))
		}
		for p := range nbr {
			if int64(nbr[p]) >= int64(n) {
				return fmt.Errorf("mask: %s-row of node %d: neighbour %d out of range (%d nodes)", dir, u, nbr[p], n)
			}
			if w := wt[p]; !(w >= 0) || math.IsInf(w, 1) {
				return fmt.Errorf("mask: %s-row of node %d: weight %v, want finite and non-negative", dir, u, w)
			}
			if p > 0 && eid[p] < eid[p-1] {
				return fmt.Errorf("mask: %s-row of node %d: edge %d after edge %d, want edge-id order", dir, u, eid[p], eid[p-1])
			}
		}
	}
	return nil
}

// coversFrom checks that every node from lo to n has a row: a patched
// view's nodes beyond its snapshot's have no values but their rows'.
func (s *rowSet) coversFrom(lo, n int) error {
	i, _ := slices.BinarySearch(s.Nodes, uint32(lo))
	if have := s.Len() - i; have != n-lo {
		return fmt.Errorf("mask: out-rows: %d rows for the %d nodes from %d on, want one each", have, n-lo, lo)
	}
	return nil
}

// Patched reports whether the view replaces rows of its graph or has nodes
// beyond it (see WithDelta): kernels that read the graph's arrays for every
// row (pulls over the in-adjacency) cannot serve it.
func (v *View) Patched() bool { return v.patch != nil }

// OutReplaced returns the view's replaced out-rows (the live arcs, in
// edge-id order) indexed by node, or nil when the view is not patched: for
// the kernels of this module that look rows up per node (the index is
// internal/rowindex's). Other code reads rows with OutRow.
func (v *View) OutReplaced() *rowindex.Rows {
	if v.patch == nil {
		return nil
	}
	return &v.patch.out.idx
}

// ReplacedNodes returns the nodes whose out-rows the view replaces,
// ascending (none for a view that is not patched). Must not be modified.
func (v *View) ReplacedNodes() []uint32 {
	if v.patch == nil {
		return nil
	}
	return v.patch.out.rows.Nodes
}

// ReplacedRow returns u's out-row when the view replaces it: the arcs the
// view has, in edge-id order, with float64 weights.
func (v *View) ReplacedRow(u uint32) (nbr []uint32, wt []float64, eid []uint32, ok bool) {
	if v.patch == nil {
		return nil, nil, nil, false
	}
	i := v.patch.out.index(u)
	if i < 0 {
		return nil, nil, nil, false
	}
	nbr, wt, eid = v.patch.out.row(i)
	return nbr, wt, eid, true
}

// OutRow returns u's out-row in the view.
func (v *View) OutRow(u uint32) Row {
	if nbr, wt, eid, ok := v.ReplacedRow(u); ok {
		return Row{Nbr: nbr, Weight: csrHooks.Float64Weights(wt), Edge: eid}
	}
	if int(u) >= v.g.NumNodes() {
		return Row{}
	}
	return v.graphRow(v.g.Out(), u)
}

// ReplacedInRow returns u's in-row when the view replaces it (an
// undirected view's is its out-row): the arcs entering u, every one live.
// Must not be modified. Any other in-row of a patched view is the graph's
// (empty past its nodes) under the snapshot view's mask, whose masked
// arcs leave touched nodes (TouchedBits).
func (v *View) ReplacedInRow(u uint32) (nbr []uint32, wt []float64, eid []uint32, ok bool) {
	if !v.g.Directed() {
		return v.ReplacedRow(u)
	}
	if v.patch == nil {
		return nil, nil, nil, false
	}
	i := v.patch.in.index(u)
	if i < 0 {
		return nil, nil, nil, false
	}
	nbr, wt, eid = v.patch.in.row(i)
	return nbr, wt, eid, true
}

// InRow returns v's in-row in the view: the arcs entering node u.
func (v *View) InRow(u uint32) Row {
	if !v.g.Directed() {
		return v.OutRow(u)
	}
	if nbr, wt, eid, ok := v.ReplacedInRow(u); ok {
		return Row{Nbr: nbr, Weight: csrHooks.Float64Weights(wt), Edge: eid}
	}
	if int(u) >= v.g.NumNodes() {
		return Row{}
	}
	return v.graphRow(v.g.In(), u)
}

func (v *View) graphRow(a csr.Adjacency, u uint32) Row {
	lo, hi := a.Span(u)
	r := Row{Nbr: a.Nbr[lo:hi:hi], Weight: a.Weight.Slice(lo, hi), Edge: a.Edge[lo:hi:hi]}
	if v.maskedBits != nil {
		r.masked = v.maskedBits
	}
	return r
}

// Delta is what a host keeps beside a snapshot and presents through a view
// (a store version's writes): nodes appended after the graph's, edges added
// with ids after the graph's, and edges removed. It describes one view, so
// it lists only the added edges that view has and every edge it drops.
// Applied to a view that is itself patched (an earlier version's), it is
// what changed since that view: edges added after the ones it has, and
// edges removed since.
type Delta struct {
	Nodes    int // the view's node count, at least the graph's
	Src, Dst []uint32
	Weight   []float64
	Edge     []uint32 // the added edges' ids: ascending, each at least the graph's edge count
	Removed  []uint32 // edges (the graph's or added ones) the view drops
	// The removed edges' ends, parallel to Removed: needed when the view
	// the delta applies to is patched (the ends of the edges its patch
	// added are not the graph's); nil otherwise.
	RemovedSrc, RemovedDst []uint32
}

// WithDelta returns base with d applied: a patched view (see patched) whose
// replaced rows are base's and the rows d changes (and a row for every
// node d adds), built in O(|d| + the degrees of the nodes it touches) plus
// O(n/64) words. A row lists its node's
// live graph arcs and then its added arcs, both in edge-id order, as the
// materialised graph's view does (TestWithDeltaMatchesMaterialized); a
// chain of deltas gives the view their union gives
// (TestWithDeltaChainsMatchOneDelta).
func WithDelta(base *View, d Delta) (*View, error) {
	if err := d.check(base); err != nil {
		return nil, err
	}
	gone := make(map[uint32]bool, len(d.Removed))
	for _, e := range d.Removed {
		gone[e] = true
	}
	outRows, inRows := newRowBuilder(d.Nodes), newRowBuilder(d.Nodes)
	directed := base.g.Directed()
	// Rows that lose an arc, then rows that gain an added one.
	for i, e := range d.Removed {
		if src, dst, ok := d.removedEnds(base, i); ok && int64(src) < int64(base.n) && int64(dst) < int64(base.n) {
			outRows.remove(src, e)
			if directed {
				inRows.remove(dst, e)
			} else {
				outRows.remove(dst, e)
			}
		}
	}
	for i, e := range d.Edge {
		if !gone[e] {
			outRows.mark(d.Src[i])
			if directed {
				inRows.mark(d.Dst[i])
			} else {
				outRows.mark(d.Dst[i])
			}
		}
	}
	// Every node the view adds gets an out-row, empty when it has no arcs:
	// the snapshot view's arrays stop at its own nodes (see NodeWeights).
	for u := base.n; u < d.Nodes; u++ {
		outRows.mark(uint32(u))
	}
	out := outRows.build(base, base.OutRow, func(add func(u, v uint32, w float64, e uint32)) {
		for i, e := range d.Edge {
			if !gone[e] {
				add(d.Src[i], d.Dst[i], d.Weight[i], e)
				if !directed {
					add(d.Dst[i], d.Src[i], d.Weight[i], e)
				}
			}
		}
	})
	var in rowSet
	if directed {
		in = inRows.build(base, base.InRow, func(add func(u, v uint32, w float64, e uint32)) {
			for i, e := range d.Edge {
				if !gone[e] {
					add(d.Dst[i], d.Src[i], d.Weight[i], e)
				}
			}
		})
	}
	return patched(base, d.Nodes, out, in)
}

// check validates d's shape over base.
func (d *Delta) check(base *View) error {
	g := base.g
	if d.Nodes < base.n {
		return fmt.Errorf("mask: delta of %d nodes over a view of %d", d.Nodes, base.n)
	}
	m := len(d.Edge)
	if len(d.Src) != m || len(d.Dst) != m || len(d.Weight) != m {
		return fmt.Errorf("mask: delta with %d edge ids, %d sources, %d targets and %d weights", m, len(d.Src), len(d.Dst), len(d.Weight))
	}
	for i, e := range d.Edge {
		if int64(e) < int64(g.NumEdges()) || i > 0 && e <= d.Edge[i-1] {
			return fmt.Errorf("mask: delta edge %d: id %d, want ascending ids from %d", i, e, g.NumEdges())
		}
		if int64(d.Src[i]) >= int64(d.Nodes) || int64(d.Dst[i]) >= int64(d.Nodes) {
			return fmt.Errorf("mask: delta edge %d: %d -> %d out of range (%d nodes)", e, d.Src[i], d.Dst[i], d.Nodes)
		}
	}
	ends := d.RemovedSrc != nil || d.RemovedDst != nil
	if ends && (len(d.RemovedSrc) != len(d.Removed) || len(d.RemovedDst) != len(d.Removed)) {
		return fmt.Errorf("mask: delta with %d removed edges, %d sources and %d targets", len(d.Removed), len(d.RemovedSrc), len(d.RemovedDst))
	}
	if !ends && base.patch != nil && len(d.Removed) > 0 {
		return fmt.Errorf("mask: delta removes %d edges from a patched view without their ends", len(d.Removed))
	}
	for i, e := range d.Removed {
		if int64(e) < int64(g.NumEdges()) && ends {
			if ed := g.Edge(e); ed.Src != d.RemovedSrc[i] || ed.Dst != d.RemovedDst[i] {
				return fmt.Errorf("mask: delta removes edge %d as %d -> %d, the graph has it as %d -> %d", e, d.RemovedSrc[i], d.RemovedDst[i], ed.Src, ed.Dst)
			}
		}
	}
	return nil
}

// removedEnds returns the ends of removed edge i when it may be an arc of
// base: a graph edge base does not mask, or (on a patched base) an added
// one.
func (d *Delta) removedEnds(base *View, i int) (src, dst uint32, ok bool) {
	e := d.Removed[i]
	g := base.g
	if int64(e) < int64(g.NumEdges()) {
		if base.MaskedEdge(e) {
			return 0, 0, false
		}
		ed := g.Edge(e)
		return ed.Src, ed.Dst, true
	}
	if base.patch == nil {
		return 0, 0, false
	}
	return d.RemovedSrc[i], d.RemovedDst[i], true
}

// rowBuilder collects the rows a delta replaces and the removed edges
// each of them loses.
type rowBuilder struct {
	marked []uint64
	nodes  []uint32
	gone   map[uint32][]uint32 // per node, removed edges it may hold
}

func newRowBuilder(n int) *rowBuilder { return &rowBuilder{marked: make([]uint64, (n+63)/64)} }

func (b *rowBuilder) mark(u uint32) {
	if b.marked[u/64]&(1<<(u%64)) == 0 {
		b.marked[u/64] |= 1 << (u % 64)
		b.nodes = append(b.nodes, u)
	}
}

// remove marks u's row as losing edge e.
func (b *rowBuilder) remove(u, e uint32) {
	b.mark(u)
	if b.gone == nil {
		b.gone = make(map[uint32][]uint32)
	}
	b.gone[u] = append(b.gone[u], e)
}

// build returns the marked rows: each node's arcs in base (row(u), when u
// is one of base's nodes) that are live there and not removed, then the
// added arcs that each(add) reports for it, in the order reported
// (ascending edge ids). The rows share one backing array per field, each
// cut to its own length and capacity. A base row is read once: copied
// whole when all its arcs stay (a replaced row), else arc by arc, its
// removed edges found by a cursor (rows are in edge-id order), so a row
// costs O(its arcs + its removed edges).
func (b *rowBuilder) build(base *View, row func(uint32) Row, each func(add func(u, v uint32, w float64, e uint32))) rowSet {
	slices.Sort(b.nodes)
	k := len(b.nodes)
	index := make(map[uint32]int, k)
	for i, u := range b.nodes {
		index[u] = i
	}
	// Room: every base arc, then the added ones; rows are cut to what
	// they keep.
	added := make([]int, k)
	each(func(u, _ uint32, _ float64, _ uint32) { added[index[u]]++ })
	room := 0
	for i, u := range b.nodes {
		if int64(u) < int64(base.n) {
			room += row(u).Len()
		}
		room += added[i]
	}
	nbr, wt, eid := make([]uint32, room), make([]float64, room), make([]uint32, room)
	lo, end := make([]int, k), make([]int, k)
	p := 0
	for i, u := range b.nodes {
		lo[i] = p
		if int64(u) < int64(base.n) {
			p += keptArcs(row(u), b.gone[u], nbr[p:], wt[p:], eid[p:])
		}
		end[i] = p
		p += added[i]
	}
	each(func(u, v uint32, w float64, e uint32) {
		i := index[u]
		q := end[i]
		nbr[q], wt[q], eid[q] = v, w, e
		end[i]++
	})
	rows := rowSet{Nodes: b.nodes, Nbr: make([][]uint32, k), Weight: make([][]float64, k), Edge: make([][]uint32, k)}
	for i := range k {
		l, h := lo[i], end[i]
		rows.Nbr[i], rows.Weight[i], rows.Edge[i] = nbr[l:h:h], wt[l:h:h], eid[l:h:h]
	}
	return rows
}

// keptArcs writes r's live arcs whose edges are not in gone into nbr, wt
// and eid (room for r.Len()) and returns how many it wrote.
func keptArcs(r Row, gone []uint32, nbr []uint32, wt []float64, eid []uint32) int {
	if r.masked == nil && len(gone) == 0 {
		copy(nbr, r.Nbr)
		copy(eid, r.Edge)
		if f := r.Weight.Float64s(); f != nil {
			copy(wt, f)
		} else {
			for p := range r.Nbr {
				wt[p] = r.Weight.At(p)
			}
		}
		return r.Len()
	}
	slices.Sort(gone)
	j, n := 0, 0
	for p, e := range r.Edge {
		for j < len(gone) && gone[j] < e {
			j++
		}
		if j < len(gone) && gone[j] == e || !r.Live(p) {
			continue
		}
		nbr[n], wt[n], eid[n] = r.Nbr[p], r.Weight.At(p), e
		n++
	}
	return n
}
