package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// runCacheScenario interleaves random write batches, compactions and cached
// queries, and checks every answer against a from-scratch solve of the
// materialised version. It returns how the queries were answered.
func runCacheScenario(t testing.TB, seed uint64, steps int, directed bool, damping float64) map[string]int {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s, err := New(nil, nil, Options{Directed: directed})
	require.NoError(t, err)
	const tol = 1e-8
	cache := &Cache{Tol: tol, Max: 4}
	trust := mask.Trust("default")
	names := 4 + rng.IntN(30)
	_, err = s.applyBatch(randomOps(rng, 1+rng.IntN(3*names), names, 0, 0))
	require.NoError(t, err)
	hows := map[string]int{}
	for step := range steps {
		switch k := rng.IntN(10); {
		case k < 4:
			_, err := s.applyBatch(randomOps(rng, 1+rng.IntN(8), names, s.Current().NumNodes(), s.Current().NumEdges()))
			require.NoError(t, err)
		case k < 5:
			require.NoError(t, s.Compact())
		default:
			v := s.Current()
			// Seeds from a small pool, so entries get hit, updated and warm-started.
			a := uint32(rng.IntN(min(3, v.NumNodes())))
			b := uint32(rng.IntN(v.NumNodes()))
			wb := []float64{0, 0.1, 1}[rng.IntN(3)]
			seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: a, Weight: 1}, {Node: b, Weight: wb}})
			require.NoError(t, err)
			var p *mask.Policy
			if rng.IntN(2) == 0 {
				p = &trust
			}
			got, err := cache.Query(v, p, seeds, damping)
			require.NoError(t, err)
			hows[got.How]++
			want := referenceSolve(t, v, p, seeds, damping, tol/10)
			where := fmt.Sprintf("seed %d step %d (%s, %s)", seed, step, got.How, policyKey(p))
			requireClose(t, want, got.Scores, tol*1.1, where)
			require.LessOrEqual(t, got.ErrorBound, tol*(1+1e-9), where)
		}
	}
	return hows
}

func TestCacheMatchesFromScratch(t *testing.T) {
	total := map[string]int{}
	seeds := uint64(12)
	if testing.Short() {
		seeds = 6
	}
	for seed := range seeds {
		for how, n := range runCacheScenario(t, seed, 60, seed%2 == 0, []float64{0.5, 0.85}[seed%3%2]) {
			total[how] += n
		}
	}
	t.Logf("answers: %v", total)
	for _, how := range []string{howFresh, howHit, howUpdated, howWarm} {
		require.Positive(t, total[how], "no query answered %s: the scenario does not exercise it", how)
	}
}

// FuzzStore is the differential target of the store and its cache: random
// write sequences (adds, deletes, merges, node creations by two channels),
// compactions and queries, every answer compared with a from-scratch solve
// on a materialised copy of the same version.
func FuzzStore(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(40), seed%2 == 0, seed%3 == 0)
	}
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzStore.zip
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8, directed, halfDamping bool) {
		d := 0.85
		if halfDamping {
			d = 0.5
		}
		runCacheScenario(t, seed, int(steps), directed, d)
	})
}

// An update after a batch of writes costs less than solving again on the
// same version. On this small random graph every node is two hops from the
// seed, so the change mass (about 5e-3 here) must be pushed over the whole
// graph down to the tolerance: the update costs about three quarters of a
// solve. The saving grows with graph size and looser tolerances
// (BenchmarkCacheUpdate measures it).
func TestCacheUpdateCheaperThanSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	const names = 2000
	var base []Op
	for range 20000 {
		base = append(base, as("default", Edge(fmt.Sprintf("n%d", rng.IntN(names)), fmt.Sprintf("n%d", rng.IntN(names)), 1)))
	}
	_, err = s.applyBatch(base)
	require.NoError(t, err)
	require.NoError(t, s.Compact())
	cache := &Cache{Tol: 1e-8}
	v := s.Current()
	seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 1, Weight: 1}})
	require.NoError(t, err)
	first, err := cache.Query(v, nil, seeds, 0.85)
	require.NoError(t, err)
	require.Equal(t, howFresh, first.How)
	var ops []Op
	for range 100 {
		ops = append(ops, as("default", Edge(fmt.Sprintf("n%d", rng.IntN(names)), fmt.Sprintf("n%d", rng.IntN(names)), 1)))
	}
	_, err = s.applyBatch(ops)
	require.NoError(t, err)
	v = s.Current()
	upd, err := cache.Query(v, nil, seeds, 0.85)
	require.NoError(t, err)
	require.Equal(t, howUpdated, upd.How)
	eng, fresh, err := v.solve(nil, seeds, 0.85, 1e-8)
	require.NoError(t, err)
	requireClose(t, fresh.Scores, upd.Scores, 2e-8, "update vs solve")
	t.Logf("arc ops: update %d, solve %d", upd.Stats.ArcOps, eng.Stats.ArcOps)
	require.Less(t, upd.Stats.ArcOps, eng.Stats.ArcOps, "the update should cost less than a solve")
}

// The cache's adjustment keeps the residual identity exactly (to
// rounding): after writes by trusted and untrusted writers (edges,
// deletions, merges, inferred edges) and compactions, the adjusted
// residual is x's residual on the later version's view, recomputed from
// scratch (ppr.Engine.SetResidual), on the native and the authenticated
// view, directed and undirected.
func TestAdjustKeepsResidualIdentity(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 17))
		s, err := New(nil, nil, Options{Directed: seed%2 == 0})
		require.NoError(t, err)
		names := 4 + rng.IntN(30)
		_, err = s.applyBatch(randomOps(rng, 1+rng.IntN(3*names), names, 0, 0))
		require.NoError(t, err)
		trust := mask.Trust("default")
		var p *mask.Policy
		if seed%3 == 0 {
			p = &trust
		}
		cache := &Cache{Tol: 1e-9}
		v := s.Current()
		seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}, {Node: uint32(rng.IntN(v.NumNodes())), Weight: 0.5}})
		require.NoError(t, err)
		_, err = cache.Query(v, p, seeds, 0.85)
		require.NoError(t, err)
		for step := range 6 {
			_, err := s.applyBatch(randomOps(rng, 1+rng.IntN(8), names, s.Current().NumNodes(), s.Current().NumEdges()))
			require.NoError(t, err)
			if rng.IntN(5) == 0 {
				require.NoError(t, s.Compact())
			}
			v = s.Current()
			e, _ := cache.entry(p, seeds, 0.85, false)
			e.mu.Lock()
			before := slices.Clone(e.r)
			frontier, lv, err := cache.adjust(e, v)
			require.NoError(t, err)
			require.True(t, slices.IsSorted(frontier), "seed %d step %d: frontier %v not ascending", seed, step, frontier)
			for u, ru := range e.r {
				if u >= len(before) && ru != 0 || u < len(before) && ru != before[u] {
					_, found := slices.BinarySearch(frontier, uint32(u))
					require.Truef(t, found, "seed %d step %d: node %d's residual changed, not in the frontier", seed, step, u)
				}
			}
			eng, err := ppr.NewEngine(lv.v, seeds, 0.85)
			require.NoError(t, err)
			copy(eng.X, e.x)
			eng.SetResidual()
			for u := range e.r {
				require.InDeltaf(t, eng.R[u], e.r[u], 1e-12, "seed %d step %d node %d", seed, step, u)
			}
			e.mu.Unlock()
		}
	}
}

// Entries are keyed by a digest of their seeds and compare the seeds on a
// hit: seeds whose digest another seed set's entry has (a collision, made
// here by filing an entry under another digest) get their own entry, never
// the other's state.
func TestCacheDigestCollisionKeepsSeedsApart(t *testing.T) {
	t.Parallel()
	a, err := ppr.NewSeeds(10, []ppr.Seed{{Node: 1, Weight: 1}})
	require.NoError(t, err)
	b, err := ppr.NewSeeds(10, []ppr.Seed{{Node: 2, Weight: 1}, {Node: 3, Weight: 2}})
	require.NoError(t, err)
	c := &Cache{}
	ea, _ := c.entry(nil, a, 0.85, false)
	require.True(t, sameSeeds(ea.seeds, a))
	// File a's entry under b's digest too, as a collision would.
	c.mu.Lock()
	c.entries[groupKey(nil, 0.85)+"\x02"+c.seedsDigest(b)] = ea
	c.mu.Unlock()
	eb, _ := c.entry(nil, b, 0.85, false)
	require.NotSame(t, ea, eb)
	require.True(t, sameSeeds(eb.seeds, b), "b's entry holds %v", eb.seeds)
	again, _ := c.entry(nil, b, 0.85, false)
	require.Same(t, eb, again, "b's entry is found again by its bytes")
	same, _ := c.entry(nil, a, 0.85, false)
	require.Same(t, ea, same)
}

// withState lends the entry's arrays: a state handed back to keep stays
// the entry's (the same arrays, no copy) for the next query, and a call
// that fails without keeping drops the entry's state, whose passes no
// longer count what may have been pushed into it.
func TestWithStateLendsAndDropsOnFailure(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 17))
	s, err := New(nil, nil, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch(randomOps(rng, 40, 12, 0, 0))
	require.NoError(t, err)
	v := s.Current()
	seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
	require.NoError(t, err)
	cache := &Cache{Tol: 1e-9}
	x := make([]float64, v.NumNodes())
	r := make([]float64, v.NumNodes())
	r[0] = 1 - 0.85 // x = 0: the start state, r = alpha*s
	keepState := func(warm *replay.WarmStart, keep func(*replay.WarmStart)) error {
		keep(&replay.WarmStart{X: x, R: r, Passes: 1})
		return nil
	}
	require.NoError(t, cache.withState(v, seeds, 0.85, keepState))

	var lent *replay.WarmStart
	require.NoError(t, cache.withState(v, seeds, 0.85, func(warm *replay.WarmStart, keep func(*replay.WarmStart)) error {
		require.NotNil(t, warm, "a kept state is lent to the next call")
		require.Equal(t, x, warm.X)
		lent = warm
		keep(warm)
		return nil
	}))
	require.EqualError(t, cache.withState(v, seeds, 0.85, func(warm *replay.WarmStart, keep func(*replay.WarmStart)) error {
		require.True(t, sameArray(warm.X, lent.X) && sameArray(warm.R, lent.R), "the lent arrays handed back are kept, not copied")
		warm.X[0] = 7 // pushed into, then failed
		return errors.New("failed")
	}), "failed")
	require.NoError(t, cache.withState(v, seeds, 0.85, func(warm *replay.WarmStart, keep func(*replay.WarmStart)) error {
		require.Nil(t, warm, "a failed call's state is dropped")
		return nil
	}))
}
