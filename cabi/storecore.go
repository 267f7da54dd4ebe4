package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
	"github.com/authppr/authppr/store"
)

// csrHooks names a graph on its arrays (a store created with node names).
var csrHooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()

// The living store in plain Go on Go slices, as core.go is for graphs:
// exports_store.go turns C arguments into these and errors into statuses.

// storeState is what a store handle holds.
type storeState struct {
	st *store.Store
}

// writerState is what a writer handle holds: the store's writer for one
// channel (store.Writer is the only way to write).
type writerState struct {
	w *store.Writer
}

// storeGuardState is what a store guard handle holds.
type storeGuardState struct {
	st    *store.Store
	guard *store.Guard
	max   int // suspects named at most
}

// Op kinds of authppr_writer_apply (authppr.h's AUTHPPR_OP_*).
const (
	opNode          = 1 // add node src
	opEdge          = 2 // add edge src -> dst (names; new names are created)
	opEdgeByID      = 3 // add edge src_ids[i] -> dst_ids[i] (existing nodes)
	opDeleteEdge    = 4 // delete edge edges[i]
	opDeleteBetween = 5 // delete every live edge src -> dst (names)
	opMerge         = 6 // merge node src into node dst
	opInferred      = 7 // add edge src -> dst derived from edges from[...]
)

// openStore opens the durable store in dir (created when it holds none,
// its edges directed as directed says); dir "" is an in-memory store.
// compactAt is store.Options.CompactAt.
func openStore(dir string, directed bool, compactAt int64) (*storeState, error) {
	if compactAt < 0 || compactAt > math.MaxInt32 {
		return nil, fmt.Errorf("cabi: compact_at = %d, want 0 (never in the background) to %d", compactAt, math.MaxInt32)
	}
	opt := store.Options{Directed: directed, CompactAt: int(compactAt)}
	var st *store.Store
	var err error
	if dir == "" {
		st, err = store.New(nil, nil, opt)
	} else {
		st, err = store.Open(dir, opt)
	}
	if err != nil {
		return nil, err
	}
	return &storeState{st: st}, nil
}

// createStore writes graph g (its edges, weights, channels and
// min-inheritance labels) as the first snapshot of a new durable store in
// dir, its nodes named by names (nil: "0", "1", ...).
func createStore(dir string, g *graphState, names []string, compactAt int64) (*storeState, error) {
	if dir == "" {
		return nil, errors.New("cabi: store_create: empty directory name")
	}
	if compactAt < 0 || compactAt > math.MaxInt32 {
		return nil, fmt.Errorf("cabi: compact_at = %d, want 0 (never in the background) to %d", compactAt, math.MaxInt32)
	}
	cg := g.g
	if names != nil {
		if err := checkNames(names, "node name"); err != nil {
			return nil, err
		}
		var err error
		if cg, err = csrHooks.Named(cg, names); err != nil {
			return nil, err
		}
	}
	// The graph's own labels (min-inheritance included) when a guard or
	// require built them; the store builds the same plain ones otherwise.
	g.labelsOnce.Do(func() { g.labels = mask.FromGraph(g.g) })
	st, err := store.Create(dir, cg, g.labels, store.Options{CompactAt: int(compactAt)})
	if err != nil {
		return nil, err
	}
	return &storeState{st: st}, nil
}

// checkNames refuses names the C ABI could not hand back: the empty name
// and names holding a NUL byte (names go out NUL-terminated).
func checkNames(names []string, what string) error {
	for i, nm := range names {
		if nm == "" {
			return fmt.Errorf("cabi: %s %d is empty", what, i)
		}
		if j := bytes.IndexByte([]byte(nm), 0); j >= 0 {
			return fmt.Errorf("cabi: %s %d (%q) holds a NUL byte at %d", what, i, nm, j)
		}
	}
	return nil
}

// storeInfo is authppr_store_info's report on the current version.
type storeInfo struct {
	Nodes, Edges, DeltaEdges int64
	Batches                  uint64
	Directed                 bool
	Channels                 []string
}

func (s *storeState) info() storeInfo {
	v := s.st.Current()
	return storeInfo{Nodes: int64(v.NumNodes()), Edges: int64(v.NumEdges()), DeltaEdges: int64(v.DeltaEdges()),
		Batches: v.Batches(), Directed: v.Directed(), Channels: v.Channels()}
}

// ids writes the id of each named node to out (-1: no such node).
func (s *storeState) ids(names []string, out []int64) {
	v := s.st.Current()
	for i, nm := range names {
		out[i] = -1
		if id, ok := v.ID(nm); ok {
			out[i] = int64(id)
		}
	}
}

// names returns the names of nodes ids.
func (s *storeState) names(ids []int64) ([]string, error) {
	v := s.st.Current()
	n := int64(v.NumNodes())
	out := make([]string, len(ids))
	for i, u := range ids {
		if u < 0 || u >= n {
			return nil, fmt.Errorf("cabi: id %d: node %d out of range (store has %d nodes)", i, u, n)
		}
		out[i] = v.Name(uint32(u))
	}
	return out, nil
}

// opColumns is a batch of writes in the C ABI's columns: op i's kind, its
// src and dst names (text[textOff[2i]:textOff[2i+1]] and
// text[textOff[2i+1]:textOff[2i+2]]; textOff nil when no op names nodes),
// srcIDs/dstIDs (opEdgeByID), weights (nil: every weight 1), edges
// (opDeleteEdge) and the source edges of opInferred
// (from[fromOff[i]:fromOff[i+1]]). Arrays not needed by any op may be nil.
type opColumns struct {
	kinds          []int32
	text           []byte
	textOff        []int64
	srcIDs, dstIDs []int64
	weights        []float64
	edges          []int64
	fromOff, from  []int64
}

// ops turns the columns into store writes, checking every index and
// length; what a write means is the store's to check.
func (c *opColumns) ops() ([]store.Op, error) {
	n := len(c.kinds)
	if c.textOff != nil {
		if len(c.textOff) != 2*n+1 || c.textOff[0] != 0 {
			return nil, fmt.Errorf("cabi: %d name offsets for %d writes, want %d starting at 0", len(c.textOff), n, 2*n+1)
		}
		for j := 1; j < len(c.textOff); j++ {
			if c.textOff[j] < c.textOff[j-1] || c.textOff[j] > int64(len(c.text)) {
				return nil, fmt.Errorf("cabi: name offset %d = %d, want between %d and %d (bytes of names)", j, c.textOff[j], c.textOff[j-1], len(c.text))
			}
		}
	}
	if c.fromOff != nil {
		if len(c.fromOff) != n+1 || c.fromOff[0] != 0 {
			return nil, fmt.Errorf("cabi: %d source-edge offsets for %d writes, want %d starting at 0", len(c.fromOff), n, n+1)
		}
		for j := 1; j < len(c.fromOff); j++ {
			if c.fromOff[j] < c.fromOff[j-1] || c.fromOff[j] > int64(len(c.from)) {
				return nil, fmt.Errorf("cabi: source-edge offset %d = %d, want between %d and %d (source edges)", j, c.fromOff[j], c.fromOff[j-1], len(c.from))
			}
		}
	}
	name := func(i, slot int) (string, error) {
		if c.textOff == nil {
			return "", fmt.Errorf("cabi: write %d: kind %d names nodes, and no names were given", i, c.kinds[i])
		}
		b := c.text[c.textOff[2*i+slot]:c.textOff[2*i+slot+1]]
		if j := bytes.IndexByte(b, 0); j >= 0 {
			return "", fmt.Errorf("cabi: write %d: node name %q holds a NUL byte at %d", i, b, j)
		}
		return string(b), nil
	}
	id32 := func(i int, what string, col []int64) (uint32, error) {
		if col == nil {
			return 0, fmt.Errorf("cabi: write %d: kind %d needs %s, and none were given", i, c.kinds[i], what)
		}
		if col[i] < 0 || col[i] > math.MaxUint32 {
			return 0, fmt.Errorf("cabi: write %d: %s %d out of range (0 to %d)", i, what, col[i], uint32(math.MaxUint32))
		}
		return uint32(col[i]), nil
	}
	weight := func(i int) float64 {
		if c.weights == nil {
			return 1
		}
		return c.weights[i]
	}
	out := make([]store.Op, n)
	for i, k := range c.kinds {
		var op store.Op
		var src, dst string
		var err error
		needs2 := k == opEdge || k == opDeleteBetween || k == opMerge || k == opInferred
		if k == opNode || needs2 {
			if src, err = name(i, 0); err != nil {
				return nil, err
			}
		}
		if needs2 {
			if dst, err = name(i, 1); err != nil {
				return nil, err
			}
		}
		switch k {
		case opNode:
			op = store.Node(src)
		case opEdge:
			op = store.Edge(src, dst, weight(i))
		case opEdgeByID:
			a, err := id32(i, "source ids", c.srcIDs)
			if err != nil {
				return nil, err
			}
			b, err := id32(i, "destination ids", c.dstIDs)
			if err != nil {
				return nil, err
			}
			op = store.EdgeByID(a, b, weight(i))
		case opDeleteEdge:
			e, err := id32(i, "edge ids", c.edges)
			if err != nil {
				return nil, err
			}
			op = store.Delete(e)
		case opDeleteBetween:
			op = store.DeleteEdges(src, dst)
		case opMerge:
			op = store.MergeInto(src, dst)
		case opInferred:
			var from []uint32
			if c.fromOff != nil {
				for j := c.fromOff[i]; j < c.fromOff[i+1]; j++ {
					if c.from[j] < 0 || c.from[j] > math.MaxUint32 {
						return nil, fmt.Errorf("cabi: write %d: source edge %d out of range (0 to %d)", i, c.from[j], uint32(math.MaxUint32))
					}
					from = append(from, uint32(c.from[j]))
				}
			}
			op = store.Inferred(src, dst, weight(i), from...)
		default:
			return nil, fmt.Errorf("cabi: write %d: kind %d, want 1 to 7 (AUTHPPR_OP_*)", i, k)
		}
		out[i] = op
	}
	return out, nil
}

// newStoreGuard returns a guard on the store's versions trusting the
// named channels (they need not have written yet: a store's channels
// arrive with its writes).
func newStoreGuard(s *storeState, trusted []string, maxSuspects int) (*storeGuardState, error) {
	if maxSuspects < 0 {
		return nil, fmt.Errorf("cabi: max suspects %d, want 0 (default 5) or more", maxSuspects)
	}
	if len(trusted) == 0 {
		return nil, errors.New("cabi: store guard: no trusted channel")
	}
	if err := checkNames(trusted, "trusted channel"); err != nil {
		return nil, err
	}
	if maxSuspects == 0 {
		maxSuspects = 5
	}
	g := s.st.NewGuard(mask.Trust(trusted...), replay.Options{MaxSuspects: maxSuspects})
	return &storeGuardState{st: s.st, guard: g, max: maxSuspects}, nil
}

// storeSelection is a guarded selection on one version, names included.
type storeSelection struct {
	d        *replay.Decision
	version  uint64
	native   []string // names of d.Native
	auth     []string // names of d.Auth
	suspects []storeSuspect
}

type storeSuspect struct {
	s        replay.Suspect
	src, dst string
}

// sel runs the guard on the store's current version: seeds (ids, weights:
// nil means 1 each), k, candidates (nil: every node), damping.
func (g *storeGuardState) sel(seedIDs []int64, seedWeights []float64, k int64, candidates []int64, damping float64) (*storeSelection, error) {
	v := g.st.Current()
	n := int64(v.NumNodes())
	if k < 1 || k > math.MaxInt32 {
		return nil, fmt.Errorf("cabi: k = %d, want 1 to %d", k, math.MaxInt32)
	}
	if len(seedIDs) == 0 {
		return nil, errors.New("cabi: no seeds")
	}
	if seedWeights != nil && len(seedWeights) != len(seedIDs) {
		return nil, fmt.Errorf("cabi: %d seed weights for %d seeds", len(seedWeights), len(seedIDs))
	}
	q := replay.Query{K: int(k), Damping: damping, Seeds: make([]ppr.Seed, len(seedIDs))}
	for i, u := range seedIDs {
		if u < 0 || u >= n {
			return nil, fmt.Errorf("cabi: seed %d: node %d out of range (store has %d nodes)", i, u, n)
		}
		q.Seeds[i] = ppr.Seed{Node: uint32(u), Weight: 1}
		if seedWeights != nil {
			q.Seeds[i].Weight = seedWeights[i]
		}
	}
	if candidates != nil {
		q.Candidates = make([]uint32, len(candidates))
		for i, c := range candidates {
			if c < 0 || c >= n {
				return nil, fmt.Errorf("cabi: candidate %d: node %d out of range (store has %d nodes)", i, c, n)
			}
			q.Candidates[i] = uint32(c)
		}
	}
	d, err := g.guard.Select(v, q)
	if err != nil {
		return nil, err
	}
	out := &storeSelection{d: d, version: v.Batches()}
	for _, s := range d.Native {
		out.native = append(out.native, v.Name(s.Node))
	}
	for _, s := range d.Auth {
		out.auth = append(out.auth, v.Name(s.Node))
	}
	for _, s := range d.Suspects {
		out.suspects = append(out.suspects, storeSuspect{s: s, src: v.Name(s.Src), dst: v.Name(s.Dst)})
	}
	return out, nil
}

// text lays out a selection's strings as the C ABI returns them, each
// NUL-terminated: the native names, the auth names, then per suspect its
// source and destination names and its channels.
func (s *storeSelection) text() ([]byte, error) {
	all := append(append([]string{}, s.native...), s.auth...)
	for _, sp := range s.suspects {
		all = append(append(all, sp.src, sp.dst), sp.s.Channels...)
	}
	return joinNames(all)
}

// joinNames lays out names NUL-terminated, refusing names holding a NUL.
func joinNames(names []string) ([]byte, error) {
	var b []byte
	for _, nm := range names {
		if i := bytes.IndexByte([]byte(nm), 0); i >= 0 {
			return nil, fmt.Errorf("cabi: name %q holds a NUL byte, which the C ABI cannot return", nm)
		}
		b = append(append(b, nm...), 0)
	}
	return b, nil
}
