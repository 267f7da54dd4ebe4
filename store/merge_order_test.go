package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A merge creates the same edges, under the same ids, whether the edges it
// rewires are in the delta or were compacted into the base: a replica that
// compacted and one that did not must hold the same store after the same
// batches. The base's incident edges were visited in adjacency order (by
// neighbour), not by id, so after a compaction the rewired copies came out
// in another order.
func TestMergeIgnoresCompaction(t *testing.T) {
	for _, directed := range []bool{true, false} {
		build := func(compact bool) *Version {
			s, err := New(nil, nil, Options{Directed: directed})
			require.NoError(t, err)
			_, err = s.applyBatch([]Op{
				as("default", Edge("x", "z", 1)), // edge 0: x's neighbour z sorts last by id
				as("default", Edge("x", "a", 2)), // edge 1
				as("peer", Edge("b", "x", 3)),    // edge 2
				as("default", Edge("x", "c", 4)), // edge 3
			})
			require.NoError(t, err)
			if compact {
				require.NoError(t, s.Compact())
			}
			_, err = s.applyBatch([]Op{as("default", Node("y")), as("resolver", MergeInto("x", "y"))})
			require.NoError(t, err)
			return s.Current()
		}
		want, got := build(false), build(true)
		require.Equal(t, want.NumEdges(), got.NumEdges())
		for e := range uint32(want.NumEdges()) {
			require.Equal(t, want.Edge(e), got.Edge(e), "directed %v: edge %d", directed, e)
		}
	}
}
