//go:build !amd64 || purego

package prefetch

import "unsafe"

// Pair asks for the cache lines holding a and b: a no-op in this build.
func Pair(a, b unsafe.Pointer) {}

// Indexed asks for the lines of a[i] and b[i] for every i in idx: a no-op
// in this build.
func Indexed(a, b unsafe.Pointer, idx []uint32) {}
