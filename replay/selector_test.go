package replay

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// fixedSelector selects native on the native structure, auth on the
// authenticated one.
type fixedSelector struct{ native, auth []int }

func (s fixedSelector) SelectNative() ([]int, error) { return s.native, nil }
func (s fixedSelector) SelectAuth() ([]int, error)   { return s.auth, nil }
func (s fixedSelector) Equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Each policy hands over what it says; escalate hands over nothing on a
// divergence (a caller that drops the error must not find a selection).
func TestReplaySelectorPolicies(t *testing.T) {
	div := fixedSelector{native: []int{1, 2}, auth: []int{1, 3}}
	d, err := ReplaySelector[[]int](div, Reject)
	require.NoError(t, err)
	require.True(t, d.Divergent)
	require.Equal(t, []int{1, 3}, d.Selected)
	d, err = ReplaySelector[[]int](div, Report)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, d.Selected)
	d, err = ReplaySelector[[]int](div, Escalate)
	var esc *SelectorDivergenceError
	require.True(t, errors.As(err, &esc))
	require.Same(t, d, esc.Decision)
	require.Nil(t, d.Selected, "escalate refuses: it hands over no selection")
	require.Equal(t, []int{1, 2}, d.Native)

	same := fixedSelector{native: []int{4}, auth: []int{4}}
	d, err = ReplaySelector[[]int](same, Escalate)
	require.NoError(t, err)
	require.Equal(t, []int{4}, d.Selected)
}
