package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

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
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		d := []float64{0.5, 0.85, 0.95}[rng.IntN(3)]
		pG, pA := denseP(c.native, c.seeds), denseP(c.auth, c.seeds)
		dropDangling(pG, c.native)
		dropDangling(pA, c.auth)
		var differ []uint32
		for u := range n {
			if !mat.Equal(pG.RowView(u), pA.RowView(u)) || !mat.Equal(pG.ColView(u), pA.ColView(u)) {
				differ = append(differ, uint32(u))
			}
		}
		GA := denseInverse(t, pA, d)
		donor, err := NewEngine(c.native, c.seeds, d)
		require.NoError(t, err)
		e, err := NewEngine(c.auth, c.seeds, d)
		require.NoError(t, err)
		e.ShareEstimates(donor, differ, gainersOf(c.auth, c.native, differ))
		e.refine.pusher = newReversePusher(n)
		for range 3 {
			v := uint32(rng.IntN(n))
			eps := []float64{1, 0.1, 1e-4}[rng.IntN(3)]
			budget := []int64{math.MaxInt64, int64(rng.IntN(10))}[rng.IntN(2)]
			est := newReversePusher(n).push(c.native, d, v, eps, budget)
			got := e.refine.adapt(e, &est)
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
				want.addRemainder(s[u], c.auth.OutWeight(uint32(u)))
			}
			require.InDelta(t, want.MaxS, got.MaxS, 1e-15)
			require.InDelta(t, want.NegMaxS, got.NegMaxS, 1e-15)
			require.InDelta(t, want.SW, got.SW, 1e-12)
			require.InDelta(t, want.NegSW, got.NegSW, 1e-12)
			require.InDelta(t, want.SD, got.SD, 1e-12)
			require.InDelta(t, want.NegSD, got.NegSD, 1e-12)
			for u := range n {
				gap := GA.At(u, int(v)) - q[u]
				require.GreaterOrEqualf(t, gap, -got.NegMaxS/(1-d)-1e-12, "node %d below its column", u)
				require.LessOrEqualf(t, gap, got.MaxS/(1-d)+1e-12, "node %d above its column", u)
			}
			adapted++
			if got.NegMaxS > 0 {
				signed++
			}
			e.refine.free = append(e.refine.free, got)
		}
	}
	require.Positive(t, adapted)
	require.Positive(t, signed, "no case gave a negative remainder")
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
