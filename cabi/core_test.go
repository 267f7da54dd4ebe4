package main

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/authppr/authppr/internal/reference"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// The plain-Go layer (core.go, handles.go); cabi_test.go drives the same
// code through the C ABI.

// denseSeeds is ppr.NewSeeds without the map: identical results, bit for
// bit, at awkward lengths and with zeros, tiny and huge weights.
func TestDenseSeedsMatchesNewSeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 8, 15, 16, 17, 63, 64, 65, 1000} {
		for trial := range 20 {
			reset := make([]float64, n)
			for u := range reset {
				switch rng.IntN(4) {
				case 0: // zero
				case 1:
					reset[u] = rng.Float64()
				case 2:
					reset[u] = rng.Float64() * 1e-300
				case 3:
					reset[u] = rng.Float64() * 1e300
				}
			}
			if trial == 0 {
				clear(reset)
				reset[rng.IntN(n)] = 0.25
			}
			var in []ppr.Seed
			for u, w := range reset {
				in = append(in, ppr.Seed{Node: uint32(u), Weight: w})
			}
			want, wantErr := ppr.NewSeeds(n, in)
			got, err := denseSeeds(reset)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("n=%d trial %d: error %v, NewSeeds %v", n, trial, err, wantErr)
			}
			if err != nil {
				continue
			}
			if !slices.Equal(got.Nodes, want.Nodes) || !slices.Equal(got.Weights, want.Weights) {
				t.Fatalf("n=%d trial %d: denseSeeds %v %v, NewSeeds %v %v", n, trial, got.Nodes, got.Weights, want.Nodes, want.Weights)
			}
		}
	}
}

func TestDenseSeedsErrors(t *testing.T) {
	for _, c := range []struct {
		reset []float64
		want  string
	}{
		{[]float64{0, 0, 0}, "reset sums to 0"},
		{[]float64{}, "reset sums to 0"},
		{[]float64{1, math.NaN()}, "reset[1] = NaN"},
		{[]float64{1, -1e-300}, "reset[1] = -1e-300"},
		{[]float64{math.Inf(1)}, "reset[0] = +Inf"},
	} {
		_, err := denseSeeds(c.reset)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "cabi: ") {
			t.Errorf("denseSeeds(%v) = %v, want an error containing %q", c.reset, err, c.want)
		}
	}
}

// A reset whose sum overflows is normalised (scaled by a power of two
// first), not refused, as ppr.NewSeeds does.
func TestDenseSeedsSumOverflows(t *testing.T) {
	for _, c := range []struct {
		reset []float64
		nodes []uint32
		want  []float64
	}{
		{[]float64{math.MaxFloat64, math.MaxFloat64}, []uint32{0, 1}, []float64{0.5, 0.5}},
		{[]float64{0, math.MaxFloat64, 0, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64}, []uint32{1, 3, 4, 5}, []float64{0.25, 0.25, 0.25, 0.25}},
		{[]float64{1e308, 3e308 / 3}, []uint32{0, 1}, []float64{0.5, 0.5}},
	} {
		got, err := denseSeeds(c.reset)
		if err != nil {
			t.Fatalf("denseSeeds(%v): %v", c.reset, err)
		}
		if !slices.Equal(got.Nodes, c.nodes) || !slices.Equal(got.Weights, c.want) {
			t.Fatalf("denseSeeds(%v) = %v %v, want %v %v", c.reset, got.Nodes, got.Weights, c.nodes, c.want)
		}
	}
}

// Node ids are the caller's ids, isolated nodes included, and edges keep
// their order, weights and channels.
func TestNewGraphKeepsIDs(t *testing.T) {
	const n = 1234 // ids past 999 check the names of every digit count
	ids := []int64{1233, 5, 5, 1233, 7, 7, 0, 1000}
	w := []float64{1, 2, 0, 4.5}
	st, err := newGraph(n, edgeIDs{ids64: ids}, w, true, []int32{1, 0, 1, 1}, []string{"a", "b"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := st.g
	if g.NumNodes() != n || g.NumEdges() != 4 {
		t.Fatalf("%d nodes, %d edges", g.NumNodes(), g.NumEdges())
	}
	for u := range n {
		if g.Name(uint32(u)) != strconv.Itoa(u) {
			t.Fatalf("node %d named %q", u, g.Name(uint32(u)))
		}
	}
	chans := []string{"b", "a", "b", "b"}
	for e := range 4 {
		ed := g.Edge(uint32(e))
		if int64(ed.Src) != ids[2*e] || int64(ed.Dst) != ids[2*e+1] || ed.Weight != w[e] || ed.Channel != chans[e] {
			t.Errorf("edge %d = %+v, want %d -> %d weight %v channel %s", e, ed, ids[2*e], ids[2*e+1], w[e], chans[e])
		}
	}
	if err := csrHooks.Validate(g); err != nil {
		t.Fatal(err)
	}
	// 32-bit and unsigned ids give the same graph.
	ids32 := make([]int32, len(ids))
	u32 := make([]uint32, len(ids))
	u64 := make([]uint64, len(ids))
	for i, v := range ids {
		ids32[i], u32[i], u64[i] = int32(v), uint32(v), uint64(v)
	}
	for _, other := range []edgeIDs{{ids32: ids32}, {u32: u32}, {u64: u64}} {
		st2, err := newGraph(n, other, w, true, []int32{1, 0, 1, 1}, []string{"a", "b"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for e := range 4 {
			if st2.g.Edge(uint32(e)) != g.Edge(uint32(e)) {
				t.Errorf("edge %d: ids %+v give %+v, int64 ids %+v", e, other, st2.g.Edge(uint32(e)), g.Edge(uint32(e)))
			}
		}
	}
}

func TestNewGraphErrors(t *testing.T) {
	pair := edgeIDs{ids64: []int64{0, 1}}
	for _, c := range []struct {
		name     string
		n        int64
		edges    edgeIDs
		weights  []float64
		chanOf   []int32
		chanName []string
		want     string
	}{
		{"no nodes", 0, edgeIDs{}, nil, nil, nil, "cabi: n = 0 nodes"},
		{"too many nodes", 1 << 33, edgeIDs{}, nil, nil, nil, "cabi: n = 8589934592 nodes"},
		{"src out of range", 2, edgeIDs{ids64: []int64{0, 1, 2, 0}}, nil, nil, nil, "csr: edge 1: node 2 -> 0 out of range"},
		{"negative id", 2, edgeIDs{ids32: []int32{-1, 0}}, nil, nil, nil, "csr: edge 0: node -1 -> 0 out of range"},
		{"uint32 id out of range", 2, edgeIDs{u32: []uint32{0, 1, math.MaxUint32, 0}}, nil, nil, nil, "csr: edge 1: node 4294967295 -> 0 out of range"},
		{"uint64 id out of range", 2, edgeIDs{u64: []uint64{1 << 63, 0}}, nil, nil, nil, "csr: edge 0: node 9223372036854775808 -> 0 out of range"},
		{"negative channel", 2, pair, nil, []int32{-1}, []string{"a"}, "csr: edge 0: channel -1 out of range"},
		{"weights length", 2, pair, []float64{1, 2}, nil, nil, "cabi: 2 weights for 1 edges"},
		{"NaN weight", 2, pair, []float64{math.NaN()}, nil, nil, "csr: edge 0 (0 -> 1): weight NaN"},
		{"negative weight", 2, pair, []float64{-1}, nil, nil, "csr: edge 0 (0 -> 1): weight -1"},
		{"weight above range", 3, edgeIDs{ids64: []int64{0, 1, 0, 2}}, []float64{1e308, 1e308}, nil, nil, "csr: edge 0 (0 -> 1): weight 1e+308 above"},
		{"subnormal weight", 2, pair, []float64{1e-320}, nil, nil, "csr: edge 0 (0 -> 1): weight 1e-320 below"},
		{"channels length", 2, pair, nil, []int32{0, 0}, []string{"a"}, "cabi: 2 channels for 1 edges"},
		{"channel out of range", 2, pair, nil, []int32{1}, []string{"a"}, "csr: edge 0: channel 1 out of range"},
		{"empty channel name", 2, pair, nil, []int32{0}, []string{""}, "cabi: channel name 0 is empty"},
		{"repeated channel name", 2, pair, nil, []int32{0}, []string{"a", "a"}, "cabi: channel name 1 (\"a\") repeats name 0"},
		{"names without channels", 2, pair, nil, nil, []string{"a"}, "cabi: channel names given without per-edge channels"},
	} {
		_, err := newGraph(c.n, c.edges, c.weights, false, c.chanOf, c.chanName, 0)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want prefix %q", c.name, err, c.want)
		}
	}
}

// personalizedPageRank against the plain reference power iteration on
// random multigraphs with self-loops, zero weights and isolated nodes.
func TestPersonalizedPageRankMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 30 {
		n := 1 + rng.IntN(40)
		m := rng.IntN(3 * n)
		ids := make([]int64, 2*m)
		w := make([]float64, m)
		for e := range m {
			ids[2*e], ids[2*e+1] = int64(rng.IntN(n)), int64(rng.IntN(n))
			w[e] = float64(rng.IntN(4)) // zero weights included
		}
		directed := trial%2 == 0
		st, err := newGraph(int64(n), edgeIDs{ids64: ids}, w, directed, nil, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		reset := make([]float64, n)
		reset[rng.IntN(n)] = 1
		reset[rng.IntN(n)] += rng.Float64()
		d := []float64{0, 0.5, 0.85, 0.99}[trial%4]
		out := make([]float64, n)
		stats, err := st.personalizedPageRank(reset, d, 1e-13, out)
		if err != nil {
			t.Fatal(err)
		}
		seeds, _ := denseSeeds(reset)
		want, _ := reference.PowerIteration(mask.Full(st.g), seeds.Nodes, seeds.Weights, d, 1e-14, 100000)
		for u := range n {
			if !(math.Abs(out[u]-want[u]) <= 1e-12) {
				t.Fatalf("trial %d (n=%d, directed %v, d=%v): node %d: %v, reference %v", trial, n, directed, d, u, out[u], want[u])
			}
		}
		if !(stats.ErrorBound <= 1e-13) || stats.Sweeps < 0 || stats.SolveNanos < 0 {
			t.Fatalf("stats %+v", stats)
		}
	}
}

func TestHandleTable(t *testing.T) {
	var tab = handleTable{objs: make(map[uint64]any)}
	st := &graphState{}
	h := tab.put(st)
	if h == 0 {
		t.Fatal("handle 0")
	}
	if got, err := get[*graphState](&tab, h, "graph"); err != nil || got != st {
		t.Fatalf("get: %v, %v", got, err)
	}
	if _, err := get[*guardState](&tab, h, "guard"); err == nil || !strings.Contains(err.Error(), "not a guard handle") {
		t.Fatalf("wrong kind: %v", err)
	}
	if err := free[*guardState](&tab, h, "guard"); err == nil {
		t.Fatal("freed a graph as a guard")
	}
	if err := free[*graphState](&tab, h, "graph"); err != nil {
		t.Fatal(err)
	}
	if err := free[*graphState](&tab, h, "graph"); err == nil || !strings.Contains(err.Error(), "unknown (freed or never created)") {
		t.Fatalf("double free: %v", err)
	}
	if h2 := tab.put(st); h2 == h {
		t.Fatal("handle reused")
	}
	if tab.live() != 1 {
		t.Fatalf("%d live handles", tab.live())
	}
}

// The guard on the README's worked example, by ids: one untrusted edge
// q - p3 makes p3 win natively; the guard refuses it and names the edge.
func workedExample(t *testing.T) (ids []int64, w []float64, chanOf []int32, names []string) {
	t.Helper()
	// q=0 alice=1 bob=2 p1=3 p2=4 carol=5 p3=6
	ids = []int64{0, 1, 0, 2, 1, 3, 2, 4, 1, 4, 5, 6, 2, 5, 0, 6}
	w = []float64{1, 1, 1, 1, 0.5, 1, 0.2, 3}
	chanOf = []int32{0, 0, 0, 0, 0, 0, 0, 1}
	names = []string{"default", "mallory"}
	return
}

func TestGuardWorkedExample(t *testing.T) {
	ids, w, chanOf, names := workedExample(t)
	st, err := newGraph(7, edgeIDs{ids64: ids}, w, false, chanOf, names, 0)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := newGuard(st, []string{"default"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	reset := []float64{1, 0, 0, 0, 0, 0, 0}
	sel, err := gs.sel(reset, 1, []int64{3, 4, 6}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	d := sel.d
	if d.Native[0].Node != 6 || d.Auth[0].Node != 4 || !d.Divergent {
		t.Fatalf("native %v auth %v divergent %v", d.Native, d.Auth, d.Divergent)
	}
	if len(sel.suspects) == 0 {
		t.Fatal("no suspects")
	}
	if sp := sel.suspects[0]; sp.Edge != 7 || sp.Src != 0 || sp.Dst != 6 || !slices.Equal(sp.Channels, []int32{1}) || !(sp.Mass > 0) {
		t.Fatalf("suspects %+v", sel.suspects)
	}
	for _, c := range []struct {
		k    int64
		cand []int64
		want string
	}{
		{0, nil, "cabi: k = 0"},
		{1, []int64{7}, "cabi: candidate 0: node 7 out of range"},
		{1, []int64{3, 3}, "replay: candidate 1: node 3 repeated"},
	} {
		if _, err := gs.sel(reset, c.k, c.cand, 0.5); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("k=%d candidates %v: %v, want prefix %q", c.k, c.cand, err, c.want)
		}
	}
	if _, err := newGuard(st, []string{"defualt"}, 0); err == nil || !strings.Contains(err.Error(), "defualt") {
		t.Errorf("typo in trust: %v", err)
	}
}

// topK reuses the handle's engine: after the first call no call allocates
// anything proportional to the graph, and a caller that finds the resident
// engine busy gets the same answer from a pooled one.
func TestTopKReusesTheEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 20000
	ids := make([]int64, 0, 8*n)
	for u := range n {
		for range 4 {
			ids = append(ids, int64(u), int64(rng.IntN(n)))
		}
	}
	st, err := newGraph(n, edgeIDs{ids64: ids}, nil, false, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	reset := make([]float64, n)
	for u := n / 2; u < n; u++ {
		reset[u] = rng.Float64() * 0.05
	}
	reset[7], reset[1234] = 1, 1
	cands := make([]int64, 0, n/2)
	for u := n / 2; u < n; u++ {
		cands = append(cands, int64(u))
	}
	first, err := st.topK(reset, 5, cands, 0.5, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Certified || !first.Ordered {
		t.Fatalf("not proved: %+v", first)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := st.topK(reset, 5, cands, 0.5, 0, true); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per >= n {
		t.Fatalf("%d bytes allocated per call on %d nodes", per, n)
	}
	st.residentMu.Lock() // another caller holds the resident engine
	pooled, err := st.topK(reset, 5, cands, 0.5, 0, true)
	st.residentMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pooled.IDs, first.IDs) || !slices.Equal(pooled.Scores, first.Scores) {
		t.Fatalf("pooled engine: %v %v, resident %v %v", pooled.IDs, pooled.Scores, first.IDs, first.Scores)
	}
}

// require checks the lengths the C ABI implies (one offset per edge and
// one more).
func TestRequireLengths(t *testing.T) {
	ids, w, chanOf, names := workedExample(t)
	st, err := newGraph(7, edgeIDs{ids64: ids}, w, false, chanOf, names, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.require([]int64{0, 0}, nil); err == nil || err.Error() != "cabi: 2 requirement offsets for 8 edges, want 9 (one per edge and one more)" {
		t.Fatalf("short offsets: %v", err)
	}
	if err := st.require([]int64{0, 0, 0, 0, 0, 0, 0, 0, 2}, []int32{1}); err == nil || err.Error() != "cabi: requirement offsets end at 2, 1 required channels given" {
		t.Fatalf("offsets past the channels: %v", err)
	}
}
