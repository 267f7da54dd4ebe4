package sampleagg

import (
	"fmt"
	"math"
	"slices"
)

// The answers of the robustness experiment.
const (
	honestAnswer    = "honest"
	maliciousAnswer = "malicious"
)

// AttackRate measures sample-and-aggregate against a worst-case attacker:
// any sample holding at least one malicious item answers maliciousAnswer
// (the attacker controls the whole context it appears in, and all its
// items push the same answer), every other sample answers honestAnswer.
// It runs the given number of aggregations with seeds seed, seed+1, ...
// and returns the fraction whose answer is malicious and the fraction of
// all samples that held a malicious item.
func AttackRate(weights []float64, malicious []int, t, m, runs int, seed uint64) (rate, hitRate float64, err error) {
	bad, err := maliciousSet(len(weights), malicious)
	if err != nil {
		return 0, 0, err
	}
	if runs < 1 {
		return 0, 0, fmt.Errorf("sampleagg: %d runs, want at least 1", runs)
	}
	wins, hits := 0, 0
	answer := func(sample []int) (string, error) {
		for _, i := range sample {
			if bad[i] {
				hits++
				return maliciousAnswer, nil
			}
		}
		return honestAnswer, nil
	}
	for r := 0; r < runs; r++ {
		agg, err := SampleAggregate(SampleOptions{Weights: weights, T: t, M: m, Seed: seed + uint64(r)}, answer)
		if err != nil {
			return 0, 0, err
		}
		if agg.Answer == maliciousAnswer {
			wins++
		}
	}
	return float64(wins) / float64(runs), float64(hits) / float64(runs*t), nil
}

// AttackBound bounds what AttackRate measures, from first principles (the
// ReliabilityRAG paper's own statement was not available to this package;
// this derivation stands on its own).
//
// Per sample: given that draws 1..s-1 were honest, draw s is malicious
// with probability w(M)/R, where w(M) is the malicious items' weight and R
// the weight not yet drawn, R >= W - H_(s-1) (W: all weights; H_(s-1): the
// s-1 largest honest weights). Hence
//
//	q = P(sample holds a malicious item) <= 1 - prod_{s=1..m} (1 - w(M)/(W - H_(s-1))) = qBar.
//
// Aggregation: samples are independent; with the default contradiction
// (different answers contradict) the malicious answer is chosen only if at
// least as many samples answer it as answer honestly, i.e. B >= ceil(T/2)
// with B ~ Binomial(T, q). The binomial upper tail grows with q, so
//
//	P(malicious answer) <= P(Binomial(T, qBar) >= ceil(T/2)) = bound.
//
// Ties (T even, B = T/2) are counted as losses, which the rank-aware
// tie-break may or may not make them.
func AttackBound(weights []float64, malicious []int, t, m int) (qBar, bound float64, err error) {
	bad, err := maliciousSet(len(weights), malicious)
	if err != nil {
		return 0, 0, err
	}
	if m < 1 || m > len(weights) || t < 1 {
		return 0, 0, fmt.Errorf("sampleagg: T = %d samples of M = %d items from %d, want T >= 1 and 1 <= M <= %d", t, m, len(weights), len(weights))
	}
	var total, wm float64
	var honest []float64
	for i, w := range weights {
		total += w
		if bad[i] {
			wm += w
		} else {
			honest = append(honest, w)
		}
	}
	slices.SortFunc(honest, func(a, b float64) int { return -cmpFloat(a, b) })
	clean, h := 1.0, 0.0
	for s := 0; s < m; s++ {
		if s > 0 && s-1 < len(honest) {
			h += honest[s-1]
		}
		clean *= max(0, 1-wm/(total-h))
	}
	qBar = 1 - clean
	need := (t + 1) / 2
	for b := need; b <= t; b++ {
		bound += binomial(t, b) * math.Pow(qBar, float64(b)) * math.Pow(1-qBar, float64(t-b))
	}
	return qBar, min(bound, 1), nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

func maliciousSet(k int, malicious []int) ([]bool, error) {
	bad := make([]bool, k)
	for _, i := range malicious {
		if i < 0 || i >= k {
			return nil, fmt.Errorf("sampleagg: malicious item %d out of range [0, %d)", i, k)
		}
		bad[i] = true
	}
	return bad, nil
}
