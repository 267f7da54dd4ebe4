package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// The candidates of a query file or a --candidates file must be distinct
// (ppr and the guard refuse repeats; the files kept the first silently),
// and a query file's seeds and ids as well: a JSON object keeps only the
// last of two equal keys, and compare matches answers by id.
func TestRepeatsInQueryAndCandidateFilesAreRefused(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	cases := []struct {
		cmd     []string
		file    string
		content string
		want    []string
	}{
		{[]string{"replay", "--graph", graph, "--trust", "default", "--queries"}, "q.jsonl",
			`{"id":"a","seeds":{"q":1},"k":1,"candidates":["p1","p2","p1"]}` + "\n",
			[]string{"q.jsonl:1", `candidate "p1"`, "candidates[2] repeats candidates[0]"}},
		{[]string{"solve", "--graph", graph, "--queries"}, "q.jsonl",
			"\n" + `{"id":"a","seeds":{"q":1},"k":1,"candidates":["p2","p2"]}` + "\n",
			[]string{"q.jsonl:2", `candidate "p2"`}},
		{[]string{"replay", "--graph", graph, "--trust", "default", "--queries"}, "q.jsonl",
			`{"id":"a","seeds":{"q":1,"a":2,"q":3},"k":1}` + "\n",
			[]string{"q.jsonl:1", `seed "q" given twice`}},
		{[]string{"replay", "--graph", graph, "--trust", "default", "--queries"}, "q.jsonl",
			`{"id":"a","seeds":{"q":1},"k":1}` + "\n" + `{"id":"a","seeds":{"a":1},"k":1}` + "\n",
			[]string{"q.jsonl:2", `id "a" repeats line 1`}},
		{[]string{"replay", "--graph", graph, "--trust", "default", "--queries"}, "q.jsonl",
			`{"id":"a","seeds":{"q":-1,"a":2},"k":1}` + "\n",
			[]string{"q.jsonl:1", `seed "q"`, "weight -1", "non-negative"}},
		{[]string{"replay", "--graph", graph, "--trust", "default", "--queries"}, "q.jsonl",
			`{"id":"a","seeds":{"q":0},"k":1}` + "\n",
			[]string{"q.jsonl:1", "sum to 0"}},
		{[]string{"solve", "--graph", graph, "--seeds", "q", "--candidates"}, "c.txt",
			"# passages\np1\np2\np1\n",
			[]string{"c.txt:4", `"p1"`, "repeats line 2"}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			path := writeFile(t, c.file, c.content)
			args := append(append([]string{}, c.cmd...), path)
			code, _, errOut := runCLI(args...)
			require.Equalf(t, 1, code, "%v: %s", c.content, errOut)
			for _, w := range c.want {
				require.Containsf(t, errOut, w, "%v", c.content)
			}
		})
	}
}
