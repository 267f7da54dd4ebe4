package golden

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every committed golden file reads, names a graph that resolves, and has
// queries with igraph's scores.
func TestCommittedFilesRead(t *testing.T) {
	paths, err := filepath.Glob("../../ppr/testdata/golden/*.json.gz")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		c, err := Read(p)
		require.NoError(t, err, p)
		require.NotEmpty(t, c.Queries, p)
		require.NotEmpty(t, c.Queries[0].Top, p)
		_, _, err = GraphPath(c, "testdata", "shared")
		require.NoError(t, err, p)
	}
	_, _, err = GraphPath(Case{Graph: "elsewhere:x"}, "a", "b")
	require.ErrorContains(t, err, "unknown location")
	_, _, err = GraphPath(Case{Graph: "x"}, "a", "b")
	require.ErrorContains(t, err, "want shared:<file>")
	_, err = Read("no-such-file.json.gz")
	require.Error(t, err)
}
