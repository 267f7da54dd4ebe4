package reference

import (
	"math"

	"github.com/authppr/authppr/mask"
)

// PowerIteration is the plain power iteration
//
//	x <- alpha*s + d*x*P   (dangling mass of x sent to s)
//
// for the seed vector s given sparsely (weights[i] at nodes[i], summing to
// 1, as ppr.Seeds holds it), written independently of ppr's engine: it
// scatters over each node's View.OutRow and tests every arc with Row.Live,
// so that tests can compare the two, on patched views too. It stops when
// d*||x_new - x||_1/alpha <= tol, which bounds the error of x_new (the
// residual of x_new is d*(x_new - x)*P), or after maxIter iterations. It
// returns x and the iterations used.
func PowerIteration(view *mask.View, nodes []uint32, weights []float64, damping, tol float64, maxIter int) ([]float64, int) {
	n := view.NumNodes()
	alpha := 1 - damping
	s := make([]float64, n)
	for i, u := range nodes {
		s[u] = weights[i]
	}
	x := make([]float64, n)
	copy(x, s)
	for it := 1; it <= maxIter; it++ {
		next := make([]float64, n)
		dangling := 0.0
		for u := range n {
			wu := view.OutWeight(uint32(u))
			if wu == 0 {
				dangling += x[u]
				continue
			}
			row := view.OutRow(uint32(u))
			for p, v := range row.Nbr {
				if row.Live(p) {
					next[v] += damping * x[u] * row.Weight.At(p) / wu
				}
			}
		}
		diff := 0.0
		for v := range n {
			next[v] += (alpha + damping*dangling) * s[v]
			diff += math.Abs(next[v] - x[v])
		}
		x = next
		if damping*diff/alpha <= tol {
			return x, it
		}
	}
	return x, maxIter
}
