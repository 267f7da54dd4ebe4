package csr

import (
	"fmt"
	"github.com/authppr/authppr/internal/cpu"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func buildOps(t *testing.T, directed bool, ops []op, order NodeOrder) *Graph {
	t.Helper()
	b := NewBuilder(directed)
	b.setNodeOrder(order)
	for _, o := range ops {
		var err error
		if o.in.Dst == "" {
			_, err = b.AddNode(o.in.Src)
		} else {
			_, err = b.AddEdge(o.in)
		}
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	return g
}

// sameByName checks that h is g with its nodes renumbered: same names, same
// edges (by id) between the same names, the same arcs per node by name, and
// h.Rank giving g's ids.
func sameByName(t *testing.T, g, h *Graph, where string) {
	t.Helper()
	require.NoError(t, h.checkAll(), where)
	require.Equal(t, g.NumNodes(), h.NumNodes(), where)
	require.Equal(t, g.NumEdges(), h.NumEdges(), where)
	for u := range h.NumNodes() {
		gu, ok := g.ID(h.Name(uint32(u)))
		require.True(t, ok, where)
		require.Equal(t, g.rankOf(gu), h.rankOf(uint32(u)), "%s: rank of %q", where, h.Name(uint32(u)))
		require.Equal(t, g.OutWeight(gu), h.OutWeight(uint32(u)), where)
		for _, dir := range []struct {
			name string
			g, h Adjacency
		}{{"out", g.Out(), h.Out()}, {"in", g.In(), h.In()}} {
			ga, ha := adjacencyArcs(dir.g, gu), adjacencyArcs(dir.h, uint32(u))
			require.Len(t, ha, len(ga), "%s: %s-arcs of %q", where, dir.name, h.Name(uint32(u)))
			for i := range ga {
				require.Equal(t, ga[i].edge, ha[i].edge, where)
				require.Equal(t, ga[i].weight, ha[i].weight, where)
				require.Equal(t, g.Name(ga[i].nbr), h.Name(ha[i].nbr), where)
			}
		}
	}
	for e := range uint32(h.NumEdges()) {
		ge, he := g.Edge(e), h.Edge(e)
		require.Equal(t, g.Name(ge.Src), h.Name(he.Src), where)
		require.Equal(t, g.Name(ge.Dst), h.Name(he.Dst), where)
		ge.Src, ge.Dst, he.Src, he.Dst = 0, 0, 0, 0
		require.Equal(t, ge, he, where)
	}
}

func TestDegreeOrder(t *testing.T) {
	t.Parallel()
	for seed := range 300 {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(seed), 0x0D3))
			ops := randomStream(r)
			where := fmt.Sprintf("seed %d directed=%v", seed, directed)
			g := buildOps(t, directed, ops, StreamOrder)
			require.Nil(t, g.Ranks())
			h := buildOps(t, directed, ops, DegreeOrder)
			sameByName(t, g, h, where)
			// Degrees (arcs out plus arcs in) never increase with the id;
			// equal degrees keep first-appearance order.
			deg := func(u uint32) int {
				lo, hi := h.Out().Span(u)
				ilo, ihi := h.In().Span(u)
				return hi - lo + ihi - ilo
			}
			for u := uint32(1); u < uint32(h.NumNodes()); u++ {
				require.GreaterOrEqual(t, deg(u-1), deg(u), where)
				if deg(u-1) == deg(u) {
					require.Less(t, h.rankOf(u-1), h.rankOf(u), where)
				}
			}
			// Reorder gives the same graph as the builder, and back.
			h2, err := Reorder(g, DegreeOrder)
			require.NoError(t, err)
			require.Equal(t, h.Names(), h2.Names(), where)
			require.Equal(t, h.Ranks(), h2.Ranks(), where)
			sameByName(t, g, h2, where)
			back, err := Reorder(h, StreamOrder)
			require.NoError(t, err)
			require.Equal(t, g.Names(), back.Names(), where)
			sameByName(t, g, back, where)
			// graphParts carry the ranks through assemble.
			a, err := assemble(h.parts())
			require.NoError(t, err)
			require.Equal(t, h.Ranks(), a.Ranks())
		}
	}
}

func TestValidateRejectsBadRanks(t *testing.T) {
	t.Parallel()
	g := buildOps(t, true, []op{{Input{Src: "a", Dst: "b", Weight: 1}}, {Input{Src: "b", Dst: "c", Weight: 1}}}, DegreeOrder)
	p := g.parts()
	p.Rank = []uint32{0, 0, 1}
	_, err := assemble(p)
	require.ErrorContains(t, err, "rank")
	p.Rank = []uint32{0, 1}
	_, err = assemble(p)
	require.ErrorContains(t, err, "ranks for 3 nodes")
}

// TestNodeOrderNames: orders are spelled as the CLI's --order spells
// them, the zero NodeOrder is StreamOrder, and an order naming none is an
// error from every function that takes one.
func TestNodeOrderNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"stream", "degree", "auto"}, []string{string(StreamOrder), string(DegreeOrder), string(AutoOrder)})
	require.Equal(t, StreamOrder, NodeOrder("").resolve(1<<40))
	for _, o := range []NodeOrder{"", StreamOrder, DegreeOrder, AutoOrder} {
		require.NoError(t, o.check())
	}
	require.EqualError(t, NodeOrder("bfs").check(), `csr: node order "bfs", want stream, degree or auto`)
	g, err := Read(strings.NewReader("a b\n"), "g.txt", ReadOptions{})
	require.NoError(t, err)
	_, err = Reorder(g, "bfs")
	require.ErrorContains(t, err, `csr: node order "bfs"`)
	_, err = FromIDs(IDEdges[int32, int32]{Nodes: 2, Pairs: []int32{0, 1}, Order: "bfs"})
	require.ErrorContains(t, err, `csr: node order "bfs"`)
	_, err = Read(strings.NewReader("a b\n"), "g.txt", ReadOptions{Order: "bfs"})
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	require.EqualError(t, err, `csr: g.txt: node order "bfs", want stream, degree or auto`)
}

// AutoOrder picks degree order exactly when 8 bytes per node exceed the L2
// size (1 MiB when the CPU reports none), and Build and Reorder follow it;
// Order reports what a graph is in.
func TestAutoOrder(t *testing.T) {
	t.Parallel()
	l2 := cpu.L2Bytes()
	if l2 == 0 {
		l2 = unknownL2
	}
	require.Equal(t, StreamOrder, AutoOrder.resolve(l2/8))
	require.Equal(t, DegreeOrder, AutoOrder.resolve(l2/8+1))
	require.Equal(t, StreamOrder, StreamOrder.resolve(1<<40))
	require.Equal(t, DegreeOrder, DegreeOrder.resolve(1))

	ops := []op{{Input{Src: "a", Dst: "b", Weight: 1}}, {Input{Src: "c", Dst: "b", Weight: 1}}}
	small := buildOps(t, true, ops, AutoOrder) // 3 nodes: fits any cache
	require.Equal(t, StreamOrder, small.order())
	require.Nil(t, small.Ranks())
	deg := buildOps(t, true, ops, DegreeOrder)
	require.Equal(t, DegreeOrder, deg.order())
	back, err := Reorder(deg, AutoOrder)
	require.NoError(t, err)
	require.Equal(t, StreamOrder, back.order())
	require.Equal(t, small.Names(), back.Names())
}

// Reorder permutes g's arrays into exactly the graph the Builder rebuilds
// (reorderByBuilder): every array, the ranks, and the same sharing of
// arrays (MemoryBytes), from stream-ordered, degree-ordered and FromIDs
// graphs, directed and undirected, with and without relations and unit
// weights, to every order.
func TestReorderMatchesBuilder(t *testing.T) {
	t.Parallel()
	for seed := range 300 {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(seed), 0x0D4))
			ops := randomStream(r)
			starts := []*Graph{buildOps(t, directed, ops, StreamOrder), buildOps(t, directed, ops, DegreeOrder)}
			if seed%3 == 0 {
				n := 1 + r.IntN(40)
				in := IDEdges[uint32, uint32]{Directed: directed, Nodes: n}
				for range r.IntN(3 * n) {
					in.Pairs = append(in.Pairs, uint32(r.IntN(n)), uint32(r.IntN(n)))
				}
				if seed%2 == 0 {
					for range len(in.Pairs) / 2 {
						in.Weights = append(in.Weights, float64(r.IntN(3)))
					}
				}
				g, err := FromIDs(in)
				require.NoError(t, err)
				starts = append(starts, g)
			}
			// Both weight storages.
			starts = append(starts, starts[0].withWeightStorage(float64Storage))
			for i, g := range starts {
				for _, o := range []NodeOrder{StreamOrder, DegreeOrder, AutoOrder} {
					where := fmt.Sprintf("seed %d directed=%v start %d order %v", seed, directed, i, o)
					want, err := reorderByBuilder(g, o)
					require.NoError(t, err, where)
					got, err := Reorder(g, o)
					require.NoError(t, err, where)
					require.NoError(t, got.checkAll(), where)
					require.Equal(t, emptyAsNil(want.parts()), emptyAsNil(got.parts()), where)
					require.Equal(t, want.order(), got.order(), where)
					require.Equal(t, want.UnitWeights(), got.UnitWeights(), where)
					require.Equal(t, want.MemoryBytes(), got.MemoryBytes(), where)
					for u := range uint32(got.NumNodes()) {
						id, ok := got.ID(got.Name(u))
						require.True(t, ok, where)
						require.Equal(t, u, id, where)
					}
				}
			}
		}
	}
}

// emptyAsNil returns p with its empty slices nil: the Builder leaves some
// arrays of an edgeless graph nil and makes others empty, which says
// nothing about the graph.
func emptyAsNil(p graphParts) graphParts {
	u32 := func(s *[]uint32) {
		if len(*s) == 0 {
			*s = nil
		}
	}
	f64 := func(s *[]float64) {
		if len(*s) == 0 {
			*s = nil
		}
	}
	wts := func(s *Weights) {
		if s.Len() == 0 {
			*s = Weights{}
		}
	}
	u32(&p.EdgeSrc)
	u32(&p.EdgeDst)
	wts(&p.EdgeWeight)
	u32(&p.EdgeChannel)
	u32(&p.EdgeRelation)
	f64(&p.OutWeight)
	for _, a := range []*Adjacency{&p.Out, &p.In} {
		u32(&a.Nbr)
		wts(&a.Weight)
		u32(&a.Edge)
	}
	return p
}

// FromIDs with Order DegreeOrder builds the graph Reorder makes of the
// stream-order FromIDs graph, array for array, names (strconv.Itoa of the
// input id) and ranks included, answering Name and ID through the ranks;
// a bad id is the same error as in stream order.
func TestFromIDsInDegreeOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(0x0D5, 1))
	for i := range 300 {
		n := 1 + r.IntN(50)
		in := IDEdges[uint32, uint32]{Directed: i%2 == 0, Nodes: n}
		for range r.IntN(4 * n) {
			in.Pairs = append(in.Pairs, uint32(r.IntN(n)), uint32(r.IntN(n)))
		}
		if i%3 == 0 {
			for range len(in.Pairs) / 2 {
				in.Weights = append(in.Weights, float64(r.IntN(4))/3)
			}
		}
		where := fmt.Sprintf("case %d", i)
		stream, err := FromIDs(in)
		require.NoError(t, err, where)
		want, err := Reorder(stream, DegreeOrder)
		require.NoError(t, err, where)
		in.Order = DegreeOrder
		got, err := FromIDs(in)
		require.NoError(t, err, where)
		require.NoError(t, got.checkAll(), where)
		require.Equal(t, DegreeOrder, got.order(), where)
		for u := range uint32(n) {
			require.Equal(t, want.Name(u), got.Name(u), where)
			id, ok := got.ID(got.Name(u))
			require.True(t, ok, where)
			require.Equal(t, u, id, where)
		}
		_, ok := got.ID(fmt.Sprint(n))
		require.False(t, ok, where)
		require.Equal(t, emptyAsNil(want.parts()), emptyAsNil(got.parts()), where)
		// An out-of-range id: the stream build's error.
		if len(in.Pairs) > 0 {
			in.Pairs[len(in.Pairs)-1] = uint32(n)
			in.Order = StreamOrder
			_, wantErr := FromIDs(in)
			in.Order = DegreeOrder
			_, gotErr := FromIDs(in)
			require.Error(t, wantErr, where)
			require.Equal(t, wantErr.Error(), gotErr.Error(), where)
		}
	}
}
