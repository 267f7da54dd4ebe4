// Package query reads the query lines of pprbench's files: a query file
// (solve, replay, compare) holds one per line, a live event file wraps one
// in {"query": ...}. A query names its nodes:
//
//	{"id":"q1","seeds":{"NAME":WEIGHT,...},"k":10,"candidates":["NAME",...]}
//
// Parse checks a line's form (no unknown field, no repeated seed or
// candidate, finite non-negative weights of positive total, k at least 1);
// Resolve turns names into a graph's node ids. Both name what is wrong and
// what was expected; callers add the file and line.
package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/authppr/authppr/ppr"
)

// Query is one query by node names.
type Query struct {
	ID         string // "" when the line gives none
	Seeds      []Seed // in the order the line gives them
	K          int    // 0 when the line gives none
	Candidates []string
	// Candidates is nil when the line gives none: every node is a
	// candidate.
}

// Seed is one named seed.
type Seed struct {
	Name   string
	Weight float64
}

// Form is the form Parse's errors say is expected.
const Form = `{"id":"..","seeds":{"NAME":W,..},"k":N,"candidates":["NAME",..]}`

type lineJSON struct {
	ID         *string         `json:"id"`
	Seeds      json.RawMessage `json:"seeds"`
	K          *int            `json:"k"`
	Candidates []string        `json:"candidates"`
}

// Parse reads one query object. A present id is not empty; k, when given,
// is at least 1; seeds are required.
func Parse(data []byte) (Query, error) {
	var raw lineJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Query{}, fmt.Errorf("%v (want %s)", err, Form)
	}
	if dec.More() {
		return Query{}, errors.New("more than one JSON value")
	}
	var q Query
	if raw.ID != nil {
		if *raw.ID == "" {
			return Query{}, errors.New(`"id" is empty (leave it out for the line number)`)
		}
		q.ID = *raw.ID
	}
	if raw.K != nil {
		if *raw.K < 1 {
			return Query{}, fmt.Errorf("k = %d, want at least 1", *raw.K)
		}
		q.K = *raw.K
	}
	seeds, err := parseSeeds(raw.Seeds)
	if err != nil {
		return Query{}, err
	}
	q.Seeds = seeds
	if raw.Candidates != nil {
		if q.Candidates, err = parseCandidates(raw.Candidates); err != nil {
			return Query{}, err
		}
	}
	return q, nil
}

// parseSeeds reads {"NAME": WEIGHT, ...} in the order given. A JSON object
// decoded into a map would keep only a repeated name's last weight: the
// tokens are read one by one so a repeat is refused.
func parseSeeds(raw json.RawMessage) ([]Seed, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New(`"seeds" is required: {"NAME": WEIGHT, ...}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf(`"seeds": %s, want an object {"NAME": WEIGHT, ...}`, raw)
	}
	var seeds []Seed
	seen := map[string]bool{}
	total := 0.0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("seeds: %v", err)
		}
		name := t.(string) // an object's keys are strings
		var w float64
		if err := dec.Decode(&w); err != nil {
			return nil, fmt.Errorf("seed %q: weight: %v", name, err)
		}
		switch {
		case name == "":
			return nil, errors.New("a seed with an empty name")
		case seen[name]:
			return nil, fmt.Errorf("seed %q given twice", name)
		case !(w >= 0) || math.IsInf(w, 1):
			return nil, fmt.Errorf("seed %q: weight %v, want a finite non-negative number", name, w)
		}
		seen[name] = true
		total += w
		seeds = append(seeds, Seed{Name: name, Weight: w})
	}
	switch {
	case len(seeds) == 0:
		return nil, errors.New(`"seeds" is empty`)
	case !(total > 0) || math.IsInf(total, 1):
		return nil, fmt.Errorf("seed weights sum to %v, want a positive finite total", total)
	}
	return seeds, nil
}

func parseCandidates(names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, errors.New(`"candidates" is empty (leave it out to rank every node)`)
	}
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if name == "" {
			return nil, fmt.Errorf("candidates[%d]: empty name", i)
		}
		if first, dup := seen[name]; dup {
			return nil, fmt.Errorf("candidate %q: candidates[%d] repeats candidates[%d]", name, i, first)
		}
		seen[name] = i
	}
	return names, nil
}

// Resolve returns q's seeds and candidates (nil: every node) as node ids,
// id resolving a name. Unknown names are one error naming the first five.
func (q Query) Resolve(id func(name string) (uint32, bool)) ([]ppr.Seed, []uint32, error) {
	var unknown []string
	seeds := make([]ppr.Seed, 0, len(q.Seeds))
	for _, s := range q.Seeds {
		if n, ok := id(s.Name); ok {
			seeds = append(seeds, ppr.Seed{Node: n, Weight: s.Weight})
		} else {
			unknown = append(unknown, "seed "+strconv.Quote(s.Name))
		}
	}
	var cands []uint32
	if q.Candidates != nil {
		cands = make([]uint32, 0, len(q.Candidates))
		for _, name := range q.Candidates {
			if n, ok := id(name); ok {
				cands = append(cands, n)
			} else {
				unknown = append(unknown, "candidate "+strconv.Quote(name))
			}
		}
	}
	switch {
	case len(unknown) == 1:
		return nil, nil, fmt.Errorf("%s: unknown node", unknown[0])
	case len(unknown) > 5:
		unknown = append(unknown[:5], fmt.Sprintf("and %d more", len(unknown)-5))
		fallthrough
	case len(unknown) > 1:
		return nil, nil, fmt.Errorf("unknown nodes: %s", strings.Join(unknown, ", "))
	}
	return seeds, cands, nil
}

// Named returns the query by names of a query by node ids, name naming a
// node; a node given twice as a seed is one seed of the summed weight.
func Named(id string, seeds []ppr.Seed, k int, candidates []uint32, name func(uint32) string) Query {
	q := Query{ID: id, K: k}
	at := make(map[uint32]int, len(seeds))
	for _, s := range seeds {
		if i, ok := at[s.Node]; ok {
			q.Seeds[i].Weight += s.Weight
			continue
		}
		at[s.Node] = len(q.Seeds)
		q.Seeds = append(q.Seeds, Seed{Name: name(s.Node), Weight: s.Weight})
	}
	if candidates != nil {
		q.Candidates = make([]string, len(candidates))
		for i, c := range candidates {
			q.Candidates[i] = name(c)
		}
	}
	return q
}

// MarshalJSON writes q as the line Parse reads back (seeds in q's order;
// an empty id, a zero k and nil candidates left out).
func (q Query) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	put := func(sep, key string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("query %q: %s: %v", q.ID, key, err)
		}
		name, _ := json.Marshal(key) // a string always marshals
		fmt.Fprintf(&b, "%s%s:%s", sep, name, data)
		return nil
	}
	b.WriteString("{")
	if q.ID != "" {
		put("", "id", q.ID) // a string always marshals
		b.WriteString(",")
	}
	b.WriteString(`"seeds":{`)
	sep := ""
	for _, s := range q.Seeds {
		if err := put(sep, s.Name, s.Weight); err != nil {
			return nil, err
		}
		sep = ","
	}
	b.WriteString("}")
	if q.K != 0 {
		put(",", "k", q.K)
	}
	if q.Candidates != nil {
		put(",", "candidates", q.Candidates)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}
