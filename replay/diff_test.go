package replay

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/mask"
)

// A base difference patched with a delta's rows equals the difference
// computed from scratch on the patched views: rows, l_u, out-weights
// (the views' own) and differing arcs, node for node.
func TestDiffPatchMatchesDifference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(51, 52))
	for trial := range 300 {
		directed := trial%2 == 0
		n := 2 + rng.IntN(25)
		var pairs []uint32
		var weights []float64
		for range rng.IntN(4 * n) {
			pairs = append(pairs, uint32(rng.IntN(n)), uint32(rng.IntN(n)))
			weights = append(weights, float64(rng.IntN(3)))
		}
		g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: directed, Nodes: n, Pairs: pairs, Weights: weights})
		require.NoError(t, err)
		m := g.NumEdges()
		nativeMask, authMask := roaring.New(), roaring.New()
		for e := range m {
			if rng.IntN(8) == 0 {
				nativeMask.Add(uint32(e)) // deleted by someone, natively
			}
			if rng.IntN(4) == 0 || nativeMask.Contains(uint32(e)) && rng.IntN(2) == 0 {
				authMask.Add(uint32(e))
			}
		}
		bn, err := mask.FromMasked(g, "native", nativeMask)
		require.NoError(t, err)
		ba, err := mask.FromMasked(g, "auth", authMask)
		require.NoError(t, err)
		base := Difference(bn, ba)
		// A delta: new nodes, added edges (some only native), removals.
		nodes := n + rng.IntN(4)
		var dn, da mask.Delta
		dn.Nodes, da.Nodes = nodes, nodes
		for i := range rng.IntN(3 * n) {
			e := uint32(m + i)
			u, v, w := uint32(rng.IntN(nodes)), uint32(rng.IntN(nodes)), float64(1+rng.IntN(2))
			dn.Src, dn.Dst, dn.Weight, dn.Edge = append(dn.Src, u), append(dn.Dst, v), append(dn.Weight, w), append(dn.Edge, e)
			if rng.IntN(3) > 0 {
				da.Src, da.Dst, da.Weight, da.Edge = append(da.Src, u), append(da.Dst, v), append(da.Weight, w), append(da.Edge, e)
			}
		}
		for range rng.IntN(4) {
			if m > 0 {
				e := uint32(rng.IntN(m))
				dn.Removed = append(dn.Removed, e)
				if rng.IntN(2) == 0 {
					da.Removed = append(da.Removed, e)
				}
			}
		}
		vn, err := mask.WithDelta(bn, dn)
		require.NoError(t, err)
		va, err := mask.WithDelta(ba, da)
		require.NoError(t, err)
		rows := nodeset.Union(vn.ReplacedNodes(), va.ReplacedNodes())
		got := base.Patch(vn, va, rows)
		want := Difference(vn, va)
		require.Equal(t, want.t.nodes, got.t.nodes, "trial %d: nodes", trial)
		require.Equal(t, want.t.rowDiff, got.t.rowDiff, "trial %d: l_u", trial)
		require.Equal(t, want.t.outWeight, got.t.outWeight, "trial %d: out-weights", trial)
		for i, u := range want.t.nodes {
			require.Equal(t, rowWeights{native: vn.OutWeight(u), auth: va.OutWeight(u)}, want.t.outWeight[i], "trial %d: node %d", trial, u)
		}
		for i := range want.t.nodes {
			wl, wh := want.t.span(i)
			gl, gh := got.t.span(i)
			require.True(t, slices.Equal(want.t.arcs.nbr[wl:wh], got.t.arcs.nbr[gl:gh]) &&
				slices.Equal(want.t.arcs.weight[wl:wh], got.t.arcs.weight[gl:gh]) &&
				slices.Equal(want.t.arcs.edge[wl:wh], got.t.arcs.edge[gl:gh]), "trial %d: arcs of node %d", trial, want.t.nodes[i])
		}
		checkDiffRows(t, rng, &diffRows{t: &base.t, n: n}, bn, ba)
		checkDiffRows(t, rng, &diffRows{t: &got.t, n: nodes}, vn, va)
	}
}

// checkDiffRows holds rows to the views' rows read whole:
// at every node, the out-weights, and the differing arcs' dot product with
// a random vector against the authenticated row's less the native one's
// (zero, with equal out-weights, where DiffRow says the rows agree).
func checkDiffRows(tt *testing.T, rng *rand.Rand, rows *diffRows, native, auth *mask.View) {
	tt.Helper()
	q := make([]float64, native.NumNodes())
	for i := range q {
		q[i] = rng.Float64()
	}
	rowDot := func(r mask.Row) (sum float64) {
		for p, v := range r.Nbr {
			if r.Live(p) {
				sum += r.Weight.At(p) * q[v]
			}
		}
		return sum
	}
	for u := range uint32(native.NumNodes()) {
		want := rowDot(auth.OutRow(u)) - rowDot(native.OutRow(u))
		wA, wG, nbr, weight, ok := rows.DiffRow(u)
		if !ok {
			require.Equal(tt, native.OutWeight(u), auth.OutWeight(u), "node %d: rows agree, out-weights differ", u)
			require.InDelta(tt, 0, want, 1e-12, "node %d: rows agree, arcs differ", u)
			continue
		}
		require.Equal(tt, [2]float64{auth.OutWeight(u), native.OutWeight(u)}, [2]float64{wA, wG}, "node %d: out-weights", u)
		got := 0.0
		for i, v := range nbr {
			got += weight[i] * q[v]
		}
		require.InDelta(tt, want, got, 1e-12, "node %d: differing arcs", u)
	}
}
