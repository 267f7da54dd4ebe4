package csr

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// ppredgeBytes encodes a PPREDGE1 file (docs/formats.md).
func ppredgeBytes(n, m, flags uint64, src, dst []uint32, w []float32) []byte {
	buf := []byte("PPREDGE1")
	buf = binary.LittleEndian.AppendUint64(buf, n)
	buf = binary.LittleEndian.AppendUint64(buf, m)
	buf = binary.LittleEndian.AppendUint64(buf, flags)
	for _, s := range src {
		buf = binary.LittleEndian.AppendUint32(buf, s)
	}
	for _, d := range dst {
		buf = binary.LittleEndian.AppendUint32(buf, d)
	}
	for _, x := range w {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return buf
}

// writePPREDGE1 writes a PPREDGE1 file into a temporary directory.
func writePPREDGE1(t testing.TB, n, m, flags uint64, src, dst []uint32, w []float32) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "g.edges.bin")
	require.NoError(t, os.WriteFile(path, ppredgeBytes(n, m, flags, src, dst, w), 0o644))
	return path
}

var ppredge = ReadOptions{Format: FormatPPREDGE1}

func TestReadPPREDGE1(t *testing.T) {
	t.Parallel()
	path := writePPREDGE1(t, 4, 2, 1, []uint32{0, 1}, []uint32{2, 3}, []float32{0.5, 1})
	g, err := ReadFile(path, ppredge)
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	require.False(t, g.Directed())
	require.Equal(t, 4, g.NumNodes(), "isolated nodes keep their ids")
	id, ok := g.ID("3")
	require.True(t, ok)
	require.Equal(t, uint32(3), id)
	require.Equal(t, 0.5, g.OutWeight(2))

	bad := writePPREDGE1(t, 4, 2, 0, []uint32{0, 9}, []uint32{2, 3}, []float32{0.5, 1})
	_, err = ReadFile(bad, ppredge)
	require.ErrorContains(t, err, "out of range")

	nan := writePPREDGE1(t, 4, 1, 0, []uint32{0}, []uint32{2}, []float32{float32(math.NaN())})
	_, err = ReadFile(nan, ppredge)
	require.ErrorContains(t, err, "weight")

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	short := filepath.Join(t.TempDir(), "short.bin")
	require.NoError(t, os.WriteFile(short, raw[:len(raw)-3], 0o644))
	_, err = ReadFile(short, ppredge)
	require.ErrorContains(t, err, "truncated")

	raw[0] = 'X'
	require.NoError(t, os.WriteFile(short, raw, 0o644))
	_, err = ReadFile(short, ppredge)
	require.ErrorContains(t, err, "magic")
}

// TestReadPPREDGE1Stream: Read of a PPREDGE1 input that is not a file (no
// length known up front) gives ReadFile's graph, array for array, and
// names a truncated body or bytes past the arrays; the errors are
// *ParseError naming the input.
func TestReadPPREDGE1Stream(t *testing.T) {
	t.Parallel()
	raw := ppredgeBytes(5, 3, 0, []uint32{0, 4, 2}, []uint32{1, 1, 3}, []float32{0.5, 1, 2})
	path := filepath.Join(t.TempDir(), "g.bin")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	want, err := ReadFile(path, ppredge)
	require.NoError(t, err)
	got, err := Read(bytes.NewReader(raw), "g.bin", ppredge)
	require.NoError(t, err)
	require.Equal(t, want.parts(), got.parts())
	require.True(t, got.Directed(), "flags bit 0 clear: directed, whatever ReadOptions.Directed says")

	var pe *ParseError
	_, err = Read(bytes.NewReader(raw[:len(raw)-1]), "cut.bin", ppredge)
	require.ErrorAs(t, err, &pe)
	require.EqualError(t, err, "csr: cut.bin: truncated edge arrays")
	_, err = Read(bytes.NewReader(append(raw, 0)), "long.bin", ppredge)
	require.ErrorAs(t, err, &pe)
	require.EqualError(t, err, "csr: long.bin: bytes after the 3 edges' arrays (want 68 bytes in all)")
	_, err = Read(bytes.NewReader(raw[:20]), "head.bin", ppredge)
	require.ErrorAs(t, err, &pe)
	require.ErrorContains(t, err, "csr: head.bin: header: unexpected EOF (want 32 bytes)")
	long := filepath.Join(t.TempDir(), "long.bin")
	require.NoError(t, os.WriteFile(long, append(raw, 0), 0o644))
	_, err = ReadFile(long, ppredge)
	require.EqualError(t, err, "csr: "+long+": 69 bytes, want 68 for 3 edges (truncated or corrupt)")
}

// TestReadPPREDGE1Options: ReadOptions' order and weight storage build the
// graph FromIDs builds with them, from the file's ids.
func TestReadPPREDGE1Options(t *testing.T) {
	t.Parallel()
	src, dst := []uint32{0, 4, 2, 2, 3}, []uint32{1, 1, 3, 1, 1}
	w := []float32{0.5, 1, 2, 0.25, 3}
	for _, flags := range []uint64{0, 1} {
		path := writePPREDGE1(t, 5, 5, flags, src, dst, w)
		pairs := make([]uint32, 0, 10)
		for e := range src {
			pairs = append(pairs, src[e], dst[e])
		}
		for _, order := range []NodeOrder{StreamOrder, DegreeOrder} {
			for _, f64 := range []bool{false, true} {
				got, err := ReadFile(path, ReadOptions{Format: FormatPPREDGE1, Order: order, Float64Weights: f64})
				require.NoError(t, err)
				want, err := FromIDs(IDEdges[uint32, uint32]{Directed: flags == 0, Nodes: 5, Pairs: pairs, Weights32: w,
					Order: order, Float64Weights: f64})
				require.NoError(t, err)
				require.Equal(t, want.parts(), got.parts())
			}
		}
	}
}

// TestReadPPREDGE1MemoryLimit: a header promising more nodes than the
// memory limit allows is refused before the body is read or anything
// graph-sized allocated; a file within the limit reads.
func TestReadPPREDGE1MemoryLimit(t *testing.T) {
	t.Parallel()
	huge := writePPREDGE1(t, 1<<31, 1, 0, []uint32{0}, []uint32{1}, []float32{1})
	_, err := ReadFile(huge, ReadOptions{Format: FormatPPREDGE1, MaxMemory: 1 << 30})
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	require.Equal(t, int64(1<<31), me.Nodes)
	require.Equal(t, int64(1<<30), me.Limit)
	require.ErrorContains(t, err, "csr: "+huge+": a graph of 2147483648 nodes and 1 edges needs about")
	if need := 24 + fromIDsBytes(1<<31, 1); defaultMaxMemory() < need {
		_, err = ReadFile(huge, ppredge)
		require.ErrorAs(t, err, &me)
		require.True(t, me.Default)
	}
	small := writePPREDGE1(t, 4, 2, 0, []uint32{0, 1}, []uint32{2, 3}, []float32{0.5, 1})
	need := 2*ppredgeEdgeBytes + fromIDsBytes(4, 2)
	_, err = ReadFile(small, ReadOptions{Format: FormatPPREDGE1, MaxMemory: need - 1})
	require.ErrorAs(t, err, &me)
	g, err := ReadFile(small, ReadOptions{Format: FormatPPREDGE1, MaxMemory: need})
	require.NoError(t, err)
	require.Equal(t, 4, g.NumNodes())
}
