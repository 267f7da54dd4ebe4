package query

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/ppr"
)

func TestParse(t *testing.T) {
	t.Parallel()
	q, err := Parse([]byte(`{"id":"q1","seeds":{"b":2,"a":0.5},"k":3,"candidates":["p1","p2"]}`))
	require.NoError(t, err)
	require.Equal(t, Query{ID: "q1", Seeds: []Seed{{"b", 2}, {"a", 0.5}}, K: 3, Candidates: []string{"p1", "p2"}}, q)
	q, err = Parse([]byte(`{"seeds":{"a":1}}`))
	require.NoError(t, err)
	require.Equal(t, Query{Seeds: []Seed{{"a", 1}}}, q, "id and k absent are the caller's defaults")
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, want string }{
		{`{"seeds":{"a":1},"x":1}`, `unknown field "x"`},
		{`{"seeds":{"a":1}} {}`, "more than one JSON value"},
		{`[1]`, "want {"},
		{`{"id":"","seeds":{"a":1}}`, `"id" is empty`},
		{`{"seeds":{"a":1},"k":0}`, "k = 0, want at least 1"},
		{`{"k":1}`, `"seeds" is required`},
		{`{"seeds":[1]}`, `"seeds": [1], want an object`},
		{`{"seeds":{}}`, `"seeds" is empty`},
		{`{"seeds":{"a":1,"a":2}}`, `seed "a" given twice`},
		{`{"seeds":{"":1}}`, "empty name"},
		{`{"seeds":{"a":-1}}`, `seed "a": weight -1, want a finite non-negative number`},
		{`{"seeds":{"a":"x"}}`, `seed "a": weight`},
		{`{"seeds":{"a":1e308,"b":1e308}}`, "want a positive finite total"},
		{`{"seeds":{"a":0}}`, "seed weights sum to 0"},
		{`{"seeds":{"a":1},"candidates":[]}`, `"candidates" is empty`},
		{`{"seeds":{"a":1},"candidates":["p",""]}`, "candidates[1]: empty name"},
		{`{"seeds":{"a":1},"candidates":["p","q","p"]}`, `candidate "p": candidates[2] repeats candidates[0]`},
	} {
		_, err := Parse([]byte(c.line))
		require.ErrorContains(t, err, c.want, c.line)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	ids := map[string]uint32{"a": 0, "b": 1, "p": 2}
	id := func(name string) (uint32, bool) { n, ok := ids[name]; return n, ok }
	q := Query{Seeds: []Seed{{"b", 2}, {"a", 1}}, Candidates: []string{"p"}}
	seeds, cands, err := q.Resolve(id)
	require.NoError(t, err)
	require.Equal(t, []ppr.Seed{{Node: 1, Weight: 2}, {Node: 0, Weight: 1}}, seeds)
	require.Equal(t, []uint32{2}, cands)
	_, cands, err = Query{Seeds: []Seed{{"a", 1}}}.Resolve(id)
	require.NoError(t, err)
	require.Nil(t, cands, "no candidates: every node")

	_, _, err = Query{Seeds: []Seed{{"a", 1}}, Candidates: []string{"p", "zed"}}.Resolve(id)
	require.EqualError(t, err, `candidate "zed": unknown node`)
	q = Query{Seeds: []Seed{{"x1", 1}, {"a", 1}}, Candidates: []string{"x2", "x3", "x4", "x5", "x6", "x7"}}
	_, _, err = q.Resolve(id)
	require.EqualError(t, err, `unknown nodes: seed "x1", candidate "x2", candidate "x3", candidate "x4", candidate "x5", and 2 more`)
}

func TestNamedRoundTrip(t *testing.T) {
	t.Parallel()
	name := func(u uint32) string { return []string{"a", "b\"\x01", "ü"}[u] }
	q := Named("q\n1", []ppr.Seed{{Node: 2, Weight: 0.25}, {Node: 0, Weight: 1}, {Node: 2, Weight: 0.5}}, 4, []uint32{1, 0}, name)
	require.Equal(t, []Seed{{"ü", 0.75}, {"a", 1}}, q.Seeds, "a repeated seed is summed, first-appearance order")
	data, err := json.Marshal(q)
	require.NoError(t, err)
	back, err := Parse(data)
	require.NoError(t, err, "%s", data)
	require.Equal(t, q, back)
	data, err = json.Marshal(Named("", []ppr.Seed{{Node: 0, Weight: 1}}, 0, nil, name))
	require.NoError(t, err)
	require.Equal(t, `{"seeds":{"a":1}}`, string(data))
}

// FuzzParse: Parse never panics, and what it accepts writes back to the
// same query.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"id":"q","seeds":{"a":1,"b":0.5},"k":2,"candidates":["c"]}`, `{"seeds":{"a":1}}`, `{"seeds":{"a":1,"a":1}}`, `{"seeds":{"\u00e9":1e-300}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		q, err := Parse(line)
		if err != nil {
			return
		}
		data, err := json.Marshal(q)
		if err != nil {
			t.Fatalf("%q: accepted but not written back: %v", line, err)
		}
		back, err := Parse(data)
		if err != nil {
			t.Fatalf("%q: written as %s, refused: %v", line, data, err)
		}
		require.Equal(t, q, back)
	})
}
