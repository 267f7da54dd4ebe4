package nodeset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The set against a map, at awkward sizes.
func TestSetMatchesMap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 63, 64, 65, 127, 128, 129, 1000} {
		s := New(n)
		want := map[uint32]bool{}
		for range 3 * n {
			v := uint32(rng.IntN(n))
			s.Add(v)
			want[v] = true
		}
		other := make([]uint64, len(s.Words()))
		extra := uint32(rng.IntN(n))
		other[extra/64] |= 1 << (extra % 64)
		s.Or(other)
		want[extra] = true
		var keys []uint32
		for v := range want {
			keys = append(keys, v)
		}
		slices.Sort(keys)
		if got := s.AppendNodes(nil); !slices.Equal(got, keys) {
			t.Fatalf("n %d: members %v, want %v", n, got, keys)
		}
		for v := range uint32(n) {
			if s.Has(v) != want[v] {
				t.Fatalf("n %d: Has(%d) = %v", n, v, s.Has(v))
			}
		}
		s.Reset()
		if got := s.AppendNodes(nil); len(got) != 0 {
			t.Fatalf("n %d: %v after Reset", n, got)
		}
	}
}

// Resize keeps the members below the new size, drops the others (so a
// later growth does not bring them back), and grows empty.
func TestResizeKeepsMembersBelow(t *testing.T) {
	t.Parallel()
	s := New(130)
	for _, v := range []uint32{1, 63, 64, 100, 129} {
		s.Add(v)
	}
	s.Resize(100)
	if got := s.AppendNodes(nil); !slices.Equal(got, []uint32{1, 63, 64}) {
		t.Fatalf("after shrinking to 100: %v", got)
	}
	s.Resize(200)
	if got := s.AppendNodes(nil); !slices.Equal(got, []uint32{1, 63, 64}) {
		t.Fatalf("after growing to 200: %v, members dropped by shrinking must stay dropped", got)
	}
	s.Add(199)
	if !s.Has(199) {
		t.Fatal("199 not added after growing")
	}
}
