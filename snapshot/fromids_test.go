package snapshot

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// A graph made by csr.FromIDs (names never stored until asked for) saves
// to the very bytes of the Builder's graph over nodes named "0".."n-1",
// and loads back with those names.
func TestFromIDsSavesAsBuilder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	dir := t.TempDir()
	for i := range 20 {
		directed := i%2 == 0
		n := 1 + rng.IntN(1500) // names of one to four digits
		m := rng.IntN(300)
		in := csr.IDEdges[int64, int32]{Directed: directed, Nodes: n, Pairs: make([]int64, 2*m), Weights: make([]float64, m),
			ChannelOf: make([]int32, m), ChannelNames: []string{"default", "peer"}}
		b := csr.NewBuilder(directed)
		for u := range n {
			_, err := b.AddNode(strconv.Itoa(u))
			require.NoError(t, err)
		}
		for e := range m {
			s, d := rng.IntN(n), rng.IntN(n)
			in.Pairs[2*e], in.Pairs[2*e+1] = int64(s), int64(d)
			in.Weights[e] = float64(rng.IntN(4)) / 2
			in.ChannelOf[e] = int32(rng.IntN(2))
			_, err := b.AddEdgeByID(uint32(s), uint32(d), in.Weights[e], in.ChannelNames[in.ChannelOf[e]])
			require.NoError(t, err)
		}
		want, err := b.Build()
		require.NoError(t, err)
		g, err := csr.FromIDs(in)
		require.NoError(t, err)

		save := func(name string, g *csr.Graph) []byte {
			path := filepath.Join(dir, name)
			require.NoError(t, Save(path, g, mask.FromGraph(g)))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			return data
		}
		require.True(t, bytes.Equal(save("bulk", g), save("builder", want)), "case %d: the snapshots differ", i)

		s, err := Load(filepath.Join(dir, "bulk"))
		require.NoError(t, err)
		require.Equal(t, want.Names(), s.Graph.Names(), "case %d", i)
		require.NoError(t, s.Close())
	}
}
