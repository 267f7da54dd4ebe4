//go:build amd64 && !purego

package prefetch

import "unsafe"

// Pair asks for the cache lines holding a and b.
//
//go:noescape
func Pair(a, b unsafe.Pointer)
