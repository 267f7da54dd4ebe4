// Package reuse resizes scratch arrays in place: an engine or workspace
// moved to a view with a few more (or fewer) nodes keeps its storage
// instead of allocating arrays proportional to the graph again, which on a
// living store would cost a fresh O(n) allocation per version.
package reuse

// Slice returns s with n entries: its first min(len(s), n) kept and the
// rest zero. It reuses s's storage when its capacity allows; a new array
// has a sixteenth of headroom, so that growing by a few entries again
// allocates nothing.
func Slice[T any](s []T, n int) []T {
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		if n > old {
			clear(s[old:]) // the storage past len may hold an earlier, longer use's values
		}
		return s
	}
	out := make([]T, n, n+n/16)
	copy(out, s)
	return out
}
