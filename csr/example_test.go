package csr_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/authppr/authppr/csr"
)

// An edge list with weights and the channel that wrote each edge becomes an
// immutable snapshot: dense node ids by first appearance, stable edge ids.
func ExampleReadFile() {
	dir, err := os.MkdirTemp("", "csr-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.txt")
	const edges = `# src dst weight channel
q alice 1 default
alice p1 1 default
q p2 3 mallory
`
	if err := os.WriteFile(path, []byte(edges), 0o644); err != nil {
		panic(err)
	}
	g, err := csr.ReadFile(path, csr.ReadOptions{}) // edges, undirected
	if err != nil {
		panic(err)
	}
	q, _ := g.ID("q")
	fmt.Println(g.NumNodes(), "nodes,", g.NumEdges(), "edges; q is node", q)
	e := g.Edge(2)
	fmt.Println("edge 2:", g.Name(e.Src), "-", g.Name(e.Dst), e.Weight, e.Channel)
	fmt.Println("W(q) =", g.OutWeight(q))
	// Output:
	// 4 nodes, 3 edges; q is node 0
	// edge 2: q - p2 3 mallory
	// W(q) = 4
}
