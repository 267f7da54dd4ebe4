package snapshot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/snapshot"
)

// A graph and its provenance labels are saved atomically in one file and
// loaded back by mapping it: every section's checksum and every graph
// invariant is checked before Load returns.
func Example() {
	g, err := csr.Read(strings.NewReader("q a 1 default\nq b 3 mallory\n"), "g", csr.ReadOptions{})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "snapshot-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.snap")
	if err := snapshot.Save(path, g, mask.FromGraph(g)); err != nil {
		panic(err)
	}
	s, err := snapshot.Load(path)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	b, _ := s.Graph.ID("b")
	fmt.Println(s.Graph.NumNodes(), "nodes; b is node", b, "; mallory added", s.Labels.Added("mallory").ToArray())
	// Output: 3 nodes; b is node 2 ; mallory added [1]
}
