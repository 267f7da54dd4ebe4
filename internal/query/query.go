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
	"unicode/utf8"

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
// decoded into a map would keep only a repeated name's last weight, and
// decoding it token by token costs an allocation per token (a dense reset
// has a seed per passage): it scans the object itself, which the line's
// decoding has already checked is JSON (parseSeedsReference in the tests
// is the token-by-token version it is compared with).
func parseSeeds(raw json.RawMessage) ([]Seed, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New(`"seeds" is required: {"NAME": WEIGHT, ...}`)
	}
	sc := seedScanner{raw: raw}
	if sc.skip(); sc.peek() != '{' {
		return nil, fmt.Errorf(`"seeds": %s, want an object {"NAME": WEIGHT, ...}`, raw)
	}
	sc.i++
	list := newSeedList(bytes.Count(raw, []byte{':'}))
	for {
		if sc.skip(); sc.peek() == ',' {
			sc.i++
			sc.skip()
		}
		if sc.peek() == '}' {
			break
		}
		name, err := sc.name()
		if err != nil {
			return nil, fmt.Errorf("seeds: %v", err)
		}
		w, err := sc.weight()
		if err != nil {
			return nil, fmt.Errorf("seed %q: weight: %v", name, err)
		}
		if err := list.add(name, w); err != nil {
			return nil, err
		}
	}
	return list.done()
}

// seedList collects seeds in order, refusing what a query may not hold.
type seedList struct {
	seeds []Seed
	seen  map[string]bool
	total float64
}

func newSeedList(capacity int) *seedList {
	return &seedList{seeds: make([]Seed, 0, capacity), seen: make(map[string]bool, capacity)}
}

// add adds a seed: a name given once, not empty, a finite non-negative
// weight.
func (l *seedList) add(name string, w float64) error {
	switch {
	case name == "":
		return errors.New("a seed with an empty name")
	case l.seen[name]:
		return fmt.Errorf("seed %q given twice", name)
	case !(w >= 0) || math.IsInf(w, 1):
		return fmt.Errorf("seed %q: weight %v, want a finite non-negative number", name, w)
	}
	l.seen[name] = true
	l.total += w
	l.seeds = append(l.seeds, Seed{Name: name, Weight: w})
	return nil
}

// done returns the seeds: at least one, weights of positive finite total.
func (l *seedList) done() ([]Seed, error) {
	switch {
	case len(l.seeds) == 0:
		return nil, errors.New(`"seeds" is empty`)
	case !(l.total > 0) || math.IsInf(l.total, 1):
		return nil, fmt.Errorf("seed weights sum to %v, want a positive finite total", l.total)
	}
	return l.seeds, nil
}

// seedScanner reads a JSON object of numbers, known to be valid JSON.
type seedScanner struct {
	raw []byte
	i   int
}

func (sc *seedScanner) peek() byte {
	if sc.i < len(sc.raw) {
		return sc.raw[sc.i]
	}
	return 0
}

func (sc *seedScanner) skip() {
	for sc.i < len(sc.raw) && (sc.raw[sc.i] == ' ' || sc.raw[sc.i] == '\t' || sc.raw[sc.i] == '\n' || sc.raw[sc.i] == '\r') {
		sc.i++
	}
}

// name reads a key and its colon. A key with an escape or bytes that are
// not UTF-8 is decoded by encoding/json, as the reference reads it.
func (sc *seedScanner) name() (string, error) {
	if sc.peek() != '"' {
		return "", fmt.Errorf("offset %d: want a name", sc.i)
	}
	start, plain := sc.i, true
	for sc.i++; sc.i < len(sc.raw) && sc.raw[sc.i] != '"'; sc.i++ {
		if c := sc.raw[sc.i]; c == '\\' {
			plain = false
			sc.i++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
	}
	if sc.i >= len(sc.raw) {
		return "", fmt.Errorf("offset %d: unterminated name", start)
	}
	sc.i++
	token := sc.raw[start:sc.i]
	var name string
	if plain {
		name = string(token[1 : len(token)-1])
	} else if err := json.Unmarshal(token, &name); err != nil {
		return "", err
	}
	if sc.skip(); sc.peek() != ':' {
		return "", fmt.Errorf("offset %d: want a colon after %s", sc.i, token)
	}
	sc.i++
	sc.skip()
	return name, nil
}

// weight reads a number value.
func (sc *seedScanner) weight() (float64, error) {
	start := sc.i
	for sc.i < len(sc.raw) && strings.IndexByte("0123456789+-.eE", sc.raw[sc.i]) >= 0 {
		sc.i++
	}
	if sc.i == start {
		return 0, fmt.Errorf("want a number at offset %d", start)
	}
	w, err := strconv.ParseFloat(string(sc.raw[start:sc.i]), 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a float64", sc.raw[start:sc.i])
	}
	return w, nil
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
