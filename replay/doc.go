// Package replay guards PPR selections (AUTHSELECT): every native top-k is
// checked against the same selector on the authenticated view, and a
// selection that untrusted structure changed is refused, reported or
// escalated.
//
// # What a decision means
//
// Let N be the native selection (top-k of the native solve over the
// candidates), pi_A the exact authenticated PPR vector, delta the tie
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
// # The residual identity and the start state
//
// With x_G the native solution and r_G its native residual, the
// authenticated residual of the same x_G is
//
//	r_A = r_G + d * sum_{u in T} x_G(u) * (P_A[u] - P_G[u])
//
// where T holds the nodes whose out-rows differ between the views, and
// pi_A - x = r*(I - d*P_A)^-1 for any state (x, r) of the authenticated
// view. Replay works on the sparse difference (dx, dr) with x = x_G + dx,
// r = r_G + dr; pushes on dr keep the identity.
//
// # Bounds used (proofs beside the code in bounds.go)
//
//   - L1: ||pi - x||_1 <= ||r||_1/alpha; for any two coordinates the error of
//     x(v) - x(u) is at most that too. Applied to r_G always.
//   - Certificate: the correction above has L1 norm at most d*B with
//     B = sum_{u in T} x_G(u)*l_u, l_u >= ||P_A[u] - P_G[u]||_1 (2*f_u for
//     plain masking), so gapA lies within tau_G + d*B/alpha of the native gap.
//   - Per-coordinate (undirected views only): for r supported on nodes with
//     out-weight, |(r*(I-dP)^-1)(v)| <= (W_A(v)/alpha) * max_u |r(u)|/W_A(u).
//     Residual left on dangling nodes is bounded in L1.
//
// # Paths, cheapest first
//
//	untouched    no touched node carries native mass: r_A = r_G
//	certificate  the L1 certificate decides
//	delta        signed push of dr on the authenticated view decides
//	full         sweeps on the authenticated view, warm-started from
//	             x_G + dx, until the bounds decide
//
// Options.Force starts at a later path, so tests can check each one.
//
// # Errors
//
// Invalid queries (no seeds, bad damping, k < 1, candidates out of range or
// repeated) are errors prefixed "replay:". Under the escalate policy a
// divergence is returned as a *DivergenceError carrying the decision.
package replay
