// Package sampleagg is ReliabilityRAG's weighted sample-and-aggregate
// (Shen et al., arXiv 2509.23519) over consensus's exact selection, and the
// robustness experiment consensusbench robust runs on it.
//
// SampleAggregate draws T samples of M items without replacement with
// probability proportional to weight (GeometricWeights w_i = gamma^(i-1),
// LinearWeights w_i = k-i+1, or the caller's reliability weights),
// deterministically from a PCG seed, asks a caller-supplied function for
// each sample's answer, and aggregates the answers by consensus.Select:
// samples are ranked by their ascending item tuples (a sample holding
// better-ranked items ranks higher), and two samples contradict when their
// answers do (by default, when they differ; then the result is the largest
// group of equal answers, ties to the group holding the best-ranked
// sample).
//
// AttackRate and AttackBound measure a worst-case attacker holding some
// items against a bound derived in robust.go.
//
// Bad input (a sample size outside 1..k, a weight that is not finite and
// positive, an answer error, a malicious item out of range) is an error
// prefixed "sampleagg:" that names the item or sample.
package sampleagg
