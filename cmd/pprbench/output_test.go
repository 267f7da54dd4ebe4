package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Tests of what the commands print (issue 16, defect 5): a certified top-k
// proves its order or says it did not, scores are estimates with their
// bounds, JSON carries no stand-in for infinity, and a refused selection
// is not printed as selected.

// cycle5 is a directed 5-node graph: every node is a candidate of a top-5.
const cycle5 = "a b\nb c\nc d\nd e\ne a\na c\n"

// certJSON is solve --certify's JSON, with the fields whose absence
// matters kept as raw values.
type certJSON struct {
	TopK []struct {
		Node  string   `json:"node"`
		Score float64  `json:"score"`
		Err   *float64 `json:"error"`
	} `json:"topk"`
	Sweeps                 int      `json:"sweeps"`
	ErrorBound             float64  `json:"error_bound_l1"`
	Certified              *bool    `json:"certified"`
	Ordered                *bool    `json:"ordered"`
	Gap                    *float64 `json:"gap"`
	ProvedGap              *float64 `json:"proved_gap"`
	EveryCandidateSelected bool     `json:"every_candidate_selected"`
}

// noStandIns fails when out carries an infinity, a NaN or a huge stand-in
// for one.
func noStandIns(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"1e+308", "1.7976931348623157e+308", "Inf", "NaN"} {
		require.NotContainsf(t, out, bad, "output carries %s:\n%s", bad, out)
	}
}

// exactScores solves the graph file to 1e-14 through the library.
func exactScores(t *testing.T, path string, seed string, damping float64) (*csr.Graph, []float64) {
	t.Helper()
	g, err := csr.ReadFile(path, csr.ReadOptions{Directed: true})
	require.NoError(t, err)
	id, ok := g.ID(seed)
	require.True(t, ok)
	seeds, err := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: id, Weight: 1}})
	require.NoError(t, err)
	res, err := ppr.Solve(mask.Full(g), seeds, damping, ppr.Options{Tol: 1e-14})
	require.NoError(t, err)
	return g, res.Scores
}

// solve --certify with every candidate selected (k at least the nodes or
// the candidates) printed five zeros in id order, certified, with gap
// 1e+308. The scores must be estimates within their printed bounds, in
// score order, and the JSON says that every candidate is selected instead
// of giving a gap.
func TestSolveCertifyEveryCandidateSelected(t *testing.T) {
	graph := writeFile(t, "c5.txt", cycle5)
	g, exact := exactScores(t, graph, "a", 0.85)
	three := writeFile(t, "three.txt", "b\nd\ne\n")
	for _, args := range [][]string{
		{"--k", "5"},
		{"--k", "9"},
		{"--k", "3", "--candidates", three},
		{"--k", "5", "--ordered=false"},
	} {
		args = append([]string{"solve", "--graph", graph, "--seeds", "a", "--certify", "--json"}, args...)
		code, out, errOut := runCLI(args...)
		require.Equalf(t, 0, code, "%v: %s", args, errOut)
		noStandIns(t, out)
		var rec certJSON
		require.NoError(t, json.Unmarshal([]byte(out), &rec))
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(out), &raw))
		require.NotContainsf(t, raw, "gap", "%v: no gap when every candidate is selected", args)
		require.NotContainsf(t, raw, "proved_gap", "%v", args)
		require.Truef(t, rec.EveryCandidateSelected, "%v: %s", args, out)
		require.NotNil(t, rec.Certified)
		require.True(t, *rec.Certified)
		require.NotNilf(t, rec.Ordered, "%v: the output says whether the order is proved", args)
		require.Positive(t, rec.Sweeps)
		for i, s := range rec.TopK {
			require.NotNilf(t, s.Err, "%v: entry %d has no error bound", args, i)
			id, ok := g.ID(s.Node)
			require.True(t, ok)
			require.InDeltaf(t, exact[id], s.Score, *s.Err+1e-12, "%v: %s's score is no estimate", args, s.Node)
			require.Positivef(t, s.Score, "%v: %s", args, s.Node)
			if i > 0 {
				require.GreaterOrEqualf(t, rec.TopK[i-1].Score, s.Score, "%v: not in score order", args)
			}
		}
	}

	code, out, errOut := runCLI("solve", "--graph", graph, "--seeds", "a", "--certify", "--k", "5")
	require.Equal(t, 0, code, errOut)
	noStandIns(t, out)
	require.Contains(t, out, "every candidate selected")
	require.Contains(t, out, "order proved")
	require.NotContains(t, out, "\n1     a     0\n")
}

// nearTie is a directed graph on which solve --certify --k 2 proves the
// set a sweep before the order within it (found by search).
const nearTie = `n6 n7 3
n2 n0 2
n4 n1 1
n6 n4 3
n1 n3 3
n7 n5 1
n3 n0 2
n2 n0 2
n7 n7 3
n9 n4 2
n6 n5 1
n6 n9 3
n1 n3 3
n8 n3 3
n0 n6 2
n9 n5 3
n8 n8 3
n6 n2 1
n5 n9 3
n9 n4 2
`

// A certified top-k proves its order by default; --ordered=false proves
// the set only, and the output says when the order is not proved, as it
// does for exact ties, which no tolerance separates.
func TestSolveCertifyProvesOrder(t *testing.T) {
	graph := writeFile(t, "near.txt", nearTie)
	solve := func(extra ...string) certJSON {
		args := append([]string{"solve", "--graph", graph, "--seeds", "n0", "--k", "2", "--certify", "--json"}, extra...)
		code, out, errOut := runCLI(args...)
		require.Equal(t, 0, code, errOut)
		noStandIns(t, out)
		var rec certJSON
		require.NoError(t, json.Unmarshal([]byte(out), &rec))
		require.NotNil(t, rec.Certified)
		require.NotNil(t, rec.Ordered, "the output says whether the order is proved")
		require.NotNil(t, rec.Gap)
		require.NotNil(t, rec.ProvedGap)
		require.Positive(t, *rec.ProvedGap)
		for _, s := range rec.TopK {
			require.NotNil(t, s.Err)
		}
		return rec
	}
	byDefault := solve()
	require.True(t, *byDefault.Certified)
	require.True(t, *byDefault.Ordered, "a certified top-k proves its order by default")
	setOnly := solve("--ordered=false")
	require.True(t, *setOnly.Certified)
	require.False(t, *setOnly.Ordered, "the set is proved a sweep before the order here")
	require.Less(t, setOnly.Sweeps, byDefault.Sweeps)

	code, out, errOut := runCLI("solve", "--graph", graph, "--seeds", "n0", "--k", "2", "--certify", "--ordered=false")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "order not proved")

	// A star: a and b tie exactly, so their order is never proved; the
	// set {q, a, b} is.
	star := writeFile(t, "star.txt", "q a 1\nq b 1\nq z 0.01\n")
	code, out, errOut = runCLI("solve", "--graph", star, "--seeds", "q", "--k", "3", "--certify", "--json")
	require.Equal(t, 0, code, errOut)
	var tie certJSON
	require.NoError(t, json.Unmarshal([]byte(out), &tie))
	require.NotNil(t, tie.Certified)
	require.True(t, *tie.Certified)
	require.NotNil(t, tie.Ordered)
	require.False(t, *tie.Ordered, "exact ties: the order is not proved, and the output says so")
	code, out, errOut = runCLI("solve", "--graph", star, "--seeds", "q", "--k", "3", "--certify")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "order not proved")

	// A query file's text lines say it too.
	queries := writeFile(t, "q.jsonl", `{"id":"t","seeds":{"q":1},"k":3}`+"\n")
	code, out, errOut = runCLI("solve", "--graph", star, "--queries", queries, "--certify")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "order not proved")
}

// replay's JSON carried gap [1e+308, 1e+308] when every candidate was
// selected, and printed a selection escalate refused as "selected".
func TestReplayJSONGapAndRefusals(t *testing.T) {
	graph := writeFile(t, "g.tsv", `q alice 1 default
q bob 1 default
alice p1 1 default
bob p2 1 default
alice p2 0.5 default
carol p3 1 default
bob carol 0.2 default
q p3 3 mallory
`)
	queries := writeFile(t, "q.jsonl", `{"id":"q1","seeds":{"q":1},"k":1,"candidates":["p1","p2","p3"]}
{"id":"all","seeds":{"q":1},"k":3,"candidates":["p1","p2","p3"]}
`)
	type decision struct {
		ID                     string            `json:"id"`
		Selected               []string          `json:"selected"`
		Refused                *bool             `json:"refused"`
		Divergent              bool              `json:"divergent"`
		Gap                    []json.RawMessage `json:"gap"`
		EveryCandidateSelected bool              `json:"every_candidate_selected"`
	}
	replayOut := func(policy string, wantCode int) []decision {
		outPath := filepath.Join(t.TempDir(), "out.jsonl")
		code, _, errOut := runCLI("replay", "--graph", graph, "--undirected", "--damping", "0.5", "--trust", "default",
			"--queries", queries, "--out", outPath, "--policy", policy)
		require.Equal(t, wantCode, code, errOut)
		b, err := os.ReadFile(outPath)
		require.NoError(t, err)
		noStandIns(t, string(b))
		var ds []decision
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var d decision
			require.NoError(t, json.Unmarshal([]byte(line), &d))
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(line), &raw))
			require.Contains(t, raw, "selected")
			ds = append(ds, d)
		}
		require.Len(t, ds, 2)
		return ds
	}
	for _, policy := range []string{"reject", "report", "escalate"} {
		code := 0
		if policy == "escalate" {
			code = 3
		}
		ds := replayOut(policy, code)
		q1, all := ds[0], ds[1]
		require.True(t, q1.Divergent)
		require.NotNil(t, q1.Refused, policy)
		require.NotNil(t, all.Refused, policy)
		require.False(t, *all.Refused)
		require.Len(t, all.Selected, 3)
		require.True(t, all.EveryCandidateSelected, "every candidate selected: said, not a huge gap")
		require.Nil(t, all.Gap, "no gap when every candidate is selected")
		require.Len(t, q1.Gap, 2)
		if policy == "escalate" {
			require.True(t, *q1.Refused)
			require.Nil(t, q1.Selected, "escalate refused the selection: nothing is selected")
		} else {
			require.False(t, *q1.Refused)
			require.Len(t, q1.Selected, 1)
		}
	}
}

// overhead --json and --per-query carry no infinity or stand-in either
// (every candidate selected gives an infinite native gap there too).
func TestOverheadJSONHasNoStandIns(t *testing.T) {
	perQuery := filepath.Join(t.TempDir(), "per.jsonl")
	code, out, errOut := runCLI("overhead", "--nodes", "2000", "--queries", "5", "--regime", "few", "--json", "--per-query", perQuery)
	require.Equal(t, 0, code, errOut)
	noStandIns(t, out)
	b, err := os.ReadFile(perQuery)
	require.NoError(t, err)
	noStandIns(t, string(b))
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	require.False(t, math.IsNaN(m["overhead_median"].(float64)))
}
