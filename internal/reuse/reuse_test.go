package reuse

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Slice keeps the prefix, zeroes what it adds (also storage an earlier,
// longer use left dirty), and reuses storage within the capacity.
func TestSliceKeepsPrefixAndZeroesTheRest(t *testing.T) {
	t.Parallel()
	s := Slice([]int(nil), 10)
	require.Len(t, s, 10)
	require.GreaterOrEqual(t, cap(s), 10)
	for i := range s {
		s[i] = i + 1
	}
	short := Slice(s, 4)
	require.Equal(t, []int{1, 2, 3, 4}, short)
	require.Same(t, &s[0], &short[0], "shrinking reuses the storage")
	long := Slice(short, 10)
	require.Same(t, &s[0], &long[0], "growing within the capacity reuses the storage")
	require.Equal(t, []int{1, 2, 3, 4, 0, 0, 0, 0, 0, 0}, long, "the grown part is zero, not the old values")
	grown := Slice(long, cap(long)+1)
	require.Len(t, grown, cap(long)+1)
	require.Equal(t, long, grown[:10])
	for _, v := range grown[10:] {
		require.Zero(t, v)
	}
	big := Slice([]int(nil), 1000)
	require.Greater(t, cap(big), len(big), "a new array has headroom")
}
