package ppr

import (
	"math"

	"github.com/authppr/authppr/mask"
)

// ReferencePowerIteration is the plain power iteration
//
//	x <- alpha*s + d*x*P   (dangling mass of x sent to s)
//
// written independently of the engine (it scatters over each node's
// View.OutRow and tests every arc with Row.Live) so that tests can compare
// the two, on patched views too. It stops when d*||x_new - x||_1/alpha <= tol, which bounds the
// error of x_new (the residual of x_new is d*(x_new - x)*P), or after
// maxIter iterations. It returns x and the iterations used.
func ReferencePowerIteration(view *mask.View, seeds Seeds, damping, tol float64, maxIter int) ([]float64, int) {
	n := view.NumNodes()
	alpha := 1 - damping
	s := seeds.Dense(n)
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
