package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// writePPREDGE1 writes a small directed PPREDGE1 file: a ring with chords.
func writePPREDGE1(t *testing.T, n int) string {
	t.Helper()
	var src, dst []uint32
	for u := range n {
		src, dst = append(src, uint32(u)), append(dst, uint32((u+1)%n))
		if u%3 == 0 {
			src, dst = append(src, uint32(u)), append(dst, uint32((u*7+2)%n))
		}
	}
	buf := []byte("PPREDGE1")
	buf = binary.LittleEndian.AppendUint64(buf, uint64(n))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(src)))
	buf = binary.LittleEndian.AppendUint64(buf, 0)
	for _, s := range src {
		buf = binary.LittleEndian.AppendUint32(buf, s)
	}
	for _, d := range dst {
		buf = binary.LittleEndian.AppendUint32(buf, d)
	}
	for range src {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(0.5))
	}
	path := filepath.Join(t.TempDir(), "g.edges.bin")
	require.NoError(t, os.WriteFile(path, buf, 0o644))
	return path
}

func TestSweepCommand(t *testing.T) {
	path := writePPREDGE1(t, 300)
	// A stand-in for the C loop that prints what ppr_csr prints.
	fake := filepath.Join(t.TempDir(), "ppr_csr")
	require.NoError(t, os.WriteFile(fake, []byte(`#!/bin/sh
echo '{"impl":"unroll_4acc","bench":"c_build","n":300}'
echo '{"impl":"unroll_4acc","bench":"c_iter","variant":"f64","threads":1,"ms_per_iter_median":2.5,"ms_per_iter_min":2.0}'
echo '{"impl":"unroll_4acc","bench":"c_iter","variant":"pattern","threads":1,"ms_per_iter_median":1.5,"ms_per_iter_min":1.0}'
`), 0o755))
	code, out, errOut := runCLI("sweep", "--graph", path, "--format", "ppredge", "--reps", "2", "--c", fake)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{"300 nodes", "jacobi pull (Sweep)", "gauss-seidel push", "SweepParallel", "C ppr_csr f64", "C ppr_csr pattern", "floor, 1 thread"} {
		require.Contains(t, out, want)
	}
	c, err := runCLoop(fake, path, 1)
	require.NoError(t, err)
	require.Equal(t, map[string]time.Duration{"f64": 2500 * time.Microsecond, "pattern": 1500 * time.Microsecond}, c)

	// A missing C loop is said, not an error.
	code, out, errOut = runCLI("sweep", "--graph", path, "--format", "ppredge", "--reps", "1", "--threads", "1", "--c", filepath.Join(t.TempDir(), "none"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "not found")
	require.NotContains(t, out, "C ppr_csr")
}

// topKNames runs pprbench solve --json with args and returns the names of
// its top-k in order, after checking there are k of them.
func topKNames(t *testing.T, k int, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"solve", "--json", "--k", strconv.Itoa(k)}, args...)...)
	require.Equal(t, 0, code, errOut)
	var rec solveJSON
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	require.Len(t, rec.TopK, k)
	names := ""
	for _, s := range rec.TopK {
		names += s.Node + " "
	}
	return names
}

func TestSolveDegreeOrderSameAnswer(t *testing.T) {
	path := writeFile(t, "tiny.tsv", tiny)
	require.Equal(t, topKNames(t, 7, "--graph", path, "--seeds", "q", "--order", "stream"),
		topKNames(t, 7, "--graph", path, "--seeds", "q", "--order", "degree"))
	code, _, errOut := runCLI("solve", "--graph", path, "--seeds", "q", "--order", "bfs")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--order")
}

func TestSolveBatchFlag(t *testing.T) {
	path := writePPREDGE1(t, 300)
	var lines string
	for i := range 11 {
		lines += fmt.Sprintf(`{"id":"q%d","seeds":{"%d":1,"%d":2},"k":4}`+"\n", i, i*7, i*13+1)
	}
	queries := writeFile(t, "q.jsonl", lines)
	var got [2][]solveJSON
	for i, extra := range []string{"--batch=false", "--batch"} {
		code, out, errOut := runCLI("solve", "--graph", path, "--format", "ppredge", "--queries", queries, "--json", "--tol", "1e-12", extra)
		require.Equal(t, 0, code, errOut)
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var rec solveJSON
			require.NoError(t, dec.Decode(&rec))
			got[i] = append(got[i], rec)
		}
	}
	require.Len(t, got[1], 11)
	for i := range got[0] {
		for j := range got[0][i].TopK {
			require.Equal(t, got[0][i].TopK[j].Node, got[1][i].TopK[j].Node, "query %d rank %d", i, j)
			require.InDelta(t, got[0][i].TopK[j].Score, got[1][i].TopK[j].Score, 1e-11)
		}
	}
	code, _, errOut := runCLI("solve", "--graph", path, "--format", "ppredge", "--seeds", "3", "--batch")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--batch needs --queries")
}

// Every --sweeps order certifies the same top-k; an unknown one is a usage
// error.
func TestSolveSweepOrdersSameAnswer(t *testing.T) {
	path := writeFile(t, "tiny.tsv", tiny)
	want := topKNames(t, 3, "--graph", path, "--seeds", "q", "--certify", "--sweeps", "default")
	for _, order := range []string{"gauss-seidel", "jacobi", "normalized"} {
		require.Equal(t, want, topKNames(t, 3, "--graph", path, "--seeds", "q", "--certify", "--sweeps", order), order)
	}
	code, _, errOut := runCLI("solve", "--graph", path, "--seeds", "q", "--sweeps", "sor")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `sweep order "sor", want default, gauss-seidel, jacobi or normalized`)
}

// --c build compiles anchors/c/ppr_csr.c and runs it: the C rows appear.
// Without a C compiler it is an error that says so.
func TestSweepCBuild(t *testing.T) {
	path := writePPREDGE1(t, 300)
	t.Setenv("CC", filepath.Join(t.TempDir(), "no-such-cc"))
	code, _, errOut := runCLI("sweep", "--graph", path, "--format", "ppredge", "--reps", "1", "--threads", "1", "--c", "build")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "no C compiler")
	require.Contains(t, errOut, "install gcc")

	t.Setenv("CC", "")
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc) to build the C loop with: install gcc")
	}
	code, out, errOut := runCLI("sweep", "--graph", path, "--format", "ppredge", "--reps", "1", "--threads", "1", "--c", "build")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "C ppr_csr f64")
}
