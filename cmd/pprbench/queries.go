package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/query"
	"github.com/authppr/authppr/ppr"
)

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
		ql, err := query.Parse([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		q := namedQuery{ID: ql.ID, K: ql.K}
		if q.ID == "" {
			q.ID = strconv.Itoa(line)
		}
		if q.K == 0 {
			q.K = 10
		}
		if first, dup := ids[q.ID]; dup {
			return nil, fmt.Errorf("%s: id %q repeats line %d", where, q.ID, first)
		}
		ids[q.ID] = line
		if q.Seeds, q.Candidates, err = ql.Resolve(g.ID); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
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
