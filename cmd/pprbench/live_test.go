package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// liveGraph: q reaches p1 and p2 through a and b; an untrusted edge to p3
// and a merge decide which passage wins.
const liveGraph = `q alice 1 default
q bob 1 default
alice p1 1 default
bob p2 1 default
alice p2 0.5 default
carol p3 1 default
bob carol 0.2 default
`

type liveRecord struct {
	ID        string   `json:"id"`
	Version   uint64   `json:"version"`
	Native    []string `json:"native"`
	Auth      []string `json:"auth"`
	Divergent bool     `json:"divergent"`
	Path      string   `json:"path"`
	Suspects  []struct {
		Src, Dst, Channel string
	} `json:"suspects"`
	NativeUS *int64 `json:"native_us"`
	GuardUS  *int64 `json:"guard_us"`
}

func liveRecords(t *testing.T, out string) map[string]liveRecord {
	t.Helper()
	recs := map[string]liveRecord{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r liveRecord
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		require.NotNil(t, r.NativeUS, line)
		require.NotNil(t, r.GuardUS, line)
		recs[r.ID] = r
	}
	return recs
}

// An untrusted edge written while the memory is read flips the native
// selection; the guard refuses it on that version and names the edge; a
// trusted merge of an untrusted edge does not launder it; a bad batch is
// reported with its line, changes nothing, and later events still apply.
func TestLiveGuardsEveryVersion(t *testing.T) {
	t.Parallel()
	graph := writeFile(t, "g.txt", liveGraph)
	events := writeFile(t, "ev.jsonl", `{"query": {"id": "before", "seeds": {"q": 1}, "k": 1, "candidates": ["p1", "p2", "p3"]}}
{"write": {"channel": "mallory", "ops": [{"op": "edge", "src": "q", "dst": "p3", "weight": 3}]}}
{"query": {"id": "attacked", "seeds": {"q": 1}, "k": 1, "candidates": ["p1", "p2", "p3"]}}
{"write": {"channel": "mallory", "ops": [{"op": "edge", "src": "zed", "dst": "p3", "weight": 9}, {"op": "merge", "from": "nobody", "into": "bob"}]}}
{"write": {"channel": "mallory", "ops": [{"op": "edge", "src": "ghost", "dst": "p3"}]}}
{"write": {"channel": "resolver", "ops": [{"op": "merge", "from": "ghost", "into": "bob"}]}}
{"query": {"id": "laundered", "seeds": {"q": 1}, "k": 1, "candidates": ["p1", "p2", "p3"]}}
{"write": {"channel": "default", "ops": [{"op": "delete", "src": "q", "dst": "p3"}]}}
{"query": {"id": "cleaned", "seeds": {"q": 1}, "k": 1, "candidates": ["p1", "p2", "p3"]}}
{"query": {"id": "zed", "seeds": {"q": 1}, "k": 1, "candidates": ["p1", "zed"]}}
`)
	code, out, errOut := runCLI("live", "--graph", graph, "--undirected", "--damping", "0.5",
		"--trust", "default,resolver,later", "--events", events, "--check")
	require.Equal(t, 1, code, "a bad batch makes the run fail: %s", errOut)
	require.Contains(t, errOut, `line 4: write by "mallory"`)
	require.Contains(t, errOut, `unknown node "nobody"`)
	require.Contains(t, errOut, "trusted channels that never wrote: later")
	require.Contains(t, errOut, "checked against from-scratch guards")
	recs := liveRecords(t, out)
	require.Len(t, recs, 4)

	require.Equal(t, []string{"p2"}, recs["before"].Native)
	require.False(t, recs["before"].Divergent)
	require.Equal(t, uint64(0), recs["before"].Version)

	a := recs["attacked"]
	require.Equal(t, []string{"p3"}, a.Native)
	require.Equal(t, []string{"p2"}, a.Auth)
	require.True(t, a.Divergent)
	require.Equal(t, uint64(1), a.Version)
	require.NotEmpty(t, a.Suspects)
	require.Equal(t, "mallory", a.Suspects[0].Channel)
	require.ElementsMatch(t, []string{"q", "p3"}, []string{a.Suspects[0].Src, a.Suspects[0].Dst})

	// The merge by the trusted resolver rewired ghost - p3 onto bob; the
	// copy depends on mallory, so the authenticated view has neither.
	l := recs["laundered"]
	require.True(t, l.Divergent)
	require.Equal(t, []string{"p2"}, l.Auth)
	require.Equal(t, uint64(3), l.Version, "the bad batch made no version")

	// The trusted deletion applies: a new version, whose authenticated
	// selection stays p2; zed never existed (its batch was refused), so
	// the query naming it is reported and not answered.
	c := recs["cleaned"]
	require.Equal(t, uint64(4), c.Version)
	require.Equal(t, []string{"p2"}, c.Auth)
	require.Contains(t, errOut, `candidate "zed": unknown node`)
	require.NotContains(t, recs, "zed")
}

func TestLiveUsageErrors(t *testing.T) {
	t.Parallel()
	graph := writeFile(t, "g.txt", liveGraph)
	events := writeFile(t, "ev.jsonl", "")
	for _, args := range [][]string{
		{"live", "--graph", graph, "--events", events},
		{"live", "--graph", graph, "--trust", "default"},
		{"live", "--graph", graph, "--trust", "default", "--events", events, "--damping", "1"},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 2, code, "%v: %s", args, errOut)
	}
	// An empty event file is fine.
	code, out, errOut := runCLI("live", "--graph", graph, "--trust", "default", "--events", events)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, out)
}

// live checks its graph flags as the other commands do (flags.go): an
// unknown --format is a usage error, and --undirected with a snapshot,
// which keeps its own direction, is refused rather than ignored.
func TestLiveChecksGraphFlags(t *testing.T) {
	t.Parallel()
	graph := writeFile(t, "g.txt", liveGraph)
	events := writeFile(t, "ev.jsonl", "")
	snap := filepath.Join(t.TempDir(), "g.snap")
	code, _, errOut := runCLI("ingest", "--graph", graph, "--out", snap)
	require.Equal(t, 0, code, errOut)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--graph", graph, "--format", "csv"}, `--format: unknown format "csv"`},
		{[]string{"--snapshot", snap, "--undirected"}, "--undirected applies only with --graph"},
	} {
		code, _, errOut := runCLI(append([]string{"live", "--trust", "default", "--events", events}, c.args...)...)
		require.Equalf(t, 2, code, "%v: %s", c.args, errOut)
		require.Containsf(t, errOut, c.want, "%v", c.args)
	}
}
