package store

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/crashtest"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Issue 16, defect 1: a store reopened from a snapshot, written to and
// compacted, then collected until the old snapshot's mapping is gone,
// must still answer by name. The names of the loaded snapshot pointed
// into the mapping and compaction copied them into the new base, so the
// lookup faulted once the old base's cleanup unmapped the file; a fault
// kills the test binary, so the cycle runs in a child process.
func TestReopenCompactLookup(t *testing.T) {
	if dir := os.Getenv("STORE_REOPEN_CHILD"); dir != "" {
		reopenCompactLookup(t, dir)
		return
	}
	crashtest.RunChild(t, "TestReopenCompactLookup", "STORE_REOPEN_CHILD", t.TempDir())
}

// reopenCompactLookup is the child of TestReopenCompactLookup.
func reopenCompactLookup(t *testing.T, dir string) {
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	var ops []Op
	for i := range 100 {
		ops = append(ops, as("default", Edge(fmt.Sprintf("node%d", i), fmt.Sprintf("node%d", i+1), 1)))
	}
	_, err = s.applyBatch(ops)
	require.NoError(t, err)
	require.NoError(t, s.Compact())
	require.NoError(t, s.Close())
	snaps, _, err := listFiles(dir)
	require.NoError(t, err)
	require.Len(t, snaps, 1)
	old := snapPath(dir, snaps[0])

	s, err = Open(dir, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("default", Edge("node5", "fresh", 2))})
	require.NoError(t, err)
	require.NoError(t, s.Compact())
	// Compaction removed the old snapshot; once nothing holds the base
	// loaded from it, its mapping goes.
	crashtest.WaitUnmapped(t, old)

	v := s.Current()
	id, ok := v.ID("node5")
	require.True(t, ok, "node5 after reopen and compaction")
	require.Equal(t, uint32(5), id)
	for u := range uint32(v.NumNodes()) {
		want := fmt.Sprintf("node%d", u)
		if u == 101 {
			want = "fresh"
		}
		require.Equal(t, want, v.Name(u))
		got, ok := v.ID(want)
		require.True(t, ok, want)
		require.Equal(t, u, got)
	}
	require.Equal(t, []string{"default"}, v.Edge(3).AddedBy)
	require.Equal(t, []string{"default"}, v.base.g.Channels(), "the new base's channel names")
	require.Equal(t, "default", v.base.g.Edge(100).Channel)
	seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: id, Weight: 1}})
	require.NoError(t, err)
	trust := mask.Trust("default")
	res, err := solveOn(v, &trust, seeds, 0.85, 1e-10)
	require.NoError(t, err)
	require.Positive(t, res.Scores[id])
	require.NoError(t, s.Close())
}
