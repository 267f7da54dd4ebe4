package replay

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
	"github.com/stretchr/testify/require"
)

// TestFloat32StorageSameDecisions: a guard on a graph whose weights are
// stored as float32 (csr.Weights) decides every query exactly as a guard on
// the same graph stored as float64, on every path: the same selections,
// scores, gaps, bounds, suspects and work. Widening a float32 is exact and
// every computation is in float64, so nothing may differ.
func TestFloat32StorageSameDecisions(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 33))
	cases := 40
	if testing.Short() {
		cases = 10
	}
	for i := range cases {
		n := 5 + rng.IntN(60)
		directed := rng.IntN(2) == 0
		b := csr.NewBuilder(directed)
		for u := range n {
			_, err := b.AddNode(fmt.Sprint("v", u))
			require.NoError(t, err)
		}
		for range n * (1 + rng.IntN(4)) {
			ch := "trusted"
			if rng.Float64() < 0.2 {
				ch = []string{"peer", "bot"}[rng.IntN(2)]
			}
			w := float64(float32(0.1 + 2*rng.Float64())) // exactly a float32
			_, err := b.AddEdge(csr.Input{Src: fmt.Sprint("v", rng.IntN(n)), Dst: fmt.Sprint("v", rng.IntN(1+rng.IntN(n))), Weight: w, Channel: ch})
			require.NoError(t, err)
		}
		g32, err := b.Build()
		require.NoError(t, err)
		hooks := csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()
		require.True(t, hooks.Float32(g32))
		g64 := hooks.WithWeightStorage(g32, true)
		labels := mask.FromGraph(g32)
		for range rng.IntN(3) {
			require.NoError(t, labels.Delete("peer", uint32(rng.IntN(g32.NumEdges()))))
		}
		for range 4 {
			q := randomQuery(rng, n)
			for _, force := range []Path{PathAuto, PathDelta, PathFull} {
				opt := Options{Force: force}
				var ds []*Decision
				for _, g := range []*csr.Graph{g32, g64} {
					gd, err := New(g, labels, mask.Trust("trusted"), opt)
					require.NoError(t, err)
					d, err := gd.Select(q)
					require.NoError(t, err)
					d.NativeTime, d.ReplayTime = 0, 0
					ds = append(ds, d)
				}
				require.Equal(t, ds[1], ds[0], "case %d, forced %s", i, force)
			}
		}
	}
}
