package csr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomIDEdges draws a FromIDs input: isolated nodes (n above the ids
// used), self-loops, parallel edges, sometimes sorted by source (the
// directed stream-order path), weights nil, all ones or mixed (zeros, -0),
// channels nil or a table with repeated, empty and unused names.
func randomIDEdges[T, C index](r *rand.Rand, directed bool) IDEdges[T, C] {
	n := 1 + r.IntN(40)
	used := 1 + r.IntN(n) // nodes >= used stay isolated
	m := r.IntN(120)
	if r.IntN(8) == 0 {
		m = 0
	}
	in := IDEdges[T, C]{Directed: directed, Nodes: n, Pairs: make([]T, 2*m)}
	for e := range m {
		s := T(r.IntN(used))
		d := T(r.IntN(used))
		switch r.IntN(10) {
		case 0:
			d = s // self-loop
		case 1:
			if e > 0 { // parallel edge
				s, d = in.Pairs[2*e-2], in.Pairs[2*e-1]
			}
		}
		in.Pairs[2*e], in.Pairs[2*e+1] = s, d
	}
	if r.IntN(3) == 0 {
		// Sort by source: the Builder's stream-order path when directed.
		type pair struct{ s, d T }
		ps := make([]pair, m)
		for e := range ps {
			ps[e] = pair{in.Pairs[2*e], in.Pairs[2*e+1]}
		}
		slices.SortStableFunc(ps, func(a, b pair) int {
			return int(int64(a.s) - int64(b.s))
		})
		for e, p := range ps {
			in.Pairs[2*e], in.Pairs[2*e+1] = p.s, p.d
		}
	}
	switch r.IntN(3) {
	case 1:
		in.Weights = make([]float64, m)
		for e := range in.Weights {
			in.Weights[e] = 1
		}
	case 2:
		in.Weights = make([]float64, m)
		for e := range in.Weights {
			switch r.IntN(6) {
			case 0:
				in.Weights[e] = 0
			case 1:
				in.Weights[e] = math.Copysign(0, -1)
			default:
				in.Weights[e] = r.Float64() * 3
			}
		}
	}
	if r.IntN(2) == 0 {
		pool := []string{"a", "b", "", DefaultChannel, "a", "c"}
		in.ChannelNames = pool[:1+r.IntN(len(pool))]
		in.ChannelOf = make([]C, m)
		for e := range in.ChannelOf {
			in.ChannelOf[e] = C(r.IntN(len(in.ChannelNames)))
		}
	}
	// Weights exactly float32 half the time (float32 storage unless
	// float64Storage is asked for, which it is half the time).
	if in.Weights != nil && r.IntN(2) == 0 {
		for e, w := range in.Weights {
			in.Weights[e] = float64(float32(w))
		}
		if r.IntN(2) == 0 { // given as float32s
			in.Weights32 = make([]float32, m)
			for e, w := range in.Weights {
				in.Weights32[e] = float32(w)
			}
			in.Weights = nil
		}
	}
	in.Float64Weights = r.IntN(2) == 1
	return in
}

// sameAdjacencyValues compares two adjacencies value for value (weights
// bit for bit).
func sameAdjacencyValues(a, b Adjacency) bool {
	return slices.Equal(a.Offsets, b.Offsets) && slices.Equal(a.Nbr, b.Nbr) && slices.Equal(a.Edge, b.Edge) &&
		sameWeights(a.Weight, b.Weight)
}

func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// requireSameGraph checks that the bulk graph g equals the Builder's h in
// everything a caller can see: every array, the names and the name
// dictionary, channels, edge ids, the shared storage and the memory
// accounting.
func requireSameGraph(t *testing.T, g, h *Graph, where string) {
	t.Helper()
	fail := func(what string, args ...any) {
		t.Helper()
		t.Fatalf("%s: %s", where, fmt.Sprintf(what, args...))
	}
	if g.Directed() != h.Directed() || g.NumNodes() != h.NumNodes() || g.NumEdges() != h.NumEdges() || g.NumArcs() != h.NumArcs() {
		fail("shape (%v, %d nodes, %d edges, %d arcs), want (%v, %d, %d, %d)", g.Directed(), g.NumNodes(), g.NumEdges(), g.NumArcs(),
			h.Directed(), h.NumNodes(), h.NumEdges(), h.NumArcs())
	}
	if !sameAdjacencyValues(g.Out(), h.Out()) {
		fail("out-adjacency %+v, want %+v", g.Out(), h.Out())
	}
	if !sameAdjacencyValues(g.In(), h.In()) {
		fail("in-adjacency %+v, want %+v", g.In(), h.In())
	}
	if !g.Directed() && !sameAdjacency(g.In(), g.Out()) {
		fail("undirected in-adjacency is not the out-adjacency")
	}
	if !sameFloats(g.outWeight, h.outWeight) {
		fail("out-weights %v, want %v", g.outWeight, h.outWeight)
	}
	if g.UnitWeights() != h.UnitWeights() {
		fail("unit weights %v, want %v", g.UnitWeights(), h.UnitWeights())
	}
	if !slices.Equal(g.Channels(), h.Channels()) {
		fail("channels %q, want %q", g.Channels(), h.Channels())
	}
	for e := range uint32(h.NumEdges()) {
		if g.Edge(e) != h.Edge(e) || g.edgeChannel[e] != h.edgeChannel[e] {
			fail("edge %d: %+v (channel %d), want %+v (channel %d)", e, g.Edge(e), g.edgeChannel[e], h.Edge(e), h.edgeChannel[e])
		}
	}
	if g.Ranks() != nil {
		fail("ranks %v, want nil", g.Ranks())
	}
	// Names one by one before Names materializes them, then all.
	for u := range uint32(h.NumNodes()) {
		if g.Name(u) != h.Name(u) {
			fail("Name(%d) = %q, want %q", u, g.Name(u), h.Name(u))
		}
	}
	probes := slices.Clone(h.Names())
	probes = append(probes, "", "-1", "+1", "01", "00", " 1", "1 ", "1e2", "x", "0x1", strconv.Itoa(h.NumNodes()),
		"4294967295", "4294967296", "99999999999", "18446744073709551617", "٣")
	for _, name := range probes {
		id, ok := g.ID(name)
		wid, wok := h.ID(name)
		if id != wid || ok != wok {
			fail("ID(%q) = %d, %v; want %d, %v", name, id, ok, wid, wok)
		}
	}
	// Memory: nothing held for names until asked, then as the Builder's.
	gm, hm := memoryParts(g), memoryParts(h)
	for i := range hm {
		if hm[i].Name == "names" && !g.namesMade.Load() {
			hm[i].Bytes = 0
		}
	}
	if !reflect.DeepEqual(gm, hm) {
		fail("memory parts before Names\n%v, want\n%v", gm, hm)
	}
	if !slices.Equal(g.Names(), h.Names()) {
		fail("names %q, want %q", g.Names(), h.Names())
	}
	if !reflect.DeepEqual(memoryParts(g), memoryParts(h)) {
		fail("memory parts\n%v, want\n%v", memoryParts(g), memoryParts(h))
	}
	if err := g.checkAll(); err != nil {
		fail("Validate: %v", err)
	}
	gp, hp := g.parts(), h.parts()
	if !slices.Equal(gp.Names, hp.Names) || !slices.Equal(gp.EdgeSrc, hp.EdgeSrc) || !slices.Equal(gp.EdgeDst, hp.EdgeDst) ||
		!sameWeights(gp.EdgeWeight, hp.EdgeWeight) || !slices.Equal(gp.EdgeChannel, hp.EdgeChannel) ||
		gp.EdgeRelation != nil || hp.EdgeRelation != nil || gp.Relations != nil || hp.Relations != nil {
		fail("parts differ: %+v, want %+v", gp, hp)
	}
}

// memoryParts is g.memoryParts with the sharing of empty arrays dropped:
// every zero-length allocation has the same address, so which empty array
// "stores" another is an accident of allocation, not a layout.
func memoryParts(g *Graph) []memoryPart {
	parts := g.memoryParts()
	for i := range parts {
		if parts[i].Bytes == 0 {
			parts[i].SharedWith = ""
		}
	}
	return parts
}

func testFromIDsMatchesBuilder[T, C index](t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 8))
	for i := range 400 {
		directed := i%2 == 0
		in := randomIDEdges[T, C](r, directed)
		where := fmt.Sprintf("%T/%T case %d (directed %v, n %d, m %d, weights %v, float32 weights %v, channels %v)",
			T(0), C(0), i, directed, in.Nodes, len(in.Pairs)/2, in.Weights != nil, in.Weights32 != nil, in.ChannelOf != nil)
		h, err := fromIDsByBuilder(in)
		if err != nil {
			t.Fatalf("%s: reference: %v", where, err)
		}
		// FromIDs and every part count of its parallel form.
		var gs []*Graph
		for parts := range 4 {
			build := func(in IDEdges[T, C]) (*Graph, error) { return bulkBuild(in, parts) }
			if parts == 0 {
				build = FromIDs[T, C]
			}
			g, err := build(in)
			if err != nil {
				t.Fatalf("%s, %d parts: %v", where, parts, err)
			}
			requireSameGraph(t, g, h, fmt.Sprintf("%s, %d parts", where, parts))
			gs = append(gs, g)
		}
		// FromIDs keeps no caller slice: clobbering them changes nothing.
		clear(in.Pairs)
		clear(in.Weights)
		clear(in.Weights32)
		clear(in.ChannelOf)
		for parts, g := range gs {
			requireSameGraph(t, g, h, fmt.Sprintf("%s, %d parts, after the input was cleared", where, parts))
		}
	}
}

func TestFromIDsMatchesBuilder(t *testing.T) {
	t.Parallel()
	t.Run("int64/int32", func(t *testing.T) { testFromIDsMatchesBuilder[int64, int32](t, 1) })
	t.Run("int32/int32", func(t *testing.T) { testFromIDsMatchesBuilder[int32, int32](t, 2) })
	t.Run("uint32/uint32", func(t *testing.T) { testFromIDsMatchesBuilder[uint32, uint32](t, 3) })
	t.Run("uint64/int64", func(t *testing.T) { testFromIDsMatchesBuilder[uint64, int64](t, 4) })
}

// TestFromIDsBadInputs breaks one random edge (or the shape) and wants the
// reference's error, word for word, and no graph.
func TestFromIDsBadInputs(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 8))
	faults := []string{"src -1", "dst n", "huge id", "NaN", "+Inf", "-Inf", "negative", "above MaxWeight", "subnormal", "channel -1", "channel past table", "no nodes", "odd pairs", "short weights", "short channels", "short float32 weights", "both weights"}
	for i := range 600 {
		in := randomIDEdges[int64, int32](r, i%2 == 0)
		m := len(in.Pairs) / 2
		fault := faults[r.IntN(len(faults))]
		e := 0
		if m > 0 {
			e = r.IntN(m)
		}
		switch fault {
		case "src -1":
			if m == 0 {
				continue
			}
			in.Pairs[2*e] = -1
		case "dst n":
			if m == 0 {
				continue
			}
			in.Pairs[2*e+1] = int64(in.Nodes)
		case "huge id":
			if m == 0 {
				continue
			}
			in.Pairs[2*e+1] = 1 << 40
		case "NaN", "+Inf", "-Inf", "negative":
			if m == 0 {
				continue
			}
			bad := map[string]float64{"NaN": math.NaN(), "+Inf": math.Inf(1), "-Inf": math.Inf(-1), "negative": -0.5}[fault]
			if in.Weights32 != nil {
				in.Weights32[e] = float32(bad) // each is a float32 too
				break
			}
			if in.Weights == nil {
				in.Weights = make([]float64, m)
			}
			in.Weights[e] = bad
		case "above MaxWeight", "subnormal":
			if m == 0 {
				continue
			}
			// Neither is a float32: the weights go float64.
			if in.Weights == nil {
				in.Weights = make([]float64, m)
				for i, w := range in.Weights32 {
					in.Weights[i] = float64(w)
				}
				in.Weights32 = nil
			}
			in.Weights[e] = map[string]float64{"above MaxWeight": 1e308, "subnormal": 1e-320}[fault]
		case "channel -1", "channel past table":
			if m == 0 {
				continue
			}
			if in.ChannelOf == nil {
				in.ChannelOf, in.ChannelNames = make([]int32, m), []string{"a"}
			}
			in.ChannelOf[e] = -1
			if fault == "channel past table" {
				in.ChannelOf[e] = int32(len(in.ChannelNames))
			}
		case "no nodes":
			in.Nodes = r.IntN(2) - 1
		case "odd pairs":
			in.Pairs = append(in.Pairs, 0)
		case "short weights":
			in.Weights, in.Weights32 = make([]float64, m+1), nil
		case "short float32 weights":
			in.Weights, in.Weights32 = nil, make([]float32, max(m-1, 0))
			if m == 0 {
				in.Weights32 = make([]float32, 1)
			}
		case "both weights":
			in.Weights, in.Weights32 = make([]float64, m), make([]float32, m)
		case "short channels":
			in.ChannelOf, in.ChannelNames = make([]int32, m+1), []string{"a"}
		}
		if i%5 == 0 && m > 1 {
			// A second fault later on: the first one is the error.
			in.Pairs[2*m-1] = -7
		}
		_, want := fromIDsByBuilder(in)
		if want == nil {
			t.Fatalf("case %d (%s): the reference accepted the broken input", i, fault)
		}
		for parts := 1; parts <= 3; parts++ {
			g, err := bulkBuild(in, parts)
			if err == nil || g != nil {
				t.Fatalf("case %d (%s), %d parts: returned %v, %v; want the error %q", i, fault, parts, g, err, want)
			}
			if err.Error() != want.Error() {
				t.Fatalf("case %d (%s), %d parts: error %q, want %q", i, fault, parts, err, want)
			}
		}
	}
	// Unsigned ids above the int64 range, and a uint32 channel index.
	_, err := FromIDs(IDEdges[uint64, uint32]{Nodes: 3, Pairs: []uint64{0, 1, 1 << 63, 2}})
	if want := "csr: edge 1: node 9223372036854775808 -> 2 out of range (graph has 3 nodes, ids 0..2)"; err == nil || err.Error() != want {
		t.Fatalf("uint64 id 2^63: error %v, want %q", err, want)
	}
	_, err = FromIDs(IDEdges[uint32, uint32]{Nodes: 3, Pairs: []uint32{0, 1}, ChannelOf: []uint32{math.MaxUint32}, ChannelNames: []string{"a"}})
	if want := "csr: edge 0: channel 4294967295 out of range (1 channel names)"; err == nil || err.Error() != want {
		t.Fatalf("uint32 channel: error %v, want %q", err, want)
	}
}

// TestDecimalID holds the parser to the map it stands for at the ends of
// every digit count.
func TestDecimalID(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 9, 10, 11, 99, 100, 101, 1000, 12345} {
		ids := make(map[string]uint32, n)
		for i := range n {
			ids[strconv.Itoa(i)] = uint32(i)
		}
		probes := []string{"", "-0", "+0", "00", "007", "1.0", "1e1", " 0", "0 ", "a", "٠", "9999999999", "99999999999",
			"4294967295", "4294967296", "18446744073709551616"}
		for i := range n + 12 {
			probes = append(probes, strconv.Itoa(i), "0"+strconv.Itoa(i), "-"+strconv.Itoa(i))
		}
		for _, name := range probes {
			id, ok := decimalID(name, n)
			wid, wok := ids[name]
			if id != wid || ok != wok {
				t.Fatalf("n=%d: decimalID(%q) = %d, %v; want %d, %v", n, name, id, ok, wid, wok)
			}
		}
		if names := decimalNames(n); len(names) != n {
			t.Fatalf("n=%d: %d names", n, len(names))
		} else {
			for i, name := range names {
				if name != strconv.Itoa(i) {
					t.Fatalf("n=%d: name %d is %q", n, i, name)
				}
			}
		}
	}
}

// TestFromIDsConcurrentNames reads names, ids and memory from many
// goroutines at once (run under -race).
func TestFromIDsConcurrentNames(t *testing.T) {
	t.Parallel()
	g, err := FromIDs(IDEdges[int32, int32]{Nodes: 1000, Pairs: []int32{0, 999, 5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for w := range 4 {
		go func() {
			for u := range uint32(1000) {
				var got string
				switch (int(u) + w) % 3 {
				case 0:
					got = g.Names()[u]
				case 1:
					got = g.Name(u)
				default:
					g.MemoryBytes()
					got = strconv.Itoa(int(u))
				}
				if id, ok := g.ID(got); !ok || id != u || got != strconv.Itoa(int(u)) {
					done <- fmt.Sprintf("node %d: name %q, ID %d %v", u, got, id, ok)
					return
				}
			}
			done <- ""
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
}

// named puts names on a FromIDs graph: the result is the Builder's graph
// over those names (arrays, name lookups, Validate), and bad names are
// errors.
func TestNamedMatchesBuilder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(61, 62))
	for trial := range 50 {
		directed := rng.IntN(2) == 0
		n := 1 + rng.IntN(20)
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("node-%d-%d", rng.IntN(1000), i)
		}
		m := rng.IntN(40)
		pairs := make([]uint32, 2*m)
		weights := make([]float64, m)
		b := NewBuilder(directed)
		for _, name := range names {
			_, err := b.AddNode(name)
			require.NoError(t, err)
		}
		for e := range m {
			pairs[2*e], pairs[2*e+1] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
			weights[e] = []float64{1, 0.5, 0}[rng.IntN(3)]
			_, err := b.AddEdgeByID(pairs[2*e], pairs[2*e+1], weights[e], "")
			require.NoError(t, err)
		}
		ref, err := b.Build()
		require.NoError(t, err)
		byID, err := FromIDs(IDEdges[uint32, uint32]{Directed: directed, Nodes: n, Pairs: pairs, Weights: weights})
		require.NoError(t, err)
		g, err := named(byID, names)
		require.NoError(t, err)
		require.NoError(t, g.checkAll(), "trial %d", trial)
		gp, rp := g.parts(), ref.parts()
		require.Equal(t, rp.Names, gp.Names)
		require.True(t, slices.Equal(rp.EdgeSrc, gp.EdgeSrc) && slices.Equal(rp.EdgeDst, gp.EdgeDst) &&
			sameWeights(rp.EdgeWeight, gp.EdgeWeight) && slices.Equal(rp.EdgeChannel, gp.EdgeChannel) &&
			slices.Equal(rp.Channels, gp.Channels), "trial %d: edge table", trial)
		require.True(t, sameAdjacencyValues(rp.Out, gp.Out) && sameAdjacencyValues(rp.In, gp.In), "trial %d: adjacency", trial)
		require.True(t, sameFloats(rp.OutWeight, gp.OutWeight), "trial %d: out-weights", trial)
		require.Equal(t, ref.UnitWeights(), g.UnitWeights())
		for i, name := range names {
			id, ok := g.ID(name)
			require.True(t, ok)
			require.Equal(t, uint32(i), id)
		}
		_, ok := g.ID("absent")
		require.False(t, ok)
	}
	byID, err := FromIDs(IDEdges[uint32, uint32]{Nodes: 2, Pairs: []uint32{0, 1}})
	require.NoError(t, err)
	_, err = named(byID, []string{"a"})
	require.ErrorContains(t, err, "1 names for 2 nodes")
	_, err = named(byID, []string{"a", "a"})
	require.ErrorContains(t, err, "repeats node 0")
	_, err = named(byID, []string{"a", ""})
	require.ErrorContains(t, err, "empty name")
}

// FromIDs splits only graphs large enough, with more edges than nodes, over
// at most four cores.
func TestBulkParts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, m, procs, want int }{
		{10, 100, 8, 1},             // small
		{250_000, 1_244_337, 1, 1},  // one core
		{250_000, 1_244_337, 2, 2},  // the KG on two cores
		{250_000, 1_244_337, 16, 4}, // capped at four
		{1 << 20, 16_085_168, 2, 2}, // R-MAT 20
		{1 << 20, 1 << 19, 8, 1},    // fewer edges than twice the nodes
		{1000, 3 << 17, 8, 3},       // three parts of at least 1<<17 edges
	} {
		if got := bulkParts(c.n, c.m, c.procs); got != c.want {
			t.Errorf("bulkParts(%d, %d, %d) = %d, want %d", c.n, c.m, c.procs, got, c.want)
		}
	}
}
