//go:build !amd64 || purego

package prefetch

import "unsafe"

// Pair asks for the cache lines holding a and b: a no-op in this build.
func Pair(a, b unsafe.Pointer) {}
