package wal

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// rangeSums.sum matches its reference, crc32.Checksum over the range, at
// every range of a buffer of awkward length (around the stride), and at
// random ranges of a large one.
func TestRangeSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	small := make([]byte, 3*sumStride+5)
	for i := range small {
		small[i] = byte(rng.Uint32())
	}
	small[70], small[71] = 0, 0
	r := newRangeSums(small)
	for a := 0; a <= len(small); a++ {
		for b := a; b <= len(small); b++ {
			require.Equal(t, crc32.Checksum(small[a:b], castagnoli), r.sum(a, b), "[%d:%d]", a, b)
		}
	}
	for _, n := range []int{0, 1, sumStride - 1, sumStride, sumStride + 1} {
		r := newRangeSums(small[:n])
		require.Equal(t, crc32.Checksum(small[:n], castagnoli), r.sum(0, n), "length %d", n)
	}
	large := make([]byte, 3<<20+17)
	for i := range large {
		large[i] = byte(rng.Uint32())
	}
	r = newRangeSums(large)
	for range 300 {
		a := rng.IntN(len(large) + 1)
		b := a + rng.IntN(len(large)-a+1)
		require.Equal(t, crc32.Checksum(large[a:b], castagnoli), r.sum(a, b), "[%d:%d]", a, b)
	}
	require.Equal(t, crc32.Checksum(large, castagnoli), r.sum(0, len(large)))
	// x^(8n) itself: crc32c's TestXPow8.
}
