//go:build amd64 && !purego

package prefetch

import "unsafe"

// Pair asks for the cache lines holding a and b.
//
//go:noescape
func Pair(a, b unsafe.Pointer)

// Indexed asks for the lines of a[i] and b[i] for every i in idx, a and b
// the first elements of arrays of 8-byte elements: one call for a run of
// indices, where Pair costs a call each.
//
//go:noescape
func Indexed(a, b unsafe.Pointer, idx []uint32)
