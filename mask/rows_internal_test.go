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
		{"node out of range", 3, rows([]uint32{3}, nil, nil, nil)},
		{"descending", 4, rows([]uint32{2, 1}, nil, nil, nil)},
		{"neighbour out of range", 3, rows([]uint32{0}, []uint32{5}, []float64{1}, []uint32{9})},
		{"negative weight", 3, rows([]uint32{0}, []uint32{1}, []float64{-1}, []uint32{9})},
		{"edge order", 3, rows([]uint32{0}, []uint32{1, 2}, []float64{1, 1}, []uint32{9, 4})},
		{"short arrays", 3, rows([]uint32{0}, []uint32{1, 2}, []float64{1}, []uint32{9})},
		{"rows missing", 3, rowSet{Nodes: []uint32{0}}},
	} {
		if _, err := patched(base, tc.n, tc.out, rowSet{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// rows is a row set whose first row holds the arcs given and whose other
// rows are empty.
func rows(nodes []uint32, nbr []uint32, wt []float64, eid []uint32) rowSet {
	s := rowSet{Nodes: nodes, Nbr: make([][]uint32, len(nodes)), Weight: make([][]float64, len(nodes)), Edge: make([][]uint32, len(nodes))}
	if len(nodes) > 0 {
		s.Nbr[0], s.Weight[0], s.Edge[0] = nbr, wt, eid
	}
	return s
}
