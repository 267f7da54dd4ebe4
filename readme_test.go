package authppr_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// readmeMemory is the edge list README.md's quick start reads.
const readmeMemory = `# src dst weight channel
q alice 1 default
q bob 1 default
alice p1 1 default
bob p2 1 default
alice p2 0.5 default
carol p3 1 default
bob carol 0.2 default
q p3 3 mallory
`

// quickStart is README.md's Go quick start, line for line but for its last
// (TestReadmeQuickStart holds the two equal), so the README's code compiles
// and runs.
func quickStart(path string) error {
	g, err := csr.ReadFile(path, csr.ReadOptions{}) // undirected edge list
	if err != nil {
		return err
	}
	id := func(name string) (uint32, error) {
		v, ok := g.ID(name)
		if !ok {
			return 0, fmt.Errorf("%s: no node %q", path, name)
		}
		return v, nil
	}
	q, err := id("q")
	if err != nil {
		return err
	}
	var passages []uint32
	for _, name := range []string{"p1", "p2", "p3"} {
		p, err := id(name)
		if err != nil {
			return err
		}
		passages = append(passages, p)
	}

	// The guard: trust the channel "default", replay every selection on it.
	guard, err := replay.New(g, mask.FromGraph(g), mask.Trust("default"), replay.Options{})
	if err != nil {
		return err
	}
	d, err := guard.Select(replay.Query{
		Seeds:      []ppr.Seed{{Node: q, Weight: 1}},
		K:          1,
		Candidates: passages,
		Damping:    0.5, // HippoRAG2's
	})
	if err != nil {
		return err
	}
	fmt.Println("read:", g.Name(d.Selected[0].Node), "divergent:", d.Divergent)
	for _, s := range d.Suspects {
		fmt.Println("suspect:", g.Name(s.Src), "-", g.Name(s.Dst), s.Channels)
	}
	return nil
}

// README.md's quick start on its memory file.
func Example_quickStart() {
	dir, err := os.MkdirTemp("", "authppr-readme")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.txt")
	if err := os.WriteFile(path, []byte(readmeMemory), 0o644); err != nil {
		panic(err)
	}
	if err := quickStart(path); err != nil {
		panic(err)
	}
	// Output:
	// read: p2 divergent: true
	// suspect: q - p3 [mallory]
}

// TestReadmeQuickStart holds README.md's Go block equal to quickStart's body
// and its memory file equal to readmeMemory, so the README shows code that
// compiles and the output it prints.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	goBlock := fenced(t, readme, "```go\n")
	// The README leaves out the function's last line, return nil.
	body := between(t, src, "func quickStart(path string) error {\n", "\n\treturn nil\n}\n")
	var dedented []string
	for _, line := range strings.Split(body, "\n") {
		dedented = append(dedented, strings.ReplaceAll(strings.TrimPrefix(line, "\t"), "\t", "    "))
	}
	if want := strings.Join(dedented, "\n") + "\n"; goBlock != want {
		t.Errorf("README.md's Go quick start differs from quickStart in readme_test.go:\nREADME:\n%s\nquickStart:\n%s", goBlock, want)
	}
	if got := fenced(t, readme, "```text memory.txt\n"); got != readmeMemory {
		t.Errorf("README.md's memory.txt differs from readmeMemory:\n%s", got)
	}
}

// fenced returns the first fenced block of doc opened by the line open.
func fenced(t *testing.T, doc []byte, open string) string {
	t.Helper()
	i := bytes.Index(doc, []byte(open))
	if i < 0 {
		t.Fatalf("README.md: no block opened by %q", strings.TrimSpace(open))
	}
	rest := doc[i+len(open):]
	j := bytes.Index(rest, []byte("```\n"))
	if j < 0 {
		t.Fatalf("README.md: the block opened by %q is not closed", strings.TrimSpace(open))
	}
	return string(rest[:j])
}

// between returns the text of src between start and the first end after it.
func between(t *testing.T, src []byte, start, end string) string {
	t.Helper()
	i := bytes.Index(src, []byte(start))
	if i < 0 {
		t.Fatalf("readme_test.go: no %q", start)
	}
	rest := src[i+len(start):]
	j := bytes.Index(rest, []byte(end))
	if j < 0 {
		t.Fatalf("readme_test.go: no end of %q", start)
	}
	return string(rest[:j])
}
