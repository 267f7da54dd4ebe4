package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/ppr"
)

// queryLine is one line of a query file:
// {"id":"q1","seeds":{"NAME":WEIGHT,...},"k":10,"candidates":["NAME",...]}.
type queryLine struct {
	ID         string   `json:"id"`
	Seeds      seedMap  `json:"seeds"`
	K          *int     `json:"k"`
	Candidates []string `json:"candidates,omitempty"`
}

// seedMap is a query's seeds by name. Decoding refuses a name given twice:
// a JSON object would keep only its last weight.
type seedMap map[string]float64

func (m *seedMap) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("seeds: %s, want an object {\"NAME\":WEIGHT,...}", b)
	}
	out := seedMap{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("seeds: %v", err)
		}
		name := tok.(string) // an object's keys are strings
		var w float64
		if err := dec.Decode(&w); err != nil {
			return fmt.Errorf("seed %q: %v", name, err)
		}
		if _, dup := out[name]; dup {
			return fmt.Errorf("seed %q given twice", name)
		}
		out[name] = w
	}
	*m = out
	return nil
}

// namedQuery is a parsed query with node ids resolved.
type namedQuery struct {
	ID         string
	Seeds      []ppr.Seed
	K          int
	Candidates []uint32 // nil: every node
}

// readQueries parses a JSON-lines query file against g. Every problem is an
// error naming the file, the line and what was expected; k defaults to 10.
func readQueries(g *csr.Graph, path string) ([]namedQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []namedQuery
	ids := map[string]int{} // the line of each query id
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, line)
		var ql queryLine
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ql); err != nil {
			return nil, fmt.Errorf("%s: %v (want {\"id\":..,\"seeds\":{\"NAME\":W,..},\"k\":N,\"candidates\":[..]})", where, err)
		}
		q := namedQuery{ID: ql.ID, K: 10}
		if q.ID == "" {
			q.ID = strconv.Itoa(line)
		}
		if first, dup := ids[q.ID]; dup {
			return nil, fmt.Errorf("%s: id %q repeats line %d", where, q.ID, first)
		}
		ids[q.ID] = line
		if ql.K != nil {
			q.K = *ql.K
		}
		if q.K < 1 {
			return nil, fmt.Errorf("%s: k = %d, want at least 1", where, q.K)
		}
		if len(ql.Seeds) == 0 {
			return nil, fmt.Errorf("%s: no seeds", where)
		}
		names := make([]string, 0, len(ql.Seeds))
		for name := range ql.Seeds {
			names = append(names, name)
		}
		slices.Sort(names) // deterministic order, so normalisation rounds the same way every run
		var unknown []string
		total := 0.0
		for _, name := range names {
			if w := ql.Seeds[name]; !(w >= 0) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("%s: seed %q: weight %v, want a finite non-negative number", where, name, w)
			}
			total += ql.Seeds[name]
			id, ok := g.ID(name)
			if !ok {
				unknown = append(unknown, strconv.Quote(name))
				continue
			}
			q.Seeds = append(q.Seeds, ppr.Seed{Node: id, Weight: ql.Seeds[name]})
		}
		if ql.Candidates != nil {
			if len(ql.Candidates) == 0 {
				return nil, fmt.Errorf("%s: empty candidates list (omit it to rank every node)", where)
			}
			// A repeat is an error, as in ppr and the guard.
			seen := make(map[string]int, len(ql.Candidates))
			q.Candidates = []uint32{}
			for i, name := range ql.Candidates {
				if first, dup := seen[name]; dup {
					return nil, fmt.Errorf("%s: candidate %q: candidates[%d] repeats candidates[%d]", where, name, i, first)
				}
				seen[name] = i
				id, ok := g.ID(name)
				if !ok {
					unknown = append(unknown, strconv.Quote(name))
					continue
				}
				q.Candidates = append(q.Candidates, id)
			}
		}
		if len(unknown) > 0 {
			if len(unknown) > 5 {
				unknown = append(unknown[:5], fmt.Sprintf("and %d more", len(unknown)-5))
			}
			return nil, fmt.Errorf("%s: unknown node(s): %s", where, strings.Join(unknown, ", "))
		}
		if total == 0 {
			return nil, fmt.Errorf("%s: seed weights sum to 0, want a positive total", where)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return out, nil
}
