package golden

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// dataDir is the repository's testdata/, the real graphs.
var dataDir = filepath.Join("..", "..", "testdata")

// Every committed golden file reads, names a graph that exists, and has
// queries with igraph's scores.
func TestCommittedFilesRead(t *testing.T) {
	goldenDir := filepath.Join("..", "..", "ppr", "testdata", "golden")
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.json.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	reals := 0
	for _, p := range paths {
		c, err := Read(p)
		require.NoError(t, err, p)
		require.NotEmpty(t, c.Queries, p)
		require.NotEmpty(t, c.Queries[0].Top, p)
		path, real, err := GraphPath(c, goldenDir, dataDir)
		require.NoError(t, err, p)
		require.FileExists(t, path, "%s names a graph the repository does not hold", p)
		if real {
			reals++
		}
	}
	require.Positive(t, reals, "no golden case on a real graph of testdata/")
	_, _, err = GraphPath(Case{Graph: "elsewhere:x"}, "a", "b")
	require.ErrorContains(t, err, "unknown location")
	_, _, err = GraphPath(Case{Graph: "x"}, "a", "b")
	require.ErrorContains(t, err, "want data:<file>")
	_, err = Read("no-such-file.json.gz")
	require.Error(t, err)
}

// The real graphs in testdata/ are the files its README lists, with the
// checksums it gives.
func TestDataChecksums(t *testing.T) {
	f, err := os.Open(filepath.Join(dataDir, "README.md"))
	require.NoError(t, err)
	defer f.Close()
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			listed[m[2]] = m[1]
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, listed, 6, "testdata/README.md lists the checksums of the six files")
	gz, err := filepath.Glob(filepath.Join(dataDir, "*.gz"))
	require.NoError(t, err)
	require.Len(t, gz, len(listed), "testdata/ holds files its README does not list")
	for name, want := range listed {
		b, err := os.ReadFile(filepath.Join(dataDir, name))
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		require.Equal(t, want, hex.EncodeToString(sum[:]), "%s: sha256 differs from testdata/README.md", name)
	}
}
