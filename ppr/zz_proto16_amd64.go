//go:build amd64 && !purego

package ppr

//go:noescape
func pushBatch16AVX512(offsets []int, nbr []uint32, wt, w []float64, x, r [][16]float64, lo, hi, arcLo, arcEnd int, d float64, dangling *[16]float64) (bad int)

//go:noescape
func l1Batch16AVX512(r [][16]float64, l1 *[16]float64)
