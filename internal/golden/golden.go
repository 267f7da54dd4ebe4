package golden

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Entry is one stored coordinate, [name, oracle id, igraph score] in the
// file.
type Entry struct {
	Name  string
	ID    uint32
	Score float64
}

// UnmarshalJSON reads the three-element array form.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var raw [3]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[0], &e.Name); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[1], &e.ID); err != nil {
		return err
	}
	return json.Unmarshal(raw[2], &e.Score)
}

// Query is one personalized PageRank query and igraph's answer.
type Query struct {
	ID     string             `json:"id"`
	Seeds  map[string]float64 `json:"seeds"`
	Top    []Entry            `json:"top"`    // igraph's ranking prefix, score desc then id asc
	Next   *float64           `json:"next"`   // igraph's score right after Top; nil when Full
	Coords []Entry            `json:"coords"` // other sampled coordinates
}

// Case is one golden file: a graph, a view of it and queries.
type Case struct {
	Case     string   `json:"case"`
	Graph    string   `json:"graph"` // "data:<file>" or "testdata:<file>"
	Format   string   `json:"format"`
	Directed bool     `json:"directed"`
	Damping  float64  `json:"damping"`
	View     string   `json:"view"`
	Trust    []string `json:"trust"`
	Nodes    int      `json:"nodes"`
	Edges    int      `json:"edges"`
	Full     bool     `json:"full"` // Top is the whole vector
	Queries  []Query  `json:"queries"`
}

// Read decodes a gzipped golden file; unknown fields are an error, so a
// format change cannot pass unnoticed.
func Read(path string) (Case, error) {
	var c Case
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("golden: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return c, fmt.Errorf("golden: %s: %w", path, err)
	}
	dec := json.NewDecoder(zr)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("golden: %s: %w", path, err)
	}
	return c, nil
}

// GraphPath resolves the case's graph: "testdata:<file>" under testdata
// (the golden directory), "data:<file>" under data (the repository's
// testdata/, the real graphs). real reports the second, so callers can
// leave the real graphs out of -short runs.
func GraphPath(c Case, testdata, data string) (path string, real bool, err error) {
	where, name, ok := strings.Cut(c.Graph, ":")
	if !ok {
		return "", false, fmt.Errorf("golden: graph %q: want data:<file> or testdata:<file>", c.Graph)
	}
	switch where {
	case "data":
		return filepath.Join(data, name), true, nil
	case "testdata":
		return filepath.Join(testdata, name), false, nil
	}
	return "", false, fmt.Errorf("golden: graph %q: unknown location %q", c.Graph, where)
}
