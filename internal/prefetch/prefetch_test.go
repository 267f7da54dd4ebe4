package prefetch

import (
	"slices"
	"testing"
	"unsafe"
)

// Pair is a hint: it never faults, on nil, on the ends of arrays or on
// addresses past them, and leaves the memory as it was.
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
	if !slices.Equal(xs, before) || !slices.Equal(ids, idsBefore) {
		t.Fatal("a prefetch changed memory")
	}
}
