package main

import (
	"bufio"
	"encoding/json"
	"fmt"
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
	ID         string             `json:"id"`
	Seeds      map[string]float64 `json:"seeds"`
	K          *int               `json:"k"`
	Candidates []string           `json:"candidates,omitempty"`
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
		for _, name := range names {
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
			seen := make(map[uint32]bool, len(ql.Candidates))
			q.Candidates = []uint32{}
			for _, name := range ql.Candidates {
				id, ok := g.ID(name)
				if !ok {
					unknown = append(unknown, strconv.Quote(name))
					continue
				}
				if !seen[id] {
					seen[id] = true
					q.Candidates = append(q.Candidates, id)
				}
			}
		}
		if len(unknown) > 0 {
			if len(unknown) > 5 {
				unknown = append(unknown[:5], fmt.Sprintf("and %d more", len(unknown)-5))
			}
			return nil, fmt.Errorf("%s: unknown node(s): %s", where, strings.Join(unknown, ", "))
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
