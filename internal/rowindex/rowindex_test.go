package rowindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Index and Row agree with a linear search over the nodes, for views of
// awkward sizes around the 64-bit words and rows of random lengths.
func TestIndexMatchesLinearSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 1000} {
		for _, density := range []float64{0, 0.1, 0.5, 1} {
			var nodes []uint32
			offsets := []int{0}
			var nbr []uint32
			var weight []float64
			for u := range uint32(n) {
				if rng.Float64() >= density {
					continue
				}
				nodes = append(nodes, u)
				for range rng.IntN(4) {
					nbr = append(nbr, uint32(rng.IntN(n)))
					weight = append(weight, rng.Float64())
				}
				offsets = append(offsets, len(nbr))
			}
			r := New(nodes, offsets, nbr, weight, n)
			for u := range uint32(n) {
				want, _ := slices.BinarySearch(nodes, u)
				if want >= len(nodes) || nodes[want] != u {
					want = -1
				}
				got := r.Index(u)
				if got != want {
					t.Fatalf("n %d density %v: Index(%d) = %d, want %d", n, density, u, got, want)
				}
				if bit := r.Bits()[u/64]&(1<<(u%64)) != 0; bit != (want >= 0) {
					t.Fatalf("n %d density %v: bit of node %d is %v", n, density, u, bit)
				}
				if want < 0 {
					continue
				}
				gn, gw := r.Row(got)
				lo, hi := offsets[want], offsets[want+1]
				if !slices.Equal(gn, nbr[lo:hi]) || !slices.Equal(gw, weight[lo:hi]) || cap(gn) != hi-lo || cap(gw) != hi-lo {
					t.Fatalf("n %d density %v: Row of node %d is %v %v, want %v %v (capacity cut)", n, density, u, gn, gw, nbr[lo:hi], weight[lo:hi])
				}
			}
		}
	}
}
