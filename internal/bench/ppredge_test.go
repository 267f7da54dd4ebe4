package bench

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// TestReadPPREDGE1FullFloat32Range: PPREDGE1 weights are float32, so every
// finite non-negative one is inside csr's range (MaxFloat32 < 2^988, the
// smallest float32 subnormal > 2^-1022) and no row of fewer than 2^33
// of them can overflow: the whole float32 range reads and solves, with a
// finite bound, in rows mixing its two ends.
func TestReadPPREDGE1FullFloat32Range(t *testing.T) {
	const big, tiny = math.MaxFloat32, math.SmallestNonzeroFloat32
	var src, dst []uint32
	var w []float32
	for range 100 {
		src, dst, w = append(src, 0), append(dst, 1), append(w, big)
	}
	src, dst, w = append(src, 0, 1, 2, 2), append(dst, 2, 2, 0, 3), append(w, tiny, tiny, tiny, big)
	for _, flags := range []uint64{0, 1} {
		path := writePPREDGE1(t, 4, uint64(len(src)), flags, src, dst, w)
		g, err := ReadPPREDGE1(path)
		require.NoError(t, err)
		require.NoError(t, g.Validate())
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

// TestReadPPREDGE1MemoryLimit: a header promising more nodes than the
// memory limit allows is refused before the body is read or anything
// graph-sized allocated; a file within the limit reads.
func TestReadPPREDGE1MemoryLimit(t *testing.T) {
	huge := writePPREDGE1(t, 1<<31, 1, 0, []uint32{0}, []uint32{1}, []float32{1})
	_, err := ReadPPREDGE1With(huge, PPREDGE1Options{MaxMemory: 1 << 30})
	var me *csr.MemoryError
	require.ErrorAs(t, err, &me)
	require.Equal(t, int64(1<<31), me.Nodes)
	require.Equal(t, int64(1<<30), me.Limit)
	require.ErrorContains(t, err, "bench: "+huge+": csr: a graph of 2147483648 nodes and 1 edges needs about")
	if need := 24 + csr.FromIDsBytes(1<<31, 1); csr.DefaultMaxMemory() < need {
		_, err = ReadPPREDGE1(huge)
		require.ErrorAs(t, err, &me)
		require.True(t, me.Default)
	}
	small := writePPREDGE1(t, 4, 2, 0, []uint32{0, 1}, []uint32{2, 3}, []float32{0.5, 1})
	need := 2*ppredgeEdgeBytes + csr.FromIDsBytes(4, 2)
	_, err = ReadPPREDGE1With(small, PPREDGE1Options{MaxMemory: need - 1})
	require.ErrorAs(t, err, &me)
	g, err := ReadPPREDGE1With(small, PPREDGE1Options{MaxMemory: need})
	require.NoError(t, err)
	require.Equal(t, 4, g.NumNodes())
}
