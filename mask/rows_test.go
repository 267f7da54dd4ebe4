package mask_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
)

// liveArcs lists a row's live arcs as (neighbour, weight bits, edge).
func liveArcs(row mask.Row) [][3]uint64 {
	var out [][3]uint64
	for p, v := range row.Nbr {
		if row.Live(p) {
			out = append(out, [3]uint64{uint64(v), math.Float64bits(row.Weight.At(p)), uint64(row.Edge[p])})
		}
	}
	return out
}

func TestWithDeltaMatchesMaterialized(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 400 {
		directed := trial%2 == 0
		c, err := randgraph.NewDeltaCase(r, directed, 30)
		if err != nil {
			t.Fatal(err)
		}
		v, err := mask.WithDelta(c.Base, c.Delta)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if trial%4 < 2 {
			v.Prepare() // built ahead (a guard's views): nothing may differ
		}
		matchesMaterialized(t, trial, v, c.Material)
	}
}

// matchesMaterialized fails t unless the patched view v has the nodes,
// out-weights and their inverses (to the bit), rows and touched bits of
// the materialised graph's view.
func matchesMaterialized(t *testing.T, trial int, v, material *mask.View) {
	t.Helper()
	directed := v.Directed()
	if v.NumNodes() != material.NumNodes() {
		t.Fatalf("trial %d: %d nodes, materialised %d", trial, v.NumNodes(), material.NumNodes())
	}
	if got, want := slices.Collect(v.NodesByOutWeight()), slices.Collect(material.NodesByOutWeight()); !slices.Equal(got, want) {
		t.Fatalf("trial %d (directed %v): nodes by out-weight %v, materialised %v", trial, directed, got, want)
	}
	// A reader that stops early gets a prefix.
	if k := v.NumNodes() / 2; k > 0 {
		var first []uint32
		for u := range v.NodesByOutWeight() {
			if first = append(first, u); len(first) == k {
				break
			}
		}
		if want := slices.Collect(material.NodesByOutWeight())[:k]; !slices.Equal(first, want) {
			t.Fatalf("trial %d: the first %d nodes by out-weight %v, materialised %v", trial, k, first, want)
		}
	}
	if got, want := v.DanglingNodes(), material.DanglingNodes(); !slices.Equal(got, want) {
		t.Fatalf("trial %d (directed %v): dangling nodes %v, materialised %v", trial, directed, got, want)
	}
	for u := range uint32(v.NumNodes()) {
		if got, want := v.OutWeight(u), material.OutWeight(u); got != want {
			t.Fatalf("trial %d (directed %v): W(%d) = %v, materialised %v", trial, directed, u, got, want)
		}
		// The inverse derives from the base's: the same 1/W to the bit.
		if got, want := v.InvOutWeights()[u], material.InvOutWeights()[u]; got != want {
			t.Fatalf("trial %d (directed %v): 1/W(%d) = %v, materialised %v", trial, directed, u, got, want)
		}
		// What kernels read (the snapshot view's arrays under the
		// replaced rows' values) is the same.
		if got, want := v.NodeOutWeights().At(u), material.OutWeight(u); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d (directed %v): NodeOutWeights W(%d) = %v, materialised %v", trial, directed, u, got, want)
		}
		if got, want := v.NodeInvOutWeights().At(u), material.InvOutWeights()[u]; math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d (directed %v): NodeInvOutWeights 1/W(%d) = %v, materialised %v", trial, directed, u, got, want)
		}
		if got, want := liveArcs(v.OutRow(u)), liveArcs(material.OutRow(u)); !slices.Equal(got, want) {
			t.Fatalf("trial %d (directed %v): out-row of %d = %v, materialised %v", trial, directed, u, got, want)
		}
		if got, want := liveArcs(v.InRow(u)), liveArcs(material.InRow(u)); !slices.Equal(got, want) {
			t.Fatalf("trial %d (directed %v): in-row of %d = %v, materialised %v", trial, directed, u, got, want)
		}
		touched := v.TouchedBits() != nil && v.TouchedBits()[u/64]&(1<<(u%64)) != 0
		_, _, _, replaced := v.ReplacedRow(u)
		if replaced && !touched {
			t.Fatalf("trial %d: replaced row %d not in TouchedBits", trial, u)
		}
	}
}

// A delta applied in steps, each to the view the last one made (a store
// version's view derived from an earlier version's), gives the view of
// the whole delta applied at once: the materialised graph's.
func TestWithDeltaChainsMatchOneDelta(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 400 {
		directed := trial%2 == 0
		c, err := randgraph.NewDeltaCase(r, directed, 30+100*(trial%3/2)) // some past a 64-node word
		if err != nil {
			t.Fatal(err)
		}
		all := c.Material.Graph()
		steps := 1 + r.IntN(4)
		parts := make([]mask.Delta, steps)
		// The added edges split into runs of ascending ids, one per step
		// (a later step adds later edges); a removal of one goes to its
		// step or a later one (before it, the later step would add it).
		cuts := make([]int, steps-1)
		for i := range cuts {
			cuts[i] = r.IntN(len(c.Delta.Edge) + 1)
		}
		slices.Sort(cuts)
		addedAt := map[uint32]int{}
		for i, e := range c.Delta.Edge {
			k, _ := slices.BinarySearch(cuts, i+1)
			addedAt[e] = k
			p := &parts[k]
			p.Src, p.Dst = append(p.Src, c.Delta.Src[i]), append(p.Dst, c.Delta.Dst[i])
			p.Weight, p.Edge = append(p.Weight, c.Delta.Weight[i]), append(p.Edge, e)
		}
		for _, e := range c.Delta.Removed {
			k := r.IntN(steps)
			if at, ok := addedAt[e]; ok {
				k = at + r.IntN(steps-at)
			}
			p := &parts[k]
			ed := all.Edge(e)
			p.Removed, p.RemovedSrc, p.RemovedDst = append(p.Removed, e), append(p.RemovedSrc, ed.Src), append(p.RemovedDst, ed.Dst)
		}
		v := c.Base
		nodes := v.NumNodes()
		for k := range parts {
			p := &parts[k]
			for i := range p.Edge {
				nodes = max(nodes, int(p.Src[i])+1, int(p.Dst[i])+1)
			}
			if k == steps-1 {
				nodes = c.Delta.Nodes
			}
			p.Nodes = nodes
			if v, err = mask.WithDelta(v, *p); err != nil {
				t.Fatalf("trial %d step %d: %v", trial, k, err)
			}
		}
		matchesMaterialized(t, trial, v, c.Material)
	}
}

// A derived view may add nodes past the last 64-node word of the view it
// derives from: the kept rows' index covers only that view's nodes.
func TestWithDeltaGrowsPastAWord(t *testing.T) {
	t.Parallel()
	g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Nodes: 64, Pairs: []uint32{0, 63}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := mask.WithDelta(mask.Full(g), mask.Delta{Nodes: 64, Src: []uint32{0}, Dst: []uint32{1}, Weight: []float64{2}, Edge: []uint32{1}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := mask.WithDelta(first, mask.Delta{Nodes: 130, Src: []uint32{129}, Dst: []uint32{0}, Weight: []float64{4}, Edge: []uint32{2}})
	if err != nil {
		t.Fatal(err)
	}
	for u, want := range map[uint32]float64{0: 7, 1: 2, 63: 1, 129: 4, 100: 0} {
		if got := second.OutWeight(u); got != want {
			t.Errorf("W(%d) = %v, want %v", u, got, want)
		}
	}
}

// Views derived from one view each see their own arcs, and the view they
// derive from still reads its own row and out-weight (rows are shared
// between derived views: none may write into another's). Run under the
// race detector, the derivations are concurrent.
func TestWithDeltaBranchesKeepTheirArcs(t *testing.T) {
	t.Parallel()
	g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Nodes: 4, Pairs: []uint32{0, 1, 0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := mask.WithDelta(mask.Full(g), mask.Delta{Nodes: 4, Src: []uint32{0}, Dst: []uint32{3}, Weight: []float64{2}, Edge: []uint32{2}})
	if err != nil {
		t.Fatal(err)
	}
	const branches = 8
	views := make([]*mask.View, branches)
	errs := make(chan error, branches)
	for b := range branches {
		go func() {
			var err error
			views[b], err = mask.WithDelta(first, mask.Delta{Nodes: 4, Src: []uint32{0}, Dst: []uint32{uint32(1 + b%3)}, Weight: []float64{float64(10 + b)}, Edge: []uint32{3}})
			errs <- err
		}()
	}
	for range branches {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := first.OutRow(0).Edge; !slices.Equal(got, []uint32{0, 1, 2}) {
		t.Fatalf("the first view's row of 0 is %v, want edges 0 1 2", got)
	}
	if w := first.OutWeight(0); w != 4 {
		t.Fatalf("the first view's W(0) = %v, want 4", w)
	}
	for b, v := range views {
		r := v.OutRow(0)
		if !slices.Equal(r.Edge, []uint32{0, 1, 2, 3}) || r.Nbr[3] != uint32(1+b%3) || r.Weight.At(3) != float64(10+b) {
			t.Fatalf("branch %d: row of 0 is %v %v, want edge 3 to %d of weight %d last", b, r.Edge, r.Nbr, 1+b%3, 10+b)
		}
		if w := v.OutWeight(0); w != float64(14+b) {
			t.Fatalf("branch %d: W(0) = %v, want %d", b, w, 14+b)
		}
	}
}
