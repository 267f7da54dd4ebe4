package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireIgraph returns a Python interpreter with igraph and numpy, python3
// on PATH (compare's default --python) or Debian's /usr/bin/python3, and
// skips the test, saying how to install them, when neither has them.
func requireIgraph(t *testing.T) string {
	t.Helper()
	var errs []error
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		err := exec.Command(py, "-c", "import igraph, numpy").Run()
		if err == nil {
			return py
		}
		errs = append(errs, fmt.Errorf("%s: %w", py, err))
	}
	t.Skipf("no Python with igraph and numpy (%v): apt-get install -y python3-igraph python3-numpy to run the igraph comparison", errs)
	return ""
}

// compare runs the built-in anchors/igraph_oracle.py on a text edge list:
// SNAP wiki-Vote with queries written by 'pprbench queries'.
func TestCompareText(t *testing.T) {
	py := requireIgraph(t)
	graph := filepath.Join("..", "..", "testdata", "wiki-Vote.txt.gz")
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	code, _, errOut := runCLI("queries", "--graph", graph, "--count", "4", "--k", "10", "--out", queries)
	require.Equal(t, 0, code, errOut)
	code, out, errOut := runCLI("compare", "--graph", graph, "--queries", queries, "--python", py)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "4 queries: top-k agree on 4")
	require.Contains(t, out, "graph build: authppr")
}

// compare runs the same oracle on a PPREDGE1 file (--format ppredge).
func TestComparePPREDGE1(t *testing.T) {
	py := requireIgraph(t)
	path := writePPREDGE1(t, 300)
	queries := writeFile(t, "q.jsonl", `{"id":"a","seeds":{"3":1,"150":2},"k":5}
{"id":"b","seeds":{"7":1},"k":3}
`)
	code, out, errOut := runCLI("compare", "--graph", path, "--format", "ppredge", "--queries", queries, "--python", py)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "2 queries: top-k agree on 2")
	require.Contains(t, out, "graph build: authppr")
}

// --oracle names a script to run in place of the built-in one; a missing
// one is a usage error before anything is solved.
func TestCompareOracleFlag(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	queries := writeFile(t, "q.jsonl", `{"id":"a","seeds":{"q":1},"k":2}`+"\n")
	code, _, errOut := runCLI("compare", "--graph", graph, "--queries", queries, "--oracle", filepath.Join(t.TempDir(), "none.py"))
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "--oracle")

	py := requireIgraph(t)
	oracle := filepath.Join("..", "..", "anchors", "igraph_oracle.py")
	code, out, errOut := runCLI("compare", "--graph", graph, "--queries", queries, "--oracle", oracle, "--python", py)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "1 queries: top-k agree on 1")
}
