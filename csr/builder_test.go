package csr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// arc is one stored arc as the reference model sees it.
type arc struct {
	nbr    uint32
	weight float64
	edge   uint32
}

// adjacencyArcs lists the arcs of node u in storage order.
func adjacencyArcs(a Adjacency, u uint32) []arc {
	lo, hi := a.Span(u)
	out := make([]arc, 0, hi-lo)
	for p := lo; p < hi; p++ {
		out = append(out, arc{a.Nbr[p], a.Weight.At(p), a.Edge[p]})
	}
	return out
}

func mustBuild(t testing.TB, directed bool, edges ...Input) *Graph {
	t.Helper()
	b := NewBuilder(directed)
	for _, in := range edges {
		_, err := b.AddEdge(in)
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	return g
}

func TestBuilderNodeIDsFirstAppearance(t *testing.T) {
	t.Parallel()
	b := NewBuilder(true)
	for i, in := range []Input{
		{Src: "c", Dst: "a", Weight: 1},
		{Src: "b", Dst: "c", Weight: 1},
		{Src: "a", Dst: "d", Weight: 1},
		{Src: "e", Dst: "e", Weight: 1},
	} {
		e, err := b.AddEdge(in)
		require.NoError(t, err)
		require.Equal(t, uint32(i), e, "edge ids follow stream order")
	}
	require.Equal(t, 5, b.numNodes())
	require.Equal(t, 4, b.numEdges())
	g, err := b.Build()
	require.NoError(t, err)
	require.Equal(t, []string{"c", "a", "b", "d", "e"}, g.Names())
	for i, name := range g.Names() {
		id, ok := g.ID(name)
		require.True(t, ok)
		require.Equal(t, uint32(i), id)
		require.Equal(t, name, g.Name(uint32(i)))
	}
	_, ok := g.ID("zz")
	require.False(t, ok)
	require.Equal(t, Edge{Src: 0, Dst: 1, Weight: 1, Channel: DefaultChannel}, g.Edge(0))
	require.Equal(t, Edge{Src: 2, Dst: 0, Weight: 1, Channel: DefaultChannel}, g.Edge(1))
	require.Equal(t, Edge{Src: 1, Dst: 3, Weight: 1, Channel: DefaultChannel}, g.Edge(2))
	require.Equal(t, Edge{Src: 4, Dst: 4, Weight: 1, Channel: DefaultChannel}, g.Edge(3))
}

func TestBuilderAddNodeFixesOrderAndIsolatedNodes(t *testing.T) {
	t.Parallel()
	b := NewBuilder(true)
	id, err := b.AddNode("z")
	require.NoError(t, err)
	require.Equal(t, uint32(0), id)
	id, err = b.AddNode("iso")
	require.NoError(t, err)
	require.Equal(t, uint32(1), id)
	id, err = b.AddNode("z") // existing: same id, nothing new
	require.NoError(t, err)
	require.Equal(t, uint32(0), id)
	require.Equal(t, 2, b.numNodes())
	_, err = b.AddEdge(Input{Src: "a", Dst: "z", Weight: 2})
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	require.Equal(t, []string{"z", "iso", "a"}, g.Names())
	require.Equal(t, 3, g.NumNodes())
	require.Equal(t, 1, g.NumEdges())
	iso, _ := g.ID("iso")
	lo, hi := g.Out().Span(iso)
	require.Equal(t, lo, hi, "isolated node has no out-arcs")
	lo, hi = g.In().Span(iso)
	require.Equal(t, lo, hi, "isolated node has no in-arcs")
	require.Zero(t, g.OutWeight(iso))
	require.Equal(t, []float64{0, 0, 2}, g.outWeight)
}

func TestBuilderOnlyNodes(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		b := NewBuilder(directed)
		_, err := b.AddNode("x")
		require.NoError(t, err)
		g, err := b.Build()
		require.NoError(t, err)
		require.NoError(t, g.checkAll())
		require.Equal(t, 1, g.NumNodes())
		require.Zero(t, g.NumEdges())
		require.Zero(t, g.NumArcs())
		require.Empty(t, g.Channels())
		require.Equal(t, []float64{0}, g.outWeight)
	}
}

func TestBuilderEmptyBuildErrors(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		g, err := NewBuilder(directed).Build()
		require.Error(t, err)
		require.Nil(t, g)
		require.Contains(t, err.Error(), "csr: ")
		require.Contains(t, err.Error(), "no nodes")
	}
}

func TestBuilderParallelEdgesStaySeparate(t *testing.T) {
	t.Parallel()
	g := mustBuild(t, true,
		Input{Src: "a", Dst: "b", Weight: 1, Channel: "x"},
		Input{Src: "a", Dst: "b", Weight: 2, Channel: "x"},
		Input{Src: "b", Dst: "a", Weight: 4},
		Input{Src: "a", Dst: "b", Weight: 8, Channel: "y"},
	)
	require.Equal(t, 4, g.NumEdges())
	require.Equal(t, 4, g.NumArcs())
	require.Equal(t, []arc{{1, 1, 0}, {1, 2, 1}, {1, 8, 3}}, adjacencyArcs(g.Out(), 0))
	require.Equal(t, []arc{{0, 4, 2}}, adjacencyArcs(g.Out(), 1))
	require.Equal(t, []arc{{1, 4, 2}}, adjacencyArcs(g.In(), 0))
	require.Equal(t, []arc{{0, 1, 0}, {0, 2, 1}, {0, 8, 3}}, adjacencyArcs(g.In(), 1))
	require.Equal(t, 11.0, g.OutWeight(0))
	require.Equal(t, 4.0, g.OutWeight(1))
	require.Equal(t, []string{"x", DefaultChannel, "y"}, g.Channels())
	require.Equal(t, []uint32{0, 0, 1, 2}, []uint32{g.edgeChannel[0], g.edgeChannel[1], g.edgeChannel[2], g.edgeChannel[3]})
	require.Equal(t, "y", g.Edge(3).Channel)
	require.Equal(t, DefaultChannel, g.Edge(2).Channel)
}

func TestBuilderUndirected(t *testing.T) {
	t.Parallel()
	g := mustBuild(t, false,
		Input{Src: "a", Dst: "b", Weight: 1},
		Input{Src: "c", Dst: "a", Weight: 2},
		Input{Src: "a", Dst: "a", Weight: 4}, // self-loop: two arcs, counts twice
		Input{Src: "b", Dst: "a", Weight: 8}, // parallel to edge 0, reversed
	)
	require.False(t, g.Directed())
	require.Equal(t, 4, g.NumEdges())
	require.Equal(t, 8, g.NumArcs())
	require.Equal(t, []arc{{1, 1, 0}, {2, 2, 1}, {0, 4, 2}, {0, 4, 2}, {1, 8, 3}}, adjacencyArcs(g.Out(), 0))
	require.Equal(t, []arc{{0, 1, 0}, {0, 8, 3}}, adjacencyArcs(g.Out(), 1))
	require.Equal(t, []arc{{0, 2, 1}}, adjacencyArcs(g.Out(), 2))
	require.Equal(t, 1.0+2+4+4+8, g.OutWeight(0))
	require.Equal(t, 9.0, g.OutWeight(1))
	require.Equal(t, 2.0, g.OutWeight(2))
	// In() is Out(): the very same slices.
	in, out := g.In(), g.Out()
	require.Same(t, &out.Offsets[0], &in.Offsets[0])
	require.Same(t, &out.Nbr[0], &in.Nbr[0])
	require.Same(t, &out.Weight.Float32s()[0], &in.Weight.Float32s()[0])
	require.Same(t, &out.Edge[0], &in.Edge[0])
}

func TestBuilderDirectedSelfLoopIsOneArc(t *testing.T) {
	t.Parallel()
	g := mustBuild(t, true,
		Input{Src: "a", Dst: "a", Weight: 3},
		Input{Src: "a", Dst: "b", Weight: 1},
	)
	require.Equal(t, 2, g.NumArcs())
	require.Equal(t, []arc{{0, 3, 0}, {1, 1, 1}}, adjacencyArcs(g.Out(), 0))
	require.Equal(t, []arc{{0, 3, 0}}, adjacencyArcs(g.In(), 0))
	require.Equal(t, 4.0, g.OutWeight(0))
	require.Zero(t, g.OutWeight(1))
}

func TestBuilderZeroWeightEdges(t *testing.T) {
	t.Parallel()
	g := mustBuild(t, true,
		Input{Src: "a", Dst: "b", Weight: 0},
		Input{Src: "b", Dst: "c", Weight: 0},
		Input{Src: "b", Dst: "a", Weight: 1},
	)
	require.Equal(t, 3, g.NumEdges())
	require.Equal(t, []arc{{1, 0, 0}}, adjacencyArcs(g.Out(), 0))
	require.Zero(t, g.OutWeight(0), "only zero-weight out-arcs: dangling")
	require.Equal(t, 1.0, g.OutWeight(1))
	require.Equal(t, Edge{Src: 1, Dst: 2, Weight: 0, Channel: DefaultChannel}, g.Edge(1))
}

func TestBuilderRelations(t *testing.T) {
	t.Parallel()
	g := mustBuild(t, true,
		Input{Src: "a", Dst: "b", Weight: 1},
		Input{Src: "b", Dst: "c", Weight: 1, Relation: "r1", Channel: "ch"},
		Input{Src: "c", Dst: "a", Weight: 1, Relation: "r2"},
		Input{Src: "a", Dst: "c", Weight: 1, Relation: "r1"},
		Input{Src: "a", Dst: "a", Weight: 1},
	)
	got := make([]string, g.NumEdges())
	for e := range got {
		got[e] = g.Edge(uint32(e)).Relation
	}
	require.Equal(t, []string{"", "r1", "r2", "r1", ""}, got)
	require.Equal(t, "ch", g.Edge(1).Channel)

	g = mustBuild(t, true, Input{Src: "a", Dst: "b", Weight: 1})
	require.Empty(t, g.Edge(0).Relation)
}

func TestBuilderRejectsBadEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   Input
		want []string
	}{
		{"NaN", Input{Src: "a", Dst: "b", Weight: math.NaN()}, []string{"edge 2", "NaN", "finite and non-negative"}},
		{"+Inf", Input{Src: "a", Dst: "b", Weight: math.Inf(1)}, []string{"edge 2", "+Inf"}},
		{"-Inf", Input{Src: "a", Dst: "b", Weight: math.Inf(-1)}, []string{"edge 2", "-Inf"}},
		{"negative", Input{Src: "new1", Dst: "new2", Weight: -0.5}, []string{"edge 2", "-0.5", "new1 -> new2"}},
		{"tiny negative", Input{Src: "a", Dst: "b", Weight: -math.SmallestNonzeroFloat64}, []string{"edge 2"}},
		{"empty src", Input{Src: "", Dst: "fresh", Weight: 1}, []string{"edge 2", "empty node name"}},
		{"empty dst", Input{Src: "fresh", Dst: "", Weight: 1}, []string{"edge 2", "empty node name"}},
		{"both empty", Input{Weight: 1}, []string{"edge 2", "empty node name"}},
		{"bad weight new names", Input{Src: "fresh", Dst: "fresh2", Weight: math.NaN(), Channel: "newch", Relation: "newrel"}, []string{"edge 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, directed := range []bool{true, false} {
				b := NewBuilder(directed)
				_, err := b.AddEdge(Input{Src: "a", Dst: "b", Weight: 1})
				require.NoError(t, err)
				_, err = b.AddEdge(Input{Src: "b", Dst: "c", Weight: 2, Channel: "k"})
				require.NoError(t, err)
				_, err = b.AddEdge(tc.in)
				require.Error(t, err)
				require.Contains(t, err.Error(), "csr: ")
				for _, w := range tc.want {
					require.Contains(t, err.Error(), w)
				}
				// A failed AddEdge adds nothing: no node, edge, channel or relation.
				require.Equal(t, 3, b.numNodes())
				require.Equal(t, 2, b.numEdges())
				e, err := b.AddEdge(Input{Src: "c", Dst: "d", Weight: 1})
				require.NoError(t, err)
				require.Equal(t, uint32(2), e, "the failed edge did not consume an id")
				g, err := b.Build()
				require.NoError(t, err)
				require.NoError(t, g.checkAll())
				require.Equal(t, []string{"a", "b", "c", "d"}, g.Names())
				require.Equal(t, []string{DefaultChannel, "k"}, g.Channels())
				require.Empty(t, g.Edge(2).Relation)
			}
		})
	}
}

func TestBuilderAddNodeEmptyName(t *testing.T) {
	t.Parallel()
	b := NewBuilder(true)
	_, err := b.AddNode("")
	require.ErrorContains(t, err, "csr: node name is empty")
	require.Zero(t, b.numNodes())
}

// op is one step of a random stream: an AddNode when in.Dst is empty.
type op struct {
	in Input
}

// randomStream makes a stream over a small name pool so that self-loops,
// parallel edges and repeated pairs are common, with zero weights, several
// channels, some relations and some isolated nodes added by AddNode.
func randomStream(r *rand.Rand) []op {
	pool := 1 + r.IntN(25)
	steps := r.IntN(80)
	channels := []string{"", "alice", "bob", "carol"}
	relations := []string{"", "", "rel1", "rel2"}
	withRelations := r.IntN(2) == 0
	name := func() string { return fmt.Sprintf("n%d", r.IntN(pool)) }
	var ops []op
	for range steps {
		if r.IntN(8) == 0 {
			ops = append(ops, op{Input{Src: name()}})
			continue
		}
		in := Input{Src: name(), Dst: name(), Channel: channels[r.IntN(len(channels))]}
		if r.IntN(6) == 0 {
			in.Dst = in.Src
		}
		switch r.IntN(5) {
		case 0:
			in.Weight = 0
		case 1:
			in.Weight = 1
		default:
			in.Weight = r.Float64() * 10
		}
		if withRelations {
			in.Relation = relations[r.IntN(len(relations))]
		}
		ops = append(ops, op{in})
	}
	if len(ops) == 0 || r.IntN(10) == 0 {
		ops = append(ops, op{Input{Src: "lonely"}})
	}
	return ops
}

// denseModel is the obvious representation: per node a list of arcs in
// edge order, and an arc-count matrix.
type denseModel struct {
	names    []string
	edges    []Edge
	out, in  [][]arc
	count    [][]int // count[u][v]: number of out-arcs u->v
	outW     []float64
	channels []string
}

func buildModel(directed bool, ops []op) *denseModel {
	m := &denseModel{}
	ids := map[string]uint32{}
	node := func(s string) uint32 {
		if id, ok := ids[s]; ok {
			return id
		}
		ids[s] = uint32(len(m.names))
		m.names = append(m.names, s)
		return ids[s]
	}
	chanIdx := map[string]bool{}
	for _, o := range ops {
		if o.in.Dst == "" {
			node(o.in.Src)
			continue
		}
		s := node(o.in.Src)
		d := node(o.in.Dst)
		ch := o.in.Channel
		if ch == "" {
			ch = DefaultChannel
		}
		if !chanIdx[ch] {
			chanIdx[ch] = true
			m.channels = append(m.channels, ch)
		}
		m.edges = append(m.edges, Edge{Src: s, Dst: d, Weight: o.in.Weight, Channel: ch, Relation: o.in.Relation})
	}
	n := len(m.names)
	m.out = make([][]arc, n)
	m.in = make([][]arc, n)
	m.count = make([][]int, n)
	for u := range m.count {
		m.count[u] = make([]int, n)
	}
	for e, ed := range m.edges {
		m.out[ed.Src] = append(m.out[ed.Src], arc{ed.Dst, ed.Weight, uint32(e)})
		m.count[ed.Src][ed.Dst]++
		if directed {
			m.in[ed.Dst] = append(m.in[ed.Dst], arc{ed.Src, ed.Weight, uint32(e)})
		} else {
			m.out[ed.Dst] = append(m.out[ed.Dst], arc{ed.Src, ed.Weight, uint32(e)})
			m.count[ed.Dst][ed.Src]++
		}
	}
	if !directed {
		m.in = m.out
	}
	m.outW = make([]float64, n)
	for u, arcs := range m.out {
		for _, a := range arcs {
			m.outW[u] += a.weight
		}
	}
	return m
}

func TestBuilderMatchesDenseModel(t *testing.T) {
	t.Parallel()
	graphs := 600
	if testing.Short() {
		graphs = 150
	}
	for seed := range graphs {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(seed), 0xC5A))
			ops := randomStream(r)
			want := buildModel(directed, ops)
			b := NewBuilder(directed)
			for i, o := range ops {
				if o.in.Dst == "" {
					_, err := b.AddNode(o.in.Src)
					require.NoError(t, err)
					continue
				}
				_, err := b.AddEdge(o.in)
				require.NoError(t, err, "seed %d op %d", seed, i)
			}
			g, err := b.Build()
			require.NoError(t, err, "seed %d", seed)
			checkAgainstModel(t, g, want, directed, fmt.Sprintf("seed %d directed=%v", seed, directed))
		}
	}
}

func checkAgainstModel(t *testing.T, g *Graph, m *denseModel, directed bool, where string) {
	t.Helper()
	require.NoError(t, g.checkAll(), where)
	require.Equal(t, directed, g.Directed(), where)
	require.Equal(t, m.names, g.Names(), where)
	require.Equal(t, len(m.edges), g.NumEdges(), where)
	wantArcs := len(m.edges)
	if !directed {
		wantArcs *= 2
	}
	require.Equal(t, wantArcs, g.NumArcs(), where)
	for e, ed := range m.edges {
		require.Equal(t, ed, g.Edge(uint32(e)), "%s edge %d", where, e)
		require.Equal(t, ed.Channel, g.Channels()[g.edgeChannel[uint32(e)]], where)
	}
	wantChannels := m.channels
	if wantChannels == nil {
		wantChannels = []string{}
	}
	require.Equal(t, wantChannels, g.Channels(), where)
	n := len(m.names)
	count := make([][]int, n)
	for u := range n {
		count[u] = make([]int, n)
		gotOut := adjacencyArcs(g.Out(), uint32(u))
		gotIn := adjacencyArcs(g.In(), uint32(u))
		require.Equal(t, len(m.out[u]), len(gotOut), "%s node %d", where, u)
		if len(m.out[u]) > 0 {
			require.Equal(t, m.out[u], gotOut, "%s node %d out", where, u)
		}
		if len(m.in[u]) > 0 {
			require.Equal(t, m.in[u], gotIn, "%s node %d in", where, u)
		} else {
			require.Empty(t, gotIn, "%s node %d in", where, u)
		}
		for _, a := range gotOut {
			count[u][a.nbr]++
		}
		// Bit for bit: the model sums in the same (edge id) order.
		require.Equal(t, math.Float64bits(m.outW[u]), math.Float64bits(g.OutWeight(uint32(u))), "%s node %d W", where, u)
	}
	require.Equal(t, m.count, count, where)
	if !directed {
		for u := range n {
			for v := range n {
				require.Equal(t, count[u][v], count[v][u], "%s: undirected arc counts must be symmetric", where)
			}
		}
	}
}

// corruptibleGraph returns fresh small graphs (directed and undirected) with
// self-loops, parallel edges and relations, for corruption tests.
// The last node, "e", is isolated.
func corruptibleGraph(t *testing.T, directed bool) *Graph {
	t.Helper()
	b := NewBuilder(directed)
	for _, in := range []Input{
		{Src: "a", Dst: "b", Weight: 1, Relation: "r"},
		{Src: "b", Dst: "c", Weight: 2, Channel: "x"},
		{Src: "a", Dst: "b", Weight: 3},
		{Src: "c", Dst: "c", Weight: 4},
		{Src: "c", Dst: "a", Weight: 5, Relation: "s"},
		{Src: "d", Dst: "a", Weight: 0},
	} {
		_, err := b.AddEdge(in)
		require.NoError(t, err)
	}
	_, err := b.AddNode("e")
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	return g
}

func TestValidateReportsCorruption(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		corrupt func(g *Graph)
		want    []string
	}{
		{"short edge dst", func(g *Graph) { g.edgeDst = g.edgeDst[:5] }, []string{"edge arrays have lengths 6, 5, 6, 6"}},
		{"short edge weight", func(g *Graph) { g.edgeWeight = g.edgeWeight.Slice(0, 1) }, []string{"edge arrays", "want all 6"}},
		{"short relations", func(g *Graph) { g.edgeRelation = g.edgeRelation[:2] }, []string{"2 edge relations for 6 edges"}},
		{"duplicate name", func(g *Graph) { g.names[3] = "a" }, []string{"node 3", `"a"`}},
		{"missing dictionary entry", func(g *Graph) { delete(g.ids, "c") }, []string{"name dictionary has 4 entries for 5 nodes"}},
		{"swapped ids", func(g *Graph) { g.ids["a"], g.ids["b"] = 1, 0 }, []string{"node 0", `"a"`}},
		{"src out of range", func(g *Graph) { g.edgeSrc[2] = 5 }, []string{"edge 2", "endpoint out of range", "< 5 nodes"}},
		{"dst out of range", func(g *Graph) { g.edgeDst[5] = 99 }, []string{"edge 5", "endpoint out of range"}},
		{"NaN weight", func(g *Graph) { setWeight(g.edgeWeight, 1, math.NaN()) }, []string{"edge 1", "NaN"}},
		{"negative weight", func(g *Graph) { setWeight(g.edgeWeight, 4, -5) }, []string{"edge 4", "-5"}},
		{"infinite weight", func(g *Graph) { setWeight(g.edgeWeight, 0, math.Inf(1)) }, []string{"edge 0", "+Inf"}},
		{"channel out of range", func(g *Graph) { g.edgeChannel[3] = 7 }, []string{"edge 3", "channel index 7"}},
		{"relation out of range", func(g *Graph) { g.edgeRelation[3] = 9 }, []string{"edge 3", "relation index 9"}},
		{"offsets wrong length", func(g *Graph) { g.out.Offsets = g.out.Offsets[:4] }, []string{"out-adjacency", "offsets malformed"}},
		{"offsets wrong total", func(g *Graph) { g.in.Offsets[5]-- }, []string{"in-adjacency", "offsets malformed"}},
		{"offsets not starting at 0", func(g *Graph) { g.out.Offsets[0] = 1 }, []string{"out-adjacency", "offsets malformed"}},
		{"offsets decrease", func(g *Graph) { g.out.Offsets[1], g.out.Offsets[2] = g.out.Offsets[2], g.out.Offsets[1] }, []string{"out-adjacency", "offsets decrease"}},
		{"offset beyond arcs", func(g *Graph) { g.out.Offsets[1] = len(g.out.Nbr) + 3 }, []string{"out-adjacency", "offsets decrease"}},
		// Node d's span runs past the arcs; every arc it reaches is d's own,
		// so only an up-front offset check can catch it.
		{"last span beyond arcs", func(g *Graph) { g.out.Offsets[4] = len(g.out.Nbr) + 3 }, []string{"out-adjacency", "node 4", "offsets decrease"}},
		{"negative offset", func(g *Graph) { g.out.Offsets[1] = -1 }, []string{"out-adjacency", "node 0", "offsets decrease"}},
		{"short nbr", func(g *Graph) { g.out.Nbr = g.out.Nbr[:len(g.out.Nbr)-1] }, []string{"out-adjacency", "arc arrays have lengths"}},
		{"short arc edge ids", func(g *Graph) { g.in.Edge = g.in.Edge[:1] }, []string{"in-adjacency", "arc arrays have lengths"}},
		{"arc edge id out of range", func(g *Graph) { g.out.Edge[0] = 6 }, []string{"out-adjacency", "node 0 arc 0", "edge id 6 out of range"}},
		{"wrong neighbour", func(g *Graph) { g.out.Nbr[0] = 2 }, []string{"out-adjacency", "node 0 arc 0", "does not match edge 0"}},
		{"wrong arc weight", func(g *Graph) { setWeight(g.out.Weight, 1, 2.5) }, []string{"out-adjacency", "node 0 arc 1", "does not match edge"}},
		{"NaN arc weight", func(g *Graph) { setWeight(g.out.Weight, 0, math.NaN()) }, []string{"out-adjacency", "node 0 arc 0"}},
		{"arcs out of order", func(g *Graph) {
			lo, _ := g.out.Span(0)
			g.out.Edge[lo], g.out.Edge[lo+1] = g.out.Edge[lo+1], g.out.Edge[lo]
			g.out.Nbr[lo], g.out.Nbr[lo+1] = g.out.Nbr[lo+1], g.out.Nbr[lo]
			swapWeights(g.out.Weight, lo, lo+1)
		}, []string{"out-adjacency", "node 0", "not ordered by edge id"}},
		{"parallel edge arc points at its twin", func(g *Graph) {
			// a->b as edge 0 and edge 2 (weights 1, 3). Make the arc of
			// edge 2 claim edge 0 with edge 0's weight: every arc still
			// matches an edge, but edge 0 has two arcs and edge 2 none.
			lo, _ := g.out.Span(0)
			g.out.Edge[lo+1] = 0
			setWeight(g.out.Weight, lo+1, 1)
			g.outWeight[0] = 2
		}, []string{"out-adjacency", "stored as"}},
		{"out-weight mismatch", func(g *Graph) { g.outWeight[2] += 1e-9 }, []string{"node 2", "out-weight"}},
		{"out-weights too short", func(g *Graph) { g.outWeight = g.outWeight[:2] }, []string{"2 out-weights for 5 nodes"}},
	}
	for _, tc := range cases {
		for _, c := range []struct {
			directed bool
			storage  weightStorage
		}{{true, autoWeights}, {false, autoWeights}, {true, float64Storage}, {false, float64Storage}} {
			directed := c.directed
			t.Run(fmt.Sprintf("%s/directed=%v/%v", tc.name, directed, c.storage), func(t *testing.T) {
				g := corruptibleGraph(t, directed).withWeightStorage(c.storage)
				require.Equal(t, c.storage == autoWeights, g.storesFloat32())
				if !directed && g.in.Offsets != nil {
					// Corrupting g.in must not silently also corrupt g.out
					// in ways the case did not mean; give in its own copy.
					g.in = Adjacency{
						Offsets: slices.Clone(g.out.Offsets),
						Nbr:     slices.Clone(g.out.Nbr),
						Weight:  cloneWeights(g.out.Weight),
						Edge:    slices.Clone(g.out.Edge),
					}
					require.NoError(t, g.checkAll())
				}
				var err error
				require.NotPanics(t, func() {
					tc.corrupt(g)
					err = g.checkAll()
				})
				require.Error(t, err)
				msg := err.Error()
				t.Log(msg)
				require.Regexp(t, `^csr: `, msg)
				for _, w := range tc.want {
					require.Contains(t, msg, w)
				}
			})
		}
	}
}

// TestValidateUndirectedArcAtWrongEndpoint: an undirected edge {u,v} must
// have one arc at u and one at v; two arcs at u (and none at v) has the
// right arc count and each arc names the edge's endpoints.
func TestValidateUndirectedArcAtWrongEndpoint(t *testing.T) {
	t.Parallel()
	g := mustBuild(t, false,
		Input{Src: "a", Dst: "b", Weight: 1},
		Input{Src: "b", Dst: "c", Weight: 2},
	)
	// a: [b/e0], b: [a/e0, c/e1], c: [b/e1]. Move b's arc of edge 0 to a.
	require.Equal(t, []int{0, 1, 3, 4}, g.out.Offsets)
	g.out = Adjacency{
		Offsets: []int{0, 2, 3, 4},
		Nbr:     []uint32{1, 1, 2, 1},
		Weight:  weights64([]float64{1, 1, 2, 2}),
		Edge:    []uint32{0, 0, 1, 1},
	}
	g.in = g.out
	g.outWeight = []float64{2, 2, 2}
	err := g.checkAll()
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "edge 0")
	require.Contains(t, err.Error(), "want one at each endpoint")
}

func TestValidateBuiltGraphsPass(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		require.NoError(t, corruptibleGraph(t, directed).checkAll())
	}
}

func TestNegativeZeroWeightStoredAsZero(t *testing.T) {
	t.Parallel()
	b := NewBuilder(true)
	_, err := b.AddEdge(Input{Src: "a", Dst: "b", Weight: math.Copysign(0, -1)})
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	require.False(t, math.Signbit(g.Edge(0).Weight))
	require.False(t, math.Signbit(g.OutWeight(0)))
}

func TestPartsAssembleRoundTrip(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		b := NewBuilder(directed)
		for i, e := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "c"}, {"a", "b"}} {
			_, err := b.AddEdge(Input{Src: e[0], Dst: e[1], Weight: float64(i) + 0.5, Channel: fmt.Sprint("ch", i%2), Relation: fmt.Sprint("r", i)})
			require.NoError(t, err)
		}
		g, err := b.Build()
		require.NoError(t, err)
		h, err := assemble(g.parts())
		require.NoError(t, err)
		require.Equal(t, g.parts(), h.parts())
		id, ok := h.ID("c")
		require.True(t, ok)
		require.Equal(t, uint32(2), id)

		bad := g.parts()
		bad.OutWeight = append([]float64(nil), bad.OutWeight...)
		bad.OutWeight[0] += 1
		_, err = assemble(bad)
		require.ErrorContains(t, err, "out-weight")

		dup := g.parts()
		dup.Names = []string{"a", "a", "c"}
		_, err = assemble(dup)
		require.Error(t, err)
	}
}

func TestMemoryBytes(t *testing.T) {
	t.Parallel()
	b := NewBuilder(true)
	_, err := b.AddEdge(Input{Src: "ab", Dst: "c", Weight: 1})
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	// out and in: 3 offsets*8 + 4 + 4 + 4 each (the weight, 1, is stored
	// as a float32); out-weights 2*8; one edge 16; names 2*16 + 3 bytes;
	// less what is stored once: the weight is 1 (in.Weight and edge.Weight
	// are out.Weight) and the stream is sorted by source (edge.Dst is
	// out.Nbr).
	require.Equal(t, int64(2*(24+12)+16+16+32+3-4-4-4), g.MemoryBytes())
	// With float64 weights: 4 more bytes per arc and per edge, of which
	// one weight array is stored.
	require.Equal(t, int64(2*(24+12)+16+16+32+3-4-4-4+4), g.withWeightStorage(float64Storage).MemoryBytes())
}

func TestAddEdgeByIDMatchesAddEdge(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, directed := range []bool{true, false} {
		byName, byID := NewBuilder(directed), NewBuilder(directed)
		for u := range 20 {
			_, err := byName.AddNode(fmt.Sprint("n", u))
			require.NoError(t, err)
			_, err = byID.AddNode(fmt.Sprint("n", u))
			require.NoError(t, err)
		}
		for range 100 {
			s, d, w := uint32(rng.IntN(20)), uint32(rng.IntN(20)), rng.Float64()
			ch := []string{"", "peer"}[rng.IntN(2)]
			e1, err := byName.AddEdge(Input{Src: fmt.Sprint("n", s), Dst: fmt.Sprint("n", d), Weight: w, Channel: ch})
			require.NoError(t, err)
			e2, err := byID.AddEdgeByID(s, d, w, ch)
			require.NoError(t, err)
			require.Equal(t, e1, e2)
		}
		g1, err := byName.Build()
		require.NoError(t, err)
		g2, err := byID.Build()
		require.NoError(t, err)
		require.Equal(t, g1.parts(), g2.parts())
	}
	b := NewBuilder(true)
	_, err := b.AddNode("a")
	require.NoError(t, err)
	_, err = b.AddEdgeByID(0, 1, 1, "")
	require.ErrorContains(t, err, "out of range")
	_, err = b.AddEdgeByID(0, 0, math.NaN(), "")
	require.ErrorContains(t, err, "weight")
	require.Zero(t, b.numEdges(), "failed adds add nothing")
}
