package csr

import "testing"

func TestEmptyGraph(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{false, true} {
		g := emptyGraph(directed)
		if g.NumNodes() != 0 || g.NumEdges() != 0 || g.NumArcs() != 0 || g.Directed() != directed {
			t.Fatalf("emptyGraph(%v): %d nodes, %d edges, %d arcs, directed %v", directed, g.NumNodes(), g.NumEdges(), g.NumArcs(), g.Directed())
		}
		if _, ok := g.ID("a"); ok {
			t.Fatal("Empty: ID found a node")
		}
		if len(g.Out().Offsets) != 1 || len(g.In().Offsets) != 1 || len(g.outWeight) != 0 {
			t.Fatal("Empty: adjacency not of zero rows")
		}
		if err := g.checkAll(); err != nil {
			t.Fatalf("emptyGraph(%v): %v", directed, err)
		}
	}
}
