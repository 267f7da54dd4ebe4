package csr_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// TestReadPPREDGE1FullFloat32Range: PPREDGE1 weights are float32, so every
// finite non-negative one is inside csr's range (MaxFloat32 < 2^988, the
// smallest float32 subnormal > 2^-1022) and no row of fewer than 2^33
// of them can overflow: the whole float32 range reads and solves, with a
// finite bound, in rows mixing its two ends.
func TestReadPPREDGE1FullFloat32Range(t *testing.T) {
	t.Parallel()
	const big, tiny = math.MaxFloat32, math.SmallestNonzeroFloat32
	var src, dst []uint32
	var w []float32
	for range 100 {
		src, dst, w = append(src, 0), append(dst, 1), append(w, big)
	}
	src, dst, w = append(src, 0, 1, 2, 2), append(dst, 2, 2, 0, 3), append(w, tiny, tiny, tiny, big)
	for _, flags := range []uint64{0, 1} {
		buf := []byte("PPREDGE1")
		for _, v := range []uint64{4, uint64(len(src)), flags} {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		for _, a := range [][]uint32{src, dst} {
			for _, x := range a {
				buf = binary.LittleEndian.AppendUint32(buf, x)
			}
		}
		for _, x := range w {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		path := filepath.Join(t.TempDir(), "g.edges.bin")
		require.NoError(t, os.WriteFile(path, buf, 0o644))
		g, err := csr.ReadFile(path, csr.ReadOptions{Format: csr.FormatPPREDGE1})
		require.NoError(t, err)
		require.NoError(t, csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().Validate(g))
		seeds, err := ppr.NewSeeds(4, []ppr.Seed{{Node: 0, Weight: 1}})
		require.NoError(t, err)
		res, err := ppr.Solve(mask.Full(g), seeds, 0.85, ppr.Options{})
		require.NoError(t, err)
		require.LessOrEqual(t, res.ErrorBound, 1e-10)
		sum := 0.0
		for _, x := range res.Scores {
			sum += x
		}
		require.InDelta(t, 1, sum, 1e-9)
	}
}
