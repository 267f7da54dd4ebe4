package mask

import (
	"fmt"
	"math"
	"slices"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/internal/rowindex"
)

// csrHooks makes csr.Weights over a patched row's weights.
var csrHooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()

// rowSet lists whole rows in CSR form: row i belongs to node Nodes[i] and
// holds the arcs Offsets[i] .. Offsets[i+1]-1 of Nbr (the other endpoint),
// Weight and Edge (the id of the edge the arc belongs to).
type rowSet struct {
	Nodes   []uint32 // ascending, distinct
	Offsets []int    // len(Nodes)+1 entries, from 0, non-decreasing
	Nbr     []uint32
	Weight  []float64
	Edge    []uint32
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

// replaced holds the rows a patched view replaces (see patched) and their
// index by node (the zero value: none).
type replaced struct {
	rows rowSet
	idx  rowindex.Rows
}

func newReplaced(rows rowSet, n int) replaced {
	return replaced{rows: rows, idx: rowindex.New(rows.Nodes, rows.Offsets, rows.Nbr, rows.Weight, n)}
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
	lo, hi := r.rows.Offsets[i], r.rows.Offsets[i+1]
	return nbr, wt, r.rows.Edge[lo:hi:hi]
}

// patched returns the view base with the out-rows of out replaced and with
// n >= base.NumNodes() nodes: the view a host presents when it keeps a
// delta beside an immutable snapshot (a store version). Nodes from
// base.NumNodes() on exist only in the patch; such a node without a
// replaced row has no arcs. On a directed graph in replaces the in-rows
// (reverse pushes read them); on an undirected one in must be empty, as
// in-rows are out-rows.
//
// The caller vouches that the rows are consistent: a replaced out-row lists
// every arc of the view leaving its node, in edge-id order, and on a
// directed graph every node whose in-arcs differ from base's has its
// in-row replaced, listing them in edge-id order (patched checks shapes,
// ranges, order and weights, not this cross-check; the store's tests
// compare its patched views with materialised graphs). W(u) of a replaced
// row is summed in arc order, so with rows in edge-id order it equals the
// out-weight of the materialised graph's view bit for bit.
//
// The view shares base's arrays and the row sets (which must not be
// modified afterwards); what it owns is O(n) words for the out-weights and
// O(n/64) for the row index.
func patched(base *View, n int, out, in rowSet) (*View, error) {
	g := base.g
	if n < base.n || int64(n) > math.MaxUint32 {
		return nil, fmt.Errorf("mask: patched view of %d nodes over a view of %d", n, base.n)
	}
	if base.patch != nil {
		return nil, fmt.Errorf("mask: patched view over a view that is already patched")
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
	v := &View{
		g: g, name: base.name, n: n, masked: base.masked, maskedBits: base.maskedBits,
		maskedInNode: base.maskedInNode, maskedInArc: base.maskedInArc,
		patch: &patch{out: newReplaced(out, n), base: base},
	}
	if in.Len() > 0 {
		v.patch.in = newReplaced(in, n)
	}
	v.outWeight = make([]float64, n)
	copy(v.outWeight, base.outWeight)
	for i, u := range out.Nodes {
		w := 0.0
		for _, wt := range out.Weight[out.Offsets[i]:out.Offsets[i+1]] {
			w += wt
		}
		if math.IsInf(w, 0) {
			return nil, fmt.Errorf("mask: patched row of node %d: out-weight overflows", u)
		}
		v.outWeight[u] = w
	}
	v.touchedBit = make([]uint64, (n+63)/64)
	copy(v.touchedBit, base.touchedBit)
	for i, w := range v.patch.out.idx.Bits() {
		v.touchedBit[i] |= w
	}
	v.touched = mergeAscending(base.touched, out.Nodes)
	if r := g.Ranks(); r != nil && n > len(r) {
		// New nodes appear after every node of the snapshot, in id order.
		v.ranks = make([]uint32, n)
		copy(v.ranks, r)
		for u := len(r); u < n; u++ {
			v.ranks[u] = uint32(u)
		}
	}
	return v, nil
}

// patch is what a patched view replaces (see patched).
type patch struct {
	out, in replaced
	base    *View // the view patched (its inverse out-weights serve this one's)
}

// check validates a row set's shape for a view of n nodes.
func (s *rowSet) check(dir string, n int) error {
	if len(s.Offsets) != len(s.Nodes)+1 && !(len(s.Nodes) == 0 && len(s.Offsets) == 0) {
		return fmt.Errorf("mask: %s-rows: %d offsets for %d rows, want %d", dir, len(s.Offsets), len(s.Nodes), len(s.Nodes)+1)
	}
	arcs := 0
	if len(s.Offsets) > 0 {
		if s.Offsets[0] != 0 {
			return fmt.Errorf("mask: %s-rows: offsets start at %d, want 0", dir, s.Offsets[0])
		}
		arcs = s.Offsets[len(s.Offsets)-1]
	}
	if len(s.Nbr) != arcs || len(s.Weight) != arcs || len(s.Edge) != arcs {
		return fmt.Errorf("mask: %s-rows: %d neighbours, %d weights and %d edge ids for %d arcs", dir, len(s.Nbr), len(s.Weight), len(s.Edge), arcs)
	}
	for i, u := range s.Nodes {
		if int64(u) >= int64(n) {
			return fmt.Errorf("mask: %s-row %d: node %d out of range (%d nodes)", dir, i, u, n)
		}
		if i > 0 && u <= s.Nodes[i-1] {
			return fmt.Errorf("mask: %s-row %d: node %d after node %d, want ascending", dir, i, u, s.Nodes[i-1])
		}
		lo, hi := s.Offsets[i], s.Offsets[i+1]
		if hi < lo {
			return fmt.Errorf("mask: %s-row %d: offsets %d > %d", dir, i, lo, hi)
		}
		for p := lo; p < hi; p++ {
			if int64(s.Nbr[p]) >= int64(n) {
				return fmt.Errorf("mask: %s-row of node %d: neighbour %d out of range (%d nodes)", dir, u, s.Nbr[p], n)
			}
			if w := s.Weight[p]; !(w >= 0) || math.IsInf(w, 1) {
				return fmt.Errorf("mask: %s-row of node %d: weight %v, want finite and non-negative", dir, u, w)
			}
			if p > lo && s.Edge[p] < s.Edge[p-1] {
				return fmt.Errorf("mask: %s-row of node %d: edge %d after edge %d, want edge-id order", dir, u, s.Edge[p], s.Edge[p-1])
			}
		}
	}
	return nil
}

// mergeAscending returns the sorted union of two ascending lists.
func mergeAscending(a, b []uint32) []uint32 {
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	slices.Sort(out)
	return slices.Compact(out)
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

// InRow returns v's in-row in the view: the arcs entering node u.
func (v *View) InRow(u uint32) Row {
	if !v.g.Directed() {
		return v.OutRow(u)
	}
	if v.patch != nil {
		if i := v.patch.in.index(u); i >= 0 {
			nbr, wt, eid := v.patch.in.row(i)
			return Row{Nbr: nbr, Weight: csrHooks.Float64Weights(wt), Edge: eid}
		}
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
type Delta struct {
	Nodes    int // the view's node count, at least the graph's
	Src, Dst []uint32
	Weight   []float64
	Edge     []uint32 // the added edges' ids: ascending, each at least the graph's edge count
	Removed  []uint32 // edges (the graph's or added ones) the view drops
}

// WithDelta returns base with d applied: a patched view (see patched) whose
// replaced rows are the rows d changes, built in O(|d| + the degrees of the
// nodes it touches). A row lists its node's live graph arcs and then its
// added arcs, both in edge-id order, as the materialised graph's view does
// (TestWithDeltaMatchesMaterialized).
func WithDelta(base *View, d Delta) (*View, error) {
	g := base.g
	if d.Nodes < base.n {
		return nil, fmt.Errorf("mask: delta of %d nodes over a view of %d", d.Nodes, base.n)
	}
	m := len(d.Edge)
	if len(d.Src) != m || len(d.Dst) != m || len(d.Weight) != m {
		return nil, fmt.Errorf("mask: delta with %d edge ids, %d sources, %d targets and %d weights", m, len(d.Src), len(d.Dst), len(d.Weight))
	}
	for i, e := range d.Edge {
		if int64(e) < int64(g.NumEdges()) || i > 0 && e <= d.Edge[i-1] {
			return nil, fmt.Errorf("mask: delta edge %d: id %d, want ascending ids from %d", i, e, g.NumEdges())
		}
		if int64(d.Src[i]) >= int64(d.Nodes) || int64(d.Dst[i]) >= int64(d.Nodes) {
			return nil, fmt.Errorf("mask: delta edge %d: %d -> %d out of range (%d nodes)", e, d.Src[i], d.Dst[i], d.Nodes)
		}
	}
	gone := make(map[uint32]bool, len(d.Removed))
	for _, e := range d.Removed {
		gone[e] = true
	}
	outRows, inRows := newRowBuilder(d.Nodes), newRowBuilder(d.Nodes)
	directed := g.Directed()
	// Rows that lose a live graph arc, then rows that gain an added one.
	for e := range gone {
		if int64(e) >= int64(g.NumEdges()) || base.MaskedEdge(e) {
			continue
		}
		ed := g.Edge(e)
		outRows.mark(ed.Src)
		if directed {
			inRows.mark(ed.Dst)
		} else {
			outRows.mark(ed.Dst)
		}
	}
	for i, e := range d.Edge {
		if gone[e] {
			continue
		}
		outRows.mark(d.Src[i])
		if directed {
			inRows.mark(d.Dst[i])
		} else {
			outRows.mark(d.Dst[i])
		}
	}
	live := func(e uint32) bool { return !base.MaskedEdge(e) && !gone[e] }
	out := outRows.build(g.Out(), g.NumNodes(), live, func(add func(u, v uint32, w float64, e uint32)) {
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
		in = inRows.build(g.In(), g.NumNodes(), live, func(add func(u, v uint32, w float64, e uint32)) {
			for i, e := range d.Edge {
				if !gone[e] {
					add(d.Dst[i], d.Src[i], d.Weight[i], e)
				}
			}
		})
	}
	return patched(base, d.Nodes, out, in)
}

// rowBuilder collects the rows a delta replaces.
type rowBuilder struct {
	marked []uint64
	nodes  []uint32
}

func newRowBuilder(n int) *rowBuilder { return &rowBuilder{marked: make([]uint64, (n+63)/64)} }

func (b *rowBuilder) mark(u uint32) {
	if b.marked[u/64]&(1<<(u%64)) == 0 {
		b.marked[u/64] |= 1 << (u % 64)
		b.nodes = append(b.nodes, u)
	}
}

// build returns the marked rows: each node's live arcs of a (when it is one
// of the graph's n nodes), then the added arcs that each(add) reports for
// it, in the order reported (ascending edge ids).
func (b *rowBuilder) build(a csr.Adjacency, n int, live func(e uint32) bool, each func(add func(u, v uint32, w float64, e uint32))) rowSet {
	slices.Sort(b.nodes)
	rows := rowSet{Nodes: b.nodes, Offsets: make([]int, len(b.nodes)+1)}
	index := make(map[uint32]int, len(b.nodes))
	for i, u := range b.nodes {
		index[u] = i
	}
	// Count, then fill: graph arcs first, added arcs after them.
	count := make([]int, len(b.nodes))
	for i, u := range b.nodes {
		if int(u) < n {
			lo, hi := a.Span(u)
			for p := lo; p < hi; p++ {
				if live(a.Edge[p]) {
					count[i]++
				}
			}
		}
	}
	each(func(u, _ uint32, _ float64, _ uint32) { count[index[u]]++ })
	for i, c := range count {
		rows.Offsets[i+1] = rows.Offsets[i] + c
	}
	arcs := rows.Offsets[len(b.nodes)]
	rows.Nbr, rows.Weight, rows.Edge = make([]uint32, arcs), make([]float64, arcs), make([]uint32, arcs)
	fill := slices.Clone(rows.Offsets[:len(b.nodes)])
	put := func(i int, v uint32, w float64, e uint32) {
		p := fill[i]
		rows.Nbr[p], rows.Weight[p], rows.Edge[p] = v, w, e
		fill[i]++
	}
	for i, u := range b.nodes {
		if int(u) < n {
			lo, hi := a.Span(u)
			for p := lo; p < hi; p++ {
				if e := a.Edge[p]; live(e) {
					put(i, a.Nbr[p], a.Weight.At(p), e)
				}
			}
		}
	}
	each(func(u, v uint32, w float64, e uint32) { put(index[u], v, w, e) })
	return rows
}
