package csr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func shared(g *Graph) map[string]string {
	out := map[string]string{}
	for _, p := range g.memoryParts() {
		if p.SharedWith != "" {
			out[p.Name] = p.SharedWith
		}
	}
	return out
}

func TestShareArrays(t *testing.T) {
	t.Parallel()
	for _, storage := range []weightStorage{autoWeights, float64Storage} {
		t.Run(storage.String(), func(t *testing.T) { testShareArrays(t, storage) })
	}
}

// buildStored is mustBuild with the weights stored as s asks.
func buildStored(t *testing.T, s weightStorage, directed bool, edges ...Input) *Graph {
	t.Helper()
	b := NewBuilder(directed)
	b.setWeightStorage(s)
	for _, in := range edges {
		_, err := b.AddEdge(in)
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	return g
}

func testShareArrays(t *testing.T, storage weightStorage) {
	// Every weight here is a small integer, exactly a float32: 4-byte
	// weights unless float64 is asked for.
	ws := int64(4)
	if storage == float64Storage {
		ws = 8
	}
	// Weighted, directed, not sorted by source: nothing shared.
	g := buildStored(t, storage, true, Input{Src: "b", Dst: "a", Weight: 2}, Input{Src: "a", Dst: "b", Weight: 3}, Input{Src: "b", Dst: "c", Weight: 1})
	require.False(t, g.UnitWeights())
	require.Equal(t, ws == 4, g.storesFloat32())
	require.Empty(t, shared(g))
	n, m := int64(3), int64(3)
	want := 2*(8*(n+1)+(8+ws)*m) + 8*n + (12+ws)*m + 3*17
	require.Equal(t, want, g.MemoryBytes())
	require.Equal(t, 8*(n+1)+(4+ws)*m, hotBytes(g))

	// Weighted, directed, sorted by source: the edge table's destinations
	// and weights are the out-adjacency's.
	g = buildStored(t, storage, true, Input{Src: "a", Dst: "b", Weight: 2}, Input{Src: "a", Dst: "c", Weight: 3}, Input{Src: "b", Dst: "c", Weight: 1})
	require.Equal(t, map[string]string{"edge.Dst": "out.Nbr", "edge.Weight": "out.Weight"}, shared(g))
	require.Equal(t, want-(4+ws)*m, g.MemoryBytes())

	// Unit weights, directed, unsorted: one array of ones; a sweep reads no
	// weights.
	g = buildStored(t, storage, true, Input{Src: "b", Dst: "a", Weight: 1}, Input{Src: "a", Dst: "b", Weight: 1}, Input{Src: "b", Dst: "c", Weight: 1})
	require.True(t, g.UnitWeights())
	require.Equal(t, map[string]string{"out.Weight": "in.Weight", "edge.Weight": "in.Weight"}, shared(g))
	require.Equal(t, want-2*ws*m, g.MemoryBytes())
	require.Equal(t, 8*(n+1)+4*m, hotBytes(g))

	// Unit weights, undirected: the edge weights are a prefix of the arcs'.
	g = buildStored(t, storage, false, Input{Src: "b", Dst: "a", Weight: 1}, Input{Src: "a", Dst: "b", Weight: 1}, Input{Src: "b", Dst: "c", Weight: 1})
	require.Equal(t, map[string]string{"edge.Weight": "in.Weight"}, shared(g))
	require.Equal(t, 8*(n+1)+2*(8+ws)*m+8*n+12*m+3*17, g.MemoryBytes())

	// Sharing changes no value: Validate and the accessors agree.
	for _, g := range []*Graph{g} {
		require.NoError(t, g.checkAll())
		a, err := assemble(g.parts())
		require.NoError(t, err)
		require.True(t, a.UnitWeights())
		for e := range uint32(g.NumEdges()) {
			require.Equal(t, g.Edge(e), a.Edge(e))
		}
	}
}

// TestSortedStreamPath builds source-sorted directed streams (the path
// without a scatter for the out-adjacency) and checks them against the
// dense model and Validate.
func TestSortedStreamPath(t *testing.T) {
	t.Parallel()
	for seed := range 100 {
		r := rand.New(rand.NewPCG(uint64(seed), 0x50F))
		var ops []op
		for i := range 8 {
			ops = append(ops, op{Input{Src: fmt.Sprintf("n%d", i)}})
		}
		for u := range 8 {
			for range r.IntN(6) {
				ops = append(ops, op{Input{Src: fmt.Sprintf("n%d", u), Dst: fmt.Sprintf("n%d", r.IntN(8)), Weight: float64(r.IntN(3)), Channel: []string{"", "x"}[r.IntN(2)]}})
			}
		}
		g := buildOps(t, true, ops, StreamOrder)
		require.NoError(t, g.checkAll())
		checkAgainstModel(t, g, buildModel(true, ops), true, fmt.Sprintf("seed %d", seed))
		if g.NumEdges() > 0 {
			require.Equal(t, "out.Nbr", shared(g)["edge.Dst"], "seed %d", seed)
		}
	}
}

// hotBytes is the bytes a pull sweep streams from g: its parts marked hot.
func hotBytes(g *Graph) int64 {
	b := int64(0)
	for _, p := range g.memoryParts() {
		if p.Hot {
			b += p.Bytes
		}
	}
	return b
}
