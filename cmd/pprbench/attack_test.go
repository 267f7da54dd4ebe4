package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAttackWritesTablesJSONAndCharts(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI("attack", "--nodes", "2000", "--queries", "3", "--budget", "2", "--per-step", "3", "--out", dir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "graph memory-2k")
	require.Contains(t, out, "guard (reject)")
	raw, err := os.ReadFile(filepath.Join(dir, "attack.json"))
	require.NoError(t, err)
	var res struct {
		Graphs []struct {
			Graph     string `json:"graph"`
			Queries   int    `json:"queries"`
			Selectors []struct {
				Name string               `json:"name"`
				SAdv map[string][]float64 `json:"s_adv"`
			} `json:"selectors"`
			Defences []struct {
				Kind          string `json:"kind"`
				D             int    `json:"divergence_set"`
				Guard         int    `json:"harm_guard"`
				GuardRefused  int    `json:"guard_refused"`
				NoInheritance int    `json:"harm_guard_no_inheritance"`
			} `json:"defences"`
			CleanOverBlocking int `json:"clean_over_blocking"`
		} `json:"graphs"`
		Ledger struct {
			Transfers int `json:"transfers"`
			Guard     int `json:"misdirected_guard"`
		} `json:"ledger"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Len(t, res.Graphs, 1)
	require.Equal(t, 3, res.Graphs[0].Queries)
	require.Len(t, res.Graphs[0].Selectors, 4)
	require.Len(t, res.Graphs[0].Selectors[0].SAdv["edge-insert"], 2)
	require.Len(t, res.Graphs[0].Selectors[0].SAdv["launder"], 2)
	launder := false
	for _, d := range res.Graphs[0].Defences {
		require.Zero(t, d.Guard)
		if d.Kind == "launder" {
			// The guard refuses every laundered divergence; without
			// min-inheritance it would let every one through.
			launder = true
			require.Positive(t, d.D)
			require.Equal(t, d.D, d.GuardRefused)
			require.Equal(t, d.D, d.NoInheritance)
		}
	}
	require.True(t, launder, "no launder row")
	require.Contains(t, out, "guard w/o min-inheritance")
	require.Equal(t, 499, res.Ledger.Transfers)
	require.Zero(t, res.Ledger.Guard)
	// The charts: well-formed SVG with a line per selector (named in the
	// legend), and the ledger's six bars.
	for _, name := range []string{"sadv-memory-2k.svg", "sinj-memory-2k.svg"} {
		elems, text := readSVG(t, filepath.Join(dir, name))
		require.Equal(t, 4, elems["polyline"], name)
		for _, s := range res.Graphs[0].Selectors {
			require.Contains(t, text, s.Name, name)
		}
		require.Contains(t, text, "attacker budget b", name)
	}
	elems, text := readSVG(t, filepath.Join(dir, "ledger.svg"))
	require.Equal(t, 6, elems["title"], "ledger.svg: one titled bar per defence and run")
	require.Contains(t, text, "guard (reject)")
	require.Contains(t, text, "ledger: 499 transfers")
}

// readSVG parses an SVG file as XML and returns how many elements of each
// name it has and its text.
func readSVG(t *testing.T, path string) (map[string]int, string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	dec := xml.NewDecoder(f)
	elems := map[string]int{}
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, path)
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			elems[tok.Name.Local]++
		case xml.CharData:
			text.Write(tok)
		}
	}
	require.Equal(t, "svg", root, path)
	return elems, text.String()
}

func TestAttackUsageErrors(t *testing.T) {
	code, _, errOut := runCLI("attack", "--graph", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--graph "nope"`)
	code, _, _ = runCLI("attack", "--queries", "0")
	require.Equal(t, 2, code)
	code, _, errOut = runCLI("attack", "--nodes", "2000", "--queries", "1", "--budget", "0")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--budget 0")
}

// --data defaults to testdata/ relative to the working directory (the
// repository's real graphs when run from its root). Tests run in
// cmd/pprbench, which has no testdata/: the error says where to run from.
func TestDataFlag(t *testing.T) {
	for _, args := range [][]string{
		{"overhead", "--workload", "wn18rr", "--queries", "1"},
		{"attack", "--graph", "wn18rr", "--queries", "1"},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "--data testdata")
		require.Contains(t, errOut, "run from the repository's root")
	}
	code, out, errOut := runCLI("overhead", "--workload", "wn18rr", "--queries", "2", "--data", filepath.Join("..", "..", "testdata"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wn18rr")
}
