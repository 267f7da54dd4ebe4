package ppr

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/authppr/authppr/mask"
	"github.com/stretchr/testify/require"
)

// Every solve that reaches its sweep cap fails with a *NotConvergedError
// (errors.As sees it through the wrapping of SolveBatch and of callers)
// whose Partial is the state reached: one Result per vector, each a valid
// state of its problem whose ErrorBound is its ||r||_1/alpha, the largest
// of them the error's Bound, and whose message says what was not reached.
func TestNotConvergedErrorCarriesState(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	checkPartial := func(err error, vectors, sweeps int, views []*mask.View, seeds []Seeds, d float64) {
		t.Helper()
		var nc *NotConvergedError
		require.ErrorAs(t, err, &nc)
		require.ErrorContains(t, err, "not reached")
		require.Len(t, nc.Partial, vectors)
		require.Equal(t, sweeps, nc.Sweeps)
		require.Equal(t, 1e-15, nc.Tol)
		worst := 0.0
		for j, p := range nc.Partial {
			r := residualOf(views[j%len(views)], seeds[j%len(seeds)], d, p.Scores)
			require.InDelta(t, p.ResidualL1, l1Sum(r), 1e-12, "vector %d: the partial state's residual", j)
			require.Equal(t, p.ResidualL1/(1-d), p.ErrorBound, "vector %d", j)
			require.Greater(t, p.ErrorBound, 1e-15, "vector %d", j)
			worst = max(worst, p.ErrorBound)
		}
		require.Equal(t, worst, nc.Bound)
	}
	tested := 0
	for tested < 20 {
		c := newRandomCase(t, rng)
		if c.damping < 0.5 {
			continue
		}
		tested++
		opt := Options{Tol: 1e-15, MaxSweeps: 2}
		_, err := Solve(c.auth, c.seeds, c.damping, opt)
		checkPartial(err, 1, 2, []*mask.View{c.auth}, []Seeds{c.seeds}, c.damping)

		batch := batchSeeds(t, c.g.NumNodes(), 3)
		_, err = SolveBatch(c.auth, batch, c.damping, opt)
		require.ErrorContains(t, err, "(batch from query 0)")
		checkPartial(err, 3, 2, []*mask.View{c.auth}, batch, c.damping)

		_, _, err = SolvePair(c.native, c.auth, c.seeds, c.damping, opt)
		checkPartial(err, 2, 2, []*mask.View{c.native, c.auth}, []Seeds{c.seeds}, c.damping)

		// A selection of every node runs to the tolerance, as Solve does.
		_, err = SolveTopK(c.auth, c.seeds, c.damping, c.g.NumNodes(), nil, Options{Tol: 1e-15, MaxSweeps: 2, Order: GaussSeidel})
		checkPartial(err, 1, 2, []*mask.View{c.auth}, []Seeds{c.seeds}, c.damping)
	}
}

// l1Sum returns sum |v|.
func l1Sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += max(x, -x)
	}
	return s
}

// errors.As reaches the error through a caller's wrapping too.
func TestNotConvergedErrorWrapped(t *testing.T) {
	t.Parallel()
	c := newRandomCase(t, rand.New(rand.NewPCG(73, 74)))
	_, err := Solve(c.auth, c.seeds, 0.9, Options{Tol: 1e-15, MaxSweeps: 1})
	wrapped := errors.Join(errors.New("caller"), err)
	var nc *NotConvergedError
	require.True(t, errors.As(wrapped, &nc))
	require.Equal(t, 1, nc.Sweeps)
}
