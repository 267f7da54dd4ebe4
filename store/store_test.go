package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// randomOps returns a batch of random writes over names n0..n{names-1} by
// channels "default" and "mallory"; nodes and edges are the store's counts,
// so that writes by id and deletes stay in range.
func randomOps(rng *rand.Rand, count, names, nodes, edges int) []Op {
	ops := make([]Op, 0, count)
	ch := func() string {
		if rng.IntN(4) == 0 {
			return "mallory"
		}
		return "default"
	}
	name := func() string { return fmt.Sprintf("n%d", rng.IntN(names)) }
	for range count {
		switch k := rng.IntN(20); {
		case k < 13 || edges == 0:
			ops = append(ops, as(ch(), Edge(name(), name(), float64(1+rng.IntN(3)))))
			edges++
		case k < 17:
			ops = append(ops, as(ch(), Delete(uint32(rng.IntN(edges)))))
		case k < 18:
			ops = append(ops, as(ch(), Node(name())))
		case k < 19 && nodes > 0:
			ops = append(ops, as(ch(), EdgeByID(uint32(rng.IntN(nodes)), uint32(rng.IntN(nodes)), 2)))
			edges++
		case k < 20 && rng.IntN(2) == 0:
			// An inferred edge, from one or two existing edges.
			from := []uint32{uint32(rng.IntN(edges))}
			if rng.IntN(2) == 0 {
				from = append(from, uint32(rng.IntN(edges)))
			}
			if rng.IntN(3) == 0 {
				a, b := name(), name()
				ops = append(ops, as("default", Edge(a, b, 1)), as(ch(), DeleteEdges(a, b)))
				edges++
				break
			}
			ops = append(ops, as(ch(), Inferred(name(), name(), 1, from...)))
			edges++
		default:
			a, b := name(), name()
			if a != b {
				ops = append(ops, as("default", Edge(a, b, 1)), as(ch(), MergeInto(a, b)))
				edges++
			}
		}
	}
	return ops
}

// solveOn is PPR on a version as a user computes it: ppr.Solve on the
// version's patched view for p (nil: native).
func solveOn(v *Version, p *mask.Policy, seeds ppr.Seeds, d, tol float64) (*ppr.Result, error) {
	view, err := v.View(p)
	if err != nil {
		return nil, err
	}
	return ppr.Solve(view, seeds, d, ppr.Options{Tol: tol})
}

// referenceSolve materialises v and solves with ppr.Solve on the mask view.
func referenceSolve(t testing.TB, v *Version, p *mask.Policy, seeds ppr.Seeds, d, tol float64) []float64 {
	t.Helper()
	g, l, err := v.Materialize()
	require.NoError(t, err)
	var view *mask.View
	if p == nil {
		view, err = mask.Native(g, l)
	} else {
		view, err = mask.Authenticated(g, l, *p)
	}
	require.NoError(t, err)
	res, err := ppr.Solve(view, seeds, d, ppr.Options{Tol: tol})
	require.NoError(t, err)
	return res.Scores
}

func l1Dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s
}

func requireClose(t testing.TB, want, got []float64, tol float64, where string) {
	t.Helper()
	require.Equal(t, len(want), len(got), where)
	require.LessOrEqual(t, l1Dist(want, got), tol, where)
}

func TestSolveMatchesMaterialized(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, directed := range []bool{true, false} {
		s, err := New(nil, nil, Options{Directed: directed})
		require.NoError(t, err)
		trust := mask.Trust("default")
		for step := range 30 {
			v := s.Current()
			_, err := s.applyBatch(randomOps(rng, 1+rng.IntN(20), 25, v.NumNodes(), v.NumEdges()))
			require.NoError(t, err)
			v = s.Current()
			seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}, {Node: uint32(rng.IntN(v.NumNodes())), Weight: 0.5}})
			require.NoError(t, err)
			for _, p := range []*mask.Policy{nil, &trust} {
				got, err := solveOn(v, p, seeds, 0.85, 1e-9)
				require.NoError(t, err)
				want := referenceSolve(t, v, p, seeds, 0.85, 1e-9)
				requireClose(t, want, got.Scores, 2e-9, fmt.Sprintf("directed=%v step %d policy %s", directed, step, policyKey(p)))
			}
			if step%10 == 9 {
				require.NoError(t, s.Compact())
			}
		}
	}
}

// An untrusted merge is undone by the authenticated view: the view equals
// the graph before the merge (same solve, same live edges).
func TestUntrustedMergeUndone(t *testing.T) {
	for _, directed := range []bool{true, false} {
		s, err := New(nil, nil, Options{Directed: directed})
		require.NoError(t, err)
		_, err = s.applyBatch([]Op{
			as("default", Edge("q", "a", 1)), as("default", Edge("a", "p1", 1)), as("default", Edge("b", "p2", 1)),
			as("default", Edge("q", "b", 2)), as("default", Edge("p2", "a", 1)), as("default", Edge("a", "a", 1)),
		})
		require.NoError(t, err)
		before := s.Current()
		res, err := s.applyBatch([]Op{as("mallory", MergeInto("a", "b"))})
		require.NoError(t, err)
		after := res.Version
		require.Positive(t, res.Rewired[0])
		first := res.IDs[0]
		for i := range res.Rewired[0] {
			e := after.Edge(first + uint32(i))
			require.Equal(t, []string{"mallory"}, e.AddedBy)
			b, _ := after.ID("b")
			a, _ := after.ID("a")
			require.True(t, e.Src == b || e.Dst == b)
			require.False(t, e.Src == a || e.Dst == a, "edge %d still touches a", first+uint32(i))
		}
		deleted := 0
		for e := range uint32(before.NumEdges()) {
			if len(after.Edge(e).DeletedBy) > 0 {
				require.Equal(t, []string{"mallory"}, after.Edge(e).DeletedBy)
				deleted++
			}
		}
		require.Equal(t, res.Rewired[0], deleted)

		trust := mask.Trust("default")
		q, _ := after.ID("q")
		seeds, err := ppr.NewSeeds(after.NumNodes(), []ppr.Seed{{Node: q, Weight: 1}})
		require.NoError(t, err)
		pre, err := solveOn(before, nil, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		auth, err := solveOn(after, &trust, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		requireClose(t, pre.Scores, auth.Scores, 1e-11, "auth after merge vs native before")
		native, err := solveOn(after, nil, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		require.Greater(t, l1Dist(pre.Scores, native.Scores), 1e-3, "the merge changes the native view")

		// Also after compaction, and the trusted merge is not undone.
		require.NoError(t, s.Compact())
		auth2, err := solveOn(s.Current(), &trust, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		requireClose(t, pre.Scores, auth2.Scores, 1e-11, "after compaction")
		both := mask.Trust("default", "mallory")
		nat2, err := solveOn(s.Current(), &both, seeds, 0.85, 1e-12)
		require.NoError(t, err)
		requireClose(t, native.Scores, nat2.Scores, 1e-11, "trusting mallory keeps the merge")
	}
}

func TestApplyErrorsApplyNothing(t *testing.T) {
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("default", Edge("a", "b", 1))})
	require.NoError(t, err)
	v := s.Current()
	for _, tc := range []struct {
		ops  []Op
		want string
	}{
		{[]Op{as("default", Edge("x", "y", 1)), as("c", Delete(5))}, "store: write 1: delete edge 5: no such edge (2 edges)"},
		{[]Op{as("default", Edge("x", "", 1))}, "store: write 0: empty node name"},
		{[]Op{as("default", Edge("x", "y", math.NaN()))}, "weight NaN"},
		{[]Op{as("default", Edge("x", "y", -1))}, "weight -1"},
		{[]Op{as("default", MergeInto("a", "zz"))}, `unknown node "zz"`},
		{[]Op{as("default", MergeInto("a", "a"))}, `merge "a" into itself`},
		{[]Op{as("default", Node(""))}, "empty node name"},
		{[]Op{as("default", Op{kind: 9})}, "unknown kind 9"},
		{[]Op{as("default", EdgeByID(0, 2, 1))}, "store: write 0: edge 0 -> 2: no such node (2 nodes)"},
		{[]Op{as("default", EdgeByID(0, 1, math.Inf(1)))}, "weight +Inf"},
	} {
		_, err := s.applyBatch(tc.ops)
		require.ErrorContains(t, err, tc.want)
		require.Same(t, v, s.Current(), "a failed batch publishes nothing")
		_, ok := s.Current().ID("x")
		require.False(t, ok, "a failed batch creates no node")
	}
	// Creation inside a batch makes a name known to later writes of it.
	res, err := s.applyBatch([]Op{as("default", Node("x")), as("default", MergeInto("x", "a"))})
	require.NoError(t, err)
	require.Equal(t, uint32(2), res.IDs[0])
}

func TestVersionsAreImmutable(t *testing.T) {
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("default", Edge("a", "b", 1)), as("default", Edge("b", "c", 1))})
	require.NoError(t, err)
	v := s.Current()
	seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
	require.NoError(t, err)
	first, err := solveOn(v, nil, seeds, 0.85, 1e-12)
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("default", Edge("c", "a", 5)), as("default", Delete(0)), as("default", Node("d"))})
	require.NoError(t, err)
	require.NoError(t, s.Compact())
	_, ok := v.ID("d")
	require.False(t, ok, "a later version's node is not visible in an earlier one")
	require.Equal(t, 3, v.NumNodes())
	again, err := solveOn(v, nil, seeds, 0.85, 1e-12)
	require.NoError(t, err)
	require.Equal(t, first.Scores, again.Scores)
	require.Equal(t, 4, s.Current().NumNodes())
	require.Zero(t, s.Current().DeltaEdges())
}

func TestBaseGraph(t *testing.T) {
	b := csr.NewBuilder(false)
	for _, e := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"c", "d"}} {
		_, err := b.AddEdge(csr.Input{Src: e[0], Dst: e[1], Weight: 1, Relation: "r"})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	s, err := New(g, nil, Options{})
	require.NoError(t, err)
	res, err := s.applyBatch([]Op{as("mallory", Edge("d", "e", 2)), as("mallory", Delete(1)), as("default", MergeInto("c", "e"))})
	require.NoError(t, err)
	require.Equal(t, uint32(4), res.IDs[0])
	v := s.Current()
	require.Equal(t, 5, v.NumNodes())
	seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
	require.NoError(t, err)
	trust := mask.Trust("default")
	for _, p := range []*mask.Policy{nil, &trust} {
		got, err := solveOn(v, p, seeds, 0.5, 1e-10)
		require.NoError(t, err)
		requireClose(t, referenceSolve(t, v, p, seeds, 0.5, 1e-10), got.Scores, 2e-10, policyKey(p))
	}
	mg, _, err := v.Materialize()
	require.NoError(t, err)
	require.Equal(t, "r", mg.Edge(0).Relation, "compaction keeps base relations")
}

func TestCompactAt(t *testing.T) {
	s, err := New(nil, nil, Options{CompactAt: 20, CompactNice: 10})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(9, 9))
	deadline := time.Now().Add(10 * time.Second)
	for s.Current().NumEdges() == s.Current().DeltaEdges() {
		require.True(t, time.Now().Before(deadline), "no background compaction started")
		_, err := s.applyBatch(randomOps(rng, 10, 30, s.Current().NumNodes(), s.Current().NumEdges()))
		require.NoError(t, err)
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, s.CompactionErr())
}

// The bulk materialisation (csr.FromIDs, then csr's named through csrhook) makes the graph
// the Builder makes, array for array, on random versions over a base graph
// and after compactions (whose bases are bulk-made graphs themselves).
func TestMaterializeInBulkMatchesBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 40 {
		directed := rng.IntN(2) == 0
		var s *Store
		var err error
		if rng.IntN(2) == 0 {
			s, err = New(nil, nil, Options{Directed: directed})
		} else {
			b := csr.NewBuilder(directed)
			for range 1 + rng.IntN(30) {
				_, err := b.AddEdge(csr.Input{Src: fmt.Sprint("b", rng.IntN(12)), Dst: fmt.Sprint("b", rng.IntN(12)),
					Weight: []float64{1, 0.5, 2}[rng.IntN(3)], Channel: []string{"", "default", "mallory"}[rng.IntN(3)]})
				require.NoError(t, err)
			}
			g, buildErr := b.Build()
			require.NoError(t, buildErr)
			s, err = New(g, nil, Options{})
		}
		require.NoError(t, err)
		for round := range 3 {
			v := s.Current()
			_, err := s.applyBatch(randomOps(rng, 1+rng.IntN(40), 15, v.NumNodes(), v.NumEdges()))
			require.NoError(t, err)
			v = s.Current()
			if v.NumNodes() == 0 {
				continue
			}
			bulk, err := v.materializeInBulk()
			require.NoError(t, err)
			ref, err := v.materializeByBuilder()
			require.NoError(t, err)
			bp, rp := csrHooks.Parts(bulk), csrHooks.Parts(ref)
			require.Equalf(t, rp.Names, bp.Names, "trial %d round %d", trial, round)
			require.Equal(t, rp.EdgeSrc, bp.EdgeSrc)
			require.Equal(t, rp.EdgeDst, bp.EdgeDst)
			require.Equal(t, rp.EdgeWeight, bp.EdgeWeight)
			require.Equal(t, rp.EdgeChannel, bp.EdgeChannel)
			require.Equal(t, rp.Channels, bp.Channels)
			require.Equal(t, rp.Out, bp.Out)
			require.Equal(t, rp.In, bp.In)
			require.Equal(t, rp.OutWeight, bp.OutWeight)
			require.Equal(t, ref.UnitWeights(), bulk.UnitWeights())
			for u := range v.NumNodes() {
				id, ok := bulk.ID(rp.Names[u])
				require.True(t, ok)
				require.Equal(t, uint32(u), id)
			}
			if rng.IntN(2) == 0 {
				require.NoError(t, s.Compact())
			}
		}
	}
}
