//go:build !linux

package store

// lowerThreadPriority is a no-op where threads have no priority of their own.
func lowerThreadPriority(int) error { return nil }
