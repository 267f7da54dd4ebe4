package store

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/ppr"
)

// TestApplyRefusesWeightsOutOfRange: a write whose weight could make some
// row's out-weight overflow (above csr.MaxWeight), or its reciprocal
// (below csr.MinWeight), is refused with its index; the batch applies
// nothing. The reproduction: two writes of 1e308 from one node.
func TestApplyRefusesWeightsOutOfRange(t *testing.T) {
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("default", Edge("a", "b", 1))})
	require.NoError(t, err)
	v := s.Current()
	for _, tc := range []struct {
		ops  []Op
		want string
	}{
		{[]Op{as("default", Edge("a", "b", 1e308)), as("default", Edge("a", "c", 1e308))}, "store: write 0: edge a -> b: weight 1e+308 above"},
		{[]Op{as("default", Edge("x", "y", 1)), as("default", Edge("a", "c", 1e-320))}, "store: write 1: edge a -> c: weight 1e-320 below"},
		{[]Op{as("default", Node("x")), as("default", EdgeByID(0, 1, math.MaxFloat64))}, "store: write 1: edge 0 -> 1: weight 1.7976931348623157e+308 above"},
		{[]Op{as("default", EdgeByID(1, 0, 5e-324))}, "store: write 0: edge 1 -> 0: weight 5e-324 below"},
	} {
		_, err := s.applyBatch(tc.ops)
		require.ErrorContains(t, err, tc.want)
		require.Same(t, v, s.Current(), "a failed batch publishes nothing")
	}
}

// TestExtremeWeightsSolve: writes at both ends of the range, merged, solve
// on the version as on its materialized graph, with finite bounds.
func TestExtremeWeightsSolve(t *testing.T) {
	for _, directed := range []bool{true, false} {
		s, err := New(nil, nil, Options{Directed: directed})
		require.NoError(t, err)
		var ops []Op
		for range 50 {
			ops = append(ops, as("default", Edge("a", "b", csr.MaxWeight)), as("mallory", Edge("b", "a", csr.MinWeight)))
		}
		ops = append(ops, as("default", Edge("b", "c", csr.MaxWeight)), as("default", Edge("c", "d", csr.MinWeight)), as("default", MergeInto("b", "c")))
		_, err = s.applyBatch(ops)
		require.NoError(t, err)
		v := s.Current()
		seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
		require.NoError(t, err)
		sol, err := solveOn(v, nil, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		require.LessOrEqual(t, sol.ErrorBound, 1e-12)
		want := referenceSolve(t, v, nil, seeds, 0.85, 1e-13)
		requireClose(t, want, sol.Scores, 1e-11, "native")
		require.NoError(t, s.Compact())
		again, err := solveOn(s.Current(), nil, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		requireClose(t, want, again.Scores, 1e-11, "after compaction")
	}
}
