package ppr

import (
	"math"

	"github.com/authppr/authppr/mask"
)

// ReferencePowerIteration is the plain power iteration
//
//	x <- alpha*s + d*x*P   (dangling mass of x sent to s)
//
// written independently of the engine (it scatters over the out-adjacency
// and tests every arc's mask with View.MaskedEdge) so that tests can compare
// the two. It stops when d*||x_new - x||_1/alpha <= tol, which bounds the
// error of x_new (the residual of x_new is d*(x_new - x)*P), or after
// maxIter iterations. It returns x and the iterations used.
func ReferencePowerIteration(view *mask.View, seeds Seeds, damping, tol float64, maxIter int) ([]float64, int) {
	g := view.Graph()
	n := g.NumNodes()
	alpha := 1 - damping
	s := seeds.Dense(n)
	x := make([]float64, n)
	copy(x, s)
	out := g.Out()
	for it := 1; it <= maxIter; it++ {
		next := make([]float64, n)
		dangling := 0.0
		for u := range n {
			wu := view.OutWeight(uint32(u))
			if wu == 0 {
				dangling += x[u]
				continue
			}
			for p := out.Offsets[u]; p < out.Offsets[u+1]; p++ {
				if !view.MaskedEdge(out.Edge[p]) {
					next[out.Nbr[p]] += damping * x[u] * out.Weight.At(p) / wu
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
