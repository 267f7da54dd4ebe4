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

// Union is the sorted, deduplicated concatenation, and shares a when b is
// empty.
func TestUnionMatchesSortedConcatenation(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		draw := func() []uint32 {
			var s []uint32
			for range rng.IntN(12) {
				s = append(s, uint32(rng.IntN(40)))
			}
			slices.Sort(s)
			return slices.Compact(s)
		}
		a, b := draw(), draw()
		want := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a), b...))))
		if got := Union(a, b); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("trial %d: Union(%v, %v) = %v, want %v", trial, a, b, got, want)
		}
	}
	a := []uint32{1, 2}
	if got := Union(a, nil); &got[0] != &a[0] {
		t.Fatal("Union(a, nil) copied a")
	}
}
