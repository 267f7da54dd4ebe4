// Package replay guards PPR selections (AUTHSELECT): every native top-k is
// checked against the same selector on the authenticated view, and a
// selection that untrusted structure changed is refused, reported or
// escalated.
//
//	guard, err := replay.New(g, labels, mask.Trust("default"), replay.Options{}) // policy Reject
//	d, err := guard.Select(replay.Query{Seeds: []ppr.Seed{{Node: q, Weight: 1}}, K: 5, Candidates: passages, Damping: 0.5})
//	// d.Selected: what to read (the authenticated top-k when d.Divergent);
//	// d.Suspects: the untrusted edges that carried the most native mass
//
// (ExampleGuard_Select runs it on one untrusted edge.)
//
// # What a decision means
//
// Let N be the native selection (the certified top-k of the native view
// over the candidates), pi_A the exact authenticated PPR vector, delta the tie
// tolerance (Options.TieTol) and
//
//	gapA = min_{v in N} pi_A(v) - max_{u in candidates, u not in N} pi_A(u)
//
// (+Inf when every candidate is selected). The guard proves an interval
// [lo, hi] that holds gapA and answers
//
//	Same       lo > 0: N is the authenticated selection, strictly;
//	Tie        -delta <= lo and hi <= delta (and Same not proved): N is an
//	           authenticated selection up to scores within delta of each
//	           other; reported, never refused;
//	Divergent  hi < -delta: some unselected candidate beats a selected one
//	           by more than delta on the authenticated graph; refused.
//
// It refines until one holds. The refusal is a function of gapA alone:
// Divergent exactly when gapA < -delta, as two from-scratch exact solves
// (Reference) decide, except when gapA lies within the guard's final
// precision of -delta, where either answer is within tolerance (the fuzz
// target counts those cases). Same and Tie overlap on purpose for
// 0 < gapA <= delta, where both are true: a guard that has proved one need
// not refine further, so a native gap near the tie band costs nothing. Auth,
// the authenticated selection reported, is proved to be a top-k of pi_A up
// to delta: no candidate outside it beats one inside by more than delta.
//
// # The native selection and the start state
//
// The native selection N is ppr's certified top-k on the native view: the
// selection an unguarded caller makes, at the same cost (Select's native
// time is that selection's time; the replay is what the guard adds). With
// x_G and r_G the state that solve left, the authenticated residual of
// the same x_G is
//
//	r_A = r_G + d * sum_{u in T} x_G(u) * (P_A[u] - P_G[u])
//
// where T holds the nodes whose out-rows differ between the views, and
// pi_A - x = r*(I - d*P_A)^-1 for any state (x, r) of the authenticated
// view. The replay turns the native state into an authenticated one in
// place (the same arrays: nothing of the graph or the vectors is copied),
// applying the correction row by row, and proves gapA for N with ppr.Proof:
// the per-node bounds, rounding margin and reverse refinement that ppr's
// certified top-k proves its own selections with. Nothing in this package
// bounds an error on its own.
//
// # Paths, cheapest first
//
//	untouched    no touched node carries native mass: r_A = r_G, and the
//	             native state's proof on the authenticated view decides
//	certificate  the same proof, widened by d*B/alpha in L1 for the
//	             correction not yet applied (B = sum_{u in T} x_G(u)*l_u,
//	             l_u >= ||P_A[u] - P_G[u]||_1)
//	delta        the correction applied, its residual pushed where it
//	             stands (its positive part down to the ratio the decision
//	             needs, never below the native state's largest ratio, its
//	             negative part, which would cost the selection its
//	             one-sided bounds, to where no selected lower end falls
//	             more than a third of the margin below the selection's
//	             lowest score, or to the
//	             native level when the native selection proved a warm
//	             state with no pass over the nodes; when that
//	             proof does not decide, the positive part down to the
//	             native level and the negative ten times further), and a proof
//	             that reuses the native proof's statistics for every node
//	             the correction did not reach and bounds the candidates it
//	             did not reach from what the native check's pass kept
//	             (ppr's derived proofs: it reads the changed candidates,
//	             not all of them)
//	full         ppr's certified top-k on the authenticated view from that
//	             state, then scans until a proof decides
//
// Options.Force starts at a later path, so tests can check each one.
//
// # Cost
//
// A query's engines and scratch live in a workspace (two engines on
// shared arrays, with their reverse-push scratch: about 60 bytes a node),
// pooled across queries and, through Options.Workspaces, across the guards
// of a store's versions. The first guard on a pool makes one at
// construction, with what the views build on first use, so that no query
// allocates an array of the graph's size.
//
// # Errors
//
// Invalid queries (no seeds, bad damping, k < 1, candidates out of range or
// repeated) are errors prefixed "replay:". Under the escalate policy a
// divergence is returned as a *DivergenceError carrying the decision.
package replay
