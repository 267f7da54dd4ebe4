//go:build !linux

package store

import "testing"

// mountTmpfs skips: the full-disk tests mount a small tmpfs, which needs
// Linux.
func mountTmpfs(t testing.TB, size int) string {
	t.Helper()
	t.Skip("the full-disk tests mount a small tmpfs: they need Linux and root (or CAP_SYS_ADMIN)")
	return ""
}

func growTmpfs(t testing.TB, dir string, size int) {}
