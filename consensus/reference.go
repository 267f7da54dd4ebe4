package consensus

import (
	"fmt"
	"slices"
)

// maxBruteItems is the largest k selectBrute accepts.
const maxBruteItems = 20

// selectBrute is the reference for Select: it enumerates all 2^k subsets
// (k <= maxBruteItems), keeps the independent ones of maximum size and
// among those the lexicographically smallest ascending index tuple,
// compared element by element with slices.Compare. It shares no code with
// the branch and bound except Graph.contradicts.
func selectBrute(g *Graph) ([]int, error) {
	k := g.k
	if k > maxBruteItems {
		return nil, fmt.Errorf("consensus: brute force over %d items, want at most %d", k, maxBruteItems)
	}
	nbr := make([]uint32, k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if g.contradicts(i, j) {
				nbr[i] |= 1 << j
			}
		}
	}
	best := []int{}
	var set []int
	for mask := uint32(0); mask < 1<<k; mask++ {
		set = set[:0]
		ok := true
		for i := 0; i < k && ok; i++ {
			if mask>>i&1 == 1 {
				ok = nbr[i]&mask == 0
				set = append(set, i)
			}
		}
		if !ok || len(set) < len(best) {
			continue
		}
		if len(set) > len(best) || slices.Compare(set, best) < 0 {
			best = slices.Clone(set)
		}
	}
	return best, nil
}
