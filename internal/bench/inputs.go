package bench

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/authppr/authppr/csr"
)

// ErrNoInput is Input's error for an input whose source is absent (the
// anchors' data): benchmarks skip on it.
var ErrNoInput = errors.New("bench: input absent")

// AnchorsDir is the directory of the graphs anchors/gen_graph.py generates
// (anchors/README.md): $AUTHPPR_ANCHORS when set, else anchors-data/ at
// the root of the module the working directory is in (a test's working
// directory is its package's), else anchors-data/ in the working
// directory.
func AnchorsDir() string {
	if dir := os.Getenv("AUTHPPR_ANCHORS"); dir != "" {
		return dir
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.Join(dir, "anchors-data")
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "anchors-data"
}

// anchorsKG lists the names anchors/gen_graph.py's KG graph may have in
// AnchorsDir.
var anchorsKG = []string{"kg.edges.bin", "kg.ppredge"}

// Input returns the path of a benchmark input file, made on first use in
// os.TempDir()/authppr-bench-inputs and kept across runs:
//
//   - "kg": the anchors' KG graph as PPREDGE1 (250k nodes, 1.24M
//     undirected edges; ErrNoInput when AnchorsDir has none: make it with
//     anchors/gen_graph.py kg);
//   - "kg.txt": that graph as a text edge list ("src dst weight");
//   - "rmat18": RMAT(18, 16, 7) as PPREDGE1 (262k nodes, 4.2M directed
//     edges).
func Input(name string) (string, error) {
	if name == "kg" {
		for _, name := range anchorsKG {
			if p := filepath.Join(AnchorsDir(), name); fileExists(p) {
				return p, nil
			}
		}
		return "", ErrNoInput
	}
	dir := filepath.Join(os.TempDir(), "authppr-bench-inputs")
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	tmp := path + ".tmp"
	var err error
	switch name {
	case "kg.txt":
		err = writeKGText(tmp)
	case "rmat18":
		var g *csr.Graph
		if g, err = RMAT(18, 16, 7); err == nil {
			err = WritePPREDGE1(tmp, g)
		}
	default:
		return "", fmt.Errorf("bench: no input %q", name)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// writeKGText writes the anchors' KG as a text edge list at path.
func writeKGText(path string) error {
	src, err := Input("kg")
	if err != nil {
		return err
	}
	g, err := csr.ReadFile(src, csr.ReadOptions{Format: csr.FormatPPREDGE1})
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for e := range uint32(g.NumEdges()) {
		ed := g.Edge(e)
		fmt.Fprintf(w, "%s %s %v\n", g.Name(ed.Src), g.Name(ed.Dst), ed.Weight)
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
