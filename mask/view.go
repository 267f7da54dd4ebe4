package mask

import (
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
)

// View is a snapshot with some edges masked. It shares the snapshot's arrays;
// what it owns is proportional to the masked edges (plus one bit per edge and
// one float per node).
type View struct {
	g          *csr.Graph
	name       string
	masked     *roaring.Bitmap
	maskedBits []uint64  // dense copy of masked, nil when nothing is masked
	outWeight  []float64 // W_A(u); aliases g.OutWeights() when nothing is masked
	touched    []uint32  // nodes with at least one masked out-arc, ascending
}

// Native returns the view of every edge added by some channel and deleted by
// none.
func Native(g *csr.Graph, l *Labels) (*View, error) {
	return newView(g, l, "native", func(string) bool { return true })
}

// Authenticated returns the view of every edge added by a channel p trusts
// and deleted by no channel p trusts.
func Authenticated(g *csr.Graph, l *Labels, p Policy) (*View, error) {
	return newView(g, l, "auth", p.Trusts)
}

// Full returns the view of every edge of g, with no labels involved.
func Full(g *csr.Graph) *View {
	return &View{g: g, name: "full", masked: roaring.New(), outWeight: g.OutWeights()}
}

// FromMasked returns the view of g without the given edges. The view keeps
// its own copy of masked, so later changes to the argument do not reach it.
func FromMasked(g *csr.Graph, name string, masked *roaring.Bitmap) (*View, error) {
	masked = masked.Clone()
	if !masked.IsEmpty() && int64(masked.Maximum()) >= int64(g.NumEdges()) {
		return nil, fmt.Errorf("mask: view %s: masked edge %d out of range (snapshot has %d edges)", name, masked.Maximum(), g.NumEdges())
	}
	v := &View{g: g, name: name, masked: masked, outWeight: g.OutWeights()}
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
	// Recompute W_A by summation over surviving arcs in arc order, never by
	// subtraction: a fully masked node gets exactly 0 (dangling), and the
	// value equals that of a physically copied subgraph bit for bit.
	v.outWeight = slices.Clone(g.OutWeights())
	out := g.Out()
	for _, u := range v.touched {
		lo, hi := out.Span(u)
		w := 0.0
		for p := lo; p < hi; p++ {
			if !v.MaskedEdge(out.Edge[p]) {
				w += out.Weight[p]
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

// Graph returns the snapshot the view masks.
func (v *View) Graph() *csr.Graph { return v.g }

// Name returns "native", "auth", "full" or the name given to FromMasked.
func (v *View) Name() string { return v.name }

// Masked returns the masked edges. Must not be modified.
func (v *View) Masked() *roaring.Bitmap { return v.masked }

// MaskedBits returns the masked edges as a dense bitset (bit e of word e/64),
// or nil when nothing is masked. Must not be modified.
func (v *View) MaskedBits() []uint64 { return v.maskedBits }

// MaskedEdge reports whether edge e is masked in this view.
func (v *View) MaskedEdge(e uint32) bool {
	return v.maskedBits != nil && v.maskedBits[e/64]&(1<<(e%64)) != 0
}

// OutWeight returns W_A(u), u's out-weight in this view.
func (v *View) OutWeight(u uint32) float64 { return v.outWeight[u] }

// OutWeights returns W_A for every node. Must not be modified.
func (v *View) OutWeights() []float64 { return v.outWeight }

// Touched returns the nodes with at least one masked out-arc, ascending.
// Must not be modified.
func (v *View) Touched() []uint32 { return v.touched }
