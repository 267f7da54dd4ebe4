package bench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
)

// validate is csr's full check of a graph's invariants.
var validate = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().Validate

func TestMemoryIsDeterministicAndValid(t *testing.T) {
	t.Parallel()
	c := DefaultMemory
	c.Entities, c.Passages = 2000, 500
	a, err := NewMemory(c)
	require.NoError(t, err)
	b, err := NewMemory(c)
	require.NoError(t, err)
	require.NoError(t, validate(a.Graph))
	require.Equal(t, a.Graph.NumEdges(), b.Graph.NumEdges())
	for e := range a.Graph.NumEdges() {
		require.Equal(t, a.Graph.Edge(uint32(e)), b.Graph.Edge(uint32(e)))
	}
	require.Len(t, a.Entities, 2000)
	require.Len(t, a.Passages, 500)
	require.Equal(t, "p0", a.Graph.Name(a.Passages[0]))
	untrusted := 0
	for e := range a.Graph.NumEdges() {
		if a.Graph.Edge(uint32(e)).Channel == UntrustedChannel {
			untrusted++
		}
	}
	share := float64(untrusted) / float64(a.Graph.NumEdges())
	require.InDelta(t, c.UntrustedShare, share, 0.005)

	c.Seed++
	other, err := NewMemory(c)
	require.NoError(t, err)
	require.NotEqual(t, a.Graph.NumEdges(), other.Graph.NumEdges(), "another seed gives another graph")

	_, err = NewMemory(MemoryConfig{Entities: 1, Passages: 1, MentionsMin: 1, MentionsMax: 1})
	require.ErrorContains(t, err, "bench:")
}

func TestRelabelRandomShare(t *testing.T) {
	t.Parallel()
	g, err := RMAT(10, 8, 3)
	require.NoError(t, err)
	require.NoError(t, validate(g))
	l := RelabelRandom(g, 0.01, 5)
	require.Equal(t, uint64(g.NumEdges()), l.Added(TrustedChannel).GetCardinality()+l.Added(UntrustedChannel).GetCardinality())
	require.InDelta(t, 0.01*float64(g.NumEdges()), float64(l.Added(UntrustedChannel).GetCardinality()), 40)
	few := RelabelRandom(g, 1e-9, 5)
	require.Equal(t, uint64(1), few.Added(UntrustedChannel).GetCardinality(), "a positive share always labels at least one edge")
}

func TestWorkloads(t *testing.T) {
	t.Parallel()
	c := DefaultMemory
	c.Entities, c.Passages = 2000, 500
	for _, r := range []Regime{Few, OnePercent, Attack} {
		w, err := MemoryWorkload(c, r, 5, 1)
		require.NoError(t, err)
		require.Len(t, w.Queries, 5)
		require.Equal(t, 0.5, w.Damping)
		if r == Attack {
			require.Positive(t, w.Labels.Added(UntrustedChannel).GetCardinality())
		}
		parsed, err := ParseRegime(r.String())
		require.NoError(t, err)
		require.Equal(t, r, parsed)
	}
	_, err := ParseRegime("most")
	require.Error(t, err)
}

// TestWritePPREDGE1: a graph written as PPREDGE1 reads back as the graph
// FromIDs makes of its edges by id.
func TestWritePPREDGE1(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		g, err := RMAT(6, 4, 3)
		require.NoError(t, err)
		if !directed {
			c := DefaultMemory
			c.Entities, c.Passages = 300, 60
			m, err := NewMemory(c)
			require.NoError(t, err)
			g = m.Graph
		}
		path := t.TempDir() + "/g.bin"
		require.NoError(t, WritePPREDGE1(path, g))
		back, err := csr.ReadFile(path, csr.ReadOptions{Format: csr.FormatPPREDGE1})
		require.NoError(t, err)
		require.Equal(t, g.Directed(), back.Directed())
		require.Equal(t, g.NumNodes(), back.NumNodes())
		require.Equal(t, g.NumEdges(), back.NumEdges())
		for e := range uint32(g.NumEdges()) {
			want, got := g.Edge(e), back.Edge(e)
			require.Equal(t, want.Src, got.Src)
			require.Equal(t, want.Dst, got.Dst)
			require.Equal(t, float64(float32(want.Weight)), got.Weight)
		}
	}
}
