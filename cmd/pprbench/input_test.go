package main

import (
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSolveRefusesWeightsOutOfRange is issue 16's reproduction: finite
// weights whose sum overflows (the solve answered 0.15 with a bound of 0)
// and a subnormal weight (the solve failed with an infinite bound) are
// refused at the line that holds them, naming the edge and the range.
func TestSolveRefusesWeightsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"a b 1e308\na c 1e308\n", []string{"g.txt:1: edge 0 (a -> b): weight 1e+308 above", "2^988"}},
		{"a b 1e-320\nb a 1\n", []string{"g.txt:1: edge 0 (a -> b): weight 1e-320 below", "2^-1022"}},
	} {
		graph := writeFile(t, "g.txt", c.text)
		for _, extra := range [][]string{nil, {"--undirected"}, {"--certify"}} {
			args := append([]string{"solve", "--graph", graph, "--seeds", "a"}, extra...)
			code, out, errOut := runCLI(args...)
			require.Equal(t, 1, code, "%v: %s", args, out)
			for _, w := range c.want {
				require.Contains(t, errOut, w, "%v", args)
			}
		}
	}
}

// writeGzipBomb writes a gzip file of about size bytes of "a b" lines
// (about 1/1000 of that compressed): issue 16's bomb, scaled down.
func writeGzipBomb(t *testing.T, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bomb.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	require.NoError(t, err)
	chunk := []byte(strings.Repeat("a b\n", 1<<14))
	for written := 0; written < size; written += len(chunk) {
		_, err = zw.Write(chunk)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return path
}

// TestLoadStopsAtMaxMemory is issue 16's memory exhaustion: a small gzip
// file of valid lines drove 'pprbench solve' to all the machine's memory.
// Every command that loads a graph now stops at --max-memory, at the line
// that would cross it, with the limit and the flag in the message.
func TestLoadStopsAtMaxMemory(t *testing.T) {
	bomb := writeGzipBomb(t, 32<<20)
	for _, args := range [][]string{
		{"solve", "--graph", bomb, "--seeds", "a", "--max-memory", "1M"},
		{"solve", "--graph", bomb, "--seeds", "a", "--max-memory", "1MiB", "--undirected", "--order", "degree"},
		{"replay", "--graph", bomb, "--queries", bomb, "--trust", "default", "--max-memory", "1048576"},
		{"queries", "--graph", bomb, "--max-memory", "1m", "--out", filepath.Join(t.TempDir(), "q.jsonl")},
		{"ingest", "--graph", bomb, "--out", filepath.Join(t.TempDir(), "g.snap"), "--max-memory", "1MB"},
	} {
		code, _, errOut := runCLI(args...)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
		require.Contains(t, errOut, "bomb.gz:13100: edge 13099 (a -> b): a graph of 2 nodes and 13100 edges needs about", "%v", args)
		require.Contains(t, errOut, "over the memory limit of 1.0 MiB (1048576 bytes; the limit set) (set --max-memory to change the limit)", "%v", args)
	}
	// A PPREDGE1 header promising 2^31 nodes: refused before the body is
	// read (the Python case, through the file reader).
	var buf []byte
	buf = append(buf, "PPREDGE1"...)
	for _, v := range []uint64{1 << 31, 1, 0} {
		buf = binary.LittleEndian.AppendUint64(buf, v)
	}
	buf = binary.LittleEndian.AppendUint32(buf, 0)
	buf = binary.LittleEndian.AppendUint32(buf, 1)
	buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(1))
	huge := filepath.Join(t.TempDir(), "huge.bin")
	require.NoError(t, os.WriteFile(huge, buf, 0o644))
	code, _, errOut := runCLI("solve", "--graph", huge, "--format", "ppredge", "--seeds", "0", "--max-memory", "8G")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "a graph of 2147483648 nodes and 1 edges needs about 136.0 GiB")
	require.Contains(t, errOut, "over the memory limit of 8.0 GiB (8589934592 bytes; the limit set)")

	// Within the limit, or with none, a graph loads.
	graph := writeFile(t, "g.tsv", tiny)
	for _, mm := range []string{"none", "auto", "64K", "1.5g"} {
		code, _, errOut := runCLI("solve", "--graph", graph, "--seeds", "q", "--max-memory", mm)
		require.Equal(t, 0, code, "--max-memory %s: %s", mm, errOut)
	}
	// Renumbering a loaded graph holds it and its copy: checked too.
	snap := filepath.Join(t.TempDir(), "g.snap")
	code, _, errOut = runCLI("ingest", "--graph", graph, "--order", "stream", "--out", snap)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI("solve", "--snapshot", snap, "--seeds", "q", "--order", "degree", "--max-memory", "1K")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "csr: reordering "+snap+": a graph of 7 nodes and 7 edges needs about")
	code, _, errOut = runCLI("solve", "--snapshot", snap, "--seeds", "q", "--order", "degree", "--max-memory", "64K")
	require.Equal(t, 0, code, errOut)

	code, _, errOut = runCLI("solve", "--graph", graph, "--seeds", "q", "--max-memory", "12Q")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, `--max-memory "12Q", want a size like 512M or 8G`)
}

func TestParseMaxMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"": 0, "auto": 0, "AUTO": 0, "none": -1, "1": 1, "512": 512, "512M": 512 << 20, "512m": 512 << 20, "512MB": 512 << 20,
		"512MiB": 512 << 20, "8G": 8 << 30, "8gib": 8 << 30, "1.5G": 3 << 29, "2T": 2 << 40, "4k": 4096, "100B": 100, "1e6": 1e6,
	} {
		got, err := parseMaxMemory(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"x", "-1", "0", "0.5", "G", "12Q", "nan", "inf", "1e30", "8GG", "M8"} {
		_, err := parseMaxMemory(in)
		require.ErrorIs(t, err, errUsage, in)
	}
}
