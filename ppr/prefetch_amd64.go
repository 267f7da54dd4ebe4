//go:build amd64 && !purego

package ppr

import "unsafe"

// prefetchPair asks the CPU to bring the cache lines holding a and b into
// its caches (PREFETCHT0). It is a hint: it reads and writes no memory a
// program can see and never faults, whatever the addresses, so results
// are the same with it and without (prefetch_other.go, and test.sh's
// purego pass).
//
//go:noescape
func prefetchPair(a, b unsafe.Pointer)
