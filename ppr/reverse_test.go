package ppr

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// A reverse push brackets the column of G' = (I - d*P')^-1 it estimates
// (P' drops the dangling rows): 0 <= G'*e_v - q <= max(s)/alpha, at every
// threshold and when its budget stops it early; the reference is a dense
// inverse. One pusher serves every push (its scratch is cleared).
func TestReversePushBracketsDenseColumn(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(67, 68))
	tested := 0
	for range 150 {
		c := newRandomCase(t, rng)
		if !c.g.Directed() {
			continue
		}
		view, n := c.auth, c.g.NumNodes()
		d := []float64{0, 0.5, 0.85, 0.95}[rng.IntN(4)]
		A := mat.NewDense(n, n, nil)
		P := denseP(view, c.seeds)
		for i := range n {
			A.Set(i, i, 1)
			if view.OutWeight(uint32(i)) == 0 {
				continue // a dangling row of P'
			}
			for j := range n {
				A.Set(i, j, A.At(i, j)-d*P.At(i, j))
			}
		}
		var G mat.Dense
		require.NoError(t, G.Inverse(A))
		rp := newReversePusher(n)
		for range 3 {
			v := uint32(rng.IntN(n))
			for _, eps := range []float64{1, 0.3, 0.01, 1e-6} {
				for _, budget := range []int64{math.MaxInt64, int64(rng.IntN(10))} {
					e := rp.push(view, d, v, eps, budget)
					q := make([]float64, n)
					for i, u := range e.Nodes {
						q[u] = e.Q[i]
					}
					for u := range n {
						gap := G.At(u, int(v)) - q[u]
						require.GreaterOrEqualf(t, gap, -1e-12, "node %d above its column", u)
						require.LessOrEqualf(t, gap, e.MaxS/(1-d)+1e-12, "node %d: y-q = %g, maxS = %g", u, gap, e.MaxS)
					}
					if budget == math.MaxInt64 {
						require.LessOrEqual(t, e.MaxS, eps)
					}
					tested++
				}
			}
		}
	}
	require.Positive(t, tested)
}

// An estimate pushed on one view and adapted to another (the guard's
// native and authenticated views) is an estimate of the other's column:
// its remainder is exactly e_v - (I - d*P'_A)*q there (the dense
// reference), its summaries are its parts', and the column lies within
// them: -NegMaxS/alpha <= G'_A*e_v - q <= MaxS/alpha at every node, with
// the dense inverse. Directed and undirected views, pushes stopped by
// their threshold or their budget.
func TestAdaptedEstimateIsItsViewsEstimate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	adapted, signed := 0, 0
	for range 300 {
		c, e, pA, GA := sharingCase(t, rng)
		n, d := c.g.NumNodes(), e.damping
		e.refine.pusher = newReversePusher(n)
		for range 3 {
			v := uint32(rng.IntN(n))
			eps := []float64{1, 0.1, 1e-4}[rng.IntN(3)]
			budget := []int64{math.MaxInt64, int64(rng.IntN(10))}[rng.IntN(2)]
			est := newReversePusher(n).push(c.native, d, v, eps, budget)
			got := e.refine.adapt(e, &est, first(e.refine.remainderChanges(e, &est)))
			want := checkColumnEstimate(t, got, c.auth, pA, GA, v, d)
			checkAdaptedSummaries(t, &want, got, &est)
			adapted++
			if got.NegMaxS > 0 {
				signed++
			}
			e.refine.release(got)
		}
	}
	require.Positive(t, adapted)
	require.Positive(t, signed, "no case gave a negative remainder")
}

// A push that goes on from an estimate adapted to another view (refineCheck
// does when the adaptation does not serve) is an estimate of the new
// view's column: its remainder is exactly e_v - (I - d*P'_A)*q (the dense
// reference), both parts of a finished push are at most eps, its summaries
// are its parts', and the column lies within them. Starting from the push
// of the unit remainder it is the push it was: going on from nothing.
func TestPushFromAdaptedEstimate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(75, 76))
	went, signed := 0, 0
	for range 300 {
		c, e, pA, GA := sharingCase(t, rng)
		n, d := c.g.NumNodes(), e.damping
		rp := newReversePusher(n)
		e.refine.pusher = rp
		for range 3 {
			v := uint32(rng.IntN(n))
			eps := []float64{0.1, 1e-3, 1e-6}[rng.IntN(3)]
			est := newReversePusher(n).push(c.native, d, v, []float64{1, 0.1, 1e-4}[rng.IntN(3)], math.MaxInt64)
			from := e.refine.adapt(e, &est, first(e.refine.remainderChanges(e, &est)))
			if from.NegMaxS > eps {
				signed++
			}
			budget := []int64{math.MaxInt64, int64(rng.IntN(10))}[rng.IntN(2)]
			var got reverseEstimate
			rp.pushInto(&got, c.auth, d, v, eps, budget, from)
			want := checkColumnEstimate(t, &got, c.auth, pA, GA, v, d)
			for _, sum := range [][2]float64{{want.MaxS, got.MaxS}, {want.SW, got.SW}, {want.SD, got.SD}, {want.NegMaxS, got.NegMaxS}, {want.NegSW, got.NegSW}, {want.NegSD, got.NegSD}} {
				require.InDelta(t, sum[0], sum[1], 1e-12)
			}
			if budget == math.MaxInt64 {
				require.LessOrEqual(t, got.MaxS, eps)
				require.LessOrEqual(t, got.NegMaxS, eps)
			}
			// From the unit remainder: the push from the start.
			unit := reverseEstimate{reached: []uint32{v}, s: []float64{1}}
			var fromUnit reverseEstimate
			rp.pushInto(&fromUnit, c.auth, d, v, eps, budget, &unit)
			plain := rp.push(c.auth, d, v, eps, budget)
			require.Equal(t, plain.Nodes, fromUnit.Nodes)
			require.Equal(t, plain.Q, fromUnit.Q)
			require.Equal(t, plain.s, fromUnit.s)
			e.refine.release(from)
			went++
		}
	}
	require.Positive(t, went)
	require.Positive(t, signed, "no case went on from a negative remainder above eps")
}

// sharingCase returns a random case with an engine on its authenticated
// view sharing the estimates of one on its native view, at a random
// damping, and P'_A and (I - d*P'_A)^-1 dense.
func sharingCase(t *testing.T, rng *rand.Rand) (c randomCase, e *Engine, pA, GA *mat.Dense) {
	t.Helper()
	c = newRandomCase(t, rng)
	d := []float64{0.5, 0.85, 0.95}[rng.IntN(3)]
	pA, differ, gainers := viewDifference(c)
	donor, err := NewEngine(c.native, c.seeds, d)
	require.NoError(t, err)
	e, err = NewEngine(c.auth, c.seeds, d)
	require.NoError(t, err)
	e.ShareEstimates(donor, differ, gainers, viewDiffRows{c.auth, c.native})
	return c, e, pA, denseInverse(t, pA, d)
}

// checkColumnEstimate checks that got is an estimate of v's column of
// G'_A = (I - d*P'_A)^-1 (pA: P'_A dense, GA: G'_A): its remainder is
// exactly e_v - (I - d*P'_A)*q at every node, and the column lies within
// its parts, -NegMaxS/alpha <= G'_A*e_v - q <= MaxS/alpha. It returns the
// summaries of that remainder under the view's out-weights.
func checkColumnEstimate(t *testing.T, got *reverseEstimate, view *mask.View, pA, GA *mat.Dense, v uint32, d float64) reverseEstimate {
	t.Helper()
	n, _ := pA.Dims()
	q, s := make([]float64, n), make([]float64, n)
	for i, u := range got.Nodes {
		q[u] = got.Q[i]
	}
	for i, u := range got.reached {
		s[u] += got.s[i]
	}
	var want reverseEstimate
	for u := range n {
		// s_A(u) = e_v(u) - q(u) + d*sum_w P'_A[u][w]*q(w)
		sum := 0.0
		for w := range n {
			sum += pA.At(u, w) * q[w]
		}
		wantS := -q[u] + d*sum
		if u == int(v) {
			wantS++
		}
		require.InDeltaf(t, wantS, s[u], 1e-12, "node %d of %d: remainder", u, n)
		want.addRemainder(s[u], view.OutWeight(uint32(u)))
	}
	for u := range n {
		gap := GA.At(u, int(v)) - q[u]
		require.GreaterOrEqualf(t, gap, -got.NegMaxS/(1-d)-1e-12, "node %d below its column", u)
		require.LessOrEqualf(t, gap, got.MaxS/(1-d)+1e-12, "node %d above its column", u)
	}
	return want
}

// dropDangling zeroes the rows of P that dangle in the view (P' above).
func dropDangling(P *mat.Dense, view *mask.View) {
	r, _ := P.Dims()
	for u := range r {
		if view.OutWeight(uint32(u)) == 0 {
			P.SetRow(u, make([]float64, r))
		}
	}
}

// denseInverse returns (I - d*P)^-1.
func denseInverse(t *testing.T, P *mat.Dense, d float64) *mat.Dense {
	t.Helper()
	n, _ := P.Dims()
	A := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			A.Set(i, j, -d*P.At(i, j))
		}
		A.Set(i, i, A.At(i, i)+1)
	}
	var G mat.Dense
	require.NoError(t, G.Inverse(A))
	return &G
}

// gainersOf returns the nodes of differ whose out-row in a weighs some
// head more than in g: the fewest gainers ShareEstimates allows.
func gainersOf(a, g *mask.View, differ []uint32) []uint32 {
	var out []uint32
	for _, u := range differ {
		weight := map[uint32]float64{}
		for _, side := range []struct {
			row  mask.Row
			sign float64
		}{{g.OutRow(u), 1}, {a.OutRow(u), -1}} {
			for p, w := range side.row.Nbr {
				if side.row.Live(p) {
					weight[w] += side.sign * side.row.Weight.At(p)
				}
			}
		}
		for _, left := range weight {
			if left < 0 {
				out = append(out, u)
				break
			}
		}
	}
	return out
}

// RefinedGap's interval holds the exact gap of the selection (a dense
// solve's), on the state a guard proves with: the native solve's x on the
// authenticated view, whose residual there is signed, with the native
// engine's reverse estimates shared (borrowed or adapted). Selections are
// the authenticated estimate's top-k (the gap's lower end matters) and
// random ones (a divergence: its upper end matters).
func TestRefinedGapHoldsExactGap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(73, 74))
	checked, refined, bySums := 0, 0, 0
	for range 400 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		native, k, res := nativeSelection(t, rng, c)
		if native == nil {
			continue
		}
		auth := guardEngine(t, c, native)
		pA, differ, gainers := viewDifference(c)
		// The donor holds a push from every node at a random threshold
		// and budget, so that the authenticated engine borrows or adapts.
		if native.refine.est == nil {
			native.refine.est = map[uint32]*reverseEstimate{}
		}
		eps := []float64{0.1, 1e-3}[rng.IntN(2)]
		for v := range n {
			est := newReversePusher(n).push(c.native, c.damping, uint32(v), eps, []int64{math.MaxInt64, int64(rng.IntN(20))}[rng.IntN(2)])
			native.refine.est[uint32(v)] = &est
		}
		auth.ShareEstimates(native, differ, gainers, viewDiffRows{c.auth, c.native})
		proof := auth.Prove(res.Sweeps+2, nil, nil)
		pi := exactPPR(t, c.auth, c.seeds, c.damping)
		bySums += checkRefinedIntervals(t, auth, proof, pA, eps)
		// And a non-negative residual (the authenticated engine's own
		// pushes from its start), where an adapted estimate's negative
		// part alone widens the interval below.
		own, err := NewEngine(c.auth, c.seeds, c.damping)
		require.NoError(t, err)
		for range rng.IntN(3) {
			own.PushScan(0)
		}
		own.ShareEstimates(native, differ, gainers, viewDiffRows{c.auth, c.native})
		bySums += checkRefinedIntervals(t, own, own.Prove(3, nil, nil), pA, eps)
		random := make([]uint32, k)
		for i, v := range rng.Perm(n)[:k] {
			random[i] = uint32(v)
		}
		for _, sel32 := range [][]uint32{topNodes(auth.X, k), random} {
			inSel := make([]bool, n)
			for _, v := range sel32 {
				inSel[v] = true
			}
			iv, nref := proof.RefinedGap(sel32, nil, inSel)
			requireHoldsGap(t, iv, exactGap(pi, scoredNodes(sel32), nil), "case %d nodes, k %d", n, k)
			checked++
			if nref > 0 {
				refined++
			}
		}
	}
	require.Positive(t, checked)
	require.Positive(t, refined, "no interval was refined")
	require.Positive(t, bySums, "no adapted estimate served by its sums")
}

// topNodes returns the k nodes of largest x (ties by id).
func topNodes(x []float64, k int) []uint32 {
	order := make([]uint32, len(x))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortStableFunc(order, func(a, b uint32) int { return cmp.Compare(x[b], x[a]) })
	return order[:k]
}

// checkRefinedIntervals checks every node's refined interval of N = x +
// r*G'_A (bounds, with the estimate the engine borrows, adapts or pushes
// at eps) against N from the dense inverse of I - d*P'_A (pA: P'_A).
//
// It returns how many of the estimates were adapted ones serving eps by
// their sums (adaptedServes), with entries above eps.
func checkRefinedIntervals(t *testing.T, e *Engine, proof *Proof, pA *mat.Dense, eps float64) (bySums int) {
	t.Helper()
	var st *residualStats
	if !e.view.Directed() {
		st = &proof.st
	}
	rc := e.newRefineCheck(proof.l1, &proof.eb, st)
	if rc == nil {
		return 0
	}
	G := denseInverse(t, pA, e.damping)
	n := len(e.X)
	for v := range n {
		est := rc.estimate(uint32(v), eps)
		if est == nil {
			continue
		}
		N := e.X[v]
		for u := range n {
			N += e.R[u] * G.At(u, v)
		}
		if est.shared && max(est.MaxS, est.NegMaxS) > eps {
			bySums++
		}
		lo, hi := rc.bounds(uint32(v), est)
		require.LessOrEqualf(t, lo, N+1e-12, "node %d: refined lower end %g above N = %g (signed %v, neg part %g)", v, lo, N, rc.signed, est.NegMaxS)
		require.GreaterOrEqualf(t, hi, N-1e-12, "node %d: refined upper end %g below N = %g (signed %v, neg part %g)", v, hi, N, rc.signed, est.NegMaxS)
	}
	return bySums
}

// checkAdaptedSummaries checks an adapted estimate's summaries against
// want, its remainder's own: its sums are want's (up to rounding, and not
// below them), its largest entries bound want's from above by no more
// than the donor's.
func checkAdaptedSummaries(t *testing.T, want, got, donor *reverseEstimate) {
	t.Helper()
	const tol = 1e-12
	for _, part := range []struct {
		name      string
		want, got float64
	}{
		{"SW", want.SW, got.SW}, {"SD", want.SD, got.SD},
		{"NegSW", want.NegSW, got.NegSW}, {"NegSD", want.NegSD, got.NegSD},
	} {
		require.InDeltaf(t, part.want, part.got, tol, "%s", part.name)
		require.GreaterOrEqualf(t, part.got, part.want*(1-1e-15), "%s below the remainder's", part.name)
	}
	require.GreaterOrEqual(t, got.MaxS, want.MaxS)
	require.LessOrEqual(t, got.MaxS, max(want.MaxS, donor.MaxS))
	require.GreaterOrEqual(t, got.NegMaxS, want.NegMaxS)
	require.LessOrEqual(t, got.NegMaxS, max(want.NegMaxS, donor.NegMaxS))
}

// first returns its first argument.
func first[T, U any](t T, _ U) T { return t }

// A shared estimate whose push reached a node of differ is never handed
// over as it is, even when its remainder does not change: node a's row is
// b with weight 1 natively (an untrusted edge; peer deleted the trusted
// one) and b with weight 2 in the authenticated view, so P'[a] is e_b in
// both and s is the same, but the summaries weigh s(a) by a's out-weight,
// which is the view's.
func TestSharedEstimateWeighsByItsView(t *testing.T) {
	t.Parallel()
	native, auth := trustedViews(t, []csr.Input{
		{Src: "a", Dst: "b", Weight: 2, Channel: "trusted"},
		{Src: "a", Dst: "b", Weight: 1, Channel: "peer"},
		{Src: "b", Dst: "c", Weight: 1, Channel: "trusted"},
	}, 0)
	aID, bID := uint32(0), uint32(1)
	require.Equal(t, 1.0, native.OutWeight(aID))
	require.Equal(t, 2.0, auth.OutWeight(aID))

	seeds, err := NewSeeds(3, []Seed{{Node: 2, Weight: 1}})
	require.NoError(t, err)
	donor, err := NewEngine(native, seeds, 0.85)
	require.NoError(t, err)
	e, err := NewEngine(auth, seeds, 0.85)
	require.NoError(t, err)
	est := newReversePusher(3).push(native, 0.85, bID, 0.9, math.MaxInt64) // pushes b alone: s(a) = 0.85
	require.Contains(t, est.reached, aID)
	donor.refine.est = map[uint32]*reverseEstimate{bID: &est}
	differ := []uint32{aID, bID}
	e.ShareEstimates(donor, differ, gainersOf(auth, native, differ), viewDiffRows{auth, native})
	e.refine.pusher, e.refine.est = newReversePusher(3), map[uint32]*reverseEstimate{}
	got, start := e.refine.borrow(e, bID, 1)
	require.NotNil(t, got)
	require.Nil(t, start)
	var want reverseEstimate
	for i, u := range got.reached {
		want.addRemainder(got.s[i], auth.OutWeight(u))
	}
	require.InDelta(t, want.SW, got.SW, 1e-12, "the summaries weigh s by the donor's out-weights")
	require.InDelta(t, want.SD, got.SD, 1e-12)
	checkAdaptedSummaries(t, &want, got, &est)
}

// An adapted estimate's negative remainder widens the interval below even
// on a non-negative residual: the edge a-b is untrusted, so a dangles in
// the authenticated view and s_A(a) = -q(a) < 0 for a push from b that
// pushed a; with the residual on a (the seed), N(b) = x(b) + r*G'_A*e_b
// is 0, below x(b) + r.q.
func TestAdaptedNegativeRemainderWidensBelow(t *testing.T) {
	t.Parallel()
	native, auth := trustedViews(t, []csr.Input{
		{Src: "a", Dst: "b", Weight: 1, Channel: "peer"},
		{Src: "b", Dst: "c", Weight: 1, Channel: "trusted"},
	})
	aID, bID := uint32(0), uint32(1)
	require.Zero(t, auth.OutWeight(aID))

	seeds, err := NewSeeds(3, []Seed{{Node: aID, Weight: 1}})
	require.NoError(t, err)
	donor, err := NewEngine(native, seeds, 0.85)
	require.NoError(t, err)
	e, err := NewEngine(auth, seeds, 0.85)
	require.NoError(t, err)
	est := newReversePusher(3).push(native, 0.85, bID, 1e-6, math.MaxInt64)
	donor.refine.est = map[uint32]*reverseEstimate{bID: &est}
	differ := []uint32{aID, bID}
	e.ShareEstimates(donor, differ, gainersOf(auth, native, differ), viewDiffRows{auth, native})
	pA := denseP(auth, seeds)
	dropDangling(pA, auth)
	proof := e.Prove(0, nil, nil)
	require.False(t, proof.eb.signed)
	checkRefinedIntervals(t, e, proof, pA, 10) // coarse enough to take the adapted estimate
	require.Positive(t, e.refine.est[bID].NegMaxS, "b's estimate was not adapted with a negative part")
}

// trustedViews returns the native view of an undirected graph of the given
// edges, with the edges peerDeletes deleted by the channel peer, and its
// authenticated view trusting the channel trusted.
func trustedViews(t *testing.T, edges []csr.Input, peerDeletes ...uint32) (native, auth *mask.View) {
	t.Helper()
	b := csr.NewBuilder(false)
	for _, in := range edges {
		_, err := b.AddEdge(in)
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	labels := mask.FromGraph(g)
	if len(peerDeletes) > 0 {
		require.NoError(t, labels.Delete("peer", peerDeletes...))
	}
	native, err = mask.Native(g, labels)
	require.NoError(t, err)
	auth, err = mask.Authenticated(g, labels, mask.Trust("trusted"))
	require.NoError(t, err)
	return native, auth
}

// viewDifference returns P'_A (the authenticated view's transition matrix
// without its dangling rows) and the differ and gainers lists
// ShareEstimates wants for the case's two views: the nodes whose P' row or
// column or out-weight differs, and those of them with an arc only the
// authenticated view has.
func viewDifference(c randomCase) (pA *mat.Dense, differ, gainers []uint32) {
	pG := denseP(c.native, c.seeds)
	pA = denseP(c.auth, c.seeds)
	dropDangling(pG, c.native)
	dropDangling(pA, c.auth)
	n, _ := pA.Dims()
	for u := range n {
		if !mat.Equal(pG.RowView(u), pA.RowView(u)) || !mat.Equal(pG.ColView(u), pA.ColView(u)) || c.native.OutWeight(uint32(u)) != c.auth.OutWeight(uint32(u)) {
			differ = append(differ, uint32(u))
		}
	}
	return pA, differ, gainersOf(c.auth, c.native, differ)
}

// nativeSelection solves a random case's certified top-k (k and the
// tolerance random) on its native view, as a guard's native side does; nil
// when the case is too small or undamped, or the solve hit its sweep cap.
func nativeSelection(t *testing.T, rng *rand.Rand, c randomCase) (*Engine, int, *TopKResult) {
	t.Helper()
	n := c.g.NumNodes()
	if n < 3 || c.damping == 0 {
		return nil, 0, nil
	}
	native, err := NewEngine(c.native, c.seeds, c.damping)
	require.NoError(t, err)
	k := 1 + rng.IntN(min(3, n-1))
	res, err := native.SolveTopK(k, nil, Options{Tol: []float64{1e-2, 1e-4, 1e-8}[rng.IntN(3)]})
	if err != nil {
		return nil, 0, nil
	}
	return native, k, res
}

// guardEngine returns an engine on the case's authenticated view in the
// state a guard proves with: the native solve's x, with its residual on
// this view (signed, as a correction leaves it).
func guardEngine(t *testing.T, c randomCase, native *Engine) *Engine {
	t.Helper()
	e, err := NewEngine(c.auth, c.seeds, c.damping)
	require.NoError(t, err)
	copy(e.X, native.X)
	e.SetResidual()
	return e
}

// viewDiffRows is DiffRows read from the views on every call, whole rows
// compared: the reference a host's table (replay's, computed once per pair
// of views) stands in for.
type viewDiffRows struct{ a, g *mask.View }

func (rd viewDiffRows) DiffRow(u uint32) (wA, wG float64, nbr []uint32, weight []float64, ok bool) {
	wA, wG = rd.a.OutWeight(u), rd.g.OutWeight(u)
	ra, rg := rd.a.OutRow(u), rd.g.OutRow(u)
	if len(ra.Nbr) > 0 && len(ra.Nbr) == len(rg.Nbr) && &ra.Nbr[0] == &rg.Nbr[0] {
		// The same graph row under two masks.
		for p, v := range ra.Nbr {
			if la, lg := ra.Live(p), rg.Live(p); la != lg {
				w := ra.Weight.At(p)
				if lg {
					w = -w
				}
				nbr, weight = append(nbr, v), append(weight, w)
			}
		}
		return wA, wG, nbr, weight, true
	}
	// Different rows (a patched view's): an edge id in one row's live arcs
	// and not the other's is an arc only that view has.
	inA, inG := map[uint32]bool{}, map[uint32]bool{}
	for p, e := range ra.Edge {
		inA[e] = inA[e] || ra.Live(p)
	}
	for p, e := range rg.Edge {
		if rg.Live(p) {
			inG[e] = true
			if !inA[e] {
				nbr, weight = append(nbr, rg.Nbr[p]), append(weight, -rg.Weight.At(p))
			}
		}
	}
	for p, e := range ra.Edge {
		if ra.Live(p) && !inG[e] {
			nbr, weight = append(nbr, ra.Nbr[p]), append(weight, ra.Weight.At(p))
		}
	}
	return wA, wG, nbr, weight, true
}

// rowDiffDot returns (P'_A[u] - P'_G[u]).q for the views a and g: u's
// live out-arcs' weights times q at their heads, over u's out-weight, in
// each (0 where u dangles, as P' has no row there). Rows that are the
// same graph row under two masks are read once.
func rowDiffDot(a, g *mask.View, u uint32, q []float64) float64 {
	invA, invG := a.InvOutWeights()[u], g.InvOutWeights()[u]
	ra, rg := a.OutRow(u), g.OutRow(u)
	if len(ra.Nbr) > 0 && len(ra.Nbr) == len(rg.Nbr) && &ra.Nbr[0] == &rg.Nbr[0] {
		sumA, sumG := 0.0, 0.0
		for p, w := range ra.Nbr {
			if q[w] == 0 {
				continue
			}
			wq := ra.Weight.At(p) * q[w]
			if ra.Live(p) {
				sumA += wq
			}
			if rg.Live(p) {
				sumG += wq
			}
		}
		return sumA*invA - sumG*invG
	}
	return rowDot(ra, invA, q) - rowDot(rg, invG, q)
}

// rowDot returns the row's live weights times q at their heads, times inv.
func rowDot(row mask.Row, inv float64, q []float64) float64 {
	if inv == 0 {
		return 0
	}
	sum := 0.0
	for p, w := range row.Nbr {
		if q[w] != 0 && row.Live(p) {
			sum += row.Weight.At(p) * q[w]
		}
	}
	return sum * inv
}

// diffChange, which reads a row's differing arcs and takes the rest from
// the donor's remainder, equals the reference d*rowDiffDot (both rows read
// whole) on every node an estimate reached and every gainer, over random
// views (graph rows under two masks) and pushes cut short by their
// budgets.
func TestRowDiffChangeMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(79, 80))
	compared, nonZero := 0, 0
	for range 300 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		d := []float64{0.5, 0.85, 0.95}[rng.IntN(3)]
		_, differ, gainers := viewDifference(c)
		e, err := NewEngine(c.auth, c.seeds, d)
		require.NoError(t, err)
		for range 3 {
			v := uint32(rng.IntN(n))
			eps := []float64{1, 0.1, 1e-4}[rng.IntN(3)]
			budget := []int64{math.MaxInt64, int64(rng.IntN(10))}[rng.IntN(2)]
			est := newReversePusher(n).push(c.native, d, v, eps, budget)
			sq := newReversePusher(n).spread(&est)
			q := sq.q
			check := func(u uint32, su float64) {
				want := d * rowDiffDot(c.auth, c.native, u, q)
				got, _, _, ok := diffChange(viewDiffRows{c.auth, c.native}, e.damping, u, u == est.origin(), su, sq)
				require.True(t, ok)
				require.InDeltaf(t, want, got, 1e-13*max(1, math.Abs(want)), "node %d (estimate of %d)", u, v)
				compared++
				if want != 0 {
					nonZero++
				}
			}
			reached := map[uint32]bool{}
			for i, u := range est.reached {
				reached[u] = true
				if slices.Contains(differ, u) {
					check(u, est.s[i])
				}
			}
			for _, u := range gainers {
				if !reached[u] {
					check(u, 0)
				}
			}
		}
	}
	require.Positive(t, compared)
	require.Positive(t, nonZero, "every change was zero")
}

// The same on patched views (a store version's): rows replaced in both
// views, compared by edge id.
func TestRowDiffChangeMatchesReferencePatched(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(81, 82))
	compared, nonZero := 0, 0
	for trial := range 200 {
		c, err := randgraph.NewDeltaCase(rng, trial%2 == 0, 20)
		require.NoError(t, err)
		g := c.Base.Graph()
		native, err := mask.WithDelta(mask.Full(g), c.Delta)
		require.NoError(t, err)
		// The authenticated view drops some of the added edges and some
		// of the graph's (the base's mask).
		ad := c.Delta
		ad.Src, ad.Dst, ad.Weight, ad.Edge = nil, nil, nil, nil
		for i := range c.Delta.Edge {
			if rng.IntN(3) > 0 {
				ad.Src, ad.Dst = append(ad.Src, c.Delta.Src[i]), append(ad.Dst, c.Delta.Dst[i])
				ad.Weight, ad.Edge = append(ad.Weight, c.Delta.Weight[i]), append(ad.Edge, c.Delta.Edge[i])
			}
		}
		auth, err := mask.WithDelta(c.Base, ad)
		require.NoError(t, err)
		n := native.NumNodes()
		d := []float64{0.5, 0.85}[rng.IntN(2)]
		e, err := NewEngine(auth, Seeds{Nodes: []uint32{0}, Weights: []float64{1}}, d)
		require.NoError(t, err)
		for range 3 {
			v := uint32(rng.IntN(n))
			est := newReversePusher(n).push(native, d, v, []float64{0.1, 1e-4}[rng.IntN(2)], math.MaxInt64)
			sq := newReversePusher(n).spread(&est)
			for i, u := range est.reached {
				want := d * rowDiffDot(auth, native, u, sq.q)
				got, _, _, ok := diffChange(viewDiffRows{auth, native}, e.damping, u, u == est.origin(), est.s[i], sq)
				require.True(t, ok)
				require.InDeltaf(t, want, got, 1e-13*max(1, math.Abs(want)), "trial %d: node %d (estimate of %d)", trial, u, v)
				compared++
				if want != 0 {
					nonZero++
				}
			}
		}
	}
	require.Positive(t, compared)
	require.Positive(t, nonZero, "every change was zero")
}

// requireHoldsGap fails unless iv holds the exact gap (to 1e-12).
func requireHoldsGap(t *testing.T, iv Interval, exact float64, format string, args ...any) {
	t.Helper()
	where := fmt.Sprintf(format, args...)
	require.LessOrEqualf(t, iv.Lo, exact+1e-12, "%s: lower end %g above the exact gap %g", where, iv.Lo, exact)
	require.GreaterOrEqualf(t, iv.Hi, exact-1e-12, "%s: upper end %g below the exact gap %g", where, iv.Hi, exact)
}

// scoredNodes returns the nodes as a selection (scores unset).
func scoredNodes(nodes []uint32) []Scored {
	out := make([]Scored, len(nodes))
	for i, v := range nodes {
		out[i].Node = v
	}
	return out
}
