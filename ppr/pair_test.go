package ppr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

func TestSolvePairMatchesSeparateSolves(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	for i := range 300 {
		c := newRandomCase(t, rng)
		for _, tol := range []float64{1e-6, 1e-12} {
			ra, rb, err := SolvePair(c.native, c.auth, c.seeds, c.damping, Options{Tol: tol})
			require.NoError(t, err)
			wa, err := Solve(c.native, c.seeds, c.damping, Options{Tol: tol, Order: Jacobi})
			require.NoError(t, err)
			wb, err := Solve(c.auth, c.seeds, c.damping, Options{Tol: tol, Order: Jacobi})
			require.NoError(t, err)
			// Bit for bit: the fused sweep sums the same terms in the same order.
			require.Equalf(t, wa.Scores, ra.Scores, "case %d native", i)
			require.Equalf(t, wb.Scores, rb.Scores, "case %d auth", i)
			require.Equal(t, wa.Sweeps, ra.Sweeps)
			require.Equal(t, wb.Sweeps, rb.Sweeps)
			require.Equal(t, wa.ResidualL1, ra.ResidualL1)
			require.Equal(t, wb.ResidualL1, rb.ResidualL1)
		}
	}
}

func TestSolvePairRejectsViewsOfDifferentGraphs(t *testing.T) {
	t.Parallel()
	mk := func() *csr.Graph {
		b := csr.NewBuilder(true)
		_, err := b.AddEdge(csr.Input{Src: "a", Dst: "b", Weight: 1})
		require.NoError(t, err)
		g, err := b.Build()
		require.NoError(t, err)
		return g
	}
	s, err := NewSeeds(2, []Seed{{0, 1}})
	require.NoError(t, err)
	_, _, err = SolvePair(mask.Full(mk()), mask.Full(mk()), s, 0.85, Options{})
	require.ErrorContains(t, err, "same snapshot")
}

// BenchmarkSolvePair compares the fused native+auth solve with two separate
// solves on a generated memory graph with 1% untrusted edges. The metric
// "pair/separate" is the fused time over the separate time, same run.
func BenchmarkSolvePair(b *testing.B) {
	for _, size := range []int{50000, 250000} {
		g, native, auth := memoryViews(b, size)
		seeds, err := NewSeeds(g.NumNodes(), []Seed{{1, 1}, {17, 1}, {301, 1}})
		require.NoError(b, err)
		b.Run(fmt.Sprintf("nodes=%d/separate", size), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Solve(native, seeds, 0.5, Options{}); err != nil {
					b.Fatal(err)
				}
				if _, err := Solve(auth, seeds, 0.5, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*g.NumArcs())*34*float64(b.N)/b.Elapsed().Seconds(), "arcs/s")
		})
		b.Run(fmt.Sprintf("nodes=%d/fused", size), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, _, err := SolvePair(native, auth, seeds, 0.5, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*g.NumArcs())*34*float64(b.N)/b.Elapsed().Seconds(), "arcs/s")
		})
	}
}

// memoryViews builds a random undirected graph shaped like a memory graph
// (power-law endpoints) with 1% of edges untrusted.
func memoryViews(tb testing.TB, n int) (*csr.Graph, *mask.View, *mask.View) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	zipf := rand.NewZipf(rng, 1.1, 4, uint64(n-1))
	b := csr.NewBuilder(false)
	for u := range n {
		_, err := b.AddNode(fmt.Sprint(u))
		require.NoError(tb, err)
	}
	for range 5 * n {
		ch := "default"
		if rng.Float64() < 0.01 {
			ch = "peer"
		}
		_, err := b.AddEdge(csr.Input{Src: fmt.Sprint(rng.IntN(n)), Dst: fmt.Sprint(zipf.Uint64()), Weight: 1, Channel: ch})
		require.NoError(tb, err)
	}
	g, err := b.Build()
	require.NoError(tb, err)
	l := mask.FromGraph(g)
	native, err := mask.Native(g, l)
	require.NoError(tb, err)
	auth, err := mask.Authenticated(g, l, mask.Trust("default"))
	require.NoError(tb, err)
	return g, native, auth
}
