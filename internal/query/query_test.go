package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
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
		{`{"seeds":{"a":1,"b":null}}`, `seed "b": weight`},
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

// parseSeedsReference reads {"NAME": WEIGHT, ...} in the order given. A JSON object
// decoded into a map would keep only a repeated name's last weight: the
// tokens are read one by one so a repeat is refused.
func parseSeedsReference(raw json.RawMessage) ([]Seed, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New(`"seeds" is required: {"NAME": WEIGHT, ...}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf(`"seeds": %s, want an object {"NAME": WEIGHT, ...}`, raw)
	}
	list := newSeedList(0)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("seeds: %v", err)
		}
		name := t.(string) // an object's keys are strings
		var wp *float64
		if err := dec.Decode(&wp); err != nil {
			return nil, fmt.Errorf("seed %q: weight: %v", name, err)
		}
		if wp == nil {
			return nil, fmt.Errorf("seed %q: weight: null, want a number", name)
		}
		if err := list.add(name, *wp); err != nil {
			return nil, err
		}
	}
	return list.done()
}

// parseSeeds, which scans the object itself, reads what the token-by-token
// reference reads: the same seeds in the same order, or an error when it
// errs; over names with escapes, bytes that are not UTF-8, numbers of every
// form, values that are not numbers, repeats and whitespace.
func TestParseSeedsMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	names := []string{`"a"`, `"b"`, `"\u00e9"`, `"x\"y"`, `"\\"`, `"caf\u00e9"`, `""`, "\"\xff\xfe\"", `"\ud800"`, `"p 1"`}
	values := []string{`1`, `0`, `-1`, `0.5`, `1e-300`, `1e-400`, `1e400`, `-0`, `2E+3`, `"1"`, `null`, `true`, `[1]`, `{"a":1}`, `1.5e2`}
	ws := []string{"", " ", "\n\t", "  "}
	agree, accepted := 0, 0
	for range 5000 {
		var b strings.Builder
		b.WriteString("{" + ws[rng.IntN(len(ws))])
		for i := range rng.IntN(5) {
			if i > 0 {
				b.WriteString(ws[rng.IntN(len(ws))] + "," + ws[rng.IntN(len(ws))])
			}
			b.WriteString(names[rng.IntN(len(names))] + ws[rng.IntN(len(ws))] + ":" + ws[rng.IntN(len(ws))] + values[rng.IntN(len(values))])
		}
		b.WriteString(ws[rng.IntN(len(ws))] + "}")
		raw := []byte(b.String())
		if !json.Valid(raw) {
			continue // the line's decoding refuses it before parseSeeds
		}
		got, gotErr := parseSeeds(raw)
		want, wantErr := parseSeedsReference(raw)
		require.Equal(t, wantErr != nil, gotErr != nil, "%s: error %v, reference %v", raw, gotErr, wantErr)
		require.Equal(t, want, got, "%s", raw)
		agree++
		if gotErr == nil {
			accepted++
		}
	}
	require.Greater(t, agree, 1000)
	require.Greater(t, accepted, 50)
}
