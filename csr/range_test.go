package csr

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Weights outside [MinWeight, MaxWeight] (other than 0) are refused by
// every builder, with the edge, its nodes, the value and the range; the
// ends of the range are accepted, and every out-weight they can make is
// finite with a finite, normal reciprocal.

// badWeights are finite, non-negative weights a graph refuses, with a word
// of the message each must produce.
var badWeights = []struct {
	w    float64
	want string
}{
	{1e308, "above"},
	{math.MaxFloat64, "above"},
	{math.Nextafter(MaxWeight, math.Inf(1)), "above"},
	{1e-320, "below"},
	{math.SmallestNonzeroFloat64, "below"},
	{math.Nextafter(MinWeight, 0), "below"},
}

func TestWeightRangeConstants(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0x1p-1022, MinWeight)
	require.Equal(t, 0x1p988, MaxWeight)
	for _, w := range []float64{0, MinWeight, 1, MaxWeight, 0.5, 1e-300, 1e297} {
		require.NoError(t, CheckWeight(w), "%v", w)
	}
	for _, c := range badWeights {
		err := CheckWeight(c.w)
		require.ErrorContains(t, err, c.want, "%v", c.w)
	}
	for _, w := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -MinWeight} {
		require.ErrorContains(t, CheckWeight(w), "finite and non-negative", "%v", w)
	}
}

func TestBuilderRefusesWeightsOutOfRange(t *testing.T) {
	t.Parallel()
	for _, c := range badWeights {
		for _, directed := range []bool{true, false} {
			b := NewBuilder(directed)
			_, err := b.AddEdge(Input{Src: "a", Dst: "b", Weight: 1})
			require.NoError(t, err)
			_, err = b.AddEdge(Input{Src: "a", Dst: "c", Weight: c.w})
			require.Error(t, err, "weight %v", c.w)
			for _, want := range []string{"csr: edge 1 (a -> c)", "weight " + fmtWeight(c.w), c.want, "2^988", "2^-1022"} {
				require.Contains(t, err.Error(), want)
			}
			require.Equal(t, 1, b.numEdges(), "nothing added")
			require.Equal(t, 2, b.numNodes(), "nothing added")
			_, err = b.AddEdgeByID(0, 1, c.w, "")
			require.ErrorContains(t, err, "csr: edge 1 (0 -> 1): weight "+fmtWeight(c.w))
		}
	}
}

// fmtWeight formats w as the errors do (%v).
func fmtWeight(w float64) string { return fmt.Sprint(w) }

// TestReadRefusesOverflowingWeights is the reproduction: two
// finite weights whose sum overflows. The reader names the line.
func TestReadRefusesOverflowingWeights(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, want string
	}{
		{"a b 1e308\na c 1e308\n", "big.txt:1: edge 0 (a -> b): weight 1e+308 above"},
		{"a b 1\na c 1e-320\n", "big.txt:2: edge 1 (a -> c): weight 1e-320 below"},
	} {
		for _, directed := range []bool{true, false} {
			_, err := Read(strings.NewReader(c.text), "big.txt", ReadOptions{Directed: directed})
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			require.ErrorContains(t, err, c.want)
		}
	}
}

// TestFromIDsRefusesWeightsOutOfRange: the bulk path and its reference give
// the same located error.
func TestFromIDsRefusesWeightsOutOfRange(t *testing.T) {
	t.Parallel()
	for _, c := range badWeights {
		for _, directed := range []bool{true, false} {
			in := IDEdges[int64, int32]{Directed: directed, Nodes: 3, Pairs: []int64{0, 1, 0, 2, 1, 2}, Weights: []float64{1, c.w, 1}}
			_, want := fromIDsByBuilder(in)
			require.ErrorContains(t, want, "csr: edge 1 (0 -> 2): weight "+fmtWeight(c.w))
			for parts := 1; parts <= 3; parts++ {
				_, err := bulkBuild(in, parts)
				require.Error(t, err)
				require.Equal(t, want.Error(), err.Error())
			}
		}
	}
}

// TestExtremeWeightsBuild: the ends of the range, in one row and alone,
// many times over: every out-weight is finite and so is its reciprocal.
func TestExtremeWeightsBuild(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		b := NewBuilder(directed)
		for range 1000 {
			_, err := b.AddEdge(Input{Src: "a", Dst: "b", Weight: MaxWeight})
			require.NoError(t, err)
			_, err = b.AddEdge(Input{Src: "a", Dst: "c", Weight: MinWeight})
			require.NoError(t, err)
		}
		_, err := b.AddEdge(Input{Src: "d", Dst: "e", Weight: MinWeight})
		require.NoError(t, err)
		g, err := b.Build()
		require.NoError(t, err)
		require.NoError(t, g.checkAll())
		for u, w := range g.outWeight {
			require.False(t, math.IsInf(w, 0) || math.IsNaN(w), "node %d: W %v", u, w)
			if w > 0 {
				require.False(t, math.IsInf(1/w, 0), "node %d: 1/W overflows", u)
				require.GreaterOrEqual(t, 1/w, MinWeight, "node %d: 1/W subnormal", u)
			}
		}
	}
}

// TestValidateRefusesWeightsOutOfRange: a snapshot assembled from arrays
// holding a weight out of range (as a crafted file would) is refused,
// naming the edge.
func TestValidateRefusesWeightsOutOfRange(t *testing.T) {
	t.Parallel()
	for _, c := range badWeights {
		g := buildStored(t, float64Storage, true, Input{Src: "a", Dst: "b", Weight: 3}, Input{Src: "a", Dst: "c", Weight: 5})
		p := g.parts()
		// The edge and its arc carry the bad weight; the out-weight is their sum.
		w64 := p.EdgeWeight.Float64s()
		w64[1] = c.w
		p.Out.Weight.Float64s()[1] = c.w
		p.In.Weight.Float64s()[slices.Index(p.In.Edge, 1)] = c.w
		p.OutWeight[0] = 3 + c.w
		_, err := assemble(p)
		require.Error(t, err, "weight %v", c.w)
		require.Contains(t, err.Error(), "csr: edge 1 (0 -> 2): weight "+fmtWeight(c.w))
		require.Contains(t, err.Error(), c.want)
	}
}

// TestReadRefusesUnderflowingWeights: a weight written with a non-zero
// mantissa that parses to 0 (strconv.ParseFloat underflows without an
// error) is refused, not read as 0; zeros in every spelling are zeros.
func TestReadRefusesUnderflowingWeights(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"1e-400", "2e-324", "0x1p-1080", "-0.5e-400", "0.0001e-330"} {
		_, err := Read(strings.NewReader("a b 1\na c "+w+"\n"), "u.txt", ReadOptions{Directed: true})
		require.ErrorContains(t, err, "u.txt:2: weight \""+w+"\"", w)
	}
	for _, w := range []string{"0", "0.0", "-0", "0e5", "0x0p3", "00.000e-999"} {
		g, err := Read(strings.NewReader("a b 1\na c "+w+"\n"), "z.txt", ReadOptions{Directed: true})
		require.NoError(t, err, w)
		require.Zero(t, g.Edge(1).Weight, w)
	}
}
