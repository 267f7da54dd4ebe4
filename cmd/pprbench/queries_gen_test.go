package main

import (
	"os"
	"path/filepath"
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

	g, err := csr.ReadFile(graph, csr.FormatEdges, true)
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
	code, _, errOut = runCLI("queries", "--graph", graph, "--kind", "dense", "--entities", "3", "--count", "2", "--k", "2", "--out", densePath)
	require.Equal(t, 0, code, errOut)
	qs, err = readQueries(g, densePath)
	require.NoError(t, err)
	require.Len(t, qs, 2)
	for _, q := range qs {
		require.Len(t, q.Candidates, g.NumNodes()-3)
		for _, c := range q.Candidates {
			require.GreaterOrEqual(t, int(c), 3, "candidate %s is an entity", g.Name(c))
		}
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
	code, _, errOut = runCLI("queries", "--graph", graph, "--kind", "entities", "--entities", "3", "--seeds-per-query", "2", "--count", "3", "--k", "2", "--out", entityPath)
	require.Equal(t, 0, code, errOut)
	qs, err = readQueries(g, entityPath)
	require.NoError(t, err)
	require.Len(t, qs, 3)
	for _, q := range qs {
		require.Len(t, q.Candidates, g.NumNodes()-3)
		for _, c := range q.Candidates {
			require.GreaterOrEqual(t, int(c), 3, "candidate %s is an entity", g.Name(c))
		}
		require.Len(t, q.Seeds, 2)
		for _, s := range q.Seeds {
			require.Less(t, int(s.Node), 3, "seed %s is a passage", g.Name(s.Node))
			require.Equal(t, 1.0, s.Weight)
		}
	}
	code, _, errOut = runCLI("solve", "--graph", graph, "--queries", entityPath, "--json", "--certify")
	require.Equal(t, 0, code, errOut)
}

func TestQueriesErrors(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "dense"}, "--kind dense needs --entities between 1 and"},
		{[]string{"--kind", "dense", "--entities", "99"}, "got 99"},
		{[]string{"--kind", "sparse"}, `--kind "sparse", want seeds, dense or entities`},
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
