package cpu

import (
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLevels(t *testing.T) {
	s := Supported()
	require.NotEmpty(t, s)
	require.Equal(t, Generic, s[0], "the reference level is always supported")
	require.Equal(t, s[len(s)-1], Best())
	for i := 1; i < len(s); i++ {
		require.Less(t, s[i-1], s[i])
	}
	if purego {
		require.Equal(t, []Level{Generic}, s)
	} else {
		require.Contains(t, s, Unrolled)
		require.Contains(t, s, Unchecked)
	}
	require.Equal(t, Features.AVX2 && runtime.GOARCH == "amd64" && !purego, slices.Contains(s, AVX2))
	require.Equal(t, Features.AVX512F && Features.AVX2 && runtime.GOARCH == "amd64" && !purego, slices.Contains(s, AVX512))
	for _, l := range []Level{Generic, Unrolled, Unchecked, AVX2, AVX512} {
		require.NotEqual(t, "unknown", l.String())
	}
	t.Logf("levels %v, best %v, features %+v", s, Best(), Features)
}
