package mask

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/rowindex"
)

// View is a snapshot with some edges masked. It shares the snapshot's arrays;
// what it owns is proportional to the masked edges (plus one bit per edge and
// one float per node). A patched view (WithDelta) shares its snapshot
// view's too, and owns its replaced rows and a few bits per node.
type View struct {
	g            *csr.Graph
	n            int    // nodes: g's, or more for a patched view
	patch        *patch // replaced rows (WithDelta); nil for a view of g alone
	name         string
	masked       *roaring.Bitmap
	maskedBits   []uint64    // dense copy of masked, nil when nothing is masked
	outW         NodeWeights // W_A(u); aliases the graph's out-weights when nothing is masked
	invOnce      sync.Once
	invW         NodeWeights // 1/W_A(u), 0 for dangling nodes; built on first use
	flatOnce     sync.Once
	flatOut      []float64 // a patched view's W_A as one array, built on first use (OutWeights)
	flatInvOnce  sync.Once
	flatInv      []float64 // the same for 1/W_A (InvOutWeights)
	danglingOnce sync.Once
	dangling     []uint32 // the nodes with W_A = 0, ascending; built on first use
	byWeightOnce sync.Once
	// Nodes by descending W_A, ties by id, built on first use: every node,
	// or on a patched view the replaced rows' nodes (see NodesByOutWeight).
	byWeight   []uint32
	touched    []uint32 // nodes with at least one masked out-arc, ascending
	touchedBit []uint64 // the same as a bitset over nodes

	// The masked arcs of the in-adjacency (node and position), listed when
	// they are few (see MaskedInArcs).
	maskedInNode []uint32
	maskedInArc  []int
	// The positions of the out-adjacency's, listed with them by tail,
	// ascending (see MaskedOutArcs; on an undirected view the in-adjacency's
	// list itself), and indexed by tail: u's are maskedOutArc[lo:hi] with
	// lo, hi = maskedOutStart[i], maskedOutStart[i+1], i its number in
	// maskedOut (maskedOutStart is nil when nothing is listed).
	maskedOutArc   []int
	maskedOut      rowindex.Ranks
	maskedOutStart []int32
}

// sparseMaskShare is the largest share of masked arcs for which a view lists
// them: kernels then sum over every arc and subtract the few masked terms
// instead of testing a bit per arc.
const sparseMaskShare = 0.125

// Native returns the view of every edge added by some channel and deleted by
// none.
func Native(g *csr.Graph, l *Labels) (*View, error) {
	return newView(g, l, "native", func(string) bool { return true })
}

// Authenticated returns the view of every edge added by a channel p trusts,
// requiring only channels p trusts (min-inheritance, Labels.Require) and
// deleted by no channel p trusts.
func Authenticated(g *csr.Graph, l *Labels, p Policy) (*View, error) {
	return newView(g, l, "auth", p.Trusts)
}

// Full returns the view of every edge of g, with no labels involved.
func Full(g *csr.Graph) *View {
	return &View{g: g, n: g.NumNodes(), name: "full", masked: roaring.New(), outW: NodeWeights{flat: csrHooks.OutWeights(g)}}
}

// FromMasked returns the view of g without the given edges. The view keeps
// its own copy of masked, so later changes to the argument do not reach it.
func FromMasked(g *csr.Graph, name string, masked *roaring.Bitmap) (*View, error) {
	masked = masked.Clone()
	if !masked.IsEmpty() && int64(masked.Maximum()) >= int64(g.NumEdges()) {
		return nil, fmt.Errorf("mask: view %s: masked edge %d out of range (snapshot has %d edges)", name, masked.Maximum(), g.NumEdges())
	}
	v := &View{g: g, n: g.NumNodes(), name: name, masked: masked, outW: NodeWeights{flat: csrHooks.OutWeights(g)}}
	if masked.IsEmpty() {
		return v, nil
	}
	m := g.NumEdges()
	v.maskedBits = make([]uint64, (m+63)/64)
	it := masked.Iterator()
	touched := roaring.New()
	for it.HasNext() {
		e := it.Next()
		v.maskedBits[e/64] |= 1 << (e % 64)
		edge := g.Edge(e)
		touched.Add(edge.Src)
		if !g.Directed() {
			touched.Add(edge.Dst)
		}
	}
	v.touched = touched.ToArray()
	v.touchedBit = make([]uint64, (g.NumNodes()+63)/64)
	for _, u := range v.touched {
		v.touchedBit[u/64] |= 1 << (u % 64)
	}
	list := float64(masked.GetCardinality()) <= sparseMaskShare*float64(m)
	if list {
		v.listMaskedInArcs()
	}
	var outTails []uint32 // maskedOutArc's tails
	if list && !g.Directed() {
		outTails, v.maskedOutArc = v.maskedInNode, v.maskedInArc // In is Out
	}
	// Recompute W_A by summation over surviving arcs in arc order, never by
	// subtraction: a fully masked node gets exactly 0 (dangling), and the
	// value equals that of a physically copied subgraph bit for bit.
	w := slices.Clone(csrHooks.OutWeights(g))
	out := g.Out()
	listOut := list && g.Directed()
	for _, u := range v.touched {
		lo, hi := out.Span(u)
		wu := 0.0
		for p := lo; p < hi; p++ {
			if !v.MaskedEdge(out.Edge[p]) {
				wu += out.Weight.At(p)
			} else if listOut {
				outTails, v.maskedOutArc = append(outTails, u), append(v.maskedOutArc, p)
			}
		}
		w[u] = wu
	}
	v.outW = NodeWeights{flat: w}
	if list {
		v.indexMaskedOutArcs(outTails)
	}
	return v, nil
}

// indexMaskedOutArcs indexes the listed masked out-arcs by their tails
// (ascending, one per arc of maskedOutArc): maskedOut, maskedOutStart.
func (v *View) indexMaskedOutArcs(tails []uint32) {
	var nodes []uint32
	for i, u := range tails {
		if i == 0 || u != tails[i-1] {
			nodes = append(nodes, u)
			v.maskedOutStart = append(v.maskedOutStart, int32(i))
		}
	}
	v.maskedOutStart = append(v.maskedOutStart, int32(len(tails)))
	v.maskedOut = rowindex.NewRanks(nodes, v.g.NumNodes())
}

// MaskedOutArcs returns the positions in the out-adjacency of u's masked
// arcs, ascending, when the view lists them (listed: as MaskedInArcs, when
// at most an eighth of the arcs are masked); a row of the graph's is then
// u's row in the view but for them. On a patched view they are the
// snapshot view's, for the rows it does not replace. Must not be modified.
func (v *View) MaskedOutArcs(u uint32) (arcs []int, listed bool) {
	if v.maskedBits == nil {
		return nil, true
	}
	if v.maskedOutStart == nil {
		return nil, false
	}
	if int(u) >= v.g.NumNodes() {
		return nil, true // a node new since the graph (a patched view's)
	}
	i := v.maskedOut.Index(u)
	if i < 0 {
		return nil, true
	}
	lo, hi := v.maskedOutStart[i], v.maskedOutStart[i+1]
	return v.maskedOutArc[lo:hi:hi], true
}

func newView(g *csr.Graph, l *Labels, name string, selected func(string) bool) (*View, error) {
	if l.NumEdges() != g.NumEdges() {
		return nil, fmt.Errorf("mask: labels cover %d edges, snapshot has %d", l.NumEdges(), g.NumEdges())
	}
	masked := roaring.Flip(l.present(selected), 0, uint64(g.NumEdges()))
	return FromMasked(g, name, masked)
}

// Graph returns the snapshot the view masks (on a patched view, the
// snapshot under the patch).
func (v *View) Graph() *csr.Graph { return v.g }

// NumNodes returns the number of nodes: the graph's, or more on a patched
// view.
func (v *View) NumNodes() int { return v.n }

// Directed reports whether the graph's edges are directed.
func (v *View) Directed() bool { return v.g.Directed() }

// Ranks returns the first-appearance rank of the graph's nodes
// (csr.Graph.Ranks), or nil in stream order. A patched view's nodes beyond
// the graph's rank after them in id order: as ppr.TopK reads a rank list
// shorter than the scores.
func (v *View) Ranks() []uint32 { return v.g.Ranks() }

// Name returns "native", "auth", "full" or the name given to FromMasked.
func (v *View) Name() string { return v.name }

// Masked returns the masked edges. Must not be modified.
func (v *View) Masked() *roaring.Bitmap { return v.masked }

// MaskedBits returns the masked edges as a dense bitset (bit e of word e/64),
// or nil when nothing is masked. Must not be modified.
func (v *View) MaskedBits() []uint64 { return v.maskedBits }

// MaskedEdge reports whether edge e of the graph is masked in this view.
// On a patched view it speaks for the graph's rows only: a replaced row
// lists the arcs the view has (read rows with OutRow and InRow there).
func (v *View) MaskedEdge(e uint32) bool {
	return v.maskedBits != nil && int(e/64) < len(v.maskedBits) && v.maskedBits[e/64]&(1<<(e%64)) != 0
}

// OutWeight returns W_A(u), u's out-weight in this view.
func (v *View) OutWeight(u uint32) float64 { return v.outW.At(u) }

// NodeOutWeights returns W_A as kernels read it: O(1) per node, with no
// array of n built for a patched view. Must not be modified.
func (v *View) NodeOutWeights() *NodeWeights { return &v.outW }

// NodeInvOutWeights returns 1/W_A (0 where W_A(u) = 0) as kernels read it,
// so that they multiply instead of dividing: built on first use, O(n) for
// a snapshot's view and O(the replaced rows) for a patched one (which
// shares its snapshot view's). Safe for concurrent use. Must not be
// modified.
func (v *View) NodeInvOutWeights() *NodeWeights {
	v.invOnce.Do(func() {
		if v.patch == nil {
			v.invW = NodeWeights{flat: invert(v.outW.flat)}
			return
		}
		// The same 1/w, bit for bit, as the materialised view's.
		v.invW = v.outW
		v.invW.flat = v.patch.base.NodeInvOutWeights().flat
		v.invW.vals = invert(v.outW.vals)
	})
	return &v.invW
}

// OutWeights returns W_A for every node as one array. On a patched view
// it is built on first use, O(n): kernels read NodeOutWeights instead.
// Must not be modified.
func (v *View) OutWeights() []float64 {
	if v.patch == nil {
		return v.outW.flat
	}
	v.flatOnce.Do(func() { v.flatOut = v.outW.materialize(v.n) })
	return v.flatOut
}

// InvOutWeights returns 1/W_A(u) for every node as one array, 0 where
// W_A(u) = 0. On a patched view it is built on first use, O(n): kernels
// read NodeInvOutWeights instead. Safe for concurrent use. Must not be
// modified.
func (v *View) InvOutWeights() []float64 {
	inv := v.NodeInvOutWeights()
	if v.patch == nil {
		return inv.flat
	}
	v.flatInvOnce.Do(func() { v.flatInv = inv.materialize(v.n) })
	return v.flatInv
}

// NodesByOutWeight returns every node by descending W_A, ties by id. The
// order is built on first use: for a snapshot's view a radix sort of its
// nodes (see byDescendingWeight), for a patched view a sort of its
// replaced rows' nodes, merged as the sequence is read with its snapshot
// view's order (which it filters of them), so a reader that stops early
// pays for what it read. Safe for concurrent use.
func (v *View) NodesByOutWeight() iter.Seq[uint32] {
	if v.patch == nil {
		return slices.Values(v.sortedByOutWeight())
	}
	return v.mergedByOutWeight
}

// sortedByOutWeight returns byWeight, built on first use: a snapshot
// view's every node, a patched view's replaced rows' nodes.
func (v *View) sortedByOutWeight() []uint32 {
	v.byWeightOnce.Do(func() {
		if v.patch == nil {
			v.byWeight = byDescendingWeight(v.outW.flat)
			return
		}
		v.byWeight = slices.Clone(v.outW.nodes)
		slices.SortFunc(v.byWeight, func(a, b uint32) int { return heavierFirst(v.outW.At(a), v.outW.At(b), a, b) })
	})
	return v.byWeight
}

// mergedByOutWeight yields the snapshot view's order without the replaced
// nodes merged with theirs: both by descending W_A, ties by id, so the
// merge is the order of every node.
func (v *View) mergedByOutWeight(yield func(uint32) bool) {
	base := v.patch.base.sortedByOutWeight()
	mine := v.sortedByOutWeight()
	i := 0
	for _, u := range base {
		if v.outW.bits[u/64]&(1<<(u%64)) != 0 {
			continue // replaced: in mine, with its own weight
		}
		for ; i < len(mine) && heavierFirst(v.outW.At(mine[i]), v.outW.flat[u], mine[i], u) < 0; i++ {
			if !yield(mine[i]) {
				return
			}
		}
		if !yield(u) {
			return
		}
	}
	for ; i < len(mine); i++ {
		if !yield(mine[i]) {
			return
		}
	}
}

// Prepare builds what the view otherwise builds on first use (its inverse
// out-weights, its order by out-weight and its dangling nodes; a patched
// view's snapshot view's too), so that no query pays for them: for a host
// that answers many queries on one view (replay's guards). Safe for
// concurrent use.
func (v *View) Prepare() {
	if v.patch != nil {
		v.patch.base.Prepare()
	}
	v.NodeInvOutWeights()
	v.sortedByOutWeight()
	v.DanglingNodes()
}

// DanglingNodes returns the nodes without out-weight in the view,
// ascending: built on first use, O(n) for a snapshot's view and, for a
// patched one, O(its snapshot view's dangling nodes + its replaced rows).
// Safe for concurrent use. Must not be modified.
func (v *View) DanglingNodes() []uint32 {
	v.danglingOnce.Do(func() {
		v.dangling = []uint32{}
		if v.patch == nil {
			for u, w := range v.outW.flat {
				if w == 0 {
					v.dangling = append(v.dangling, uint32(u))
				}
			}
			return
		}
		// The snapshot view's dangling nodes whose rows this view keeps,
		// merged with its replaced rows of no weight.
		base, i := v.patch.base.DanglingNodes(), 0
		for j, u := range v.outW.nodes {
			for ; i < len(base) && base[i] < u; i++ {
				v.dangling = append(v.dangling, base[i])
			}
			if i < len(base) && base[i] == u {
				i++ // replaced: its own weight says
			}
			if v.outW.vals[j] == 0 {
				v.dangling = append(v.dangling, u)
			}
		}
		v.dangling = append(v.dangling, base[i:]...)
	})
	return v.dangling
}

// heavierFirst orders nodes a and b of weights wa and wb: the heavier
// first, ties by id.
func heavierFirst(wa, wb float64, a, b uint32) int {
	switch {
	case wa > wb:
		return -1
	case wa < wb:
		return 1
	}
	return cmp.Compare(a, b)
}

// Touched returns the nodes whose out-row in the view is not the graph's
// row as stored (a masked out-arc, or a replaced row), ascending. Must not
// be modified.
func (v *View) Touched() []uint32 { return v.touched }

// TouchedBits returns Touched as a bitset over nodes (bit u of word u/64),
// or nil when nothing is masked or replaced: a push kernel tests one bit per
// node and reads every other node's row from the graph without a per-arc
// mask test.
// Must not be modified.
func (v *View) TouchedBits() []uint64 { return v.touchedBit }

// listMaskedInArcs records every in-arc whose edge is masked, scanning each
// node that has one once (O(sum of their in-degrees)).
func (v *View) listMaskedInArcs() {
	g := v.g
	heads := roaring.New()
	it := v.masked.Iterator()
	for it.HasNext() {
		e := g.Edge(it.Next())
		heads.Add(e.Dst)
		if !g.Directed() {
			heads.Add(e.Src)
		}
	}
	in := g.In()
	hit := heads.Iterator()
	for hit.HasNext() {
		u := hit.Next()
		lo, hi := in.Span(u)
		for p := lo; p < hi; p++ {
			if v.MaskedEdge(in.Edge[p]) {
				v.maskedInNode = append(v.maskedInNode, u)
				v.maskedInArc = append(v.maskedInArc, p)
			}
		}
	}
}

// MaskedInArcs lists the in-adjacency arcs whose edge is masked, as parallel
// slices of head node and arc position, when at most an eighth of the arcs
// are masked; ok is false when the view masks more (or nothing: then both
// are empty and ok is true). Must not be modified.
func (v *View) MaskedInArcs() (nodes []uint32, arcs []int, ok bool) {
	if v.maskedBits == nil {
		return nil, nil, true
	}
	return v.maskedInNode, v.maskedInArc, v.maskedInNode != nil
}

// invert returns 1/w[u] for every u (0 where w[u] is 0).
func invert(w []float64) []float64 {
	inv := make([]float64, len(w))
	for u, wu := range w {
		if wu > 0 {
			inv[u] = 1 / wu
		}
	}
	return inv
}
