// Package seedweights holds the one rule by which seed weights are
// normalised without overflow, shared by ppr.NewSeeds (sparse seeds) and
// cabi's dense reset vectors, so that the two normalise alike.
package seedweights

import "math"

// Scale is the factor seed weights are multiplied by before they are
// summed and normalised, given their largest weight top: 1 when top <= 1,
// else the power of two 2^-e that brings top into [1/2, 1) (top =
// f*2^e, f in [1/2, 1)). The sum of k scaled weights is then at most k,
// never infinite, and since scaling by a power of two is exact (short of
// subnormal results, below 2^-1022 of the largest weight) and scales every
// rounded sum alike, the normalised weights are those the unscaled sum
// gives whenever it is finite.
func Scale(top float64) float64 {
	if !(top > 1) {
		return 1
	}
	_, e := math.Frexp(top) // 1 <= e <= 1024: 2^-e is representable
	return math.Ldexp(1, -e)
}
