package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

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
