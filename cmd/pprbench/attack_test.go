package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	for _, png := range []string{"sadv-memory-2k.png", "sinj-memory-2k.png", "ledger.png"} {
		b, err := os.ReadFile(filepath.Join(dir, png))
		require.NoError(t, err)
		require.Equal(t, "\x89PNG", string(b[:4]), png)
	}
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
