package bench

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMemoryIsDeterministicAndValid(t *testing.T) {
	c := DefaultMemory
	c.Entities, c.Passages = 2000, 500
	a, err := NewMemory(c)
	require.NoError(t, err)
	b, err := NewMemory(c)
	require.NoError(t, err)
	require.NoError(t, a.Graph.Validate())
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
	g, err := RMAT(10, 8, 3)
	require.NoError(t, err)
	require.NoError(t, g.Validate())
	l := RelabelRandom(g, 0.01, 5)
	require.Equal(t, uint64(g.NumEdges()), l.Added(TrustedChannel).GetCardinality()+l.Added(UntrustedChannel).GetCardinality())
	require.InDelta(t, 0.01*float64(g.NumEdges()), float64(l.Added(UntrustedChannel).GetCardinality()), 40)
	few := RelabelRandom(g, 1e-9, 5)
	require.Equal(t, uint64(1), few.Added(UntrustedChannel).GetCardinality(), "a positive share always labels at least one edge")
}

func TestWorkloads(t *testing.T) {
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

func writePPREDGE1(t *testing.T, n, m, flags uint64, src, dst []uint32, w []float32) string {
	t.Helper()
	buf := []byte("PPREDGE1")
	buf = binary.LittleEndian.AppendUint64(buf, n)
	buf = binary.LittleEndian.AppendUint64(buf, m)
	buf = binary.LittleEndian.AppendUint64(buf, flags)
	for _, s := range src {
		buf = binary.LittleEndian.AppendUint32(buf, s)
	}
	for _, d := range dst {
		buf = binary.LittleEndian.AppendUint32(buf, d)
	}
	for _, x := range w {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	path := filepath.Join(t.TempDir(), "g.edges.bin")
	require.NoError(t, os.WriteFile(path, buf, 0o644))
	return path
}

func TestReadPPREDGE1(t *testing.T) {
	path := writePPREDGE1(t, 4, 2, 1, []uint32{0, 1}, []uint32{2, 3}, []float32{0.5, 1})
	g, err := ReadPPREDGE1(path)
	require.NoError(t, err)
	require.NoError(t, g.Validate())
	require.False(t, g.Directed())
	require.Equal(t, 4, g.NumNodes(), "isolated nodes keep their ids")
	id, ok := g.ID("3")
	require.True(t, ok)
	require.Equal(t, uint32(3), id)
	require.Equal(t, 0.5, g.OutWeight(2))

	bad := writePPREDGE1(t, 4, 2, 0, []uint32{0, 9}, []uint32{2, 3}, []float32{0.5, 1})
	_, err = ReadPPREDGE1(bad)
	require.ErrorContains(t, err, "out of range")

	nan := writePPREDGE1(t, 4, 1, 0, []uint32{0}, []uint32{2}, []float32{float32(math.NaN())})
	_, err = ReadPPREDGE1(nan)
	require.ErrorContains(t, err, "weight")

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	short := filepath.Join(t.TempDir(), "short.bin")
	require.NoError(t, os.WriteFile(short, raw[:len(raw)-3], 0o644))
	_, err = ReadPPREDGE1(short)
	require.ErrorContains(t, err, "truncated")

	raw[0] = 'X'
	require.NoError(t, os.WriteFile(short, raw, 0o644))
	_, err = ReadPPREDGE1(short)
	require.ErrorContains(t, err, "magic")
}
