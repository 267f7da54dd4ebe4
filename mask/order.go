package mask

import "math"

// byDescendingWeight returns the ids 0..len(w)-1 by descending w, ties by
// id. Out-weights are sums of non-negative weights, so +0 or positive, and
// for those the bits order as the values: an LSD radix sort on the
// complemented bits, a byte per pass, each pass stable (so ties stay in id
// order), skipping the bytes every key shares. The eight byte counts are
// taken in one pass: counted a byte at a time, a byte that every key
// shares incremented one counter per key, each increment waiting on the
// last, which cost more than a certified query on WN18RR; a comparison
// sort cost more still. byDescendingWeightReference (in the tests) is the
// sort it must match.
func byDescendingWeight(w []float64) []uint32 {
	n := len(w)
	ids, idTmp := make([]uint32, n), make([]uint32, n)
	keys, keyTmp := make([]uint64, n), make([]uint64, n)
	var count [8][256]int
	for u, wu := range w {
		k := ^math.Float64bits(wu)
		ids[u], keys[u] = uint32(u), k
		for b := range count {
			count[b][byte(k>>(8*b))]++
		}
	}
	for b := range count {
		if n == 0 || count[b][byte(keys[0]>>(8*b))] == n {
			continue
		}
		var start [256]int
		for c := 1; c < len(start); c++ {
			start[c] = start[c-1] + count[b][c-1]
		}
		shift := 8 * b
		for i, k := range keys {
			c := byte(k >> shift)
			keyTmp[start[c]], idTmp[start[c]] = k, ids[i]
			start[c]++
		}
		ids, idTmp, keys, keyTmp = idTmp, ids, keyTmp, keys
	}
	return ids
}
