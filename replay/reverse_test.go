package replay

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// column returns y = G'*e_v, G' = (I - d*P')^-1 with the view's dangling
// rows dropped, by summing y = e_v + d*P'*y to convergence.
func column(view *mask.View, v uint32, d float64) []float64 {
	g := view.Graph()
	out := g.Out()
	n := g.NumNodes()
	y := make([]float64, n)
	for range 10000 {
		next := make([]float64, n)
		next[v] = 1
		change := 0.0
		for u := range n {
			wu := view.OutWeight(uint32(u))
			if wu == 0 {
				continue
			}
			for p := out.Offsets[u]; p < out.Offsets[u+1]; p++ {
				if !view.MaskedEdge(out.Edge[p]) {
					next[u] += d * out.Weight.At(p) / wu * y[out.Nbr[p]]
				}
			}
		}
		for u := range n {
			change = max(change, math.Abs(next[u]-y[u]))
		}
		y = next
		if change < 1e-16 {
			break
		}
	}
	return y
}

// A reverse push brackets the column it estimates: 0 <= y - q <= maxS/alpha,
// at every threshold and when its budget stops it early.
func TestReversePushBracketsTheColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for range 60 {
		sc := randomScenario(t, rng, 3+rng.IntN(40), true, 0.3)
		auth, err := mask.Authenticated(sc.g, sc.labels, sc.trust)
		require.NoError(t, err)
		n := sc.g.NumNodes()
		d := []float64{0.5, 0.85, 0.95}[rng.IntN(3)]
		rp := newReversePusher(n)
		v := uint32(rng.IntN(n))
		y := column(auth, v, d)
		for _, eps := range []float64{1, 0.3, 0.01, 1e-6} {
			for _, budget := range []int64{math.MaxInt64, int64(rng.IntN(10))} {
				e := rp.Push(auth, d, v, eps, budget)
				q := make([]float64, n)
				for i, u := range e.Nodes {
					q[u] = e.Q[i]
				}
				for u := range n {
					gap := y[u] - q[u]
					require.GreaterOrEqualf(t, gap, -1e-12, "node %d below its estimate", u)
					require.LessOrEqualf(t, gap, e.MaxS/(1-d)+1e-12, "node %d: y-q = %g, maxS = %g", u, gap, e.MaxS)
				}
				if budget == math.MaxInt64 {
					require.LessOrEqual(t, e.MaxS, eps)
				}
			}
		}
	}
}

// The identity behind directed refinement: for any state x of the
// authenticated view with residual r, pi_A = (x + r*G')/(1 - c) with
// c = (d/alpha)*(r.h), h = G'*1_D, and |c| <= d*||r||_1/alpha^2.
func TestDanglingSplitIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for range 60 {
		sc := randomScenario(t, rng, 3+rng.IntN(30), true, 0.3)
		auth, err := mask.Authenticated(sc.g, sc.labels, sc.trust)
		require.NoError(t, err)
		n := sc.g.NumNodes()
		q := randomQuery(rng, n)
		seeds, err := ppr.NewSeeds(n, q.Seeds)
		require.NoError(t, err)
		d, alpha := q.Damping, 1-q.Damping
		exact, err := ppr.Solve(auth, seeds, d, ppr.Options{Tol: 1e-15})
		require.NoError(t, err)
		// A rough state: a few sweeps from zero.
		eng, err := ppr.NewEngine(auth, seeds, d)
		require.NoError(t, err)
		for range rng.IntN(4) {
			eng.Sweep()
		}
		x, r := eng.X, eng.R
		l1 := 0.0
		for _, ru := range r {
			l1 += math.Abs(ru)
		}
		rh := 0.0
		for w := range n {
			if auth.OutWeight(uint32(w)) == 0 { // h = G'*1_D = sum of D's columns
				col := column(auth, uint32(w), d)
				for u := range n {
					rh += r[u] * col[u]
				}
			}
		}
		c := d / alpha * rh
		require.LessOrEqual(t, math.Abs(c), d*l1/(alpha*alpha)+1e-12)
		for v := range n {
			col := column(auth, uint32(v), d)
			rg := 0.0
			for u := range n {
				rg += r[u] * col[u]
			}
			require.InDeltaf(t, exact.Scores[v], (x[v]+rg)/(1-c), 1e-9, "node %d (c = %g)", v, c)
		}
	}
}
