package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/authppr/authppr/csr"
)

// RMAT generates a directed R-MAT graph with Graph500's parameters
// (a, b, c) = (0.57, 0.19, 0.19): 2^scale nodes, edgefactor*2^scale edge
// draws, self-loops dropped (duplicates kept: they are parallel edges),
// node ids permuted at random so they carry no locality, weights uniform in
// [0.1, 1). Node names are the permuted ids in decimal.
func RMAT(scale, edgefactor int, seed uint64) (*csr.Graph, error) {
	if scale < 1 || scale > 30 || edgefactor < 1 {
		return nil, fmt.Errorf("bench: R-MAT scale %d, edge factor %d: want 1 <= scale <= 30, edge factor >= 1", scale, edgefactor)
	}
	const a, b, c = 0.57, 0.19, 0.19
	rng := rand.New(rand.NewPCG(seed, 0x726d6174))
	n := 1 << scale
	perm := rng.Perm(n)
	bld := csr.NewBuilder(true)
	for u := range n {
		if _, err := bld.AddNode(strconv.Itoa(perm[u])); err != nil {
			return nil, err
		}
	}
	for range edgefactor * n {
		src, dst := 0, 0
		for lvl := range scale {
			r := rng.Float64()
			bit := 1 << lvl
			switch {
			case r < a:
			case r < a+b:
				dst |= bit
			case r < a+b+c:
				src |= bit
			default:
				src |= bit
				dst |= bit
			}
		}
		if src == dst {
			continue
		}
		if _, err := bld.AddEdge(csr.Input{Src: strconv.Itoa(perm[src]), Dst: strconv.Itoa(perm[dst]), Weight: 0.1 + 0.9*rng.Float64()}); err != nil {
			return nil, err
		}
	}
	return bld.Build()
}
