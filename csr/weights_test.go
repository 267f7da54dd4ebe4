package csr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// setWeight stores x at p in w's storage (rounded to float32 when w is
// float32: a corruption may make a weight no edge has).
func setWeight(w Weights, p int, x float64) {
	if w.f32 != nil {
		w.f32[p] = float32(x)
		return
	}
	w.f64[p] = x
}

// swapWeights swaps weights p and q.
func swapWeights(w Weights, p, q int) {
	if w.f32 != nil {
		w.f32[p], w.f32[q] = w.f32[q], w.f32[p]
		return
	}
	w.f64[p], w.f64[q] = w.f64[q], w.f64[p]
}

// flipWeightBit flips bit i (mod the storage's width) of weight p.
func flipWeightBit(w Weights, p, i int) {
	if w.f32 != nil {
		w.f32[p] = math.Float32frombits(math.Float32bits(w.f32[p]) ^ 1<<(i%32))
		return
	}
	w.f64[p] = math.Float64frombits(math.Float64bits(w.f64[p]) ^ 1<<(i%64))
}

// cloneWeights copies w in its storage.
func cloneWeights(w Weights) Weights {
	if w.f32 != nil {
		return weights32(slices.Clone(w.f32))
	}
	return weights64(slices.Clone(w.f64))
}

// sameWeights compares two weight arrays bit for bit, storage included.
func sameWeights(a, b Weights) bool {
	return a.is32() == b.is32() && slices.EqualFunc(a.f32, b.f32, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) &&
		sameFloats(a.f64, b.f64)
}

// roundOps returns ops with every weight rounded to float32, so that the
// graph they build stores float32 weights.
func roundOps(ops []op) []op {
	out := slices.Clone(ops)
	for i := range out {
		out[i].in.Weight = float64(float32(out[i].in.Weight))
	}
	return out
}

// TestWeightStorage: Build stores float32 exactly when every weight is a
// float32 (never rounding one), float64Storage keeps float64, and
// withWeightStorage converts both ways with every value and every other
// array unchanged.
func TestWeightStorage(t *testing.T) {
	t.Parallel()
	for seed := range 60 {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(seed), 0x3232))
			ops := randomStream(r)
			exact := seed%2 == 1
			if exact {
				ops = roundOps(ops)
			}
			where := fmt.Sprintf("seed %d directed %v", seed, directed)
			g := buildOps(t, directed, ops, StreamOrder)
			allExact := true
			for e := range uint32(g.NumEdges()) {
				w := g.Edge(e).Weight
				allExact = allExact && float64(float32(w)) == w
			}
			require.Equal(t, allExact, g.storesFloat32(), where)
			require.Equal(t, allExact, g.In().Weight.is32() && g.edgeWeight.is32(), where)
			checkAgainstModel(t, g, buildModel(directed, ops), directed, where)

			b := NewBuilder(directed)
			b.setWeightStorage(float64Storage)
			for _, o := range ops {
				var err error
				if o.in.Dst == "" {
					_, err = b.AddNode(o.in.Src)
				} else {
					_, err = b.AddEdge(o.in)
				}
				require.NoError(t, err)
			}
			h, err := b.Build()
			require.NoError(t, err)
			require.False(t, h.storesFloat32(), where)

			// Both ways, each against the other graph: same values, same
			// sharing, and a valid graph.
			for _, c := range []struct{ from, to *Graph }{{g.withWeightStorage(float64Storage), h}, {h.withWeightStorage(autoWeights), g}} {
				require.NoError(t, c.from.checkAll(), where)
				require.Equal(t, c.to.storesFloat32(), c.from.storesFloat32(), where)
				require.Equal(t, memoryParts(c.to), memoryParts(c.from), where)
				fp, tp := c.from.parts(), c.to.parts()
				require.True(t, sameWeights(fp.EdgeWeight, tp.EdgeWeight), where)
				require.True(t, sameAdjacencyValues(fp.Out, tp.Out), where)
				require.True(t, sameAdjacencyValues(fp.In, tp.In), where)
				require.True(t, sameFloats(fp.OutWeight, tp.OutWeight), where)
				require.Equal(t, c.to.UnitWeights(), c.from.UnitWeights(), where)
			}
			require.Same(t, g, g.withWeightStorage(autoWeights))
			require.Same(t, h, h.withWeightStorage(float64Storage))
		}
	}
}

// TestWithWeightStorageKeepsNames: the converted graph of a FromIDs graph
// (names made on demand) and of an assembled one (dictionary built on
// first use) names and finds every node as the original does.
func TestWithWeightStorageKeepsNames(t *testing.T) {
	t.Parallel()
	byID, err := FromIDs(IDEdges[uint32, uint32]{Directed: true, Nodes: 4, Pairs: []uint32{0, 1, 2, 3, 3, 0}, Weights32: []float32{0.5, 2, 0.25}})
	require.NoError(t, err)
	require.True(t, byID.storesFloat32())
	assembled, err := assemble(mustBuild(t, false, Input{Src: "a", Dst: "b", Weight: 0.5}, Input{Src: "b", Dst: "c", Weight: 3}).parts())
	require.NoError(t, err)
	for _, g := range []*Graph{byID, assembled} {
		h := g.withWeightStorage(float64Storage)
		require.False(t, h.storesFloat32())
		require.NoError(t, h.checkAll())
		require.Equal(t, g.Names(), h.Names())
		for u, name := range g.Names() {
			id, ok := h.ID(name)
			require.True(t, ok)
			require.Equal(t, uint32(u), id)
			require.Equal(t, g.Edge(0), h.Edge(0))
		}
		back := h.withWeightStorage(autoWeights)
		require.True(t, back.storesFloat32())
		require.Equal(t, g.parts(), back.parts())
	}
}
