// Package crc32c combines CRC-32C checksums (hash/crc32's Castagnoli)
// without the bytes: the checksum of a‖b from those of a and b and b's
// length. The log searches a damaged record by checksums of arbitrary
// ranges from prefix checksums, and the snapshot joins the checksums its
// parallel lanes computed; both use Combine.
package crc32c

import (
	"hash/crc32"
	"sync"
)

// poly is the CRC-32C polynomial in hash/crc32's bit order: bit 31 is the
// coefficient of x^0.
const poly = crc32.Castagnoli

// Combine returns the CRC-32C of a‖b from crcA = CRC-32C(a), crcB =
// CRC-32C(b) and len(b) (zlib's crc32_combine): appending b carries a's
// register through len(b) more bytes, a multiplication by x^(8·len(b))
// modulo the polynomial, and the initial and final inversions of the two
// checksums cancel, so CRC(a‖b) = CRC(a)·x^(8·len(b)) ⊕ CRC(b). Its cost is
// at most eight multiplications, whatever the length.
func Combine(crcA, crcB uint32, lenB uint64) uint32 {
	return mulmod(crcA, xpow8(lenB)) ^ crcB
}

// mulmod returns a·b modulo the polynomial, both in hash/crc32's bit order
// (zlib's multmodp).
func mulmod(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

// shiftTables holds, for i = 0..7 and b = 0..255, x^(8·b·256^i) modulo
// the polynomial, so that x^(8n) is the product of one entry per byte of n.
var shiftTables = sync.OnceValue(func() *[8][256]uint32 {
	var t [8][256]uint32
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
func xpow8(n uint64) uint32 {
	t := shiftTables()
	p := t[0][n&0xff]
	for i := 1; i < 8; i++ {
		if b := n >> (8 * i) & 0xff; b != 0 {
			p = mulmod(p, t[i][b])
		}
	}
	return p
}
