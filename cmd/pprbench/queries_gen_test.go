package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
)

// A generated query file is read back by readQueries with the seeds,
// k and candidates it was written with, and the same seed gives the same
// file.
func TestQueriesRoundTrip(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	dir := t.TempDir()
	seedsPath := filepath.Join(dir, "seeds.jsonl")
	code, _, errOut := runCLI("queries", "--graph", graph, "--count", "4", "--k", "2", "--seeds-per-query", "3", "--out", seedsPath)
	require.Equal(t, 0, code, errOut)
	code, again, errOut := runCLI("queries", "--graph", graph, "--count", "4", "--k", "2", "--seeds-per-query", "3")
	require.Equal(t, 0, code, errOut)
	first, err := os.ReadFile(seedsPath)
	require.NoError(t, err)
	require.Equal(t, string(first), again, "same --seed, different file")

	g, err := csr.ReadFile(graph, csr.ReadOptions{Directed: true})
	require.NoError(t, err)
	qs, err := readQueries(g, seedsPath)
	require.NoError(t, err)
	require.Len(t, qs, 4)
	out := g.Out()
	for _, q := range qs {
		require.Equal(t, 2, q.K)
		require.Nil(t, q.Candidates)
		require.Len(t, q.Seeds, 3, "distinct seeds")
		for _, s := range q.Seeds {
			lo, hi := out.Span(s.Node)
			require.Greater(t, hi, lo, "seed %s has no out-edges", g.Name(s.Node))
		}
	}

	// Dense: the first 3 nodes in stream order (q, a, b) are entities, the
	// other 5 passages and candidates.
	densePath := filepath.Join(dir, "dense.jsonl")
	for _, q := range passageQueries(t, g, graph, densePath, 2, "--kind", "dense") {
		entitySeeds := 0
		for _, s := range q.Seeds {
			if s.Node < 3 {
				entitySeeds++
			}
		}
		require.GreaterOrEqual(t, entitySeeds, 1)
	}
	// The file solves.
	code, _, errOut = runCLI("solve", "--graph", graph, "--queries", densePath, "--json")
	require.Equal(t, 0, code, errOut)

	// Entities: 2 seeds among the 3 entities, the passages as candidates.
	entityPath := filepath.Join(dir, "entities.jsonl")
	for _, q := range passageQueries(t, g, graph, entityPath, 3, "--kind", "entities", "--seeds-per-query", "2") {
		require.Len(t, q.Seeds, 2)
		for _, s := range q.Seeds {
			require.Less(t, int(s.Node), 3, "seed %s is a passage", g.Name(s.Node))
			require.Equal(t, 1.0, s.Weight)
		}
	}
	code, _, errOut = runCLI("solve", "--graph", graph, "--queries", entityPath, "--json", "--certify")
	require.Equal(t, 0, code, errOut)
}

// passageQueries writes count queries of k 2 with the first 3 nodes of
// graph as entities and the given flags to path, reads them back and checks
// that every one ranks the passages (the other nodes).
func passageQueries(t *testing.T, g *csr.Graph, graph, path string, count int, flags ...string) []namedQuery {
	t.Helper()
	args := append([]string{"queries", "--graph", graph, "--entities", "3", "--count", strconv.Itoa(count), "--k", "2", "--out", path}, flags...)
	code, _, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	qs, err := readQueries(g, path)
	require.NoError(t, err)
	require.Len(t, qs, count)
	for _, q := range qs {
		require.Equal(t, 2, q.K)
		require.Len(t, q.Candidates, g.NumNodes()-3)
		for _, c := range q.Candidates {
			require.GreaterOrEqual(t, int(c), 3, "candidate %s is an entity", g.Name(c))
		}
	}
	return qs
}

func TestQueriesErrors(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "dense"}, "--kind dense needs --entities between 1 and"},
		{[]string{"--kind", "dense", "--entities", "99"}, "got 99"},
		{[]string{"--kind", "sparse"}, `--kind "sparse", want seeds, dense, entities or live`},
		{[]string{"--kind", "entities"}, "--kind entities needs --entities between 1 and"},
		{[]string{"--seeds-per-query", "50"}, "--seeds-per-query 50, want 1.."},
		{[]string{"--count", "0"}, "want both at least 1"},
		{[]string{"--order", "degree"}, "--order changes nothing"},
	} {
		code, _, errOut := runCLI(append([]string{"queries", "--graph", graph}, c.args...)...)
		require.Equalf(t, 2, code, "%v: %s", c.args, errOut)
		require.Containsf(t, errOut, c.want, "%v", c.args)
		require.False(t, strings.Contains(errOut, "panic"))
	}
}

// --untrusted is checked with the other flags, before the graph is read
// (flags.go's rule): a graph that is not there does not hide it.
func TestQueriesUntrustedCheckedBeforeLoad(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none.tsv")
	code, _, errOut := runCLI("queries", "--graph", missing, "--kind", "live", "--entities", "2", "--untrusted", "1.5")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "--untrusted 1.5, want a share in [0, 1]")
}
