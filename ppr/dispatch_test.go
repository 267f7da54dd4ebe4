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
// loops and with reference.PowerIteration; levels past Unrolled must match
// it bit for bit, and Gauss-Seidel solves must match across all levels.
func TestSweepEveryLevel(t *testing.T) {
	t.Parallel()
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
		ref, _ := referencePowerIteration(view, seeds, 0.85, 1e-13, 100000)
		solve := func(l cpu.Level, threads int) []float64 {
			res, err := Solve(view, seeds, 0.85, Options{Tol: 1e-12, Order: Jacobi, Threads: threads}.with(atLevel(l)))
			require.NoError(t, err)
			return res.Scores
		}
		generic := solve(cpu.Generic, 1)
		unrolled := map[int][]float64{}
		for _, l := range cpu.Supported() {
			for _, threads := range []int{1, 2} {
				x := solve(l, threads)
				for u := range x {
					require.InDelta(t, generic[u], x[u], 1e-14, "unit=%v level %v threads %d node %d", unit, l, threads, u)
					require.InDelta(t, ref[u], x[u], 2e-12, "unit=%v level %v node %d", unit, l, u)
				}
				require.False(t, math.IsNaN(x[0]))
				// Levels past Unrolled sum in its order: the same bits.
				if l == cpu.Unrolled {
					unrolled[threads] = x
				} else if l > cpu.Unrolled {
					for u := range x {
						require.Equal(t, math.Float64bits(unrolled[threads][u]), math.Float64bits(x[u]), "unit=%v level %v threads %d node %d", unit, l, threads, u)
					}
				}
			}
		}
		// The default solve (Gauss-Seidel, PushScan) is bit-identical at
		// every level: the push arithmetic never changes order.
		var gs []float64
		for _, l := range cpu.Supported() {
			res, err := Solve(view, seeds, 0.85, Options{Tol: 1e-12}.with(atLevel(l)))
			require.NoError(t, err)
			if gs == nil {
				gs = res.Scores
			}
			for u := range gs {
				require.Equal(t, math.Float64bits(gs[u]), math.Float64bits(res.Scores[u]), "unit=%v level %v node %d", unit, l, u)
			}
		}
	}
}

// TestLevelsBitIdentical: the Unchecked kernels are the Unrolled ones
// without bounds checks, in the same arithmetic order, so Jacobi solves
// (one and two threads) and Gauss-Seidel solves and PushScans (the default
// solve, masked views included, every eps and keepDangling) must come out
// bit for bit the same at both levels.
func TestLevelsBitIdentical(t *testing.T) {
	t.Parallel()
	var levels []cpu.Level
	for _, l := range cpu.Supported() {
		if l >= cpu.Unrolled {
			levels = append(levels, l)
		}
	}
	if len(levels) < 2 {
		t.Skip("fewer than two levels past Generic in this build")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	for i := range 300 {
		c := newRandomCase(t, rng)
		view := []*mask.View{c.auth, c.native, mask.Full(c.g)}[i%3]
		keep := rng.IntN(3) == 0
		eps := []float64{0, 1e-4, 1e-7}[rng.IntN(3)]
		type result struct {
			x, r, jacobi, gs []float64
			pushes           []int
			stats            Stats
		}
		run := func(l cpu.Level) result {
			tn := atLevel(l)
			e, err := tunedEngine(view, c.seeds, c.damping, tn)
			require.NoError(t, err)
			e.keepDangling = keep
			var out result
			for range 4 {
				out.pushes = append(out.pushes, e.PushScan(eps))
			}
			out.x, out.r, out.stats = e.X, e.R, e.Stats
			res, err := Solve(view, c.seeds, c.damping, Options{Tol: 1e-10, Order: Jacobi, Threads: 1 + i%2}.with(tn))
			require.NoError(t, err)
			out.jacobi = res.Scores
			res, err = Solve(view, c.seeds, c.damping, Options{Tol: 1e-10}.with(tn))
			require.NoError(t, err)
			out.gs = res.Scores
			return out
		}
		bits := func(xs []float64) []uint64 {
			out := make([]uint64, len(xs))
			for i, x := range xs {
				out[i] = math.Float64bits(x)
			}
			return out
		}
		want := run(levels[0])
		for _, l := range levels[1:] {
			got := run(l)
			require.Equalf(t, want.pushes, got.pushes, "case %d level %v: pushes", i, l)
			require.Equalf(t, want.stats, got.stats, "case %d level %v: stats", i, l)
			require.Equalf(t, bits(want.x), bits(got.x), "case %d level %v: PushScan x", i, l)
			require.Equalf(t, bits(want.r), bits(got.r), "case %d level %v: PushScan r", i, l)
			require.Equalf(t, bits(want.jacobi), bits(got.jacobi), "case %d level %v: Jacobi solve", i, l)
			require.Equalf(t, bits(want.gs), bits(got.gs), "case %d level %v: Gauss-Seidel solve", i, l)
		}
	}
}
