package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/authppr/authppr/internal/query"
	"github.com/authppr/authppr/store"
)

// Event is one line of a stream: a write batch or a query.
type Event struct {
	Line  int
	Write *Write
	Query *Query
}

// Write is one writer's atomic batch.
type Write struct {
	Channel string
	Ops     []store.Op // carrying no channel: the writer's is applied
}

// Query is a guarded query by node names: a query file's line
// (internal/query), whose id and k an event must give.
type Query = query.Query

// Seed is one named seed.
type Seed = query.Seed

type eventJSON struct {
	Write *writeJSON      `json:"write"`
	Query json.RawMessage `json:"query"`
}

type writeJSON struct {
	Channel *string  `json:"channel"`
	Ops     []opJSON `json:"ops"`
}

type opJSON struct {
	Op     string   `json:"op"`
	Src    *string  `json:"src"`
	Dst    *string  `json:"dst"`
	Weight *float64 `json:"weight"`
	From   *string  `json:"from"`
	Into   *string  `json:"into"`
}

// Parse reads one event line (line is its number, for errors).
func Parse(data []byte, line int) (Event, error) {
	ev := Event{Line: line}
	fail := func(format string, args ...any) (Event, error) {
		return Event{}, fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
	}
	var raw eventJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return fail("not an event: %v", err)
	}
	if dec.More() {
		return fail("more than one JSON value")
	}
	if string(raw.Query) == "null" {
		raw.Query = nil // as a null "write" is
	}
	switch {
	case raw.Write != nil && raw.Query != nil:
		return fail(`an event is a "write" or a "query", not both`)
	case raw.Write != nil:
		w, err := parseWrite(raw.Write)
		if err != nil {
			return fail("write: %v", err)
		}
		ev.Write = w
	case raw.Query != nil:
		q, err := parseQuery(raw.Query)
		if err != nil {
			return fail("query: %v", err)
		}
		ev.Query = q
	default:
		return fail(`want {"write": ...} or {"query": ...}`)
	}
	return ev, nil
}

func parseWrite(w *writeJSON) (*Write, error) {
	if w.Channel == nil || *w.Channel == "" {
		return nil, errors.New(`"channel" is required and not empty`)
	}
	if len(w.Ops) == 0 {
		return nil, errors.New(`"ops" is required and not empty`)
	}
	out := &Write{Channel: *w.Channel}
	for i, o := range w.Ops {
		op, err := parseOp(o)
		if err != nil {
			return nil, fmt.Errorf("op %d: %v", i, err)
		}
		out.Ops = append(out.Ops, op)
	}
	return out, nil
}

// opFields are the name fields each op takes, in order, and whether it
// takes a weight.
var opFields = map[string]struct {
	names  [2]string
	weight bool
}{
	"edge":   {[2]string{"src", "dst"}, true},
	"delete": {[2]string{"src", "dst"}, false},
	"merge":  {[2]string{"from", "into"}, false},
}

func parseOp(o opJSON) (store.Op, error) {
	spec, ok := opFields[o.Op]
	switch {
	case o.Op == "":
		return store.Op{}, errors.New(`"op" is required: edge, delete or merge`)
	case !ok:
		return store.Op{}, fmt.Errorf("op %q, want edge, delete or merge", o.Op)
	}
	given := map[string]*string{"src": o.Src, "dst": o.Dst, "from": o.From, "into": o.Into}
	for _, field := range []string{"src", "dst", "from", "into", "weight"} {
		present := field == "weight" && o.Weight != nil || given[field] != nil
		if present && !slices.Contains(spec.names[:], field) && !(field == "weight" && spec.weight) {
			return store.Op{}, fmt.Errorf("%q does not apply to op %q", field, o.Op)
		}
	}
	var names [2]string
	for i, field := range spec.names {
		if p := given[field]; p == nil || *p == "" {
			return store.Op{}, fmt.Errorf("%q is required and not empty", field)
		} else {
			names[i] = *p
		}
	}
	switch o.Op {
	case "edge":
		w := 1.0
		if o.Weight != nil {
			w = *o.Weight
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return store.Op{}, fmt.Errorf("weight %v, want finite and non-negative", w)
		}
		return store.Edge(names[0], names[1], w), nil
	case "delete":
		return store.DeleteEdges(names[0], names[1]), nil
	default:
		return store.MergeInto(names[0], names[1]), nil
	}
}

// parseQuery reads a query event's object: a query file's line whose id
// and k are given.
func parseQuery(raw json.RawMessage) (*Query, error) {
	q, err := query.Parse(raw)
	switch {
	case err != nil:
		return nil, err
	case q.ID == "":
		return nil, errors.New(`"id" is required and not empty`)
	case q.K == 0:
		return nil, errors.New(`"k" is required`)
	}
	return &q, nil
}

// Payload returns the message a replicated memory carries for the write
// event on line (one Parse accepted): {"ops": [...]}, the line's ops as it
// gives them and no channel, for the message's subject names the channel.
func Payload(line []byte) ([]byte, error) {
	var raw struct {
		Write *struct {
			Ops json.RawMessage `json:"ops"`
		} `json:"write"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, fmt.Errorf("not an event: %v", err)
	}
	if raw.Write == nil || len(raw.Write.Ops) == 0 {
		return nil, errors.New(`not a write event with "ops"`)
	}
	out := append([]byte(`{"ops":`), raw.Write.Ops...)
	return append(out, '}'), nil
}

// ParsePayload reads a write batch carried as a message (Payload's form)
// for channel, the one the message's subject names. A payload that names
// a channel is refused: the channel a batch is applied as comes from where
// it was published, never from what it says.
func ParsePayload(payload []byte, channel string) (*Write, error) {
	var raw writeJSON
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a write batch: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if raw.Channel != nil {
		return nil, errors.New(`the batch names a "channel": the subject it was published on does`)
	}
	raw.Channel = &channel
	return parseWrite(&raw)
}
