package consensus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkAgainstBrute asserts Select and selectBrute return the same set.
func checkAgainstBrute(t *testing.T, g *Graph, what string) {
	t.Helper()
	want, err := selectBrute(g)
	require.NoError(t, err)
	got, err := Select(g, Options{})
	require.NoError(t, err, what)
	require.True(t, got.Exact, what)
	require.Equal(t, want, got.Items, what)
	require.Equal(t, len(want), got.UpperBound, what)
	require.True(t, g.independent(got.Items), what)
}

func TestSelectMatchesBruteRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	n := 1500
	if testing.Short() {
		n = 300
	}
	densities := []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.9}
	for trial := 0; trial < n; trial++ {
		k := rng.IntN(maxBruteItems + 1)
		d := densities[trial%len(densities)]
		checkAgainstBrute(t, mustGraph(randomGraph(rng, k, d)), fmt.Sprintf("trial %d: k=%d density=%v", trial, k, d))
	}
}

func TestSelectMatchesBruteCollusion(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	n := 600
	if testing.Short() {
		n = 120
	}
	for trial := 0; trial < n; trial++ {
		k := 2 + rng.IntN(maxBruteItems-1)
		c := 1 + rng.IntN(k-1)
		d := 0.05 + 0.25*rng.Float64()
		cross := []float64{1, 0.9, 0.6}[trial%3]
		checkAgainstBrute(t, mustGraph(collusionGraph(rng, k, c, d, cross)), fmt.Sprintf("trial %d: k=%d c=%d density=%.2f cross=%v", trial, k, c, d, cross))
	}
}

// Hand-made graphs where the tie-break decides.
func TestSelectTieBreak(t *testing.T) {
	build := func(k int, edges ...[2]int) *Graph {
		g, err := newGraph(k)
		require.NoError(t, err)
		for _, e := range edges {
			require.NoError(t, g.addContradiction(e[0], e[1]))
		}
		return g
	}
	cases := []struct {
		g    *Graph
		want []int
	}{
		{build(0), []int{}},
		{build(1), []int{0}},
		{build(2, [2]int{0, 1}), []int{0}},
		// A path 0-1-2-3: {0,2}, {0,3}, {1,3} are maximum; {0,2} is smallest.
		{build(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}), []int{0, 2}},
		// Item 0 contradicts two agreeing items: the pair wins on size.
		{build(3, [2]int{0, 1}, [2]int{0, 2}), []int{1, 2}},
		// {0,3} vs {1,2}: (0,3) < (1,2) although 3 ranks worst.
		{build(4, [2]int{0, 1}, [2]int{0, 2}, [2]int{1, 3}, [2]int{2, 3}), []int{0, 3}},
	}
	for i, c := range cases {
		got, err := Select(c.g, Options{})
		require.NoError(t, err)
		require.Equal(t, c.want, got.Items, "case %d", i)
		brute, err := selectBrute(c.g)
		require.NoError(t, err)
		require.Equal(t, c.want, brute, "case %d (brute)", i)
	}
}

func TestSelectBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 3))
	g := mustGraph(randomGraph(rng, 128, 0.05))
	sel, err := Select(g, Options{MaxNodes: 10})
	require.ErrorIs(t, err, ErrBudget)
	var be *budgetError
	require.True(t, errors.As(err, &be))
	require.False(t, sel.Exact)
	require.NotEmpty(t, sel.Items)
	require.True(t, g.independent(sel.Items), "best-so-far is still an independent set")
	require.Equal(t, len(sel.Items), be.best)
	require.GreaterOrEqual(t, be.upperBound, be.best)
	require.Contains(t, err.Error(), "node budget 10 exceeded")

	exact, err := Select(g, Options{MaxNodes: -1})
	require.NoError(t, err)
	require.True(t, exact.Exact)
	require.GreaterOrEqual(t, be.upperBound, len(exact.Items))
	require.GreaterOrEqual(t, len(exact.Items), len(sel.Items))
}

func TestGraphErrors(t *testing.T) {
	_, err := newGraph(-1)
	require.ErrorContains(t, err, "consensus: -1 items")
	g, err := newGraph(3)
	require.NoError(t, err)
	require.ErrorContains(t, g.addContradiction(1, 1), "cannot contradict itself")
	require.ErrorContains(t, g.addContradiction(0, 3), "out of range [0, 3)")
	require.NoError(t, g.addContradiction(0, 2))
	require.NoError(t, g.addContradiction(2, 0))
	require.Equal(t, 1, g.numEdges())
	require.True(t, g.contradicts(2, 0))
	require.False(t, g.contradicts(0, 1))
	_, err = selectBrute(mustGraph(randomGraph(rand.New(rand.NewPCG(1, 1)), 21, 0.1)))
	require.ErrorContains(t, err, "at most 20")
}

func TestBuildGraph(t *testing.T) {
	answers := []string{"a", "b", "a", "c"}
	var calls [][2]int
	g, err := BuildGraph(4, JudgeFunc(func(i, j int) (bool, error) {
		calls = append(calls, [2]int{i, j})
		return answers[i] != answers[j], nil
	}))
	require.NoError(t, err)
	require.Len(t, calls, 6)
	for _, c := range calls {
		require.Less(t, c[0], c[1])
	}
	sel, err := Select(g, Options{})
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, sel.Items)

	_, err = BuildGraph(3, JudgeFunc(func(i, j int) (bool, error) {
		if j == 2 {
			return false, errors.New("model offline")
		}
		return false, nil
	}))
	require.ErrorContains(t, err, "consensus: judge on items 0 and 2: model offline")
}

func mustGraph(g *Graph, err error) *Graph {
	if err != nil {
		panic(err)
	}
	return g
}
