package sampleagg

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWeights(t *testing.T) {
	w, err := GeometricWeights(4, 0.5)
	require.NoError(t, err)
	require.Equal(t, []float64{1, 0.5, 0.25, 0.125}, w)
	_, err = GeometricWeights(4, 0)
	require.ErrorContains(t, err, "gamma 0")
	_, err = GeometricWeights(4, 1.5)
	require.Error(t, err)
	require.Equal(t, []float64{3, 2, 1}, LinearWeights(3))
}

func TestDrawSamples(t *testing.T) {
	w, _ := GeometricWeights(10, 0.7)
	a, err := drawSamples(w, 200, 4, 42)
	require.NoError(t, err)
	b, err := drawSamples(w, 200, 4, 42)
	require.NoError(t, err)
	require.Equal(t, a, b, "deterministic in the seed")
	c, _ := drawSamples(w, 200, 4, 43)
	require.NotEqual(t, a, c)
	for _, s := range a {
		require.Len(t, s, 4)
		for i := 1; i < len(s); i++ {
			require.Less(t, s[i-1], s[i], "distinct and sorted")
		}
	}
	// m = k takes every item.
	all, err := drawSamples(w, 3, 10, 1)
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, all[0])

	for _, bad := range []struct {
		w    []float64
		t, m int
		want string
	}{
		{w, 1, 0, "sample size 0"},
		{w, 1, 11, "want 1..10"},
		{w, 0, 2, "0 samples"},
		{[]float64{1, math.NaN()}, 1, 1, "weight 1 is NaN"},
		{[]float64{1, -1}, 1, 1, "weight 1 is -1"},
	} {
		_, err := drawSamples(bad.w, bad.t, bad.m, 1)
		require.ErrorContains(t, err, bad.want)
	}
}

// With m = 1 the inclusion frequency of item i is w_i / W exactly; check
// the sampler within five standard errors.
func TestDrawSamplesFrequencies(t *testing.T) {
	w, _ := GeometricWeights(6, 0.6)
	const n = 20000
	s, err := drawSamples(w, n, 1, 5)
	require.NoError(t, err)
	count := make([]int, len(w))
	for _, x := range s {
		count[x[0]]++
	}
	total := 0.0
	for _, x := range w {
		total += x
	}
	for i, x := range w {
		p := x / total
		se := math.Sqrt(p * (1 - p) / n)
		require.InDelta(t, p, float64(count[i])/n, 5*se, "item %d", i)
	}
}

func TestSampleAggregate(t *testing.T) {
	w, _ := GeometricWeights(10, 0.8)
	// Items 7..9 lie; a sample answers with its best item's answer.
	answer := func(s []int) (string, error) {
		if s[0] >= 7 {
			return "lie", nil
		}
		return "truth", nil
	}
	agg, err := SampleAggregate(SampleOptions{Weights: w, T: 9, M: 3, Seed: 3}, answer)
	require.NoError(t, err)
	require.Equal(t, "truth", agg.Answer)
	require.Len(t, agg.Samples, 9)
	for i := 1; i < len(agg.Samples); i++ {
		require.LessOrEqual(t, compareInts(agg.Samples[i-1], agg.Samples[i]), 0, "samples in rank order")
	}
	truths := 0
	for _, a := range agg.Answers {
		if a == "truth" {
			truths++
		}
	}
	require.Len(t, agg.Chosen, max(truths, 9-truths))
	for _, c := range agg.Chosen {
		require.Equal(t, agg.Answer, agg.Answers[c])
	}
	again, err := SampleAggregate(SampleOptions{Weights: w, T: 9, M: 3, Seed: 3}, answer)
	require.NoError(t, err)
	require.Equal(t, agg, again)

	_, err = SampleAggregate(SampleOptions{Weights: w, T: 2, M: 3}, func([]int) (string, error) { return "", errors.New("llm down") })
	require.ErrorContains(t, err, "llm down")
	_, err = SampleAggregate(SampleOptions{Weights: w, T: 2, M: 3}, nil)
	require.ErrorContains(t, err, "no answer function")
}

// Ties between equally large answer groups go to the group holding the
// best-ranked sample.
func TestSampleAggregateTie(t *testing.T) {
	w := LinearWeights(4)
	agg, err := SampleAggregate(SampleOptions{Weights: w, T: 2, M: 4, Seed: 1}, func(s []int) (string, error) {
		return "same sample", nil
	})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, agg.Chosen)
	n := 0
	agg, err = SampleAggregate(SampleOptions{Weights: w, T: 2, M: 4, Seed: 1}, func(s []int) (string, error) {
		n++
		return string(rune('a' + n)), nil // two different answers
	})
	require.NoError(t, err)
	require.Equal(t, []int{0}, agg.Chosen, "equal tuples keep draw order; the first wins")
}

// The empirical attack rate stays within the first-principles bound.
func TestAttackRateWithinBound(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 100
	}
	for _, gamma := range []float64{0.8, 0.9} {
		w, _ := GeometricWeights(30, gamma)
		for _, bad := range [][]int{{0}, {9}, {9, 10, 11}, {25, 26, 27, 28, 29}} {
			rate, hit, err := AttackRate(w, bad, 11, 4, runs, 1)
			require.NoError(t, err)
			q, bound, err := AttackBound(w, bad, 11, 4)
			require.NoError(t, err)
			se := math.Sqrt(max(bound*(1-bound), 1e-4) / float64(runs))
			require.LessOrEqual(t, rate, bound+4*se, "gamma %v bad %v", gamma, bad)
			seq := math.Sqrt(max(q*(1-q), 1e-4) / float64(runs*11))
			require.LessOrEqual(t, hit, q+4*seq, "gamma %v bad %v: sample hit rate", gamma, bad)
		}
	}
	_, _, err := AttackBound([]float64{1}, []int{3}, 1, 1)
	require.ErrorContains(t, err, "malicious item 3 out of range")
}

func compareInts(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] - b[i]
		}
	}
	return len(a) - len(b)
}
