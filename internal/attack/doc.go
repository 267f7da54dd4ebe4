// Package attack measures how selectors over a graph memory respond to
// structure-only writes by an untrusted channel: which selections such a
// write can change, whether a provenance check notices, and whether the
// replay guard (package replay) refuses them. Its users are `pprbench
// attack` and the tests: it is a laboratory, not a user API. It depends on
// graphs only: a Memory is made of any undirected csr.Graph with its
// passages (NewMemory; internal/bench generates HippoRAG-like ones) or of
// a graph without passages by drawing them (SplitRoles).
//
// # Selectors
//
// A Selector ranks a query's candidates (passages) on a mask.View and
// selects the top k: PPR (HippoRAG2-style, dense passage reset, d = 0.5),
// FixedPool (a pool fixed by the content score given with the query,
// reranked by hop distance to the query's centre node, as Graphiti's node
// distance reranker does), BFSPool (the pool is found by bounded BFS from
// the centre, so the pool itself is structural) and Content (no structure).
// Every selector returns one key per candidate; higher ranks first, ties by
// lower node id, and a key of -Inf marks a candidate outside the selector's
// pool, which it never selects.
//
// # Attacks
//
// An attack is a sequence of Writes from one untrusted channel; a write adds
// edges between existing nodes and deletes existing edges, and never adds a
// node, so every passage stays as authenticated as it was. Kinds: edge
// insertion (target passage to a high-score entity), synonym edges between
// entities, an entity merge (one entity's edges rewired to another: added
// edges plus deletions), deletion of a trusted edge, and laundering: the
// attacker plants an edge at a low-value entity (to the target passage, or
// a synonym edge to an entity the target mentions) and a trusted
// entity-resolution channel (Config.Merger) merges that entity into a
// high-score one, so the rewired edge is written by a trusted channel. The
// lab labels it as the store does (store.MergeInto): the copies are the
// merger's and, by min-inheritance (mask.Labels.Require), each depends on
// what its original depended on, the planted edge's copy on the attacker.
// Greedy picks, with a budget of b writes, the candidate write that most
// raises a target's margin over the k-th selected candidate, trying a
// bounded set of candidates per step, and stops as soon as the top-k
// membership changes.
//
// # Measures
//
//   - S_adv(b): the share of queries whose top-k membership greedy changes
//     with at most b writes, per selector and attack kind (targets: the
//     best unselected candidates of each selector). A laundering write is
//     the planted edge with its merge, measured against the clean
//     selection, so the merge's trusted part counts too (the divergence
//     set below does not count it).
//   - S_inj(b): the share of queries into whose top-k edge insertion gets
//     one fixed passage of middling content score (the attacker's choice,
//     not the selector's next best): what a fixed pool is immune to.
//   - Structural reliance: 1 - Jaccard(top-k with all structure, top-k with
//     every edge masked), per selector.
//   - The divergence set D: queries whose selected passages are all
//     authenticated yet whose selection differs from the authenticated one
//     (from scratch on the clean graph plus what trusted channels wrote:
//     a laundering write's merge of clean edges, not the planted edge's
//     copy); harm of no defence, of a provenance-only defence and of the
//     replay guard (policy reject) on D, and the guard's over-blocking on
//     the clean graph.
//   - The counterfactual that shows why min-inheritance exists: the same
//     guard on the same labels with every Require dropped. It differs from
//     the guard only where a trusted channel rewrote untrusted structure,
//     and there it sees none and lets every laundered divergence through.
//   - The ledger scenario (Ledger): transfers choosing an account by top-1
//     PPR, one untrusted structural write.
//
// # Invariants
//
// Everything is deterministic in the configured seeds: the same config gives
// the same graph, queries, attacks and numbers. Attacked graphs are the
// clean snapshot with the attack's candidate edges appended (edge ids of the
// clean snapshot are kept) and views mask every candidate edge not written
// (and every planted edge, which its merge deletes), so the clean view, the
// attacked views and the authenticated view of one query share one
// snapshot.
//
// # Errors
//
// Invalid configurations and queries (k < 1, content scores outside [0, 1),
// unknown nodes) are errors prefixed "attack:" that name the query or field.
// Nothing panics on user data.
package attack
