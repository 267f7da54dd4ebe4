//go:build !amd64 || purego

package ppr

import "unsafe"

// prefetchPair is a no-op where there is no assembly hint (see
// prefetch_amd64.go).
func prefetchPair(a, b unsafe.Pointer) {}
