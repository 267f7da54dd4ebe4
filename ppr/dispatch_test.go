package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/mask"
	"github.com/stretchr/testify/require"
)

// TestSweepEveryLevel solves with Jacobi sweeps (one and two threads) at
// every CPU level this host supports, on a weighted and an unweighted graph
// (the pattern kernel), and compares with the Generic level's reference
// loops and with ReferencePowerIteration.
func TestSweepEveryLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, unit := range []bool{false, true} {
		b := csr.NewBuilder(true)
		for u := range 300 {
			_, err := b.AddNode(fmt.Sprint(u))
			require.NoError(t, err)
		}
		for range 3000 {
			w := 1.0
			if !unit {
				w = rng.Float64() * 3
			}
			_, err := b.AddEdgeByID(uint32(rng.IntN(300)), uint32(rng.IntN(40)*7), w, "")
			require.NoError(t, err)
		}
		g, err := b.Build()
		require.NoError(t, err)
		require.Equal(t, unit, g.UnitWeights())
		view := mask.Full(g)
		seeds, err := NewSeeds(300, []Seed{{Node: 3, Weight: 1}, {Node: 200, Weight: 2}})
		require.NoError(t, err)
		ref, _ := ReferencePowerIteration(view, seeds, 0.85, 1e-13, 100000)
		solve := func(l cpu.Level, threads int) []float64 {
			forcePullLevel(t, l)
			res, err := Solve(view, seeds, 0.85, Options{Tol: 1e-12, Order: Jacobi, Threads: threads})
			require.NoError(t, err)
			return res.Scores
		}
		generic := solve(cpu.Generic, 1)
		for _, l := range cpu.Supported() {
			for _, threads := range []int{1, 2} {
				x := solve(l, threads)
				for u := range x {
					require.InDelta(t, generic[u], x[u], 1e-14, "unit=%v level %v threads %d node %d", unit, l, threads, u)
					require.InDelta(t, ref[u], x[u], 2e-12, "unit=%v level %v node %d", unit, l, u)
				}
				require.False(t, math.IsNaN(x[0]))
			}
		}
	}
}
