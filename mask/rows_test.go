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
		if v.NumNodes() != c.Material.NumNodes() {
			t.Fatalf("trial %d: %d nodes, materialised %d", trial, v.NumNodes(), c.Material.NumNodes())
		}
		for u := range uint32(v.NumNodes()) {
			if got, want := v.OutWeight(u), c.Material.OutWeight(u); got != want {
				t.Fatalf("trial %d (directed %v): W(%d) = %v, materialised %v", trial, directed, u, got, want)
			}
			if got, want := liveArcs(v.OutRow(u)), liveArcs(c.Material.OutRow(u)); !slices.Equal(got, want) {
				t.Fatalf("trial %d (directed %v): out-row of %d = %v, materialised %v", trial, directed, u, got, want)
			}
			if got, want := liveArcs(v.InRow(u)), liveArcs(c.Material.InRow(u)); !slices.Equal(got, want) {
				t.Fatalf("trial %d (directed %v): in-row of %d = %v, materialised %v", trial, directed, u, got, want)
			}
			touched := v.TouchedBits() != nil && v.TouchedBits()[u/64]&(1<<(u%64)) != 0
			_, _, _, replaced := v.ReplacedRow(u)
			if replaced && !touched {
				t.Fatalf("trial %d: replaced row %d not in TouchedBits", trial, u)
			}
		}
	}
}

func TestPatchedRefusesBadRows(t *testing.T) {
	t.Parallel()
	g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: true, Nodes: 3, Pairs: []uint32{0, 1, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	base := mask.Full(g)
	for _, tc := range []struct {
		name string
		n    int
		out  mask.RowSet
	}{
		{"fewer nodes", 2, mask.RowSet{}},
		{"node out of range", 3, mask.RowSet{Nodes: []uint32{3}, Offsets: []int{0, 0}}},
		{"descending", 4, mask.RowSet{Nodes: []uint32{2, 1}, Offsets: []int{0, 0, 0}}},
		{"neighbour out of range", 3, mask.RowSet{Nodes: []uint32{0}, Offsets: []int{0, 1}, Nbr: []uint32{5}, Weight: []float64{1}, Edge: []uint32{9}}},
		{"negative weight", 3, mask.RowSet{Nodes: []uint32{0}, Offsets: []int{0, 1}, Nbr: []uint32{1}, Weight: []float64{-1}, Edge: []uint32{9}}},
		{"edge order", 3, mask.RowSet{Nodes: []uint32{0}, Offsets: []int{0, 2}, Nbr: []uint32{1, 2}, Weight: []float64{1, 1}, Edge: []uint32{9, 4}}},
		{"short arrays", 3, mask.RowSet{Nodes: []uint32{0}, Offsets: []int{0, 2}, Nbr: []uint32{1}, Weight: []float64{1}, Edge: []uint32{9}}},
	} {
		if _, err := mask.Patched(base, tc.n, tc.out, mask.RowSet{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
