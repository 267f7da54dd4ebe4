package main

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/seedweights"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// This file is the library in plain Go, on Go slices: exports.go only turns
// C arguments into slices, calls these functions and turns errors into
// status codes. Tests call both layers.

// graphState is what a graph handle holds.
type graphState struct {
	g          *csr.Graph
	full       *mask.View // every edge
	labelsOnce sync.Once
	labels     *mask.Labels // each edge added by its channel; built by the first guard
	channels   []string     // the caller's channel table (index = caller's id)
	chanIdx    map[string]int

	// resident is the handle's own engine, reused by every call that finds
	// it free (Engine.Restart: no graph-sized allocation after the first
	// call); callers that find it busy take one from engines, so
	// concurrent callers never wait for each other.
	residentMu sync.Mutex
	resident   worker
	engines    sync.Pool // *worker on full
}

// worker is an engine on a graph's full view with the buffers a call
// reuses. One caller holds it at a time.
type worker struct {
	e     *ppr.Engine
	seeds ppr.Seeds // the engine's seeds: rewritten by each call
	cands []uint32
	seen  []uint64 // candidate marks, all zero between calls
}

// acquire returns a worker for one call and the function that hands it
// back: the resident one when it is free, else one from the pool.
func (st *graphState) acquire() (*worker, func()) {
	if st.residentMu.TryLock() {
		return &st.resident, st.residentMu.Unlock
	}
	w, _ := st.engines.Get().(*worker)
	if w == nil {
		w = &worker{}
	}
	return w, func() { st.engines.Put(w) }
}

// restart puts the worker's engine in the native start state for a dense
// reset vector: the engine is made on the first call and restarted after.
func (w *worker) restart(st *graphState, reset []float64, damping float64) error {
	if err := denseSeedsInto(reset, &w.seeds); err != nil {
		return err
	}
	if w.e == nil {
		e, err := ppr.NewEngine(st.full, w.seeds, damping)
		if err != nil {
			return err
		}
		w.e = e
		return nil
	}
	return w.e.Restart(w.seeds, damping)
}

// guardState is what a guard handle holds.
type guardState struct {
	graph *graphState
	guard *replay.Guard
}

// edgeIDs is the caller's edge list: pairs (src, dst) laid out as
// [s0, d0, s1, d1, ...], in signed or unsigned 32- or 64-bit integers
// (exactly one slice set).
type edgeIDs struct {
	ids32 []int32
	ids64 []int64
	u32   []uint32
	u64   []uint64
}

func (e edgeIDs) pairs() int { return (len(e.ids32) + len(e.ids64) + len(e.u32) + len(e.u64)) / 2 }

// newGraph builds a graph over nodes 0..n-1 from the caller's edges, in
// one csr.FromIDs call that reads the caller's arrays in place, checks
// every edge (ids in range, weights, channel indices) and copies what it
// keeps. weights may be nil (every weight 1); chanOf may be nil (every
// edge on csr.DefaultChannel), else chanOf[e] indexes chanNames.
// maxMemory is csr.IDEdges.MaxMemory (0: half the memory available;
// negative: no limit): a graph whose build would need more is refused
// before it is allocated.
func newGraph(n int64, edges edgeIDs, weights []float64, directed bool, chanOf []int32, chanNames []string, maxMemory int64) (*graphState, error) {
	if n < 1 || n > math.MaxUint32 {
		return nil, fmt.Errorf("cabi: n = %d nodes, want 1 to %d", n, uint32(math.MaxUint32))
	}
	m := edges.pairs()
	if weights != nil && len(weights) != m {
		return nil, fmt.Errorf("cabi: %d weights for %d edges", len(weights), m)
	}
	st := &graphState{chanIdx: make(map[string]int)}
	if chanOf == nil {
		if len(chanNames) != 0 {
			return nil, errors.New("cabi: channel names given without per-edge channels")
		}
		chanNames = []string{csr.DefaultChannel}
	} else if len(chanOf) != m {
		return nil, fmt.Errorf("cabi: %d channels for %d edges", len(chanOf), m)
	}
	for i, c := range chanNames {
		if c == "" {
			return nil, fmt.Errorf("cabi: channel name %d is empty", i)
		}
		if j, dup := st.chanIdx[c]; dup {
			return nil, fmt.Errorf("cabi: channel name %d (%q) repeats name %d", i, c, j)
		}
		st.chanIdx[c] = i
	}
	st.channels = chanNames

	var g *csr.Graph
	var err error
	switch {
	case edges.ids64 != nil:
		g, err = fromIDs(int(n), edges.ids64, weights, directed, chanOf, chanNames, maxMemory)
	case edges.u32 != nil:
		g, err = fromIDs(int(n), edges.u32, weights, directed, chanOf, chanNames, maxMemory)
	case edges.u64 != nil:
		g, err = fromIDs(int(n), edges.u64, weights, directed, chanOf, chanNames, maxMemory)
	default:
		g, err = fromIDs(int(n), edges.ids32, weights, directed, chanOf, chanNames, maxMemory)
	}
	if err != nil {
		return nil, err
	}
	st.g, st.full = g, mask.Full(g)
	return st, nil
}

// require records min-inheritance on a graph just built, before its handle
// is published: edge e depends, beyond the channel that added it, on the
// channels reqChan[reqOff[e]:reqOff[e+1]] (indices into the caller's
// channel table), and an authenticated view keeps it only if it trusts
// every one of them (mask.Labels.Require). reqOff has one entry per edge
// and one more, starting at 0 and non-decreasing; its last entry is
// len(reqChan).
func (st *graphState) require(reqOff []int64, reqChan []int32) error {
	m := st.g.NumEdges()
	if len(reqOff) != m+1 {
		return fmt.Errorf("cabi: %d requirement offsets for %d edges, want %d (one per edge and one more)", len(reqOff), m, m+1)
	}
	if reqOff[0] != 0 {
		return fmt.Errorf("cabi: requirement offset 0 is %d, want 0", reqOff[0])
	}
	for e := range m {
		if reqOff[e+1] < reqOff[e] {
			return fmt.Errorf("cabi: edge %d: requirement offsets %d then %d, want non-decreasing", e, reqOff[e], reqOff[e+1])
		}
	}
	if reqOff[m] != int64(len(reqChan)) {
		return fmt.Errorf("cabi: requirement offsets end at %d, %d required channels given", reqOff[m], len(reqChan))
	}
	labels := mask.FromGraph(st.g)
	perChannel := make([][]uint32, len(st.channels))
	for e := range m {
		for _, c := range reqChan[reqOff[e]:reqOff[e+1]] {
			if c < 0 || int(c) >= len(st.channels) {
				return fmt.Errorf("cabi: edge %d: required channel %d out of range (%d channel names)", e, c, len(st.channels))
			}
			perChannel[c] = append(perChannel[c], uint32(e))
		}
	}
	for c, edges := range perChannel {
		if err := labels.Require(st.channels[c], edges...); err != nil {
			return err
		}
	}
	st.labelsOnce.Do(func() { st.labels = labels })
	return nil
}

// nodeID is the node id types the C ABI passes (csr.FromIDs takes them in
// place).
type nodeID interface {
	~int32 | ~int64 | ~uint32 | ~uint64
}

func fromIDs[T nodeID](n int, pairs []T, weights []float64, directed bool, chanOf []int32, chanNames []string, maxMemory int64) (*csr.Graph, error) {
	in := csr.IDEdges[T, int32]{Directed: directed, Nodes: n, Pairs: pairs, Weights: weights, MaxMemory: maxMemory}
	if chanOf != nil {
		in.ChannelOf, in.ChannelNames = chanOf, chanNames
	}
	return csr.FromIDs(in)
}

// denseSeeds turns a dense reset vector into ppr.Seeds: the nodes with a
// positive entry, ascending, weights normalised. It is ppr.NewSeeds (its
// reference; the differential test asks for identical results) without the
// map, which costs more than a solve's sweep on dense resets.
func denseSeeds(reset []float64) (ppr.Seeds, error) {
	var s ppr.Seeds
	err := denseSeedsInto(reset, &s)
	return s, err
}

// denseSeedsInto is denseSeeds writing into s's arrays, grown as needed
// (a caller reusing s allocates nothing once they are large enough). s is
// left as it was when reset is rejected.
//
// As NewSeeds, the weights are scaled by seedweights.Scale of the largest
// before they are summed, so a reset whose sum overflows is normalised,
// not refused, and a weight that rounds to 0 of the total is dropped.
func denseSeedsInto(reset []float64, s *ppr.Seeds) error {
	top, nonzero := 0.0, 0
	for u, w := range reset {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return fmt.Errorf("cabi: reset[%d] = %v, want finite and non-negative", u, w)
		}
		if w > 0 {
			top = max(top, w)
			nonzero++
		}
	}
	scale := seedweights.Scale(top)
	total := 0.0
	for _, w := range reset {
		if w > 0 {
			total += w * scale
		}
	}
	if total == 0 {
		return fmt.Errorf("cabi: reset sums to %v, want a positive finite total", total)
	}
	if cap(s.Nodes) < nonzero {
		s.Nodes, s.Weights = make([]uint32, 0, nonzero), make([]float64, 0, nonzero)
	}
	s.Nodes, s.Weights = s.Nodes[:0], s.Weights[:0]
	for u, w := range reset {
		if x := w * scale / total; x > 0 {
			s.Nodes = append(s.Nodes, uint32(u))
			s.Weights = append(s.Weights, x)
		}
	}
	return nil
}

// solveStats reports one solve to the caller.
type solveStats struct {
	SolveNanos int64   // the solve alone: engine restart and sweeps
	Sweeps     int64   // sweeps done
	ErrorBound float64 // proved ||pi - x||_1
}

// personalizedPageRank solves PPR on every edge of the graph and writes the
// scores to out. tol 0 means ppr.DefaultTol.
func (st *graphState) personalizedPageRank(reset []float64, damping, tol float64, out []float64) (solveStats, error) {
	n := st.g.NumNodes()
	if len(reset) != n {
		return solveStats{}, fmt.Errorf("cabi: reset has %d entries, graph has %d nodes", len(reset), n)
	}
	if len(out) != n {
		return solveStats{}, fmt.Errorf("cabi: output has room for %d scores, graph has %d nodes", len(out), n)
	}
	w, release := st.acquire()
	defer release()
	start := time.Now()
	if err := w.restart(st, reset, damping); err != nil {
		return solveStats{}, err
	}
	res, err := w.e.SolveSweeps(ppr.Options{Tol: tol})
	if err != nil {
		return solveStats{}, err
	}
	stats := solveStats{SolveNanos: time.Since(start).Nanoseconds(), Sweeps: int64(res.Sweeps), ErrorBound: res.ErrorBound}
	copy(out, res.Scores)
	return stats, nil
}

// topKResult is a certified top-k in the caller's terms.
type topKResult struct {
	IDs        []int64
	Scores     []float64 // the solve's x: lower bounds (see ppr.TopKResult.ScoreErrs)
	Leads      []float64 // ppr.TopKResult.Leads
	ScoreErrs  []float64
	Certified  bool
	Ordered    bool
	Gap        float64
	ProvedGap  float64
	ErrorBound float64
	CoordBound float64
	Sweeps     int64
	Scans      int64
	SolveNanos int64
}

// topK solves until the top-k over the candidates (nil: every node) is
// proved, and with ordered until their order is proved too, or until the
// L1 error bound reaches tol (0: ppr.DefaultTol): ppr.Engine.SolveTopK
// (Options.Ordered when ordered) on the handle's engine. Candidates must be distinct
// node ids, and a non-nil list must not be empty.
func (st *graphState) topK(reset []float64, k int64, candidates []int64, damping, tol float64, ordered bool) (*topKResult, error) {
	n := st.g.NumNodes()
	if len(reset) != n {
		return nil, fmt.Errorf("cabi: reset has %d entries, graph has %d nodes", len(reset), n)
	}
	if k < 1 || k > math.MaxInt32 {
		return nil, fmt.Errorf("cabi: k = %d, want 1 to %d", k, math.MaxInt32)
	}
	if candidates != nil && len(candidates) == 0 {
		return nil, errors.New("cabi: the candidate list is empty (pass NULL to let every node compete)")
	}
	w, release := st.acquire()
	defer release()
	var cands []uint32
	if candidates != nil {
		if w.seen == nil {
			w.seen = make([]uint64, (n+63)/64)
		}
		// The marks are cleared on every return, so the next call finds
		// them all zero.
		defer func() {
			for _, c := range cands {
				w.seen[c/64] = 0
			}
		}()
		cands = w.cands[:0]
		for i, c := range candidates {
			if c < 0 || c >= int64(n) {
				return nil, fmt.Errorf("cabi: candidate %d: node %d out of range (graph has %d nodes)", i, c, n)
			}
			if w.seen[c/64]&(1<<(c%64)) != 0 {
				return nil, fmt.Errorf("cabi: candidate %d: node %d repeats an earlier candidate", i, c)
			}
			w.seen[c/64] |= 1 << (c % 64)
			cands = append(cands, uint32(c))
		}
		w.cands = cands
	}
	start := time.Now()
	if err := w.restart(st, reset, damping); err != nil {
		return nil, err
	}
	// Gauss-Seidel sweeps on every view: from the native start they keep
	// the residual non-negative, so each score is a lower bound and
	// [score, score + err] holds the exact value, as the ABI promises.
	// ppr's default on directed views (ppr.Normalized) proves sooner but
	// leaves a signed residual, whose errors go both ways.
	res, err := w.e.SolveTopK(int(k), cands, ppr.Options{Tol: tol, Order: ppr.GaussSeidel, Ordered: ordered})
	if err != nil {
		return nil, err
	}
	out := &topKResult{
		Leads: res.Leads, ScoreErrs: res.ScoreErrs, Certified: res.Certified, Ordered: res.Ordered,
		Gap: res.Gap, ProvedGap: res.ProvedGap, ErrorBound: res.ErrorBound, CoordBound: res.CoordBound,
		Sweeps: int64(res.Sweeps), Scans: int64(res.Scans), SolveNanos: time.Since(start).Nanoseconds(),
	}
	for _, s := range res.TopK {
		out.IDs = append(out.IDs, int64(s.Node))
		out.Scores = append(out.Scores, s.Score)
	}
	return out, nil
}

// newGuard builds a guard on the graph trusting the named channels.
func newGuard(st *graphState, trusted []string, maxSuspects int) (*guardState, error) {
	if maxSuspects < 0 {
		return nil, fmt.Errorf("cabi: max suspects %d, want 0 (default 5) or more", maxSuspects)
	}
	st.labelsOnce.Do(func() { st.labels = mask.FromGraph(st.g) })
	policy := mask.Trust(trusted...)
	if err := policy.Check(st.labels); err != nil {
		return nil, err
	}
	gd, err := replay.New(st.g, st.labels, policy, replay.Options{MaxSuspects: maxSuspects})
	if err != nil {
		return nil, err
	}
	return &guardState{graph: st, guard: gd}, nil
}

// selection is a decision in the caller's terms: node ids, channel indices
// into the caller's table.
type selection struct {
	d        *replay.Decision
	suspects []suspect
}

type suspect struct {
	Edge, Src, Dst int64
	Channels       []int32 // the untrusted channels it depends on: indices into the caller's channel table
	Mass           float64
}

// sel runs the guard. reset is dense over the nodes; candidates nil means
// every node competes.
func (gs *guardState) sel(reset []float64, k int64, candidates []int64, damping float64) (*selection, error) {
	n := gs.graph.g.NumNodes()
	if len(reset) != n {
		return nil, fmt.Errorf("cabi: reset has %d entries, graph has %d nodes", len(reset), n)
	}
	if k < 1 || k > math.MaxInt32 {
		return nil, fmt.Errorf("cabi: k = %d, want 1 to %d", k, math.MaxInt32)
	}
	seeds, err := denseSeeds(reset)
	if err != nil {
		return nil, err
	}
	q := replay.Query{K: int(k), Damping: damping, Seeds: make([]ppr.Seed, len(seeds.Nodes))}
	for i, u := range seeds.Nodes {
		q.Seeds[i] = ppr.Seed{Node: u, Weight: seeds.Weights[i]}
	}
	if candidates != nil {
		q.Candidates = make([]uint32, len(candidates))
		for i, c := range candidates {
			if c < 0 || c >= int64(n) {
				return nil, fmt.Errorf("cabi: candidate %d: node %d out of range (graph has %d nodes)", i, c, n)
			}
			q.Candidates[i] = uint32(c)
		}
	}
	d, err := gs.guard.Select(q)
	if err != nil {
		return nil, err
	}
	out := &selection{d: d}
	for _, s := range d.Suspects {
		// Nothing is deleted on a graph: a suspect is an edge the
		// authenticated view masks, and its channels are the untrusted
		// ones among those it depends on (its adder, what it requires).
		sp := suspect{Edge: int64(s.Edge), Src: int64(s.Src), Dst: int64(s.Dst), Mass: s.Mass}
		for _, c := range s.Channels {
			sp.Channels = append(sp.Channels, int32(gs.graph.chanIdx[c]))
		}
		out.suspects = append(out.suspects, sp)
	}
	return out, nil
}
