//go:build purego

package ppr

// uncheckedSet reports that purego builds have no unchecked kernels
// (kernel_unchecked.go is built without the tag).
func uncheckedSet() (pullSet, bool) { return pullSet{}, false }
