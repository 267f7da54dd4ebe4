package consensus

import (
	"errors"
	"testing"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/replay"
	"github.com/stretchr/testify/require"
)

// An untrusted judge (channel mallory) reports that the top item
// contradicts the two items that agree with it: natively the best set
// then has two items ({1, 2}, first of four pairs), on trusted edges the
// honest majority {0, 1, 2} wins.
func TestGuardedDivergence(t *testing.T) {
	edges := []Contradiction{
		{0, 3, "default"}, {0, 4, "default"}, {1, 3, "default"}, {2, 4, "default"},
		{0, 1, "mallory"}, {0, 2, "mallory"},
	}
	g, err := NewGuarded(5, edges, mask.Trust("default").Trusts, Options{})
	require.NoError(t, err)
	require.Equal(t, 6, g.native.numEdges())
	require.Equal(t, 4, g.auth.numEdges())

	d, err := g.Replay(replay.Reject)
	require.NoError(t, err)
	require.True(t, d.Divergent)
	require.Equal(t, replay.Divergent, d.Outcome)
	require.Equal(t, []int{0, 1, 2}, d.Auth.Items)
	require.Equal(t, []int{1, 2}, d.Native.Items)
	require.Equal(t, d.Auth.Items, d.Selected.Items)

	d, err = g.Replay(replay.Report)
	require.NoError(t, err)
	require.Equal(t, d.Native.Items, d.Selected.Items)

	_, err = g.Replay(replay.Escalate)
	var div *replay.SelectorDivergenceError
	require.True(t, errors.As(err, &div))
	esc, ok := div.Decision.(*replay.SelectorDecision[*Selection])
	require.True(t, ok)
	require.True(t, esc.Divergent)
	require.Equal(t, []int{0, 1, 2}, esc.Auth.Items)

	// Trusting every channel: the views agree.
	all, err := NewGuarded(5, edges, nil, Options{})
	require.NoError(t, err)
	d, err = all.Replay(replay.Reject)
	require.NoError(t, err)
	require.False(t, d.Divergent)
	require.Equal(t, replay.Same, d.Outcome)
}

// The guard's decision equals the two reference selections on random
// graphs with random channels: divergent exactly when the brute-force
// selections differ.
func TestGuardedMatchesBrute(t *testing.T) {
	rng := newRNG(11)
	for trial := 0; trial < 200; trial++ {
		k := 1 + rng.IntN(14)
		var edges []Contradiction
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				if rng.Float64() < 0.3 {
					ch := "default"
					if rng.IntN(3) == 0 {
						ch = "peer"
					}
					edges = append(edges, Contradiction{i, j, ch})
				}
			}
		}
		g, err := NewGuarded(k, edges, mask.Trust("default").Trusts, Options{})
		require.NoError(t, err)
		d, err := g.Replay(replay.Reject)
		require.NoError(t, err)
		wantN, _ := selectBrute(g.native)
		wantA, _ := selectBrute(g.auth)
		require.Equal(t, wantN, d.Native.Items)
		require.Equal(t, wantA, d.Auth.Items)
		require.Equal(t, !equalInts(wantN, wantA), d.Divergent)
	}
}

func TestGuardedErrors(t *testing.T) {
	_, err := NewGuarded(3, []Contradiction{{0, 1, "a"}, {2, 2, "b"}}, nil, Options{})
	require.ErrorContains(t, err, `consensus: edge 1 (channel "b")`)
	require.ErrorContains(t, err, "cannot contradict itself")
}
