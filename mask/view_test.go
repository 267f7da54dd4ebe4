package mask

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
)

// physicalCopy builds the subgraph of g holding only the edges keep accepts:
// nodes added first, in g's order, then the surviving edges in id order.
func physicalCopy(t testing.TB, g *csr.Graph, keep func(e uint32) bool) *csr.Graph {
	t.Helper()
	b := csr.NewBuilder(g.Directed())
	for u, name := range g.Names() {
		id, err := b.AddNode(name)
		require.NoError(t, err)
		require.Equal(t, uint32(u), id)
	}
	for e := range uint32(g.NumEdges()) {
		if !keep(e) {
			continue
		}
		ed := g.Edge(e)
		_, err := b.AddEdge(csr.Input{Src: g.Name(ed.Src), Dst: g.Name(ed.Dst), Weight: ed.Weight, Channel: ed.Channel, Relation: ed.Relation})
		require.NoError(t, err)
	}
	sub, err := b.Build()
	require.NoError(t, err)
	return sub
}

// requireSameOutWeights compares W_A bit for bit with a physical copy.
func requireSameOutWeights(t testing.TB, v *View, sub *csr.Graph, where string) {
	t.Helper()
	require.Len(t, v.OutWeights(), sub.NumNodes(), where)
	for u := range uint32(sub.NumNodes()) {
		got, want := v.OutWeight(u), sub.OutWeight(u)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: node %d: W_A = %v (%#x), physical copy has %v (%#x)", where, u, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		require.Equal(t, math.Float64bits(got), math.Float64bits(v.OutWeights()[u]), where)
	}
}

func TestViewsUntrustedDeletion(t *testing.T) {
	// 0: a->b by alice (trusted), deleted by mallory (untrusted)
	// 1: b->c by mallory
	// 2: a->c by alice, also added by mallory
	// 3: c->a by alice, deleted by alice
	// 4: c->b by bob (trusted), deleted by mallory
	g := buildGraph(t, true,
		csr.Input{Src: "a", Dst: "b", Weight: 1, Channel: "alice"},
		csr.Input{Src: "b", Dst: "c", Weight: 2, Channel: "mallory"},
		csr.Input{Src: "a", Dst: "c", Weight: 4, Channel: "alice"},
		csr.Input{Src: "c", Dst: "a", Weight: 8, Channel: "alice"},
		csr.Input{Src: "c", Dst: "b", Weight: 16, Channel: "bob"},
	)
	l := FromGraph(g)
	require.NoError(t, l.Delete("mallory", 0, 4))
	require.NoError(t, l.Add("mallory", 2))
	require.NoError(t, l.Delete("alice", 3))
	p := Trust("alice", "bob")
	require.NoError(t, p.Check(l))

	native, err := Native(g, l)
	require.NoError(t, err)
	require.Equal(t, "native", native.Name())
	require.Same(t, g, native.Graph())
	require.Equal(t, []uint32{0, 3, 4}, ids(native.Masked()))
	require.Equal(t, []uint32{0, 2}, native.Touched())
	require.Equal(t, []float64{4, 2, 0}, native.OutWeights())

	auth, err := Authenticated(g, l, p)
	require.NoError(t, err)
	require.Equal(t, "auth", auth.Name())
	// Edge 0 is masked in native (mallory deleted it) but present in auth;
	// edge 1 is mallory's only; edge 3 alice deleted herself.
	require.Equal(t, []uint32{1, 3}, ids(auth.Masked()))
	require.False(t, auth.MaskedEdge(0))
	require.True(t, native.MaskedEdge(0))
	require.True(t, auth.MaskedEdge(1))
	require.False(t, auth.MaskedEdge(2))
	require.Equal(t, []uint32{1, 2}, auth.Touched())
	require.Equal(t, []float64{5, 0, 16}, auth.OutWeights())
	require.Equal(t, []uint64{1<<1 | 1<<3}, auth.MaskedBits())

	// Trusting mallory too: mallory's deletions now count.
	all, err := Authenticated(g, l, Trust("alice", "bob", "mallory"))
	require.NoError(t, err)
	require.Equal(t, ids(native.Masked()), ids(all.Masked()))
	// Trusting nobody masks everything; every node is dangling.
	none, err := Authenticated(g, l, Trust())
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1, 2, 3, 4}, ids(none.Masked()))
	require.Equal(t, []float64{0, 0, 0}, none.OutWeights())
	require.Equal(t, []uint32{0, 1, 2}, none.Touched())
}

func TestViewFull(t *testing.T) {
	g := buildGraph(t, false,
		csr.Input{Src: "a", Dst: "b", Weight: 0.1},
		csr.Input{Src: "b", Dst: "b", Weight: 0.2},
	)
	v := Full(g)
	require.Equal(t, "full", v.Name())
	require.Same(t, g, v.Graph())
	require.True(t, v.Masked().IsEmpty())
	require.Nil(t, v.MaskedBits())
	require.Empty(t, v.Touched())
	require.Equal(t, csrHooks.OutWeights(g), v.OutWeights())
	for e := range uint32(2) {
		require.False(t, v.MaskedEdge(e))
	}

	// Native on labels that keep everything is the same picture.
	n, err := Native(g, FromGraph(g))
	require.NoError(t, err)
	require.True(t, n.Masked().IsEmpty())
	require.Nil(t, n.MaskedBits())
	require.Empty(t, n.Touched())
	require.Equal(t, csrHooks.OutWeights(g), n.OutWeights())
}

func TestViewFullyMaskedNodeIsExactlyZero(t *testing.T) {
	// 0.1 + 0.2 + 0.3 minus each term in turn is not 0 in floating point;
	// the view must recompute, not subtract.
	g := buildGraph(t, true,
		csr.Input{Src: "a", Dst: "b", Weight: 0.1},
		csr.Input{Src: "a", Dst: "c", Weight: 0.2},
		csr.Input{Src: "a", Dst: "a", Weight: 0.3},
		csr.Input{Src: "b", Dst: "a", Weight: 0.7},
		csr.Input{Src: "b", Dst: "c", Weight: 0.1},
	)
	require.NotZero(t, g.OutWeight(0)-0.1-0.2-0.3, "the test needs a sum that subtraction gets wrong")
	v, err := FromMasked(g, "m", roaring.BitmapOf(0, 1, 2, 4))
	require.NoError(t, err)
	require.Equal(t, "m", v.Name())
	require.Equal(t, uint64(0), math.Float64bits(v.OutWeight(0)), "fully masked node: W_A is +0 exactly")
	require.Equal(t, 0.7, v.OutWeight(1))
	require.Zero(t, v.OutWeight(2))
	require.Equal(t, []uint32{0, 1}, v.Touched())
	requireSameOutWeights(t, v, physicalCopy(t, g, func(e uint32) bool { return !v.MaskedEdge(e) }), "fully masked")

	// Undirected: masking a self-loop removes both its arcs; masking {a,b}
	// touches both ends.
	u := buildGraph(t, false,
		csr.Input{Src: "a", Dst: "a", Weight: 0.3},
		csr.Input{Src: "a", Dst: "b", Weight: 0.1},
		csr.Input{Src: "c", Dst: "b", Weight: 0.2},
	)
	v, err = FromMasked(u, "m", roaring.BitmapOf(0, 1))
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1}, v.Touched())
	require.Equal(t, uint64(0), math.Float64bits(v.OutWeight(0)))
	require.Equal(t, 0.2, v.OutWeight(1))
	require.Equal(t, 0.2, v.OutWeight(2))
	v, err = FromMasked(u, "m", roaring.BitmapOf(0))
	require.NoError(t, err)
	require.Equal(t, []uint32{0}, v.Touched(), "a self-loop touches one node")
	require.Equal(t, 0.1, v.OutWeight(0))
}

func TestViewErrors(t *testing.T) {
	g := buildGraph(t, true,
		csr.Input{Src: "a", Dst: "b", Weight: 1},
		csr.Input{Src: "b", Dst: "a", Weight: 1},
	)
	_, err := FromMasked(g, "bad", roaring.BitmapOf(0, 2))
	require.Error(t, err)
	require.Contains(t, err.Error(), "mask: view bad")
	require.Contains(t, err.Error(), "masked edge 2 out of range")
	require.Contains(t, err.Error(), "2 edges")
	_, err = FromMasked(g, "bad", roaring.BitmapOf(1<<32-1))
	require.ErrorContains(t, err, "masked edge 4294967295 out of range")

	l := NewLabels(3)
	_, err = Native(g, l)
	require.ErrorContains(t, err, "mask: labels cover 3 edges, snapshot has 2")
	_, err = Authenticated(g, l, Trust("x"))
	require.ErrorContains(t, err, "mask: labels cover 3 edges, snapshot has 2")
}

// randomGraph makes a graph with a few isolated nodes, self-loops, parallel
// edges, zero weights and weights whose sums round.
func randomGraph(t testing.TB, r *rand.Rand, directed bool) *csr.Graph {
	b := csr.NewBuilder(directed)
	pool := 1 + r.IntN(20)
	channels := []string{"", "alice", "bob", "mallory"}
	iso := r.IntN(3)
	for i := range iso {
		_, err := b.AddNode(fmt.Sprintf("iso%d", i))
		require.NoError(t, err)
	}
	edges := r.IntN(60)
	for range edges {
		src := fmt.Sprintf("n%d", r.IntN(pool))
		dst := fmt.Sprintf("n%d", r.IntN(pool))
		if r.IntN(6) == 0 {
			dst = src
		}
		var w float64
		switch r.IntN(4) {
		case 0:
			w = 0
		case 1:
			w = float64(1 + r.IntN(3))
		default:
			w = r.Float64()
		}
		_, err := b.AddEdge(csr.Input{Src: src, Dst: dst, Weight: w, Channel: channels[r.IntN(len(channels))]})
		require.NoError(t, err)
	}
	if iso+edges == 0 { // no node yet
		_, err := b.AddNode("only")
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	return g
}

// labelModel is the plain map version of Labels.
type labelModel struct {
	added, deleted, requires map[string]map[uint32]bool
}

func (m labelModel) channels() []string {
	var out []string
	for _, set := range []map[string]map[uint32]bool{m.added, m.deleted, m.requires} {
		for c, s := range set {
			if len(s) > 0 && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// present: added by a selected channel, requiring only selected channels,
// deleted by none selected.
func (m labelModel) present(e uint32, selected func(string) bool) bool {
	in := false
	for c, s := range m.added {
		if selected(c) && s[e] {
			in = true
		}
	}
	for c, s := range m.requires {
		if !selected(c) && s[e] {
			return false
		}
	}
	for c, s := range m.deleted {
		if selected(c) && s[e] {
			return false
		}
	}
	return in
}

func (m labelModel) record(set map[string]map[uint32]bool, c string, edges []uint32) {
	if set[c] == nil {
		set[c] = map[uint32]bool{}
	}
	for _, e := range edges {
		set[c][e] = true
	}
}

// randomLabels labels g's edges (from the stream, or from scratch) and
// applies random additions and deletions, mirrored in a map model.
func randomLabels(t testing.TB, r *rand.Rand, g *csr.Graph) (*Labels, labelModel) {
	m := labelModel{added: map[string]map[uint32]bool{}, deleted: map[string]map[uint32]bool{}, requires: map[string]map[uint32]bool{}}
	var l *Labels
	if r.IntN(3) > 0 {
		l = FromGraph(g)
		for e := range uint32(g.NumEdges()) {
			m.record(m.added, g.Edge(e).Channel, []uint32{e})
		}
	} else {
		l = NewLabels(g.NumEdges())
	}
	channels := []string{csr.DefaultChannel, "alice", "bob", "mallory", "eve"}
	for range r.IntN(12) {
		c := channels[r.IntN(len(channels))]
		var edges []uint32
		if g.NumEdges() > 0 {
			for range r.IntN(6) {
				edges = append(edges, uint32(r.IntN(g.NumEdges())))
			}
		}
		switch r.IntN(4) {
		case 0:
			require.NoError(t, l.Delete(c, edges...))
			m.record(m.deleted, c, edges)
		case 1:
			require.NoError(t, l.Require(c, edges...))
			m.record(m.requires, c, edges)
		default:
			require.NoError(t, l.Add(c, edges...))
			m.record(m.added, c, edges)
		}
	}
	return l, m
}

func checkView(t *testing.T, g *csr.Graph, v *View, wantPresent func(uint32) bool, where string) {
	t.Helper()
	m := g.NumEdges()
	var wantMasked []uint32
	touched := map[uint32]bool{}
	for e := range uint32(m) {
		if wantPresent(e) {
			continue
		}
		wantMasked = append(wantMasked, e)
		ed := g.Edge(e)
		touched[ed.Src] = true
		if !g.Directed() {
			touched[ed.Dst] = true
		}
	}
	if wantMasked == nil {
		wantMasked = []uint32{}
	}
	require.Equal(t, wantMasked, ids(v.Masked()), where)
	for e := range uint32(m) {
		require.Equal(t, !wantPresent(e), v.MaskedEdge(e), "%s edge %d", where, e)
	}
	bits := v.MaskedBits()
	if len(wantMasked) == 0 {
		require.Nil(t, bits, where)
	} else {
		require.Len(t, bits, (m+63)/64, where)
		count := 0
		for _, w := range bits {
			for ; w != 0; w &= w - 1 {
				count++
			}
		}
		require.Equal(t, len(wantMasked), count, "%s: no stray bits", where)
	}
	wantTouched := slices.Sorted(func(yield func(uint32) bool) {
		for u := range touched {
			if !yield(u) {
				return
			}
		}
	})
	require.Equal(t, len(wantTouched), len(v.Touched()), where)
	if len(wantTouched) > 0 {
		require.Equal(t, wantTouched, v.Touched(), where)
	}
	// Touched is exactly the set of nodes with a masked out-arc.
	out := g.Out()
	for u := range uint32(g.NumNodes()) {
		lo, hi := out.Span(u)
		hasMasked := false
		var maskedArcs []int
		for p := lo; p < hi; p++ {
			if v.MaskedEdge(out.Edge[p]) {
				hasMasked = true
				maskedArcs = append(maskedArcs, p)
			}
		}
		require.Equal(t, hasMasked, touched[u], "%s node %d", where, u)
		// MaskedOutArcs lists them when the view lists MaskedInArcs.
		arcs, listed := v.MaskedOutArcs(u)
		_, _, inListed := v.MaskedInArcs()
		require.Equal(t, inListed, listed, "%s node %d: MaskedOutArcs listed", where, u)
		if listed {
			require.Equal(t, maskedArcs, arcs, "%s node %d: MaskedOutArcs", where, u)
		}
		if tb := v.TouchedBits(); tb != nil {
			require.Equal(t, hasMasked, tb[u/64]&(1<<(u%64)) != 0, "%s node %d: TouchedBits", where, u)
		} else {
			require.False(t, hasMasked, "%s node %d: TouchedBits nil with a masked arc", where, u)
		}
		if !hasMasked {
			require.Equal(t, math.Float64bits(g.OutWeight(u)), math.Float64bits(v.OutWeight(u)), "%s: untouched node %d keeps W", where, u)
		}
	}
	requireSameOutWeights(t, v, physicalCopy(t, g, wantPresent), where)
}

func TestViewsMatchMapModel(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	channels := []string{csr.DefaultChannel, "alice", "bob", "mallory", "eve", "nobody"}
	for seed := range rounds {
		r := rand.New(rand.NewPCG(uint64(seed), 0x3A5C))
		directed := seed%2 == 0
		g := randomGraph(t, r, directed)
		require.NoError(t, csrHooks.Validate(g))
		l, m := randomLabels(t, r, g)
		where := fmt.Sprintf("seed %d directed=%v", seed, directed)

		require.Equal(t, m.channels(), l.Channels(), where)
		for e := range uint32(g.NumEdges()) {
			var want []string
			for _, c := range m.channels() {
				if m.added[c][e] {
					want = append(want, c)
				}
			}
			require.Equal(t, want, l.ChannelsOf(e), where)
		}
		for _, c := range channels {
			require.Equal(t, sortedKeys(m.added[c]), ids(l.Added(c)), where)
			require.Equal(t, sortedKeys(m.deleted[c]), ids(l.Deleted(c)), where)
		}

		native, err := Native(g, l)
		require.NoError(t, err)
		checkView(t, g, native, func(e uint32) bool { return m.present(e, func(string) bool { return true }) }, where+" native")

		var trusted []string
		for _, c := range channels {
			if r.IntN(2) == 0 {
				trusted = append(trusted, c)
			}
		}
		p := Trust(trusted...)
		auth, err := Authenticated(g, l, p)
		require.NoError(t, err)
		checkView(t, g, auth, func(e uint32) bool { return m.present(e, p.Trusts) }, fmt.Sprintf("%s auth %v", where, trusted))

		// Check agrees with the model's channel list.
		known := map[string]bool{}
		for _, c := range m.channels() {
			known[c] = true
		}
		var unknown []string
		for _, c := range p.Trusted() {
			if !known[c] {
				unknown = append(unknown, c)
			}
		}
		if err := p.Check(l); len(unknown) == 0 {
			require.NoError(t, err, where)
		} else {
			require.Error(t, err, where)
			for _, c := range unknown {
				require.Contains(t, err.Error(), c, where)
			}
		}

		// FromMasked with the same set is the same view; Full masks nothing.
		again, err := FromMasked(g, "again", auth.Masked().Clone())
		require.NoError(t, err)
		require.Equal(t, auth.MaskedBits(), again.MaskedBits(), where)
		require.Equal(t, auth.Touched(), again.Touched(), where)
		require.Equal(t, auth.OutWeights(), again.OutWeights(), where)
		checkView(t, g, Full(g), func(uint32) bool { return true }, where+" full")

		// Labels round-trip through the binary format.
		requireRoundTrip(t, l, where)
	}
}

func sortedKeys(s map[uint32]bool) []uint32 {
	out := []uint32{}
	for e := range s {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}

// byDescendingWeightReference is byDescendingWeight by a comparison sort.
func byDescendingWeightReference(w []float64) []uint32 {
	ids := make([]uint32, len(w))
	for u := range ids {
		ids[u] = uint32(u)
	}
	slices.SortStableFunc(ids, func(a, b uint32) int { return cmp.Compare(w[b], w[a]) })
	return ids
}

func TestByDescendingWeightMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	for c := range 200 {
		n := rng.IntN(600)
		w := make([]float64, n)
		for u := range w {
			switch rng.IntN(4) {
			case 0: // dangling
			case 1:
				w[u] = float64(1 + rng.IntN(5)) // ties
			case 2:
				w[u] = rng.Float64() * math.Pow(10, float64(rng.IntN(30)-15))
			default:
				w[u] = 0.5 + rng.Float64()
			}
		}
		require.Equal(t, byDescendingWeightReference(w), byDescendingWeight(w), "case %d", c)
	}
}

// NodesByOutWeight orders a masked view's nodes by its own out-weights.
func TestNodesByOutWeight(t *testing.T) {
	b := csr.NewBuilder(false)
	for _, e := range []struct {
		u, v string
		w    float64
	}{{"a", "b", 1}, {"a", "c", 5}, {"b", "c", 2}, {"d", "a", 0.5}} {
		_, err := b.AddEdge(csr.Input{Src: e.u, Dst: e.v, Weight: e.w, Channel: "ch"})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	full := Full(g)
	require.Equal(t, byDescendingWeightReference(full.OutWeights()), slices.Collect(full.NodesByOutWeight()))
	masked, err := FromMasked(g, "no a-c", roaring.BitmapOf(1))
	require.NoError(t, err)
	require.Equal(t, byDescendingWeightReference(masked.OutWeights()), slices.Collect(masked.NodesByOutWeight()))
	require.NotEqual(t, slices.Collect(full.NodesByOutWeight()), slices.Collect(masked.NodesByOutWeight()))
}
