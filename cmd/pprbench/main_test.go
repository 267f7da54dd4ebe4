package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/version"
	"github.com/stretchr/testify/require"
)

// tiny is a small memory graph: q seeds it, an untrusted edge from "x" to
// "spam" pulls mass towards spam.
const tiny = `# src dst weight channel
q a 1 default
q b 1 default
a p1 1 default
b p2 1 default
p2 q 1 default
x spam 1 peer
q x 5 peer
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

type solveJSON struct {
	TopK []struct {
		Node  string  `json:"node"`
		Score float64 `json:"score"`
	} `json:"topk"`
	Iterations int     `json:"iterations"`
	ResidualL1 float64 `json:"residual_l1"`
	ErrorBound float64 `json:"error_bound_l1"`
	View       string  `json:"view"`
	Masked     int     `json:"masked_edges"`
}

func TestSolveJSONNativeAndAuth(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	code, out, errOut := runCLI("solve", "--graph", graph, "--seeds", "q", "--k", "3", "--json")
	require.Equal(t, 0, code, errOut)
	var native solveJSON
	require.NoError(t, json.Unmarshal([]byte(out), &native))
	require.Len(t, native.TopK, 3)
	require.Equal(t, "native", native.View)
	require.LessOrEqual(t, native.ErrorBound, 1e-10)
	require.Positive(t, native.Iterations)
	names := []string{native.TopK[0].Node, native.TopK[1].Node, native.TopK[2].Node}
	require.Contains(t, names, "x", "the untrusted edge q->x (weight 5) dominates natively")

	code, out, errOut = runCLI("solve", "--graph", graph, "--seeds", "q", "--k", "3", "--json", "--view", "auth", "--trust", "default")
	require.Equal(t, 0, code, errOut)
	var auth solveJSON
	require.NoError(t, json.Unmarshal([]byte(out), &auth))
	require.Equal(t, 2, auth.Masked)
	for _, e := range auth.TopK {
		require.NotEqual(t, "x", e.Node)
		require.NotEqual(t, "spam", e.Node)
	}
}

func TestSolveCandidates(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	// A repeated candidate is refused (issue 16; it was kept once), see
	// TestRepeatsInQueryAndCandidateFilesAreRefused.
	cands := writeFile(t, "c.txt", "# passages\np1\n\np2\n")
	code, out, errOut := runCLI("solve", "--graph", graph, "--seeds", "q", "--k", "5", "--candidates", cands, "--json")
	require.Equal(t, 0, code, errOut)
	var res solveJSON
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.TopK, 2, "two candidates")
	require.ElementsMatch(t, []string{"p1", "p2"}, []string{res.TopK[0].Node, res.TopK[1].Node})

	bad := writeFile(t, "bad.txt", "p1\nnowhere\n")
	code, _, errOut = runCLI("solve", "--graph", graph, "--seeds", "q", "--candidates", bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "bad.txt:2")
	require.Contains(t, errOut, "nowhere")
}

func TestSolveErrors(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"solve", "--seeds", "q"}, 2, "--graph (or --snapshot) is required"},
		{[]string{"solve", "--graph", graph}, 2, "--seeds is required"},
		{[]string{"solve", "--graph", graph, "--seeds", "q,nope,zz"}, 1, `unknown seed node(s): "nope", "zz"`},
		{[]string{"solve", "--graph", graph, "--seeds", "q", "--view", "auth"}, 2, "needs --trust"},
		{[]string{"solve", "--graph", graph, "--seeds", "q", "--view", "auth", "--trust", "defualt"}, 1, "defualt label no edge"},
		{[]string{"solve", "--graph", graph, "--seeds", "q", "--damping", "1"}, 2, "damping"}, // a usage error (issue 16)
		{[]string{"solve", "--graph", graph, "--seeds", "q:-1"}, 2, "non-negative"},
		{[]string{"solve", "--graph", graph, "--seeds", "q", "--format", "csv"}, 2, "unknown format"},
		{[]string{"solve", "--graph", writeFile(t, "bad.tsv", "a b 1\nc d nan\n"), "--seeds", "a"}, 1, "bad.tsv:2"},
		{[]string{"solve", "--graph", graph, "--seeds", "q", "--visits"}, 2, "--visits needs --certify"},
		{[]string{"frobnicate"}, 2, "unknown command"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(c.args...)
		require.Equalf(t, c.code, code, "%v: %s", c.args, errOut)
		require.Containsf(t, errOut, c.want, "%v", c.args)
	}
}

func TestSolveText(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	code, out, errOut := runCLI("solve", "--graph", graph, "--seeds", "q:2,a", "--k", "2")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "7 nodes, 7 edges (directed)")
	require.Equal(t, 2, strings.Count(out, "\n1 ")+strings.Count(out, "\n2 "))
}

func TestDefaultWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("default workload takes a few seconds")
	}
	code, out, errOut := runCLI()
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "default workload")
	require.Contains(t, out, "replay: 50 queries")
	require.Contains(t, out, "guard overhead over the unguarded certified selection")
}

func TestReplayCommand(t *testing.T) {
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
{"id":"q2","seeds":{"bob":1},"k":2}
`)
	outPath := filepath.Join(t.TempDir(), "out.jsonl")
	code, _, errOut := runCLI("replay", "--graph", graph, "--undirected", "--damping", "0.5", "--trust", "default", "--queries", queries, "--out", outPath)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "2 queries, 1 divergent")
	raw, err := os.ReadFile(outPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 2)
	var rec struct {
		ID        string   `json:"id"`
		Native    []string `json:"native"`
		Auth      []string `json:"auth"`
		Divergent bool     `json:"divergent"`
		Path      string   `json:"path"`
		NativeUS  *int64   `json:"native_us"`
		ReplayUS  *int64   `json:"replay_us"`
		Suspects  []struct {
			Channel string    `json:"channel"`
			Edge    [2]string `json:"edge"`
			Mass    float64   `json:"mass"`
		} `json:"suspects"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	require.Equal(t, "q1", rec.ID)
	require.Equal(t, []string{"p3"}, rec.Native)
	require.Equal(t, []string{"p2"}, rec.Auth)
	require.True(t, rec.Divergent)
	require.NotNil(t, rec.NativeUS)
	require.NotNil(t, rec.ReplayUS)
	require.Contains(t, []string{"untouched", "certificate", "delta", "full"}, rec.Path)
	require.Equal(t, "mallory", rec.Suspects[0].Channel)
	require.ElementsMatch(t, []string{"q", "p3"}, rec.Suspects[0].Edge[:])

	// Escalate refuses with exit status 3.
	code, _, errOut = runCLI("replay", "--graph", graph, "--undirected", "--damping", "0.5", "--trust", "default", "--queries", queries, "--out", outPath, "--policy", "escalate")
	require.Equal(t, 3, code)
	require.Contains(t, errOut, "1 of 2 selections diverged")

	bad := writeFile(t, "bad.jsonl", `{"id":"q1","seeds":{"nobody":1}}`+"\n")
	code, _, errOut = runCLI("replay", "--graph", graph, "--trust", "default", "--queries", bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "bad.jsonl:1")
	require.Contains(t, errOut, `"nobody"`)
	code, _, errOut = runCLI("replay", "--graph", graph, "--queries", queries)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--trust")
}

func TestOverheadCommand(t *testing.T) {
	code, out, errOut := runCLI("overhead", "--nodes", "5000", "--queries", "10", "--regime", "few", "--check")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "replay overhead")
	require.Contains(t, out, "10 of 10 agree")
}

func TestIngestThenSolveAndReplayFromSnapshot(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	snap := filepath.Join(t.TempDir(), "g.snap")
	code, out, errOut := runCLI("ingest", "--graph", graph, "--out", snap)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "7 nodes, 7 edges")

	args := []string{"solve", "--seeds", "q", "--k", "3", "--json", "--view", "auth", "--trust", "default"}
	code, fromText, errOut := runCLI(append(args, "--graph", graph)...)
	require.Equal(t, 0, code, errOut)
	code, fromSnap, errOut := runCLI(append(args, "--snapshot", snap)...)
	require.Equal(t, 0, code, errOut)
	var a, b solveJSON
	require.NoError(t, json.Unmarshal([]byte(fromText), &a))
	require.NoError(t, json.Unmarshal([]byte(fromSnap), &b))
	require.Equal(t, a.TopK, b.TopK, "same results from the snapshot")

	// A degree-ordered snapshot keeps its ranks: the same results by name.
	ordered := filepath.Join(t.TempDir(), "ordered.snap")
	code, _, errOut = runCLI("ingest", "--graph", graph, "--order", "degree", "--out", ordered)
	require.Equal(t, 0, code, errOut)
	code, fromOrdered, errOut := runCLI(append(args, "--snapshot", ordered)...)
	require.Equal(t, 0, code, errOut)
	var c solveJSON
	require.NoError(t, json.Unmarshal([]byte(fromOrdered), &c))
	require.Equal(t, a.TopK, c.TopK, "same results from the degree-ordered snapshot")

	queries := writeFile(t, "q.jsonl", `{"id":"q1","seeds":{"q":1},"k":1,"candidates":["p1","p2","spam"]}`+"\n")
	code, _, errOut = runCLI("replay", "--snapshot", snap, "--trust", "default", "--queries", queries)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "1 queries")

	code, _, errOut = runCLI("solve", "--snapshot", snap, "--graph", graph, "--seeds", "q")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "not both")
	bad := writeFile(t, "bad.snap", "APPRSNP1 but not really a snapshot file at all, sorry")
	code, _, errOut = runCLI("solve", "--snapshot", bad, "--seeds", "q")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "snapshot:")
	code, _, errOut = runCLI("ingest", "--graph", graph)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--out")
}

// --order auto keeps a snapshot's saved order (no renumbering at load),
// gives other graphs csr.AutoOrder's choice, and an explicit order
// renumbers whatever differs.
func TestApplyOrder(t *testing.T) {
	gf := graphFlags{path: writeFile(t, "g.tsv", tiny), format: "edges", order: "degree"}
	ld, _, err := gf.load(nil)
	require.NoError(t, err)
	deg := ld.g
	require.Equal(t, csr.DegreeOrder, orderOf(deg))
	require.Equal(t, csr.DegreeOrder, ld.order)
	require.Positive(t, ld.reorderTime)

	gf.order = "auto"
	g, order, took, err := gf.applyOrder(deg, true) // from a snapshot: kept
	require.NoError(t, err)
	require.Same(t, deg, g)
	require.Equal(t, csr.DegreeOrder, order)
	require.Zero(t, took)
	g, order, _, err = gf.applyOrder(deg, false) // 7 nodes fit any L2
	require.NoError(t, err)
	require.Equal(t, csr.StreamOrder, order)
	require.Equal(t, csr.StreamOrder, orderOf(g))
	stream := g
	gf.order = "stream"
	g, _, took, err = gf.applyOrder(stream, false)
	require.NoError(t, err)
	require.Same(t, stream, g)
	require.Zero(t, took)
	gf.order = "bfs"
	_, _, _, err = gf.applyOrder(stream, false)
	require.ErrorContains(t, err, "--order")
}

// solve --certify --visits selects what solve --certify selects, and says
// what building the visit bounds cost.
func TestSolveCertifyWithVisits(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	var want solveJSON
	for _, visits := range []bool{false, true} {
		args := []string{"solve", "--graph", graph, "--seeds", "q:2,a", "--k", "3", "--certify", "--json"}
		if visits {
			args = append(args, "--visits")
		}
		code, out, errOut := runCLI(args...)
		require.Equal(t, 0, code, errOut)
		var res solveJSON
		require.NoError(t, json.Unmarshal([]byte(out), &res))
		if !visits {
			want = res
			continue
		}
		require.Contains(t, errOut, "visit bounds: built in")
		require.Len(t, res.TopK, len(want.TopK))
		for i := range res.TopK {
			require.Equal(t, want.TopK[i].Node, res.TopK[i].Node, "the proof may stop earlier, the selection is the same")
		}
		require.LessOrEqual(t, res.Iterations, want.Iterations)
	}
}

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCLI(args...)
		require.Equal(t, 0, code, args)
		require.Equal(t, "pprbench "+version.Version+"\n", out, args)
	}
	code, _, errs := runCLI("version", "x")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `unexpected argument "x"`)
}

func TestHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI("help")
	require.Equal(t, 0, code)
	for _, c := range commands() {
		require.Contains(t, out, "  "+c.name+" ", "every command is listed")
	}
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		for _, args := range [][]string{{"help", c.name}, {c.name, "-h"}} {
			code, out, errs := runCLI(args...)
			require.Equal(t, 0, code, args)
			require.Empty(t, errs, args)
			require.True(t, strings.HasPrefix(out, "usage: pprbench "+c.name), "%v: %q", args, out)
			require.Contains(t, out, "Example:\n  "+c.example, args)
		}
	}
	code, out, errs := runCLI("solve", "--bogus")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errs, "pprbench solve: usage: flag provided but not defined: -bogus")
	require.Contains(t, errs, "pprbench help solve")
	code, _, errs = runCLI("help", "bogus")
	require.Equal(t, 2, code)
	require.Contains(t, errs, `unknown command "bogus"`)
}
