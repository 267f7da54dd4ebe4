//go:build !cgo

package main

import "testing"

// Without cgo the exports and their C-side tests (cabi_test.go) are not
// built; the plain-Go layer is still tested (core_test.go).
func TestCABI(t *testing.T) {
	t.Skip("cabi: cgo unavailable (CGO_ENABLED=0 or no C compiler): C ABI tests skipped; core tests still run")
}
