package ppr

import (
	"errors"
	"math"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// Weights at the ends of csr's range, seeds whose sum overflows, and the
// solvers' refusal to report a bound they did not prove.

// TestNewSeedsSumOverflows: seed weights whose sum overflows float64 are
// normalised (scaled by a power of two first), not refused.
func TestNewSeedsSumOverflows(t *testing.T) {
	t.Parallel()
	big := math.MaxFloat64
	for _, c := range []struct {
		in    []Seed
		nodes []uint32
		want  []float64
	}{
		{[]Seed{{0, big}, {1, big}}, []uint32{0, 1}, []float64{0.5, 0.5}},
		{[]Seed{{2, big}, {0, big}, {2, big}, {1, big}}, []uint32{0, 1, 2}, []float64{0.25, 0.25, 0.5}},
		{[]Seed{{0, big}, {1, 0}}, []uint32{0}, []float64{1}},
		{[]Seed{{0, 5e-324}, {1, 5e-324}}, []uint32{0, 1}, []float64{0.5, 0.5}},
		{[]Seed{{0, 3}, {1, 1}}, []uint32{0, 1}, []float64{0.75, 0.25}},
	} {
		s, err := NewSeeds(3, c.in)
		require.NoError(t, err, "%v", c.in)
		require.Equal(t, c.nodes, s.Nodes, "%v", c.in)
		require.Equal(t, c.want, s.Weights, "%v", c.in)
	}
	// A positive weight too small to matter beside a huge one leaves no
	// zero weight behind: Seeds' weights are positive.
	s, err := NewSeeds(3, []Seed{{0, big}, {1, 5e-324}})
	require.NoError(t, err)
	for i, w := range s.Weights {
		require.Positive(t, w, "seed %d", i)
	}
}

// extremeGraph has rows mixing csr.MaxWeight and csr.MinWeight arcs, a row
// of one MinWeight arc and, once the MaxWeight arcs are masked, rows whose
// out-weight is MinWeight alone.
func extremeGraph(t *testing.T, directed bool) *csr.Graph {
	t.Helper()
	b := csr.NewBuilder(directed)
	add := func(src, dst string, w float64) {
		_, err := b.AddEdge(csr.Input{Src: src, Dst: dst, Weight: w})
		require.NoError(t, err)
	}
	for range 64 {
		add("a", "b", csr.MaxWeight)
	}
	add("a", "c", csr.MinWeight)
	add("b", "c", csr.MinWeight)
	add("c", "a", csr.MaxWeight)
	add("c", "d", csr.MinWeight)
	add("d", "a", 1)
	g, err := b.Build()
	require.NoError(t, err)
	return g
}

// TestSolveExtremeWeights solves at the ends of the weight range, on the
// full graph and with the MaxWeight arcs masked, and compares with the
// plain power iteration: the bound is finite and proved.
func TestSolveExtremeWeights(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		g := extremeGraph(t, directed)
		masked := roaring.New()
		for e := range uint32(g.NumEdges()) {
			if g.Edge(e).Weight == csr.MaxWeight {
				masked.Add(e)
			}
		}
		big, err := mask.FromMasked(g, "no-max", masked)
		require.NoError(t, err)
		seeds, err := NewSeeds(g.NumNodes(), []Seed{{0, 1}})
		require.NoError(t, err)
		for _, v := range []*mask.View{mask.Full(g), big} {
			res, err := Solve(v, seeds, 0.85, Options{Tol: 1e-12})
			require.NoError(t, err, "directed %v, view %s", directed, v.Name())
			require.LessOrEqual(t, res.ErrorBound, 1e-12)
			want, _ := referencePowerIteration(v, seeds, 0.85, 1e-13, 100000)
			require.LessOrEqual(t, l1Diff(res.Scores, want), 2e-12, "directed %v, view %s", directed, v.Name())
			sum := 0.0
			for _, x := range res.Scores {
				sum += x
			}
			require.InDelta(t, 1, sum, 1e-11)
			top, err := SolveTopK(v, seeds, 0.85, 2, nil, Options{})
			require.NoError(t, err)
			require.False(t, math.IsNaN(top.ErrorBound) || math.IsInf(top.ErrorBound, 0))
		}
	}
}

// TestSolveRefusesNonFiniteBound: a state whose residual or scores are not
// finite (no graph csr accepts makes one; here it is written in by hand)
// is an error, never a result with a bound of 0 or NaN.
func TestSolveRefusesNonFiniteBound(t *testing.T) {
	t.Parallel()
	g := extremeGraph(t, true)
	v := mask.Full(g)
	seeds, err := NewSeeds(g.NumNodes(), []Seed{{0, 1}})
	require.NoError(t, err)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, where := range []string{"R", "X"} {
			e, err := NewEngine(v, seeds, 0.85)
			require.NoError(t, err)
			if where == "R" {
				e.R[2] = bad
			} else {
				e.X[2] = bad
			}
			_, err = e.SolveSweeps(Options{})
			var nf *NotFiniteError
			require.ErrorAs(t, err, &nf, "%s = %v", where, bad)
			require.ErrorContains(t, err, "ppr: ")

			e, err = NewEngine(v, seeds, 0.85)
			require.NoError(t, err)
			if where == "R" {
				e.R[2] = bad
			} else {
				e.X[2] = bad
			}
			_, err = e.SolveTopK(2, nil, Options{})
			require.True(t, errors.As(err, &nf), "top-k, %s = %v: %v", where, bad, err)
		}
	}
	require.NoError(t, CheckFinite(0, []float64{0, 1, 5e-324}))
	require.Error(t, CheckFinite(math.NaN(), nil))
	require.Error(t, CheckFinite(math.Inf(1), nil))
	require.ErrorContains(t, CheckFinite(0, []float64{0, math.NaN()}), "node 1")
}
