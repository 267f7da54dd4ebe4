package live

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/store"
)

func TestParseEvents(t *testing.T) {
	t.Parallel()
	ev, err := Parse([]byte(`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "x", "dst": "y", "weight": 2}, {"op": "edge", "src": "x", "dst": "z"}, {"op": "delete", "src": "x", "dst": "y"}, {"op": "merge", "from": "z", "into": "y"}]}}`), 3)
	require.NoError(t, err)
	require.Equal(t, 3, ev.Line)
	require.Nil(t, ev.Query)
	require.Equal(t, &Write{Channel: "a", Ops: []store.Op{store.Edge("x", "y", 2), store.Edge("x", "z", 1), store.DeleteEdges("x", "y"), store.MergeInto("z", "y")}}, ev.Write)

	ev, err = Parse([]byte(`{"query": {"id": "q", "seeds": {"x": 1}, "k": 2, "candidates": ["y"]}}`), 4)
	require.NoError(t, err)
	require.Nil(t, ev.Write)
	require.Equal(t, &Query{ID: "q", Seeds: []Seed{{Name: "x", Weight: 1}}, K: 2, Candidates: []string{"y"}}, ev.Query)
}

func TestParseEventErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, want string }{
		{`{}`, `line 7: want {"write": ...} or {"query": ...}`},
		{`{"query": null}`, `want {"write": ...} or {"query": ...}`},
		{`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "x", "dst": "y"}]}, "query": {"id": "q", "seeds": {"x": 1}, "k": 1}}`, "not both"},
		{`{"write": {"channel": "a", "ops": []}} {}`, "more than one JSON value"},
		{`{"other": 1}`, "not an event"},
		{`{"write": {"ops": [{"op": "edge", "src": "x", "dst": "y"}]}}`, `write: "channel" is required`},
		{`{"write": {"channel": "a", "ops": []}}`, `"ops" is required and not empty`},
		{`{"write": {"channel": "a", "ops": [{"src": "x", "dst": "y"}]}}`, `op 0: "op" is required: edge, delete or merge`},
		{`{"write": {"channel": "a", "ops": [{"op": "link", "src": "x", "dst": "y"}]}}`, `op 0: op "link", want edge, delete or merge`},
		{`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "x"}]}}`, `op 0: "dst" is required and not empty`},
		{`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "", "dst": "y"}]}}`, `"src" is required and not empty`},
		{`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "x", "dst": "y", "into": "z"}]}}`, `"into" does not apply to op "edge"`},
		{`{"write": {"channel": "a", "ops": [{"op": "delete", "src": "x", "dst": "y", "weight": 1}]}}`, `"weight" does not apply to op "delete"`},
		{`{"write": {"channel": "a", "ops": [{"op": "merge", "from": "x", "into": "y", "src": "z"}]}}`, `"src" does not apply to op "merge"`},
		{`{"write": {"channel": "a", "ops": [{"op": "merge", "from": "x"}]}}`, `"into" is required`},
		{`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "x", "dst": "y"}, {"op": "edge", "src": "x", "dst": "y", "weight": -1}]}}`, "op 1: weight -1, want finite and non-negative"},
		{`{"query": {"seeds": {"x": 1}, "k": 1}}`, `query: "id" is required and not empty`},
		{`{"query": {"id": "q", "seeds": {"x": 1}}}`, `query: "k" is required`},
		{`{"query": {"id": "q", "seeds": {"x": 1, "x": 2}, "k": 1}}`, `seed "x" given twice`},
	} {
		_, err := Parse([]byte(c.line), 7)
		require.ErrorContains(t, err, c.want, c.line)
		require.ErrorContains(t, err, "line 7: ", c.line)
	}
}

// FuzzParse: Parse never panics, and an accepted line has one event.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"write": {"channel": "a", "ops": [{"op": "edge", "src": "x", "dst": "y", "weight": 2}, {"op": "merge", "from": "z", "into": "y"}]}}`,
		`{"query": {"id": "q", "seeds": {"x": 1}, "k": 2, "candidates": ["y"]}}`,
		`{"write": {"channel": "a", "ops": [{"op": "delete", "src": "x", "dst": "y", "weight": 1}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := Parse(line, 1)
		if err != nil {
			return
		}
		if (ev.Write == nil) == (ev.Query == nil) {
			t.Fatalf("%q: accepted as %+v, want exactly one of a write and a query", line, ev)
		}
	})
}
