// Package consensus selects the largest mutually consistent set of ranked
// items (ReliabilityRAG, Shen et al., arXiv 2509.23519): the rank-aware
// maximum independent set of their contradiction graph, exactly, guarded
// against contradictions reported by untrusted channels.
//
//	judge := consensus.JudgeFunc(func(i, j int) (bool, error) { return answers[i] != answers[j], nil })
//	g, err := consensus.BuildGraph(len(answers), judge)
//	sel, err := consensus.Select(g, consensus.Options{}) // sel.Items, best rank first
//
//	// contradictions with the channel that reported each
//	guarded, err := consensus.NewGuarded(len(answers), edges, mask.Trust("nli").Trusts, consensus.Options{})
//	d, err := guarded.Replay(replay.Reject) // d.Native, d.Auth, d.Divergent, d.Selected
//
// # Items, ranks, contradictions
//
// Items are numbered 0..k-1 in rank order: item i has rank i+1, item 0 is
// the most reliable. A Judge (an NLI model, an answer comparison) says
// whether two items contradict; BuildGraph asks it about every pair once.
// A Graph holds the edges as bitset rows (k/64 words per item, any k).
//
// # The selection, defined
//
// Select returns, among all independent sets (no two members contradict)
// of maximum size, the one whose ascending tuple of item indices is
// lexicographically smallest. For two sets A != B of equal size this is
// the same as: the smallest item of the symmetric difference A △ B is in
// the winner. (Proof: if the sorted tuples first differ at position p,
// a_p < b_p say, the items before p are common, a_p is not in B because
// B's items after b_(p-1) are >= b_p > a_p, and no item of B below a_p is
// missing from A; so min(A △ B) = a_p is in A. The converse is the same
// argument read backwards.) So the choice prefers the best-ranked item
// that separates two candidate sets, whatever happens further down.
//
// # How Select finds it (proofs beside the code in select.go)
//
//  1. The maximum size alpha and one maximum set W, by branch and bound on
//     a copy of the graph renumbered by ascending degree: the MCQ/BBMC
//     scheme of Tomita and San Segundo applied to the complement, where
//     a greedy partition of the candidates into cliques of the
//     contradiction graph bounds the independent set (one item per
//     clique), items are branched on from the highest clique number down,
//     and items whose number cannot reach the bar are never branched on.
//     An infra-chromatic step (unit propagation in the style of MaxCLQ)
//     keeps off the branching list every further item whose addition to
//     some of the cliques below the bar provably cannot raise the bound.
//  2. The rank-aware choice, item by item in rank order: item v is taken
//     exactly when some maximum set consistent with the decisions so far
//     contains v. When the current witness W contains v that is known;
//     otherwise a search with the bar at the remaining size answers (and
//     gives the next witness). Each decision keeps the lexicographically
//     first maximum set consistent, by the characterisation above.
//
// selectBrute, the reference, enumerates all 2^k subsets (k <= 20); the
// property tests and FuzzSelect compare the two sets exactly.
//
// # Budget
//
// Options.MaxNodes caps the search nodes of both phases together (2^20
// when zero; negative: no cap). When it runs out Select returns the best
// set found so far with Exact = false, a proved UpperBound on the maximum
// and an error matching ErrBudget (errors.Is); a set is never returned as
// exact unless both phases finished.
//
// # Guarded like PPR
//
// Contradiction edges reported by untrusted channels are structural writes.
// NewGuarded builds the native graph (every edge) and the authenticated
// one (edges some trusted channel reported); Guarded.Replay selects on
// both as replay.ReplaySelector does and flags a divergence. FromViews
// builds the same from two views of a graph that stores contradictions as
// edges between item nodes, a store version's as well as a snapshot's, so
// the selector is guarded on a living memory the way PPR selections are.
//
// Sample-and-aggregate, the paper's form for many items, and its
// robustness experiment are in internal/sampleagg (consensusbench robust).
//
// # Errors
//
// Bad input (negative k, an item out of range or contradicting itself, a
// judge error, a node out of range or repeated in FromViews) is an error
// prefixed "consensus:" that names the item, edge or node. Nothing panics
// on user data.
package consensus
