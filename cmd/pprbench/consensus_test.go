package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two colluding low-ranked documents contradict the top one on the trusted
// channel; an untrusted judge adds edges from doc1 to its two allies.
const consensusDocs = `{"items": ["doc1", "doc2", "doc3", "doc4", "doc5"],
 "contradictions": [["doc1", "doc4"], ["doc1", "doc5", "default"], ["doc2", "doc4"], ["doc3", "doc5"],
                    ["doc1", "doc2", "mallory"], ["doc1", "doc3", "mallory"]]}`

type consensusJSON struct {
	Selected     []string `json:"selected"`
	AuthSelected []string `json:"auth_selected"`
	Divergent    bool     `json:"divergent"`
}

func runConsensusCLI(t *testing.T, args ...string) consensusJSON {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"consensus"}, args...)...)
	require.Equal(t, 0, code, errOut)
	var res consensusJSON
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	return res
}

func TestConsensusCommand(t *testing.T) {
	in := writeFile(t, "docs.json", consensusDocs)
	all := runConsensusCLI(t, "--input", in)
	require.Equal(t, consensusJSON{Selected: []string{"doc2", "doc3"}, AuthSelected: []string{"doc2", "doc3"}}, all,
		"every channel trusted by default: both views agree")

	guarded := runConsensusCLI(t, "--input", in, "--trust", "default")
	require.Equal(t, consensusJSON{Selected: []string{"doc2", "doc3"}, AuthSelected: []string{"doc1", "doc2", "doc3"}, Divergent: true}, guarded)

	// No contradictions: every item, in rank order.
	free := runConsensusCLI(t, "--input", writeFile(t, "free.json", `{"items":["b","a","c"]}`))
	require.Equal(t, []string{"b", "a", "c"}, free.Selected)
	empty := runConsensusCLI(t, "--input", writeFile(t, "empty.json", `{"items":[]}`))
	require.Equal(t, []string{}, empty.Selected)
	require.Equal(t, []string{}, empty.AuthSelected)

	code, _, errOut := runCLI("consensus", "--input", in, "--trust", "defualt")
	require.Equal(t, 0, code)
	require.Contains(t, errOut, `trusted channel "defualt" reports no contradiction`)
}

func TestConsensusErrors(t *testing.T) {
	cases := []struct {
		name, input string
		want        string
	}{
		{"unknown.json", `{"items":["a","b"],"contradictions":[["a","b"],["a","zz","peer"]]}`, `unknown.json: contradictions[1]: unknown item "zz"`},
		{"dup.json", `{"items":["a","b","a"]}`, `dup.json: items[2]: "a" repeats items[0]`},
		{"self.json", `{"items":["a","b"],"contradictions":[["b","b"]]}`, `self.json: contradictions[0]: "b" contradicts itself`},
		{"syntax.json", "{\"items\":[\"a\",\n\"b\",]}", "syntax.json:2:5: malformed JSON"},
		{"truncated.json", `{"items":["a"`, "truncated.json:1:14: malformed JSON: unexpected end of file"},
		{"type.json", `{"items":["a", 3]}`, `type.json:1:16: field "items`},
		{"field.json", `{"items":["a"],"contradiction":[]}`, `unknown field "contradiction"`},
		{"short.json", `{"items":["a","b"],"contradictions":[["a"]]}`, `short.json: contradictions[0]: ["a"], want ["ITEM","ITEM"]`},
		{"long.json", `{"items":["a","b"],"contradictions":[["a","b","c","d"]]}`, `long.json: contradictions[0]`},
		{"notstr.json", `{"items":["a","b"],"contradictions":[["a",1]]}`, `notstr.json: contradictions[0]`},
		{"chan.json", `{"items":["a","b"],"contradictions":[["a","b",""]]}`, `chan.json: contradictions[0]: empty channel`},
		{"name.json", `{"items":["a",""]}`, `name.json: items[1]: empty item name`},
		{"blank.json", ``, "blank.json: empty file"},
		{"two.json", `{"items":[]} {"items":[]}`, "two.json:1:14: trailing data"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI("consensus", "--input", writeFile(t, c.name, c.input))
		require.Equalf(t, 1, code, "%s: %s", c.name, errOut)
		require.Containsf(t, errOut, c.want, "%s", c.name)
	}
	code, _, errOut := runCLI("consensus")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--input is required")
}
