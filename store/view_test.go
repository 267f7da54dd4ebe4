package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/mask"
)

// A version's view derived from an earlier version's (the rows the writes
// between them changed, rebuilt; the rest shared) is the materialised
// version's view, row for row and weight for weight to the bit, over random
// writes by trusted and untrusted writers (edges, deletions, merges by a
// trusted resolver and by mallory, inferred edges) with compactions
// between, and with versions asked for out of order and some skipped.
func TestDerivedViewsMatchMaterialized(t *testing.T) {
	t.Parallel()
	trust := mask.Trust("default", "resolver")
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 44))
		s, err := New(nil, nil, Options{Directed: seed%2 == 0})
		require.NoError(t, err)
		var versions []*Version
		derived := 0
		for step := range 50 {
			v := s.Current()
			ops := randomOps(rng, 1+rng.IntN(8), 30, v.NumNodes(), v.NumEdges())
			for i := range ops {
				if ops[i].kind == mergeOp && rng.IntN(2) == 0 {
					ops[i].channel = "resolver"
				}
			}
			_, err := s.applyBatch(ops)
			require.NoError(t, err)
			if rng.IntN(15) == 0 {
				require.NoError(t, s.Compact())
			}
			versions = append(versions, s.Current())
			if rng.IntN(3) == 0 {
				continue // a version nobody asked for
			}
			v = versions[len(versions)-1]
			if rng.IntN(5) == 0 { // now and then an older version
				v = versions[rng.IntN(len(versions))]
			}
			for _, p := range []*mask.Policy{nil, &trust} {
				key := policyKey(p)
				if from, _ := v.base.recentView(key, v); from != nil && from != v {
					derived++
				}
				got, err := v.View(p)
				require.NoError(t, err)
				requireSameView(t, v, p, got, fmt.Sprintf("seed %d step %d %s", seed, step, key))
			}
		}
		require.Positive(t, derived, "seed %d: no view was derived from an earlier version's", seed)
	}
}

// requireSameView fails unless view is the materialised v's view for p:
// the same nodes, out-weights and inverses to the bit, and out- and
// in-rows.
func requireSameView(t *testing.T, v *Version, p *mask.Policy, view *mask.View, where string) {
	t.Helper()
	g, labels, err := v.Materialize()
	require.NoError(t, err)
	var want *mask.View
	if p == nil {
		want, err = mask.Native(g, labels)
	} else {
		want, err = mask.Authenticated(g, labels, *p)
	}
	require.NoError(t, err)
	require.Equal(t, want.NumNodes(), view.NumNodes(), where)
	for u := range uint32(view.NumNodes()) {
		require.Equal(t, math.Float64bits(want.OutWeight(u)), math.Float64bits(view.OutWeight(u)), "%s: W(%d)", where, u)
		require.Equal(t, math.Float64bits(want.InvOutWeights()[u]), math.Float64bits(view.InvOutWeights()[u]), "%s: 1/W(%d)", where, u)
		require.Equal(t, rowArcs(want.OutRow(u)), rowArcs(view.OutRow(u)), "%s: out-row of %d", where, u)
		require.Equal(t, rowArcs(want.InRow(u)), rowArcs(view.InRow(u)), "%s: in-row of %d", where, u)
	}
}

// rowArcs lists a row's live arcs as (neighbour, weight bits, edge).
func rowArcs(row mask.Row) [][3]uint64 {
	var out [][3]uint64
	for p, v := range row.Nbr {
		if row.Live(p) {
			out = append(out, [3]uint64{uint64(v), math.Float64bits(row.Weight.At(p)), uint64(row.Edge[p])})
		}
	}
	return out
}
