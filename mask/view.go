package mask

import (
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
)

// View is a snapshot with some edges masked. It shares the snapshot's arrays;
// what it owns is proportional to the masked edges (plus one bit per edge and
// one float per node).
type View struct {
	g            *csr.Graph
	n            int    // nodes: g's, or more for a patched view
	patch        *patch // replaced rows (WithDelta); nil for a view of g alone
	name         string
	masked       *roaring.Bitmap
	maskedBits   []uint64  // dense copy of masked, nil when nothing is masked
	outWeight    []float64 // W_A(u); aliases the graph's out-weights when nothing is masked
	invOnce      sync.Once
	invWeight    []float64 // 1/W_A(u), 0 for dangling nodes; built on first use
	byWeightOnce sync.Once
	byWeight     []uint32 // every node by descending W_A, ties by id; built on first use
	touched      []uint32 // nodes with at least one masked out-arc, ascending
	touchedBit   []uint64 // the same as a bitset over nodes

	// The masked arcs of the in-adjacency (node and position), listed when
	// they are few (see MaskedInArcs).
	maskedInNode []uint32
	maskedInArc  []int
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
	return &View{g: g, n: g.NumNodes(), name: "full", masked: roaring.New(), outWeight: csrHooks.OutWeights(g)}
}

// FromMasked returns the view of g without the given edges. The view keeps
// its own copy of masked, so later changes to the argument do not reach it.
func FromMasked(g *csr.Graph, name string, masked *roaring.Bitmap) (*View, error) {
	masked = masked.Clone()
	if !masked.IsEmpty() && int64(masked.Maximum()) >= int64(g.NumEdges()) {
		return nil, fmt.Errorf("mask: view %s: masked edge %d out of range (snapshot has %d edges)", name, masked.Maximum(), g.NumEdges())
	}
	v := &View{g: g, n: g.NumNodes(), name: name, masked: masked, outWeight: csrHooks.OutWeights(g)}
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
	if float64(masked.GetCardinality()) <= sparseMaskShare*float64(m) {
		v.listMaskedInArcs()
	}
	// Recompute W_A by summation over surviving arcs in arc order, never by
	// subtraction: a fully masked node gets exactly 0 (dangling), and the
	// value equals that of a physically copied subgraph bit for bit.
	v.outWeight = slices.Clone(csrHooks.OutWeights(g))
	out := g.Out()
	for _, u := range v.touched {
		lo, hi := out.Span(u)
		w := 0.0
		for p := lo; p < hi; p++ {
			if !v.MaskedEdge(out.Edge[p]) {
				w += out.Weight.At(p)
			}
		}
		v.outWeight[u] = w
	}
	return v, nil
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
func (v *View) OutWeight(u uint32) float64 { return v.outWeight[u] }

// OutWeights returns W_A for every node. Must not be modified.
func (v *View) OutWeights() []float64 { return v.outWeight }

// InvOutWeights returns 1/W_A(u) for every node, 0 where W_A(u) = 0, so
// kernels multiply instead of divide. Built on first use; safe for
// concurrent use. Must not be modified.
func (v *View) InvOutWeights() []float64 {
	v.invOnce.Do(func() {
		if v.patch == nil || v.patch.base == nil {
			v.invWeight = make([]float64, len(v.outWeight))
			invertInto(v.invWeight, v.outWeight, nil)
			return
		}
		// A patched view's out-weights are its base's but at the replaced
		// rows and the nodes beyond the base's: copy the base's inverses
		// and invert those alone (the same 1/w, bit for bit).
		base := v.patch.base.InvOutWeights()
		v.invWeight = extend(base, len(v.outWeight))
		invertInto(v.invWeight, v.outWeight, v.patch.out.rows.Nodes)
		invertInto(v.invWeight[len(base):], v.outWeight[len(base):], nil) // new nodes
	})
	return v.invWeight
}

// NodesByOutWeight returns every node by descending W_A, ties by id (a
// radix sort, see byDescendingWeight). Built on first use; safe for
// concurrent use. Must not be modified.
func (v *View) NodesByOutWeight() []uint32 {
	v.byWeightOnce.Do(func() { v.byWeight = byDescendingWeight(v.outWeight) })
	return v.byWeight
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

// invertInto sets inv[u] = 1/w[u] (0 where w[u] is 0) for the nodes listed,
// or for every node when nodes is nil.
func invertInto(inv, w []float64, nodes []uint32) {
	if nodes == nil {
		for u, wu := range w {
			if wu > 0 {
				inv[u] = 1 / wu
			}
		}
		return
	}
	for _, u := range nodes {
		inv[u] = 0
		if w[u] > 0 {
			inv[u] = 1 / w[u]
		}
	}
}
