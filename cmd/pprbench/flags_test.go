package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/authppr/authppr/ppr"
	"github.com/stretchr/testify/require"
)

// Inputs that must be refused (issue 16, defect 6). One rule for every
// command: a flag value outside what the flag takes, or a flag the other
// flags make meaningless, is a usage error (exit status 2) whose message
// names the flag, the value and what is expected; nothing is silently
// replaced or ignored.
func TestUsageErrorsNameFlagValueAndWant(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	queries := writeFile(t, "q.jsonl", `{"id":"q1","seeds":{"q":1},"k":2}`+"\n")
	// A missing file: every check below must come before any file is read.
	missing := "/nonexistent/graph.bin"
	solve := []string{"solve", "--graph", graph, "--seeds", "q"}
	replay := []string{"replay", "--graph", graph, "--trust", "default", "--queries", queries}
	compare := []string{"compare", "--graph", graph, "--queries", queries}
	sweep := []string{"sweep", "--graph", graph}
	storeBench := []string{"store-bench", "--graph-bin", missing}
	overhead := []string{"overhead"}
	attack := []string{"attack"}
	queriesCmd := []string{"queries", "--graph", graph}
	ingest := []string{"ingest", "--graph", graph, "--out", "/nonexistent/out.snap"}
	with := func(base []string, extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := []struct {
		args []string
		want []string // every one must appear in the message
	}{
		// --tol 0 was silently the default 1e-10.
		{with(solve, "--tol", "0"), []string{"--tol 0", "positive"}},
		{with(solve, "--tol", "-1e-9"), []string{"--tol -1e-09", "positive"}},
		{with(solve, "--tol", "NaN"), []string{"--tol NaN", "positive"}},
		{with(solve, "--tol", "+Inf"), []string{"--tol +Inf", "finite"}},
		{with(replay, "--tol", "0"), []string{"--tol 0", "positive"}},
		{with(replay, "--tie-tol", "0"), []string{"--tie-tol 0", "positive"}},
		{with(replay, "--tie-tol", "-1"), []string{"--tie-tol -1", "positive"}},
		{with(compare, "--tol", "0"), []string{"--tol 0", "positive"}},
		{with(storeBench, "--tol", "0"), []string{"--tol 0", "positive"}},
		{with(storeBench, "--query-tol", "NaN"), []string{"--query-tol NaN", "positive"}},
		// --threads 0 and negative were accepted.
		{with(solve, "--threads", "0"), []string{"--threads 0", "at least 1"}},
		{with(solve, "--threads", "-3"), []string{"--threads -3", "at least 1"}},
		{with(compare, "--threads", "0"), []string{"--threads 0", "at least 1"}},
		{with(sweep, "--threads", "0"), []string{"--threads 0", "at least 1"}},
		{with(attack, "--workers", "0"), []string{"--workers 0", "at least 1"}},
		// --trust without --view auth was ignored.
		{with(solve, "--trust", "default"), []string{"--trust", "--view auth"}},
		// --format bogus listed two of the three formats.
		{with(solve, "--format", "bogus"), []string{"--format", `unknown format "bogus"`, "edges, triples or ppredge"}},
		{with(ingest, "--format", "bogus"), []string{"--format", `unknown format "bogus"`, "edges, triples or ppredge"}},
		{with(queriesCmd, "--format", "csv"), []string{"--format", `unknown format "csv"`, "edges, triples or ppredge"}},
		// Bad damping exited 1.
		{with(solve, "--damping", "1"), []string{"--damping 1", "0 <= d < 1"}},
		{with(solve, "--damping", "-0.1"), []string{"--damping -0.1", "0 <= d < 1"}},
		{with(solve, "--damping", "NaN"), []string{"--damping NaN", "0 <= d < 1"}},
		{with(replay, "--damping", "1.5"), []string{"--damping 1.5", "0 <= d < 1"}},
		{with(compare, "--damping", "1"), []string{"--damping 1", "0 <= d < 1"}},
		{with(sweep, "--damping", "1"), []string{"--damping 1", "0 <= d < 1"}},
		{with(storeBench, "--damping", "-1"), []string{"--damping -1", "0 <= d < 1"}},
		// Seeds: a weight that is not a number, negative, or all zero.
		{with([]string{"solve", "--graph", graph}, "--seeds", "q:x"), []string{"--seeds", `"q:x"`, `weight "x"`, "non-negative number"}},
		{with([]string{"solve", "--graph", graph}, "--seeds", "q:-1"), []string{"--seeds", `"q:-1"`, "non-negative"}},
		{with([]string{"solve", "--graph", graph}, "--seeds", "q:NaN"), []string{"--seeds", `"q:NaN"`, "finite"}},
		{with([]string{"solve", "--graph", graph}, "--seeds", "q:0,a:0"), []string{"--seeds", "sum to 0", "positive"}},
		// Other flags of the same kind.
		{with(solve, "--k", "-1"), []string{"--k -1", "at least 1"}},
		{with([]string{"solve", "--graph", graph, "--queries", queries}, "--k", "3"), []string{"--k", "--queries"}},
		{with(solve, "--ordered=false"), []string{"--ordered", "--certify"}},
		{with([]string{"solve", "--graph", graph, "--queries", queries, "--batch"}, "--threads", "2"), []string{"--threads", "--batch"}},
		{with(solve, "--order", "bfs"), []string{"--order", `"bfs"`, "stream, degree or auto"}},
		{with(solve, "--weights", "half"), []string{"--weights", `"half"`, "auto or float64"}},
		{[]string{"solve", "--snapshot", missing, "--seeds", "q", "--undirected"}, []string{"--undirected", "--graph"}},
		{[]string{"solve", "--graph", missing, "--format", "ppredge", "--seeds", "q", "--undirected"}, []string{"--undirected", "text format"}},
		{with(ingest, "--order", "bfs"), []string{"--order", `"bfs"`}},
		{[]string{"ingest", "--graph", missing, "--format", "ppredge", "--undirected", "--out", "x"}, []string{"--undirected", "text format"}},
		{with(compare, "--ordered=false"), []string{"--ordered", "--certify"}},
		{with(sweep, "--c", "/bin/true"), []string{"--c", "ppredge"}},
		{with(storeBench, "--trials", "0"), []string{"--trials 0", "at least 1"}},
		{with(storeBench, "--writes", "0"), []string{"--writes 0", "at least 1"}},
		{with(storeBench, "--batch", "0"), []string{"--batch 0", "at least 1"}},
		{with(storeBench, "--wal-batch", "-5"), []string{"--wal-batch -5", "at least 1"}},
		{with(storeBench, "--compact-nice", "20"), []string{"--compact-nice 20", "0..19"}},
		{with(storeBench, "--compact-nice", "-1"), []string{"--compact-nice -1", "0..19"}},
		{with(overhead, "--queries", "0"), []string{"--queries 0", "at least 1"}},
		{with(overhead, "--nodes", "3"), []string{"--nodes 3", "at least 10"}},
		{with(overhead, "--workload", "rmat", "--scale", "0"), []string{"--scale 0", "1..30"}},
		{with(overhead, "--workload", "rmat", "--scale", "31"), []string{"--scale 31", "1..30"}},
		{with(overhead, "--workload", "bogus"), []string{`--workload "bogus"`, "memory, kg, wn18rr or rmat"}},
		{with(overhead, "--kg", missing), []string{"--kg", "--workload kg"}},
		{with(overhead, "--workload", "kg", "--kg", missing, "--kg-entities", "0"), []string{"--kg-entities 0", "at least 1"}},
		{with(overhead, "--workload", "rmat", "--nodes", "5000"), []string{"--nodes", "--workload memory"}},
		{with(overhead, "--scale", "12"), []string{"--scale", "--workload rmat"}},
		{with(overhead, "--data", "/tmp"), []string{"--data", "--workload wn18rr"}},
		{with(overhead, "--workload", "rmat", "--regime", "attack"), []string{"--regime attack", "--workload memory"}},
		{with(overhead, "--regime", "most"), []string{"--regime", `"most"`, "few, one-percent or attack"}},
		{with(attack, "--ledger-weight", "+Inf"), []string{"--ledger-weight +Inf", "positive finite"}},
		{with(attack, "--ledger-weight", "0"), []string{"--ledger-weight 0", "positive finite"}},
		{with(attack, "--graph", "memory,memory"), []string{`--graph "memory,memory"`, "twice"}},
		{with(attack, "--graph", ""), []string{"--graph", "memory or wn18rr"}},
		{with(attack, "--graph", "memory", "--data", "/tmp"), []string{"--data", "wn18rr"}},
		{with(queriesCmd, "--kind", "seeds", "--entities", "3"), []string{"--entities", "--kind dense, entities or live"}},
		{with(queriesCmd, "--kind", "dense", "--entities", "3", "--seeds-per-query", "2"), []string{"--seeds-per-query", "--kind seeds or entities"}},
		{with(queriesCmd, "--seeds-per-query", "0"), []string{"--seeds-per-query 0", "at least 1"}},
		{with(queriesCmd, "--kind", "bogus"), []string{`--kind "bogus"`, "seeds, dense, entities or live"}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.args[0]), func(t *testing.T) {
			code, _, errOut := runCLI(c.args...)
			require.Equalf(t, 2, code, "%v: want a usage error, got %d: %s", c.args, code, errOut)
			for _, w := range c.want {
				require.Containsf(t, errOut, w, "%v", c.args)
			}
			require.Lessf(t, strings.Count(errOut, "\n"), 3, "%v: a usage error is one line, not the flag list: %s", c.args, errOut)
		})
	}
}

// parseSweepOrder reads every order back from its name (ppr.Order.String) and
// refuses others, naming the value and what it wants.
func TestParseSweepOrder(t *testing.T) {
	for _, o := range []ppr.Order{0, ppr.GaussSeidel, ppr.Jacobi, ppr.Normalized} {
		got, err := parseSweepOrder(o.String())
		require.NoError(t, err)
		require.Equal(t, o, got)
	}
	_, err := parseSweepOrder("sor")
	require.ErrorContains(t, err, `sweep order "sor", want default, gauss-seidel, jacobi or normalized`)
}
