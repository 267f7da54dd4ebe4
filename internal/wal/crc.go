package wal

import (
	"hash/crc32"
	"sync"
)

// Checksums of arbitrary ranges of a buffer, in constant time each, for
// the search of a damaged version-1 log (findRecord1): a version-1 header
// has no checksum of its own, so every offset whose length fits is a
// candidate, and checksumming each candidate's payload directly
// (crc32.Checksum, the reference rangeSums.sum must match) costs the sum
// of their lengths: quadratic in the bytes searched.

// castagnoliPoly is the CRC-32C polynomial bit-reversed, as hash/crc32
// computes it (crc32.Castagnoli); in this representation bit 31 is x^0.
const castagnoliPoly = crc32.Castagnoli

// mulmod returns a·b modulo the CRC-32C polynomial, both bit-reversed
// (zlib's multmodp).
func mulmod(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ castagnoliPoly
		} else {
			b >>= 1
		}
	}
	return p
}

// shiftTables holds, for i = 0..3 and b = 0..255, x^(8·b·256^i) modulo
// the polynomial, so that x^(8n) is the product of one entry per byte of n.
var shiftTables = sync.OnceValue(func() *[4][256]uint32 {
	var t [4][256]uint32
	base := uint32(1) << (31 - 8) // x^8: one byte
	for i := range t {
		t[i][0] = 1 << 31 // x^0
		for b := 1; b < 256; b++ {
			t[i][b] = mulmod(t[i][b-1], base)
		}
		base = mulmod(t[i][255], base) // x^(8·256^(i+1))
	}
	return &t
})

// xpow8 returns x^(8n) modulo the polynomial: what a checksum is
// multiplied by when n bytes follow the bytes it covers.
func xpow8(n uint32) uint32 {
	t := shiftTables()
	p := t[0][n&0xff]
	for i := 1; i < 4; i++ {
		if b := n >> (8 * i) & 0xff; b != 0 {
			p = mulmod(p, t[i][b])
		}
	}
	return p
}

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

// sum returns crc32.Checksum(data[a:b], castagnoli), its reference. For
// the CRC-32C of a message A‖B, crc(A‖B) = crc(A)·x^(8|B|) ⊕ crc(B): the
// register after A is carried through |B| more bytes, and the initial and
// final inversions cancel (zlib's crc32_combine). With A = data[:a] and B =
// data[a:b], crc(B) = crc(data[:b]) ⊕ crc(data[:a])·x^(8(b-a)).
func (r *rangeSums) sum(a, b int) uint32 {
	return r.prefix(b) ^ mulmod(r.prefix(a), xpow8(uint32(b-a)))
}
