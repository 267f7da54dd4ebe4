// Package nodeset is a set of node ids kept as a bitset, for the push
// engines and the callers that follow which nodes a push changed (ppr's
// Engine.Support, replay's guard): insertion is one OR, reset and
// iteration cost O(n/64) words (a few microseconds for a million nodes),
// and push kernels merge whole frontier words into it.
package nodeset

import (
	"math/bits"
	"slices"

	"github.com/authppr/authppr/internal/reuse"
)

// Set is a set of node ids below the n it was made for.
type Set struct {
	words []uint64
}

// New returns an empty set over n nodes.
func New(n int) *Set { return &Set{words: make([]uint64, (n+63)/64)} }

// Resize makes the set one over n nodes, keeping the members below n and
// its storage where it fits.
func (s *Set) Resize(n int) { s.words = reuse.Slice(s.words, (n+63)/64); s.clearFrom(n) }

// clearFrom removes the members at or above n from the set's last word.
func (s *Set) clearFrom(n int) {
	if r := n % 64; r != 0 {
		s.words[n/64] &= 1<<r - 1
	}
}

// Add inserts v.
func (s *Set) Add(v uint32) { s.words[v/64] |= 1 << (v % 64) }

// Has reports whether v is in the set.
func (s *Set) Has(v uint32) bool { return s.words[v/64]&(1<<(v%64)) != 0 }

// Reset empties the set.
func (s *Set) Reset() { clear(s.words) }

// AppendNodes appends the members to dst in ascending order, growing dst
// once (a count of the members first: O(n/64) words).
func (s *Set) AppendNodes(dst []uint32) []uint32 {
	count := 0
	for _, word := range s.words {
		count += bits.OnesCount64(word)
	}
	dst = slices.Grow(dst, count)
	for wi, word := range s.words {
		for word != 0 {
			dst = append(dst, uint32(wi*64+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return dst
}

// Words returns the set's words (bit v%64 of word v/64 holds v), shared
// with the set: kernels read and set members in them directly.
func (s *Set) Words() []uint64 { return s.words }

// Or merges a bitset of the same number of words into the set.
func (s *Set) Or(b []uint64) {
	b = b[:len(s.words)]
	for i, w := range b {
		s.words[i] |= w
	}
}

// Union returns the sorted union of two ascending lists of distinct node
// ids, merged in one pass: a itself when b is empty (shared, not copied),
// else a new list.
func Union(a, b []uint32) []uint32 {
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
