package prefetch

import (
	"slices"
	"testing"
	"unsafe"
)

// Pair and Indexed are hints: they never fault, on nil, on the ends of
// arrays or on addresses past them, and leave the memory as they found it.
func TestPairChangesNothing(t *testing.T) {
	t.Parallel()
	xs := []float64{1, 2, 3, 4}
	ids := make([]uint32, 1<<16)
	for i := range ids {
		ids[i] = uint32(i * 7)
	}
	before, idsBefore := slices.Clone(xs), slices.Clone(ids)
	Pair(nil, nil)
	Pair(unsafe.Pointer(&xs[0]), unsafe.Pointer(&xs[3]))
	Pair(unsafe.Pointer(&ids[0]), unsafe.Pointer(&ids[len(ids)-1]))
	past := unsafe.Add(unsafe.Pointer(&ids[len(ids)-1]), 1<<20)
	Pair(past, nil)
	Indexed(unsafe.Pointer(&xs[0]), unsafe.Pointer(&xs[0]), []uint32{0, 3, 1 << 20, 1<<32 - 1})
	Indexed(nil, nil, ids[:100])
	Indexed(unsafe.Pointer(&xs[0]), nil, nil)
	if !slices.Equal(xs, before) || !slices.Equal(ids, idsBefore) {
		t.Fatal("a prefetch changed memory")
	}
}
