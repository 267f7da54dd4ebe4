package mask

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
)

func buildGraph(t testing.TB, directed bool, edges ...csr.Input) *csr.Graph {
	t.Helper()
	b := csr.NewBuilder(directed)
	for _, in := range edges {
		_, err := b.AddEdge(in)
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	return g
}

// ids returns the members of bm, an empty (not nil) slice for nil or empty.
func ids(bm *roaring.Bitmap) []uint32 {
	if bm == nil {
		return []uint32{}
	}
	out := bm.ToArray()
	if out == nil {
		out = []uint32{}
	}
	return out
}

func TestFromGraphLabelsByStreamChannel(t *testing.T) {
	g := buildGraph(t, true,
		csr.Input{Src: "a", Dst: "b", Weight: 1},
		csr.Input{Src: "b", Dst: "c", Weight: 1, Channel: "mallory"},
		csr.Input{Src: "c", Dst: "a", Weight: 1, Channel: "alice"},
		csr.Input{Src: "a", Dst: "c", Weight: 1, Channel: "mallory"},
		csr.Input{Src: "a", Dst: "b", Weight: 1}, // parallel, same channel
	)
	l := FromGraph(g)
	require.Equal(t, 5, l.NumEdges())
	require.Equal(t, []string{"alice", csr.DefaultChannel, "mallory"}, l.Channels())
	require.Equal(t, []uint32{0, 4}, ids(l.Added(csr.DefaultChannel)))
	require.Equal(t, []uint32{1, 3}, ids(l.Added("mallory")))
	require.Equal(t, []uint32{2}, ids(l.Added("alice")))
	for _, c := range l.Channels() {
		require.Nil(t, l.Deleted(c), "FromGraph deletes nothing")
	}
	require.Nil(t, l.Added("nobody"))
	for e := range uint32(5) {
		require.Equal(t, []string{g.Edge(e).Channel}, l.ChannelsOf(e))
	}
}

func TestFromGraphNoEdges(t *testing.T) {
	b := csr.NewBuilder(true)
	_, err := b.AddNode("x")
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	l := FromGraph(g)
	require.Zero(t, l.NumEdges())
	require.Empty(t, l.Channels())
}

func TestLabelsAddDelete(t *testing.T) {
	l := NewLabels(10)
	require.Equal(t, 10, l.NumEdges())
	require.Empty(t, l.Channels())
	require.NoError(t, l.Add("bob", 3, 1, 3))
	require.NoError(t, l.Add("alice", 1, 9))
	require.NoError(t, l.Delete("eve", 1))
	require.NoError(t, l.Delete("bob", 0))
	require.NoError(t, l.Add("bob", 4))
	require.Equal(t, []string{"alice", "bob", "eve"}, l.Channels())
	require.Equal(t, []uint32{1, 3, 4}, ids(l.Added("bob")))
	require.Equal(t, []uint32{0}, ids(l.Deleted("bob")))
	require.Equal(t, []uint32{1}, ids(l.Deleted("eve")))
	require.Nil(t, l.Added("eve"))
	require.Equal(t, []string{"alice", "bob"}, l.ChannelsOf(1))
	require.Equal(t, []string{"bob"}, l.ChannelsOf(3))
	require.Empty(t, l.ChannelsOf(0), "a deletion is not an addition")
	require.Empty(t, l.ChannelsOf(5))
	require.Equal(t, []string{"alice"}, l.ChannelsOf(9))
}

func TestLabelsOutOfRange(t *testing.T) {
	l := NewLabels(4)
	require.NoError(t, l.Add("a", 0))
	for _, tc := range []struct {
		verb string
		do   func(string, ...uint32) error
	}{{"add", l.Add}, {"delete", l.Delete}} {
		err := tc.do("x", 2, 4, 1)
		require.Error(t, err)
		require.Contains(t, err.Error(), "mask: "+tc.verb)
		require.Contains(t, err.Error(), `"x"`)
		require.Contains(t, err.Error(), "edge 4 out of range")
		require.Contains(t, err.Error(), "4 edges")
		err = tc.do("a", 1<<32-1)
		require.ErrorContains(t, err, "edge 4294967295 out of range")
		err = tc.do("", 1)
		require.ErrorContains(t, err, "mask: "+tc.verb+": empty channel name")
	}
	// A failed call records nothing, not even the valid ids before the bad one.
	require.Equal(t, []string{"a"}, l.Channels())
	require.Equal(t, []uint32{0}, ids(l.Added("a")))
	require.Nil(t, l.Added("x"))
	require.Nil(t, l.Deleted("x"))
	require.Nil(t, l.Deleted("a"))

	empty := NewLabels(0)
	require.ErrorContains(t, empty.Add("a", 0), "edge 0 out of range (snapshot has 0 edges)")
}

// A channel that adds or deletes nothing labels nothing: it is not listed,
// a policy trusting it is refused, and labels round-trip through WriteTo.
func TestLabelsEmptyCallRecordsNoChannel(t *testing.T) {
	l := NewLabels(3)
	require.NoError(t, l.Add("ghost"))
	require.NoError(t, l.Delete("phantom"))
	require.NoError(t, l.Add("real", 2))
	require.Equal(t, []string{"real"}, l.Channels())
	require.Error(t, Trust("ghost").Check(l))
	require.NoError(t, Trust("real").Check(l))
}

func TestPolicy(t *testing.T) {
	p := Trust("b", "a", "a")
	require.True(t, p.Trusts("a"))
	require.True(t, p.Trusts("b"))
	require.False(t, p.Trusts("c"))
	require.False(t, p.Trusts(""))
	require.Equal(t, []string{"a", "b"}, p.Trusted())
	require.Empty(t, Trust().Trusted())
	require.False(t, Policy{}.Trusts("a"), "the zero policy trusts nothing")
	require.Empty(t, Policy{}.Trusted())

	l := NewLabels(5)
	require.NoError(t, l.Add("alice", 0))
	require.NoError(t, l.Delete("bob", 1)) // only deletions: still a known channel
	require.NoError(t, Trust("alice", "bob").Check(l))
	require.NoError(t, Trust().Check(l))
	err := Trust("alice", "alcie", "zed").Check(l)
	require.Error(t, err)
	require.Contains(t, err.Error(), "mask: ")
	require.Contains(t, err.Error(), "alcie, zed")
	require.Contains(t, err.Error(), "channels present: alice, bob")
	require.NotContains(t, err.Error(), "alice, alcie")
}
