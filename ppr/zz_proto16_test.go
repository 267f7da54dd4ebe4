//go:build amd64 && !purego

package ppr

import (
	"fmt"
	"time"

	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/mask"
)

func Proto16(view *mask.View, seeds []Seeds, d float64, sweeps int) (time.Duration, time.Duration, error) {
	n := view.Graph().NumNodes()
	out := view.Graph().Out()
	b := struct{ N int }{1}
	old := pulls
	pulls = pullSetFor(cpu.AVX512)
	defer func() { pulls = old }()
	w := view.OutWeights()
	b8 := newBatch(view, d)
	x16, r16 := make([][16]float64, n), make([][16]float64, n)
	for range b.N {
		t0 := time.Now()
		for half := range 2 {
			clear(b8.x)
			clear(b8.r)
			b8.seeds = seeds[half*8 : half*8+8]
			for j, s := range b8.seeds {
				for i, u := range s.Nodes {
					b8.r[u][j] = b8.alpha * s.Weights[i]
				}
			}
			for range sweeps {
				b8.pushSweep()
			}
		}
		t8 := time.Since(t0)
		t0 = time.Now()
		clear(x16)
		clear(r16)
		for j, s := range seeds {
			for i, u := range s.Nodes {
				r16[u][j] = (1 - d) * s.Weights[i]
			}
		}
		for range sweeps {
			var dangling, l1 [16]float64
			if pushBatch16AVX512(out.Offsets, out.Nbr, out.Weight, w, x16, r16, 0, n, 0, len(out.Nbr), d, &dangling) != 0 {
				return 0, 0, fmt.Errorf("bad")
			}
			for j, s := range seeds {
				if dangling[j] == 0 {
					continue
				}
				for i, u := range s.Nodes {
					r16[u][j] += d * dangling[j] * s.Weights[i]
				}
			}
			l1Batch16AVX512(r16, &l1)
		}
		t16 := time.Since(t0)
		// same answers
		for u := range n {
			for j := range 8 {
				if x16[u][j+8] != b8.x[u][j] {
					return 0, 0, fmt.Errorf("differ at %d %d", u, j)
				}
			}
		}
		return t8, t16, nil
	}
	return 0, 0, nil
}
