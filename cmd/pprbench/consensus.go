package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/authppr/authppr/consensus"
	"github.com/authppr/authppr/replay"
)

// consensusInput is the --input file of 'pprbench consensus'.
type consensusInput struct {
	Items          []string          `json:"items"`
	Contradictions []json.RawMessage `json:"contradictions"`
}

type consensusOutput struct {
	Selected     []string `json:"selected"`
	AuthSelected []string `json:"auth_selected"`
	Divergent    bool     `json:"divergent"`
}

func runConsensus(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("consensus", flag.ContinueOnError)
	input := fs.String("input", "", `JSON file: {"items":[...best first], "contradictions":[["a","b","CHANNEL"],...]} (required)`)
	trust := fs.String("trust", "", "comma-separated trusted channels (default: every channel is trusted)")
	maxNodes := fs.Int64("max-nodes", 0, "branch-and-bound node budget per selection (0: the default; negative: no cap)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *input == "" {
		return fmt.Errorf("%w: --input is required", errUsage)
	}
	data, err := os.ReadFile(*input)
	if err != nil {
		return err
	}
	items, edges, err := parseConsensus(*input, data)
	if err != nil {
		return err
	}
	var trusts func(string) bool
	if list := splitList(*trust); len(list) > 0 {
		trusted := map[string]bool{}
		for _, c := range list {
			trusted[c] = true
		}
		trusts = func(c string) bool { return trusted[c] }
		seen := map[string]bool{}
		for _, e := range edges {
			seen[e.Channel] = true
		}
		for _, c := range list {
			if !seen[c] {
				fmt.Fprintf(stderr, "pprbench: note: trusted channel %q reports no contradiction in %s\n", c, *input)
			}
		}
	}
	guarded, err := consensus.NewGuarded(len(items), edges, trusts, consensus.Options{MaxNodes: *maxNodes})
	if err != nil {
		return err
	}
	d, err := guarded.Replay(replay.Report)
	if err != nil {
		return err
	}
	names := func(sel *consensus.Selection) []string {
		out := make([]string, len(sel.Items))
		for i, v := range sel.Items {
			out[i] = items[v]
		}
		return out
	}
	b, err := json.Marshal(consensusOutput{Selected: names(d.Native), AuthSelected: names(d.Auth), Divergent: d.Divergent})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// parseConsensus decodes and checks the input file; errors name the file
// and the place (line:column for malformed JSON, the array index
// otherwise).
func parseConsensus(path string, data []byte) ([]string, []consensus.Contradiction, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in consensusInput
	if err := dec.Decode(&in); err != nil {
		return nil, nil, jsonError(path, data, err)
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("%s:%s: trailing data after the JSON object", path, lineCol(data, dec.InputOffset()))
	}
	index := make(map[string]int, len(in.Items))
	for i, name := range in.Items {
		if name == "" {
			return nil, nil, fmt.Errorf("%s: items[%d]: empty item name", path, i)
		}
		if j, dup := index[name]; dup {
			return nil, nil, fmt.Errorf("%s: items[%d]: %q repeats items[%d]", path, i, name, j)
		}
		index[name] = i
	}
	edges := make([]consensus.Contradiction, 0, len(in.Contradictions))
	for n, raw := range in.Contradictions {
		var parts []string
		if err := json.Unmarshal(raw, &parts); err != nil || len(parts) < 2 || len(parts) > 3 {
			return nil, nil, fmt.Errorf(`%s: contradictions[%d]: %s, want ["ITEM","ITEM"] or ["ITEM","ITEM","CHANNEL"]`, path, n, raw)
		}
		ch := "default"
		if len(parts) == 3 {
			if ch = parts[2]; ch == "" {
				return nil, nil, fmt.Errorf("%s: contradictions[%d]: empty channel", path, n)
			}
		}
		var ends [2]int
		for e := range 2 {
			i, ok := index[parts[e]]
			if !ok {
				return nil, nil, fmt.Errorf("%s: contradictions[%d]: unknown item %q", path, n, parts[e])
			}
			ends[e] = i
		}
		if ends[0] == ends[1] {
			return nil, nil, fmt.Errorf("%s: contradictions[%d]: %q contradicts itself", path, n, parts[0])
		}
		edges = append(edges, consensus.Contradiction{I: ends[0], J: ends[1], Channel: ch})
	}
	return in.Items, edges, nil
}

func jsonError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%s: malformed JSON: %v", path, lineCol(data, syn.Offset-1), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s:%s: field %q: %v", path, lineCol(data, typ.Offset-1), typ.Field, err)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s: empty file, want a JSON object", path)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s:%s: malformed JSON: unexpected end of file", path, lineCol(data, int64(len(data))))
	}
	return fmt.Errorf("%s: %v", path, err)
}

// lineCol turns a byte offset into "line:column", both from 1. The json
// errors' offsets count the bytes read, the offending one included, so
// callers pass offset-1 to point at it.
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf("%d:%d", line, col)
}
