package sampleagg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/authppr/authppr/consensus"
)

// GeometricWeights returns w_i = gamma^(i-1) for ranks i = 1..k
// (0 < gamma <= 1; gamma = 1 is uniform).
func GeometricWeights(k int, gamma float64) ([]float64, error) {
	if !(gamma > 0 && gamma <= 1) {
		return nil, fmt.Errorf("sampleagg: gamma %v, want 0 < gamma <= 1", gamma)
	}
	w := make([]float64, max(k, 0))
	x := 1.0
	for i := range w {
		w[i] = x
		x *= gamma
	}
	return w, nil
}

// LinearWeights returns w_i = k - i + 1 for ranks i = 1..k: the best item
// weighs k, the last 1.
func LinearWeights(k int) []float64 {
	w := make([]float64, max(k, 0))
	for i := range w {
		w[i] = float64(k - i)
	}
	return w
}

// SampleOptions configure SampleAggregate.
type SampleOptions struct {
	// Weights are the items' reliability weights, best rank first (one per
	// item, finite, positive): GeometricWeights, LinearWeights or the
	// caller's own.
	Weights []float64
	// T samples of M items each (1 <= M <= number of items).
	T, M int
	// Seed seeds the PCG generator: equal options give equal samples.
	Seed uint64
	// Contradict says whether two samples' answers contradict; nil means
	// they contradict exactly when they differ.
	Contradict func(a, b string) bool
	// Select configures the aggregation's exact selection.
	Select consensus.Options
}

// Aggregate is the result of SampleAggregate.
type Aggregate struct {
	// Samples holds each sample's items, ascending, in aggregation rank
	// order (see SampleAggregate); Answers the matching answers.
	Samples [][]int
	Answers []string
	// Chosen are the indices into Samples of the rank-aware maximum
	// independent set of the answers' contradiction graph, ascending.
	Chosen []int
	// Answer is the answer of the best-ranked chosen sample ("" when T
	// is 0, which SampleAggregate refuses).
	Answer string
	Nodes  int64
}

// drawSamples returns T samples of M distinct items each, drawn without
// replacement with probability proportional to weight (successive
// sampling: each draw picks among the items not yet in the sample with
// probability w_i / sum of their weights). Deterministic in seed.
func drawSamples(weights []float64, t, m int, seed uint64) ([][]int, error) {
	k := len(weights)
	if m < 1 || m > k {
		return nil, fmt.Errorf("sampleagg: sample size %d, want 1..%d (the number of items)", m, k)
	}
	if t < 1 {
		return nil, fmt.Errorf("sampleagg: %d samples, want at least 1", t)
	}
	total := 0.0
	for i, w := range weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("sampleagg: weight %d is %v, want finite and positive", i, w)
		}
		total += w
	}
	rng := rand.New(rand.NewPCG(seed, 0x636f6e73656e7375)) // "consensu"
	taken := make([]bool, k)
	out := make([][]int, t)
	for s := range out {
		sample := make([]int, 0, m)
		rest := total
		for len(sample) < m {
			x := rng.Float64() * rest
			pick := -1
			for i, w := range weights {
				if taken[i] {
					continue
				}
				pick = i
				if x < w {
					break
				}
				x -= w
			}
			// pick is the item x fell in, or the last untaken one when
			// rounding left x past the end.
			taken[pick] = true
			rest -= weights[pick]
			sample = append(sample, pick)
		}
		for _, i := range sample {
			taken[i] = false
		}
		slices.Sort(sample)
		out[s] = sample
	}
	return out, nil
}

// SampleAggregate is ReliabilityRAG's weighted sample-and-aggregate: it
// draws T samples of M items (drawSamples), asks answer for each sample's
// answer, and aggregates the answers by the same rank-aware maximum
// independent set as consensus.Select.
//
// Aggregation ranks samples by their ascending item tuples,
// lexicographically (a sample holding better-ranked items ranks higher;
// equal tuples keep draw order), and two samples contradict when their
// answers do (Contradict; by default, when they differ). With the default
// the chosen set is the largest group of equal answers, and among groups
// of equal size the one whose best sample ranks highest: a majority vote
// over samples with a rank-aware tie-break.
func SampleAggregate(opt SampleOptions, answer func(sample []int) (string, error)) (*Aggregate, error) {
	if answer == nil {
		return nil, errors.New("sampleagg: no answer function")
	}
	samples, err := drawSamples(opt.Weights, opt.T, opt.M, opt.Seed)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(samples, slices.Compare[[]int])
	agg := &Aggregate{Samples: samples, Answers: make([]string, len(samples))}
	for i, s := range samples {
		if agg.Answers[i], err = answer(s); err != nil {
			return nil, fmt.Errorf("sampleagg: answer for sample %d %v: %w", i, s, err)
		}
	}
	contradict := opt.Contradict
	if contradict == nil {
		contradict = func(a, b string) bool { return a != b }
	}
	g, err := consensus.BuildGraph(len(samples), consensus.JudgeFunc(func(i, j int) (bool, error) {
		return contradict(agg.Answers[i], agg.Answers[j]), nil
	}))
	if err != nil {
		return nil, err
	}
	sel, err := consensus.Select(g, opt.Select)
	if err != nil {
		return nil, err
	}
	agg.Chosen, agg.Nodes = sel.Items, sel.Nodes
	agg.Answer = agg.Answers[sel.Items[0]] // T >= 1 items, so the set is non-empty
	return agg, nil
}
