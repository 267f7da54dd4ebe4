package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// liveEdges lists the edges a view of version v keeps, as (src, dst) names.
func liveEdges(t *testing.T, v *Version, p *mask.Policy) map[[2]string]int {
	t.Helper()
	g, labels, err := v.Materialize()
	require.NoError(t, err)
	var view *mask.View
	if p == nil {
		view, err = mask.Native(g, labels)
	} else {
		view, err = mask.Authenticated(g, labels, *p)
	}
	require.NoError(t, err)
	out := map[[2]string]int{}
	for e := range uint32(g.NumEdges()) {
		if !view.MaskedEdge(e) {
			ed := g.Edge(e)
			out[[2]string{g.Name(ed.Src), g.Name(ed.Dst)}]++
		}
	}
	return out
}

// Laundering, tried as an attacker would: an untrusted writer adds a - x,
// a trusted process merges a into b. The rewired b - x depends on the
// untrusted writer (min-inheritance), so the authenticated view has neither
// a - x nor b - x, before and after compaction; the merge of trusted edges
// stands.
func TestTrustedMergeDoesNotLaunder(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		s, err := New(nil, nil, Options{Directed: directed})
		require.NoError(t, err)
		_, err = s.applyBatch([]Op{as("default", Edge("q", "a", 1)), as("default", Edge("a", "p", 1)), as("mallory", Edge("a", "x", 1)), as("default", Node("b"))})
		require.NoError(t, err)
		res, err := s.applyBatch([]Op{as("resolver", MergeInto("a", "b"))})
		require.NoError(t, err)
		require.Equal(t, 3, res.Rewired[0])
		trust := mask.Trust("default", "resolver")
		for _, when := range []string{"delta", "compacted"} {
			v := s.Current()
			auth := liveEdges(t, v, &trust)
			require.Zero(t, auth[[2]string{"b", "x"}], "%s: the rewired untrusted edge is in the authenticated view", when)
			require.Zero(t, auth[[2]string{"a", "x"}], "%s: the original untrusted edge is in the authenticated view", when)
			require.Equal(t, 1, auth[[2]string{"b", "p"}], "%s: the trusted merge of a trusted edge stands", when)
			require.Equal(t, 1, auth[[2]string{"q", "b"}], "%s", when)
			native := liveEdges(t, v, nil)
			require.Equal(t, 1, native[[2]string{"b", "x"}], "%s: natively the merge rewired it", when)
			// The rewired copy names what it depends on.
			for e := range uint32(v.NumEdges()) {
				info := v.Edge(e)
				if v.Name(info.Src) == "b" && v.Name(info.Dst) == "x" {
					require.Equal(t, []string{"resolver"}, info.AddedBy, when)
					require.Equal(t, []string{"mallory"}, info.Requires, when)
				}
			}
			// And the patched views agree with the materialised ones.
			seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
			require.NoError(t, err)
			got, err := solveOn(v, &trust, seeds, 0.85, 1e-12)
			require.NoError(t, err)
			requireClose(t, referenceSolve(t, v, &trust, seeds, 0.85, 1e-12), got.Scores, 1e-11, when)
			require.NoError(t, s.Compact())
		}
	}
}

// An inferred edge depends on the channels of the edges it was inferred
// from: one computed from an untrusted edge is masked even when a trusted
// channel writes it, and one from trusted edges is kept.
func TestInferredEdgesInherit(t *testing.T) {
	t.Parallel()
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	res, err := s.applyBatch([]Op{as("default", Edge("a", "b", 1)), as("mallory", Edge("c", "d", 1))})
	require.NoError(t, err)
	trusted, untrusted := res.IDs[0], res.IDs[1]
	res, err = s.applyBatch([]Op{
		as("synonyms", Inferred("a", "c", 0.5, trusted)),
		as("synonyms", Inferred("b", "d", 0.5, trusted, untrusted)),
	})
	require.NoError(t, err)
	// Derived from a derived edge: it inherits transitively.
	_, err = s.applyBatch([]Op{as("synonyms", Inferred("a", "d", 0.5, res.IDs[1]))})
	require.NoError(t, err)
	trust := mask.Trust("default", "synonyms")
	for _, when := range []string{"delta", "compacted"} {
		auth := liveEdges(t, s.Current(), &trust)
		require.Equal(t, 1, auth[[2]string{"a", "c"}], when)
		require.Zero(t, auth[[2]string{"b", "d"}], when)
		require.Zero(t, auth[[2]string{"a", "d"}], when)
		both := mask.Trust("default", "synonyms", "mallory")
		require.Equal(t, 1, liveEdges(t, s.Current(), &both)[[2]string{"a", "d"}], when)
		require.NoError(t, s.Compact())
	}
	_, err = s.applyBatch([]Op{as("synonyms", Inferred("a", "b", 1))})
	require.ErrorContains(t, err, "no source edges")
	_, err = s.applyBatch([]Op{as("synonyms", Inferred("a", "b", 1, 99))})
	require.ErrorContains(t, err, "source edge 99")
}

// DeleteEdges deletes every native-live edge between two nodes, in both
// orientations on an undirected store, added earlier in its batch or not;
// an untrusted one is undone in the authenticated view.
func TestDeleteEdgesBetween(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		s, err := New(nil, nil, Options{Directed: directed})
		require.NoError(t, err)
		_, err = s.applyBatch([]Op{as("default", Edge("a", "b", 1)), as("default", Edge("b", "a", 2)), as("default", Edge("a", "b", 3)), as("default", Edge("a", "c", 1))})
		require.NoError(t, err)
		require.NoError(t, s.Compact())
		res, err := s.applyBatch([]Op{as("default", Edge("a", "b", 4)), as("mallory", DeleteEdges("a", "b"))})
		require.NoError(t, err)
		want := 3 // a->b three times
		if !directed {
			want = 4 // and b->a
		}
		require.Equal(t, want, res.Rewired[1], "directed %v", directed)
		native := liveEdges(t, s.Current(), nil)
		require.Zero(t, native[[2]string{"a", "b"}])
		require.Equal(t, 1, native[[2]string{"a", "c"}])
		trust := mask.Trust("default")
		auth := liveEdges(t, s.Current(), &trust)
		require.Equal(t, 3, auth[[2]string{"a", "b"}], "directed %v: the untrusted deletion is undone", directed)
		// Nothing left between them: a no-op, not an error.
		res, err = s.applyBatch([]Op{as("default", DeleteEdges("a", "b"))})
		require.NoError(t, err)
		require.Zero(t, res.Rewired[0])
		_, err = s.applyBatch([]Op{as("default", DeleteEdges("a", "zz"))})
		require.ErrorContains(t, err, `unknown node "zz"`)
	}
}
