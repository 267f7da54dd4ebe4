package crc32c

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The checksum of a‖b from the checksums of a and b is the checksum of the
// bytes, at awkward lengths.
func TestCombine(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 0xC0B))
	lengths := []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096, 65537}
	for _, la := range lengths {
		for _, lb := range lengths {
			ab := make([]byte, la+lb)
			for i := range ab {
				ab[i] = byte(r.Uint32())
			}
			a, b := ab[:la], ab[la:]
			got := Combine(crc32.Checksum(a, castagnoli), crc32.Checksum(b, castagnoli), uint64(lb))
			require.Equal(t, crc32.Checksum(ab, castagnoli), got, "lengths %d + %d", la, lb)
		}
	}
}

// x^(8n), a product of one table entry per byte of n, against its
// references: n multiplications by x^8 for a small n, and square and
// multiply over the bits of n for n up to 2^64 (lengths beyond 4 GiB, as a
// snapshot's sections reach).
func TestXPow8(t *testing.T) {
	t.Parallel()
	require.Equal(t, uint32(1)<<31, xpow8(0))
	p := uint32(1) << 31
	for range 0x10304 {
		p = mulmod(p, uint32(1)<<23)
	}
	require.Equal(t, p, xpow8(0x10304))
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		n := r.Uint64() >> r.IntN(64)
		require.Equal(t, xpow8Reference(n), xpow8(n), "n = %d", n)
	}
}

// xpow8Reference is x^(8n) by square and multiply: x^8 squared once per
// bit of n, multiplied in where the bit is set.
func xpow8Reference(n uint64) uint32 {
	pow := uint32(1) << 31 // x^0
	sq := uint32(1) << 30  // x^1
	for range 3 {
		sq = mulmod(sq, sq) // x^8
	}
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			pow = mulmod(sq, pow)
		}
		sq = mulmod(sq, sq)
	}
	return pow
}
