package rowindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Index and Row, and Ranks.Index, agree with a linear search over the
// nodes, for views of awkward sizes around the 64-bit words and rows of
// random lengths.
func TestIndexMatchesLinearSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 1000} {
		for _, density := range []float64{0, 0.1, 0.5, 1} {
			var nodes []uint32
			var nbr [][]uint32
			var weight [][]float64
			for u := range uint32(n) {
				if rng.Float64() >= density {
					continue
				}
				nodes = append(nodes, u)
				var rn []uint32
				var rw []float64
				for range rng.IntN(4) {
					rn = append(rn, uint32(rng.IntN(n)))
					rw = append(rw, rng.Float64())
				}
				nbr, weight = append(nbr, rn), append(weight, rw)
			}
			r := New(nodes, nbr, weight, n)
			ranks := NewRanks(nodes, n)
			for u := range uint32(n) {
				want, _ := slices.BinarySearch(nodes, u)
				if want >= len(nodes) || nodes[want] != u {
					want = -1
				}
				got := r.Index(u)
				if got != want {
					t.Fatalf("n %d density %v: Index(%d) = %d, want %d", n, density, u, got, want)
				}
				if g := ranks.Index(u); g != want {
					t.Fatalf("n %d density %v: Ranks.Index(%d) = %d, want %d", n, density, u, g, want)
				}
				if bit := r.Bits()[u/64]&(1<<(u%64)) != 0; bit != (want >= 0) {
					t.Fatalf("n %d density %v: bit of node %d is %v", n, density, u, bit)
				}
				if want < 0 {
					continue
				}
				gn, gw := r.Row(got)
				if !slices.Equal(gn, nbr[want]) || !slices.Equal(gw, weight[want]) {
					t.Fatalf("n %d density %v: Row of node %d is %v %v, want %v %v", n, density, u, gn, gw, nbr[want], weight[want])
				}
			}
		}
	}
}
