//go:build !linux

package ppr_test

// threadCPU reports that this system has no per-thread CPU clock here.
func threadCPU() (int64, bool) { return 0, false }
