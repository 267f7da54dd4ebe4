//go:build amd64 && !purego

package ppr_test

import (
	"math/rand/v2"
	"testing"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

func BenchmarkZZProto16(b *testing.B) {
	for _, name := range []string{"kg", "rmat20"} {
		b.Run(name, func(b *testing.B) {
			g := anchorGraph(b, name)
			view := mask.Full(g)
			n := g.NumNodes()
			rng := rand.New(rand.NewPCG(5, 5))
			out := g.Out()
			var seeds []ppr.Seeds
			for range 16 {
				var in []ppr.Seed
				for len(in) < 5 {
					u := uint32(rng.IntN(n))
					if lo, hi := out.Span(u); hi > lo {
						in = append(in, ppr.Seed{Node: u, Weight: 1})
					}
				}
				s, _ := ppr.NewSeeds(n, in)
				seeds = append(seeds, s)
			}
			d, sweeps := 0.5, 12
			if name == "rmat20" {
				d, sweeps = 0.85, 40
			}
			for range b.N {
				t8, t16, err := ppr.Proto16(view, seeds, d, sweeps)
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %d sweeps: two width-8 %.1f ms, one width-16 %.1f ms, ratio %.3f", name, sweeps, float64(t8)/1e6, float64(t16)/1e6, float64(t16)/float64(t8))
			}
		})
	}
}
