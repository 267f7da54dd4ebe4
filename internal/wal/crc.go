package wal

import (
	"hash/crc32"

	"github.com/authppr/authppr/internal/crc32c"
)

// Checksums of arbitrary ranges of a buffer, in constant time each, for
// the search of a damaged version-1 log (findRecord1): a version-1 header
// has no checksum of its own, so every offset whose length fits is a
// candidate, and checksumming each candidate's payload directly
// (crc32.Checksum, the reference rangeSums.sum must match) costs the sum
// of their lengths: quadratic in the bytes searched.

// sumStride is the spacing of the prefix checksums rangeSums keeps.
const sumStride = 64

// rangeSums answers the CRC-32C of any range of data from prefix
// checksums kept every sumStride bytes (4 bytes per 64 of data).
type rangeSums struct {
	data []byte
	at   []uint32 // at[i] is the CRC-32C of data[:i*sumStride]
}

func newRangeSums(data []byte) *rangeSums {
	r := &rangeSums{data: data, at: make([]uint32, len(data)/sumStride+1)}
	for i := 1; i < len(r.at); i++ {
		r.at[i] = crc32.Update(r.at[i-1], castagnoli, data[(i-1)*sumStride:i*sumStride])
	}
	return r
}

// prefix returns the CRC-32C of data[:k].
func (r *rangeSums) prefix(k int) uint32 {
	i := k / sumStride
	return crc32.Update(r.at[i], castagnoli, r.data[i*sumStride:k])
}

// sum returns crc32.Checksum(data[a:b], castagnoli), its reference. With
// A = data[:a] and B = data[a:b], crc(A‖B) = crc(A)·x^(8|B|) ⊕ crc(B)
// (crc32c.Combine), and over GF(2) that gives crc(B) = crc(data[:b]) ⊕
// crc(data[:a])·x^(8(b-a)) = Combine(crc(data[:a]), crc(data[:b]), b-a).
func (r *rangeSums) sum(a, b int) uint32 {
	return crc32c.Combine(r.prefix(a), r.prefix(b), uint64(b-a))
}
