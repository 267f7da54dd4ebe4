package mask

import (
	"testing"

	"github.com/authppr/authppr/csr"
)

func TestPatchedRefusesBadRows(t *testing.T) {
	t.Parallel()
	g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: true, Nodes: 3, Pairs: []uint32{0, 1, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	base := Full(g)
	for _, tc := range []struct {
		name string
		n    int
		out  rowSet
	}{
		{"fewer nodes", 2, rowSet{}},
		{"node out of range", 3, rowSet{Nodes: []uint32{3}, Offsets: []int{0, 0}}},
		{"descending", 4, rowSet{Nodes: []uint32{2, 1}, Offsets: []int{0, 0, 0}}},
		{"neighbour out of range", 3, rowSet{Nodes: []uint32{0}, Offsets: []int{0, 1}, Nbr: []uint32{5}, Weight: []float64{1}, Edge: []uint32{9}}},
		{"negative weight", 3, rowSet{Nodes: []uint32{0}, Offsets: []int{0, 1}, Nbr: []uint32{1}, Weight: []float64{-1}, Edge: []uint32{9}}},
		{"edge order", 3, rowSet{Nodes: []uint32{0}, Offsets: []int{0, 2}, Nbr: []uint32{1, 2}, Weight: []float64{1, 1}, Edge: []uint32{9, 4}}},
		{"short arrays", 3, rowSet{Nodes: []uint32{0}, Offsets: []int{0, 2}, Nbr: []uint32{1}, Weight: []float64{1}, Edge: []uint32{9}}},
	} {
		if _, err := patched(base, tc.n, tc.out, rowSet{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
