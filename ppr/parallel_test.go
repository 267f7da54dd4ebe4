package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// parallelSweep gives jacobiSweep's X and R bit for bit, at every thread count.
func TestSweepParallelMatchesSweep(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	for i := range 200 {
		c := newRandomCase(t, rng)
		for _, v := range []*struct{ name string }{{"native"}, {"auth"}} {
			view := c.native
			if v.name == "auth" {
				view = c.auth
			}
			threads := 2 + rng.IntN(5)
			serial, err := NewEngine(view, c.seeds, c.damping)
			require.NoError(t, err)
			par, err := NewEngine(view, c.seeds, c.damping)
			require.NoError(t, err)
			for range 4 {
				l1s := serial.jacobiSweep()
				l1p := par.parallelSweep(threads)
				require.Equalf(t, serial.X, par.X, "case %d %s threads %d", i, v.name, threads)
				require.Equalf(t, serial.R, par.R, "case %d %s threads %d", i, v.name, threads)
				require.InDelta(t, l1s, l1p, 1e-15*math.Max(1, l1s))
			}
		}
	}
}

func TestPartitionCoversEveryRow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(73, 74))
	for range 100 {
		c := newRandomCase(t, rng)
		e, err := NewEngine(c.native, c.seeds, c.damping)
		require.NoError(t, err)
		for threads := 1; threads <= 9; threads++ {
			parts := e.partition(threads)
			require.Len(t, parts, threads+1)
			require.Equal(t, 0, parts[0])
			require.Equal(t, c.g.NumNodes(), parts[threads])
			for i := 1; i <= threads; i++ {
				require.LessOrEqual(t, parts[i-1], parts[i])
			}
		}
	}
}

func TestSolveWithThreadsMatchesJacobi(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(75, 76))
	for range 100 {
		c := newRandomCase(t, rng)
		a, err := Solve(c.auth, c.seeds, c.damping, Options{Tol: 1e-12, Order: Jacobi})
		require.NoError(t, err)
		b, err := Solve(c.auth, c.seeds, c.damping, Options{Tol: 1e-12, Threads: 3})
		require.NoError(t, err)
		require.InDeltaSlice(t, a.Scores, b.Scores, 1e-14)
	}
}
