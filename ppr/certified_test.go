package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
)

// exactGap returns min over sel of exact minus max over the other
// candidates (nil: every node) of exact; +Inf when none is left.
func exactGap(exact []float64, sel []Scored, cands []uint32) float64 {
	in := map[uint32]bool{}
	lo := math.Inf(1)
	for _, s := range sel {
		in[s.Node] = true
		lo = min(lo, exact[s.Node])
	}
	hi := math.Inf(-1)
	visit := func(u uint32) {
		if !in[u] {
			hi = max(hi, exact[u])
		}
	}
	if cands == nil {
		for u := range exact {
			visit(uint32(u))
		}
	} else {
		for _, u := range cands {
			visit(u)
		}
	}
	return lo - hi
}

func nodeSet(s []Scored) []uint32 {
	out := make([]uint32, len(s))
	for i, x := range s {
		out[i] = x.Node
	}
	slices.Sort(out)
	return out
}

// A certified top-k is the exact top-k (as a set); an uncertified one comes
// with a gap the bound cannot separate.
func TestSolveTopKCertifiesExactSelections(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(51, 52))
	certified, byCoord, byRefine, saved, total := 0, 0, 0, 0, 0
	for i := range 400 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		k := 1 + rng.IntN(4)
		cands := randomCandidates(rng, n)
		res, err := SolveTopK(c.auth, c.seeds, c.damping, k, cands, Options{Tol: 1e-12})
		require.NoError(t, err)
		exact := exactPPR(t, c.auth, c.seeds, c.damping)
		if res.Certified {
			certified++
			want := TopK(exact, k, cands, nil)
			require.Equalf(t, nodeSet(want), nodeSet(res.TopK), "case %d: certified selection differs from the exact one", i)
			require.Positive(t, res.ProvedGap)
			// The proved gap is a lower bound on the exact one (up to the
			// exact solve's own error).
			if g := exactGap(exact, res.TopK, cands); !math.IsInf(g, 1) {
				require.LessOrEqualf(t, res.ProvedGap, g+1e-12, "case %d: proved gap above the exact gap", i)
			}
			if res.Gap <= res.ErrorBound {
				if c.g.Directed() {
					require.Positivef(t, res.Refined, "case %d: a directed view certified below the L1 bound without reverse refinement", i)
					byRefine++
				} else {
					byCoord++
				}
			}
			full, err := Solve(c.auth, c.seeds, c.damping, Options{Tol: 1e-12})
			require.NoError(t, err)
			saved += full.Sweeps - res.Sweeps
			total += full.Sweeps
		} else {
			require.LessOrEqual(t, res.ErrorBound, 1e-12)
			require.LessOrEqual(t, res.Gap, res.ErrorBound)
		}
	}
	require.Positive(t, certified)
	require.Positive(t, byCoord, "no undirected case needed the per-coordinate bound")
	require.Positive(t, byRefine, "no directed case needed reverse refinement")
	t.Logf("%d of 400 certified (%d only by the per-coordinate bound, %d only by reverse refinement); certified solves used %d fewer sweeps than tol 1e-12 solves (%d)", certified, byCoord, byRefine, saved, total)
}

// An engine reused through Restart gives SolveTopK's answers and allocates
// nothing proportional to the graph after its first query.
//
// Not parallel: it measures the process's allocations, which tests running
// beside it would add to.
func TestEngineSolveTopKReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	b := csr.NewBuilder(false)
	for u := range 5000 {
		_, err := b.AddNode(fmt.Sprint(u))
		require.NoError(t, err)
	}
	for range 40000 {
		_, err := b.AddEdgeByID(uint32(rng.IntN(5000)), uint32(rng.IntN(5000)), 0.5+rng.Float64(), "")
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	view := mask.Full(g)
	var e *Engine
	seedsFor := func(i int) Seeds {
		s, err := NewSeeds(g.NumNodes(), []Seed{{Node: uint32(i * 37 % 5000), Weight: 1}, {Node: uint32(i * 101 % 5000), Weight: 2}})
		require.NoError(t, err)
		return s
	}
	for i := range 5 {
		s := seedsFor(i)
		if e == nil {
			var err error
			e, err = NewEngine(view, s, 0.5)
			require.NoError(t, err)
		} else {
			require.NoError(t, e.Restart(s, 0.5))
		}
		got, err := e.SolveTopK(5, nil, Options{})
		require.NoError(t, err)
		want, err := SolveTopK(view, s, 0.5, 5, nil, Options{})
		require.NoError(t, err)
		require.Equal(t, want.TopK, got.TopK)
		require.Equal(t, want.Sweeps, got.Sweeps)
	}
	s := seedsFor(7)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		require.NoError(t, e.Restart(s, 0.5))
		_, err := e.SolveTopK(5, nil, Options{})
		require.NoError(t, err)
	}
	runtime.ReadMemStats(&after)
	perQuery := (after.TotalAlloc - before.TotalAlloc) / 10
	require.Lessf(t, perQuery, uint64(g.NumNodes()), "%d bytes allocated per reused query on %d nodes", perQuery, g.NumNodes())
}

// From a warm start (another query's solution, with this query's signed
// residual) a certified selection is still the exact top-k and the proved
// gap still bounds the exact gap from below.
func TestSolveTopKFromSignedWarmStart(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(55, 56))
	certified, signed := 0, 0
	for i := range 300 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		e, err := NewEngine(c.auth, c.seeds, c.damping)
		require.NoError(t, err)
		_, err = e.SolveSweeps(Options{Tol: 1e-4})
		require.NoError(t, err)
		other, err := NewSeeds(n, []Seed{{Node: uint32(rng.IntN(n)), Weight: 1}})
		require.NoError(t, err)
		require.NoError(t, e.SetProblem(other, c.damping))
		copy(e.R, residualOf(c.auth, other, c.damping, e.X))
		for _, v := range e.R {
			if v < 0 {
				signed++
				break
			}
		}
		k := 1 + rng.IntN(3)
		res, err := e.SolveTopK(k, nil, Options{Tol: 1e-12})
		require.NoError(t, err)
		if !res.Certified {
			continue
		}
		certified++
		exact := exactPPR(t, c.auth, other, c.damping)
		require.Equalf(t, nodeSet(TopK(exact, k, nil, nil)), nodeSet(res.TopK), "case %d", i)
		if g := exactGap(exact, res.TopK, nil); !math.IsInf(g, 1) {
			require.LessOrEqualf(t, res.ProvedGap, g+1e-12, "case %d", i)
		}
	}
	require.Positive(t, signed, "no warm start had a signed residual")
	t.Logf("%d of 300 certified, %d warm starts with a signed residual", certified, signed)
}

// orderedViolations solves 400 random cases with an ordered SolveTopK (from
// the native start state, and from a signed warm start for every third)
// and counts the claims an exact solve contradicts: a lead above the exact
// difference of its pair (beyond the exact solve's own error), a proved
// order or set that is not the exact one. It also counts the certified
// cases and the ones whose order was proved.
func orderedViolations(t *testing.T, seed uint64, tn *tuning) (violations, certified, ordered, scanned int) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	const slack = 1e-12 // the dense solve's error, well above its 1e-15
	for i := range 400 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		k := 1 + rng.IntN(5)
		cands := randomCandidates(rng, n)
		e, err := tunedEngine(c.auth, c.seeds, c.damping, tn)
		require.NoError(t, err)
		seeds := c.seeds
		if i%3 == 2 {
			_, err = e.SolveSweeps(Options{Tol: 1e-3})
			require.NoError(t, err)
			seeds, err = NewSeeds(n, []Seed{{Node: uint32(rng.IntN(n)), Weight: 1}, {Node: uint32(rng.IntN(n)), Weight: 0.5}})
			require.NoError(t, err)
			require.NoError(t, e.SetProblem(seeds, c.damping))
			copy(e.R, residualOf(c.auth, seeds, c.damping, e.X))
		}
		res, err := e.SolveTopK(k, cands, Options{Tol: 1e-12, Ordered: true})
		require.NoError(t, err)
		if res.Scans > 0 {
			scanned++
		}
		exact := exactPPR(t, c.auth, seeds, c.damping)
		require.Len(t, res.Leads, len(res.TopK))
		require.Len(t, res.ScoreErrs, len(res.TopK))
		bad := false
		for j, s := range res.TopK {
			if math.Abs(exact[s.Node]-s.Score) > res.ScoreErrs[j]+slack {
				bad = true
			}
			if j+1 < len(res.TopK) && res.Leads[j] > exact[s.Node]-exact[res.TopK[j+1].Node]+slack {
				bad = true
			}
		}
		if res.Certified {
			certified++
			if !slices.Equal(nodeSet(TopK(exact, k, cands, nil)), nodeSet(res.TopK)) {
				bad = true
			}
			if g := exactGap(exact, res.TopK, cands); !math.IsInf(g, 1) && res.ProvedGap > g+slack {
				bad = true
			}
		}
		if res.Certified && res.Ordered {
			ordered++
			for j, s := range TopK(exact, k, cands, nil) {
				if res.TopK[j].Node != s.Node {
					bad = true
				}
			}
		}
		if !res.Certified || !res.Ordered {
			// Stopped by the tolerance: only then may a claim be missing.
			require.LessOrEqual(t, res.ErrorBound, 1e-12)
		}
		if bad {
			violations++
		}
	}
	return violations, certified, ordered, scanned
}

// A proved order is the exact order, every lead and score bound holds
// against an exact solve, and the test notices a bound 100x too tight.
func TestSolveTopKOrderedMatchesExactOrder(t *testing.T) {
	t.Parallel()
	v, certified, ordered, scanned := orderedViolations(t, 57, &defaultTuning)
	require.Zero(t, v, "claims contradicted by the exact solve")
	require.Positive(t, ordered)
	require.Positive(t, scanned, "no solve ran a threshold scan")
	t.Logf("400 cases: %d certified, %d with the order proved too, %d ran threshold scans", certified, ordered, scanned)
	v, certified, ordered, scanned = orderedViolations(t, 57, tuned(func(t *tuning) { t.thresholdScans = false }))
	require.Zero(t, v, "claims contradicted by the exact solve (plain sweeps)")
	require.Zero(t, scanned)
	t.Logf("plain sweeps: %d certified, %d with the order proved too", certified, ordered)

	v, _, _, _ = orderedViolations(t, 57, tuned(func(t *tuning) { t.boundScale = 0.01 }))
	require.Positive(t, v, "bounds made 100x too tight went unnoticed")
	t.Logf("with bounds 100x too tight: %d of 400 cases contradicted", v)
}

// An ordered SolveTopK proves the same set as SolveTopK (with plain sweeps it
// needs at least as many); it never reports an order with a non-positive
// lead. With and without threshold scans.
func TestSolveTopKOrderedAgreesWithSolveTopK(t *testing.T) {
	t.Parallel()
	t.Run("scans", func(t *testing.T) { t.Parallel(); orderedAgrees(t, false, &defaultTuning) })
	t.Run("sweeps", func(t *testing.T) {
		t.Parallel()
		orderedAgrees(t, true, tuned(func(t *tuning) { t.thresholdScans = false }))
	})
}

func orderedAgrees(t *testing.T, sweepsOnly bool, tn *tuning) {
	rng := rand.New(rand.NewPCG(59, 60))
	for i := range 200 {
		c := newRandomCase(t, rng)
		k := 1 + rng.IntN(4)
		set, err := SolveTopK(c.auth, c.seeds, c.damping, k, nil, Options{Tol: 1e-12}.with(tn))
		require.NoError(t, err)
		e, err := tunedEngine(c.auth, c.seeds, c.damping, tn)
		require.NoError(t, err)
		ord, err := e.SolveTopK(k, nil, Options{Tol: 1e-12, Ordered: true})
		require.NoError(t, err)
		if sweepsOnly {
			require.GreaterOrEqualf(t, ord.Sweeps, set.Sweeps, "case %d", i)
		}
		if set.Certified {
			require.Truef(t, ord.Certified, "case %d", i)
			require.Equalf(t, nodeSet(set.TopK), nodeSet(ord.TopK), "case %d", i)
		}
		for j := range len(ord.Leads) - 1 {
			if ord.Ordered {
				require.Positivef(t, ord.Leads[j], "case %d lead %d", i, j)
			}
		}
	}
}

// growingGapCase is a directed graph on which the gap the proof waits for
// is tiny after the first sweep and large from the third on, as on R-MAT
// 20 with 5 seeds (2.4e-6 after the first sweep, 0.0167 after the
// second): the seed s reaches candidate q directly with a tiny weight and
// candidate p through m; p and q come first in id order, so Gauss-Seidel
// reaches p only in the third sweep. Top-1 over {p, q} is p.
func growingGapCase(t *testing.T) (*mask.View, Seeds, []uint32) {
	t.Helper()
	b := csr.NewBuilder(true)
	for _, name := range []string{"p", "q", "m", "s"} {
		_, err := b.AddNode(name)
		require.NoError(t, err)
	}
	for _, e := range []struct {
		src, dst string
		w        float64
	}{{"s", "q", 1e-6}, {"s", "m", 1}, {"m", "p", 1}, {"p", "s", 1}, {"q", "s", 1}} {
		_, err := b.AddEdge(csr.Input{Src: e.src, Dst: e.dst, Weight: e.w})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	id := func(name string) uint32 { u, _ := g.ID(name); return u }
	seeds, err := NewSeeds(g.NumNodes(), []Seed{{Node: id("s"), Weight: 1}})
	require.NoError(t, err)
	return mask.Full(g), seeds, []uint32{id("p"), id("q")}
}

// SolveTopK honours MaxSweeps: an exact tie is never certified, so the
// solve stops with an error after exactly MaxSweeps sweeps (it once ran on
// to the sweep its check schedule had picked).
func TestSolveTopKHonoursMaxSweeps(t *testing.T) {
	t.Parallel()
	// A gap that looks hopeless after the first sweep once made the check
	// schedule run past the cap.
	view, seeds, cands := growingGapCase(t)
	e, err := NewEngine(view, seeds, 0.85)
	require.NoError(t, err)
	_, err = e.SolveTopK(1, cands, Options{Tol: 1e-15, MaxSweeps: 3, Order: GaussSeidel})
	require.ErrorContains(t, err, "after 3 sweeps")
	require.Equal(t, 3, e.Stats.Sweeps)

	// An exact tie is never certified: the solve runs to the cap.
	b := csr.NewBuilder(true)
	for _, e := range [][2]string{{"c", "a"}, {"c", "b"}, {"a", "c"}, {"b", "c"}} {
		_, err := b.AddEdge(csr.Input{Src: e[0], Dst: e[1], Weight: 1})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	c, _ := g.ID("c")
	a, _ := g.ID("a")
	bb, _ := g.ID("b")
	seeds, err = NewSeeds(g.NumNodes(), []Seed{{Node: c, Weight: 1}})
	require.NoError(t, err)
	for _, limit := range []int{1, 3, 7} {
		e, err := NewEngine(mask.Full(g), seeds, 0.85)
		require.NoError(t, err)
		_, err = e.SolveTopK(1, []uint32{a, bb}, Options{Tol: 1e-15, MaxSweeps: limit, Order: GaussSeidel})
		require.ErrorContains(t, err, fmt.Sprintf("after %d sweeps", limit))
		require.Equal(t, limit, e.Stats.Sweeps)
	}
	// Normalized sweeps (the default here) reach the exact vector of this
	// 2-periodic walk, where the residual is 0: the tie stays unproved.
	res, err := SolveTopK(mask.Full(g), seeds, 0.85, 1, []uint32{a, bb}, Options{Tol: 1e-15, MaxSweeps: 7})
	require.NoError(t, err)
	require.False(t, res.Certified)
	require.LessOrEqual(t, res.ErrorBound, 1e-15)
}

// A selection provable after some sweep is proved at most maxCheckWait
// sweeps later: the check schedule may skip checks while the gap looks
// hopeless, but not for longer (on R-MAT 20 a gap of 2.4e-6 after the
// first sweep, 0.0167 after the second, once postponed the first check to
// sweep 40 where 14 sufficed). The reference checks the directed L1 proof
// after every sweep (directed views: no threshold scans), so the solves
// here run without reverse refinement, which only proves earlier
// (TestSolveTopKRefinementProvesEarlier).
func TestSolveTopKChecksOften(t *testing.T) {
	t.Parallel()
	tn := tuned(func(t *tuning) { t.refineDirected = false })
	// firstCertified is the plain reference: the solve's sweeps (order, as
	// SolveTopK runs them) with the directed proof (gap - ||r||_1/alpha,
	// less the rounding margin, > 0) checked after every one.
	firstCertified := func(view *mask.View, seeds Seeds, damping float64, k int, cands []uint32, order Order, upTo int) int {
		e, err := NewEngine(view, seeds, damping)
		require.NoError(t, err)
		order = order.resolve(true, true)
		var nr normalizedRun
		for m := 1; m <= upTo; m++ {
			bound := e.sweep(order, 1, &nr) / e.alpha
			top := TopK(e.X, k+1, cands, view.Graph().Ranks())
			if len(top) <= k || top[k-1].Score-top[k].Score-bound-e.roundoff(m) > 0 {
				return m
			}
		}
		return -1
	}
	view, seeds, cands := growingGapCase(t)
	for _, order := range []Order{GaussSeidel, defaultOrder} {
		res, err := SolveTopK(view, seeds, 0.85, 1, cands, Options{Tol: 1e-12, Order: order}.with(tn))
		require.NoError(t, err)
		require.True(t, res.Certified)
		first := firstCertified(view, seeds, 0.85, 1, cands, order, res.Sweeps)
		require.Positive(t, first)
		require.LessOrEqualf(t, res.Sweeps, first+maxCheckWait, "growing gap, %v: provable after %d sweeps, proved after %d", order, first, res.Sweeps)
	}

	rng := rand.New(rand.NewPCG(61, 62))
	tested := 0
	for i := range 300 {
		c := newRandomCase(t, rng)
		if !c.g.Directed() {
			continue
		}
		k := 1 + rng.IntN(3)
		order := []Order{GaussSeidel, defaultOrder}[i%2]
		res, err := SolveTopK(c.native, c.seeds, c.damping, k, nil, Options{Tol: 1e-12, Order: order}.with(tn))
		require.NoError(t, err)
		// A selection of every node runs to the tolerance, not to its
		// first check (TestSolveTopKEveryCandidateSelected).
		if !res.Certified || res.Sweeps == 0 || math.IsInf(res.Gap, 1) {
			continue
		}
		first := firstCertified(c.native, c.seeds, c.damping, k, nil, order, res.Sweeps)
		require.Positivef(t, first, "case %d: certified after %d sweeps, but no capped solve certified", i, res.Sweeps)
		require.LessOrEqualf(t, res.Sweeps, first+maxCheckWait, "case %d: provable after %d sweeps, proved after %d", i, first, res.Sweeps)
		tested++
	}
	require.Positive(t, tested)
	t.Logf("%d directed cases certified", tested)
}

// Reverse refinement (refineTopK) proves the same selections as the
// unrefined proof (the L1 bound on directed views, the per-coordinate one
// on undirected views), never later (it only raises the proved gap at the
// same checks), from the native start and from signed warm starts; its
// proved gap stays below the exact gap. Undirected views compare with
// threshold scans off, since refinement also moves the scans' threshold
// (the solves then take different paths), and check the default solve,
// scans on, against the exact vector too. It counts the cases proved
// earlier.
func TestSolveTopKRefinementProvesEarlier(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		name := "directed"
		if !directed {
			name = "undirected"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testRefinementProvesEarlier(t, directed)
		})
	}
}

// refinementOff returns the default tuning with reverse refinement off on
// the kind of view given, and threshold scans off when scans is false.
func refinementOff(directed, scans bool) *tuning {
	return tuned(func(t *tuning) {
		t.thresholdScans = scans
		if directed {
			t.refineDirected = false
		} else {
			t.refineUndirected = false
		}
	})
}

func testRefinementProvesEarlier(t *testing.T, directed bool) {
	// Directed views run no threshold scans; undirected ones compare with
	// them off.
	gotTuning := tuned(func(t *tuning) { t.thresholdScans = directed })
	plainTuning := refinementOff(directed, directed)
	rng := rand.New(rand.NewPCG(63, 64))
	cases, earlier, refined, signedRefined, saved, total := 0, 0, 0, 0, 0, 0
	for i := range 1500 {
		c := newRandomCase(t, rng)
		if c.g.Directed() != directed {
			continue
		}
		cases++
		n := c.g.NumNodes()
		k := 1 + rng.IntN(4)
		cands := randomCandidates(rng, n)
		seeds := c.seeds
		start := func() *Engine {
			e, err := NewEngine(c.auth, c.seeds, c.damping)
			require.NoError(t, err)
			if i%3 == 2 {
				// A signed warm start: another query's rough solution.
				_, err = e.SolveSweeps(Options{Tol: 1e-3})
				require.NoError(t, err)
				require.NoError(t, e.SetProblem(seeds, c.damping))
				copy(e.R, residualOf(c.auth, seeds, c.damping, e.X))
			}
			return e
		}
		if i%3 == 2 {
			var err error
			seeds, err = NewSeeds(n, []Seed{{Node: uint32(rng.IntN(n)), Weight: 1}, {Node: uint32(rng.IntN(n)), Weight: 0.5}})
			require.NoError(t, err)
		}
		var exact []float64
		checkExact := func(got *TopKResult) {
			if !got.Certified {
				return
			}
			if exact == nil {
				exact = exactPPR(t, c.auth, seeds, c.damping)
			}
			require.Equalf(t, nodeSet(TopK(exact, k, cands, nil)), nodeSet(got.TopK), "case %d: certified selection differs from the exact one", i)
			if g := exactGap(exact, got.TopK, cands); !math.IsInf(g, 1) {
				require.LessOrEqualf(t, got.ProvedGap, g+1e-12, "case %d: proved gap above the exact gap", i)
			}
		}
		if !directed {
			// The default solve: scans and refinement on.
			def, err := start().SolveTopK(k, cands, Options{Tol: 1e-12})
			require.NoError(t, err)
			checkExact(def)
		}
		got, err := start().SolveTopK(k, cands, Options{Tol: 1e-12}.with(gotTuning))
		require.NoError(t, err)
		plain, err := start().SolveTopK(k, cands, Options{Tol: 1e-12}.with(plainTuning))
		require.NoError(t, err)
		require.Zero(t, plain.Refined)
		require.LessOrEqualf(t, got.Sweeps, plain.Sweeps, "case %d: refinement proved later", i)
		if plain.Certified {
			require.Truef(t, got.Certified, "case %d: the unrefined proof certified, the refined one did not", i)
			require.Equalf(t, nodeSet(plain.TopK), nodeSet(got.TopK), "case %d", i)
		}
		checkExact(got)
		if got.Refined > 0 && got.Certified {
			refined++
			if i%3 == 2 {
				signedRefined++
			}
		}
		if got.Sweeps < plain.Sweeps {
			earlier++
		}
		if plain.Certified {
			saved += plain.Sweeps - got.Sweeps
			total += plain.Sweeps
		}
	}
	require.Positive(t, earlier, "refinement never proved a selection earlier")
	require.Positive(t, signedRefined, "refinement never proved a selection from a signed warm start")
	t.Logf("%d cases: %d certified by refined intervals (%d from signed warm starts), %d proved earlier; %d of the %d sweeps of the unrefined certified solves saved", cases, refined, signedRefined, earlier, saved, total)
}

// Refined leads (refineLeads) prove an order never later than the
// unrefined leads and sometimes earlier, on both kinds of view (threshold
// scans off, so that both solves take the same path); the proved orders
// are checked against exact solves by TestSolveTopKOrderedMatchesExactOrder,
// which runs with refinement on.
func TestSolveTopKOrderedRefinementProvesEarlier(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(67, 68))
	earlier := [2]int{}
	scansOff := tuned(func(t *tuning) { t.thresholdScans = false })
	for i := range 1500 {
		c := newRandomCase(t, rng)
		kind := 0
		if !c.g.Directed() {
			kind = 1
		}
		k := 2 + rng.IntN(4)
		solve := func(tn *tuning) *TopKResult {
			e, err := tunedEngine(c.auth, c.seeds, c.damping, tn)
			require.NoError(t, err)
			res, err := e.SolveTopK(k, nil, Options{Tol: 1e-12, Ordered: true})
			require.NoError(t, err)
			return res
		}
		got := solve(scansOff)
		plain := solve(refinementOff(c.g.Directed(), false))
		require.LessOrEqualf(t, got.Sweeps, plain.Sweeps, "case %d: refinement proved later", i)
		if plain.Certified && plain.Ordered {
			require.Truef(t, got.Certified && got.Ordered, "case %d: the unrefined proof ordered, the refined one did not", i)
			for j := range plain.TopK {
				require.Equalf(t, plain.TopK[j].Node, got.TopK[j].Node, "case %d: position %d", i, j)
			}
		}
		if got.Ordered && got.Sweeps < plain.Sweeps {
			earlier[kind]++
		}
	}
	require.Positive(t, earlier[0], "refined leads never proved a directed order earlier")
	require.Positive(t, earlier[1], "refined leads never proved an undirected order earlier")
	t.Logf("orders proved earlier: %d directed, %d undirected", earlier[0], earlier[1])
}

// A refined interval made too tight is caught: with every error term of
// SolveTopK 100x too small, some selection certified through reverse
// refinement contradicts the exact solve.
func TestSolveTopKRefinementTooTightFails(t *testing.T) {
	t.Parallel()
	tight := tuned(func(t *tuning) { t.boundScale = 0.01 })
	rng := rand.New(rand.NewPCG(65, 66))
	var wrong [3]int // directed Gauss-Seidel, undirected, directed Normalized (the default)
	refinedNormalized := 0
	for range 3000 {
		c := newRandomCase(t, rng)
		k := 1 + rng.IntN(4)
		for _, order := range []Order{GaussSeidel, defaultOrder} {
			if !c.g.Directed() && order == defaultOrder {
				continue // Gauss-Seidel too
			}
			res, err := SolveTopK(c.auth, c.seeds, c.damping, k, nil, Options{Tol: 1e-12, Order: order}.with(tight))
			require.NoError(t, err)
			if !res.Certified || res.Refined == 0 {
				continue
			}
			if c.g.Directed() && order == defaultOrder {
				refinedNormalized++
			}
			exact := exactPPR(t, c.auth, c.seeds, c.damping)
			g := exactGap(exact, res.TopK, nil)
			if !slices.Equal(nodeSet(TopK(exact, k, nil, nil)), nodeSet(res.TopK)) || res.ProvedGap > g+1e-12 {
				kind := 0
				if !c.g.Directed() {
					kind = 1
				} else if order == defaultOrder {
					kind = 2
				}
				wrong[kind]++
			}
		}
	}
	require.Positive(t, wrong[0], "refined bounds 100x too tight went unnoticed on directed views")
	require.Positive(t, wrong[1], "refined bounds 100x too tight went unnoticed on undirected views")
	// Normalized sweeps shrink the residual so fast on these small graphs
	// that their proofs seldom need refinement (TestNormalizedTopKRefines
	// exercises it on larger ones).
	t.Logf("refined bounds 100x too tight: %d directed (Gauss-Seidel), %d undirected and %d directed (Normalized: %d refined certified solves) certified cases contradicted", wrong[0], wrong[1], wrong[2], refinedNormalized)
}

// coordGap's pass collects the blockers refineTopK would collect in its own
// (collectBlockers, the reference): the same nodes in the same order, the
// same overflow, and the same highest upper end of the others.
func TestCoordGapCollectsBlockers(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(69, 70))
	compared, blocked := 0, 0
	for i := range 600 {
		c := newRandomCase(t, rng)
		if c.g.Directed() {
			continue
		}
		n := c.g.NumNodes()
		cands := randomCandidates(rng, n)
		e, err := NewEngine(c.auth, c.seeds, c.damping)
		require.NoError(t, err)
		for range rng.IntN(6) {
			e.pushSweep()
		}
		k := 1 + rng.IntN(3)
		top := TopK(e.X, k+1, cands, c.g.Ranks())
		if len(top) <= k {
			continue
		}
		sel := top[:k]
		eb := e.coordBounds(e.residualStats(), e.residualL1()/e.alpha)
		minSelLo := math.Inf(1)
		for _, s := range sel {
			minSelLo = min(minSelLo, eb.lower(s))
		}
		e.inSel = make([]bool, n)
		limit := 1 + rng.IntN(4)
		var fast blockerSet
		fast.reset(limit)
		_, _, _, _, _, _ = coordGap(e.X, &eb, sel, cands, e.inSel, &fast, math.Inf(-1))
		ref := e.collectBlockers(sel, cands, &eb, minSelLo, limit)
		require.Equalf(t, ref.over, fast.over, "case %d", i)
		require.Equalf(t, ref.nodes, fast.nodes, "case %d", i)
		if !ref.over {
			require.Equalf(t, ref.restHi, fast.restHi, "case %d", i)
		}
		compared++
		if len(ref.nodes) > 0 {
			blocked++
		}
	}
	require.Positive(t, blocked)
	t.Logf("%d checks compared, %d with blockers", compared, blocked)
}

// The per-coordinate bounds hold at every node against an exact solve, on
// undirected views (native and authenticated, with isolated nodes, zero
// weights and masked edges) in states reached by scans, sweeps and pushes
// from the native start, and from signed warm starts; and the one-step
// bound is never above C*W(u) + L.
func TestCoordBoundsHold(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(65, 66))
	checked, sharper := 0, 0
	for i := 0; checked < 300; i++ {
		c := newRandomCase(t, rng)
		if c.g.Directed() || c.damping == 0 {
			continue
		}
		n := c.g.NumNodes()
		for vi, view := range []*mask.View{c.native, c.auth} {
			e, err := NewEngine(view, c.seeds, c.damping)
			require.NoError(t, err)
			if rng.IntN(3) == 0 { // a signed warm start
				other, err := NewSeeds(n, []Seed{{Node: uint32(rng.IntN(n)), Weight: 1}})
				require.NoError(t, err)
				_, err = e.SolveSweeps(Options{Tol: 1e-3})
				require.NoError(t, err)
				require.NoError(t, e.SetProblem(other, c.damping))
				copy(e.R, residualOf(view, other, c.damping, e.X))
			}
			for range rng.IntN(4) {
				switch rng.IntN(3) {
				case 0:
					e.PushScan([]float64{0, 1e-3, 1e-1}[rng.IntN(3)])
				case 1:
					e.jacobiSweep()
				default:
					e.pushNode(uint32(rng.IntN(n)), nil)
				}
			}
			exact := exactPPR(t, view, e.seeds, c.damping)
			st := e.residualStats()
			eb := e.coordBounds(st, e.residualL1()/e.alpha)
			w := view.OutWeights()
			for u := range n {
				got := eb.abs(uint32(u))
				err := math.Abs(exact[u] - e.X[u])
				require.LessOrEqualf(t, err, got*(1+1e-9)+1e-13, "case %d view %d node %d: |e| %g above the bound %g", i, vi, u, err, got)
				// Each side on its own: e <= E+ (at), -e <= E- (below).
				signedErr := exact[u] - e.X[u]
				require.LessOrEqualf(t, signedErr, eb.at(uint32(u))*(1+1e-9)+1e-13, "case %d view %d node %d: e %g above E+ %g", i, vi, u, signedErr, eb.at(uint32(u)))
				require.LessOrEqualf(t, -signedErr, eb.below(uint32(u))*(1+1e-9)+1e-13, "case %d view %d node %d: -e %g above E- %g", i, vi, u, -signedErr, eb.below(uint32(u)))
				old := min(eb.coord*w[u]+eb.dangling, eb.l1)
				require.LessOrEqualf(t, got, old*(1+1e-12), "case %d view %d node %d: one-step bound %g above C*W+L %g", i, vi, u, got, old)
				if got < old*(1-1e-9) {
					sharper++
				}
			}
			checked++
		}
	}
	require.Positive(t, sharper)
	t.Logf("%d states checked; the one-step bound was below C*W+L at %d nodes", checked, sharper)
}

// normalizedCase is a directed graph big enough for Normalized sweeps'
// proofs to need reverse refinement: n nodes, a third of them dangling,
// the others with 1-8 out-arcs to targets biased towards low ids (hubs),
// and five seeds with out-arcs; its full view, or half the time a view
// masking a fifth of its edges.
func normalizedCase(t *testing.T, rng *rand.Rand) (*mask.View, Seeds) {
	t.Helper()
	n := 300 + rng.IntN(1200)
	b := csr.NewBuilder(true)
	for u := range n {
		_, err := b.AddNode(fmt.Sprint(u))
		require.NoError(t, err)
	}
	var live []uint32
	for u := range n {
		if rng.IntN(3) == 0 {
			continue
		}
		live = append(live, uint32(u))
		for range 1 + rng.IntN(8) {
			f := rng.Float64()
			_, err := b.AddEdgeByID(uint32(u), uint32(f*f*float64(n)), 0.1+rng.Float64(), "")
			require.NoError(t, err)
		}
	}
	g, err := b.Build()
	require.NoError(t, err)
	var raw []Seed
	for range 5 {
		raw = append(raw, Seed{Node: live[rng.IntN(len(live))], Weight: 1})
	}
	seeds, err := NewSeeds(n, raw)
	require.NoError(t, err)
	if rng.IntN(2) == 0 {
		return mask.Full(g), seeds
	}
	// A fifth of the edges masked: more than the views list, so sweeps
	// test a bit per arc.
	masked := roaring.New()
	for e := range g.NumEdges() {
		if rng.IntN(5) == 0 {
			masked.Add(uint32(e))
		}
	}
	view, err := mask.FromMasked(g, "masked", masked)
	require.NoError(t, err)
	return view, seeds
}

// Normalized sweeps (SolveTopK's default on directed views) certify the
// selections of a tight solve, with proved gaps below its gaps, on graphs
// where their proofs need reverse refinement; and bounds 100x too tight
// there are caught.
func TestNormalizedTopKRefines(t *testing.T) {
	t.Parallel()
	for _, scale := range []float64{1, 0.01} {
		tn := tuned(func(t *tuning) { t.boundScale = scale })
		rng := rand.New(rand.NewPCG(67, 68))
		certified, refined, wrong := 0, 0, 0
		for i := range 60 {
			view, seeds := normalizedCase(t, rng)
			k := 5 + rng.IntN(6)
			// Every third case on two threads: parallel Jacobi sweeps
			// after one normalization.
			threads := 1
			if i%3 == 0 {
				threads = 2
			}
			res, err := SolveTopK(view, seeds, 0.85, k, nil, Options{Tol: 1e-12, Threads: threads}.with(tn))
			require.NoError(t, err)
			if !res.Certified {
				continue
			}
			certified++
			if res.Refined > 0 {
				refined++
			}
			tight, err := Solve(view, seeds, 0.85, Options{Tol: 1e-14, Order: GaussSeidel})
			require.NoError(t, err)
			slack := 2*tight.ErrorBound + 1e-13
			if scale == 1 {
				require.True(t, res.Signed, "case %d: a Normalized solve's residual sums to zero", i)
				for j, s := range res.TopK {
					require.LessOrEqualf(t, math.Abs(tight.Scores[s.Node]-s.Score), res.ScoreErrs[j]+slack, "case %d: score %d off by more than its error bound", i, j)
				}
			}
			want := TopK(tight.Scores, k, nil, nil)
			if exactGap(tight.Scores, want, nil) <= slack {
				continue // the tight vector cannot tell its own boundary apart
			}
			if !slices.Equal(nodeSet(want), nodeSet(res.TopK)) || res.ProvedGap > exactGap(tight.Scores, res.TopK, nil)+slack {
				require.NotEqualf(t, 1.0, scale, "case %d: certified %v (proved gap %g), the tight vector's top-%d is %v", i, nodeSet(res.TopK), res.ProvedGap, k, nodeSet(want))
				wrong++
			}
		}
		if scale == 1 {
			require.Positive(t, refined, "no Normalized proof needed refinement")
			t.Logf("%d of 60 certified, %d with refinement", certified, refined)
		} else {
			require.Positive(t, wrong, "bounds 100x too tight went unnoticed in Normalized sweeps")
			t.Logf("bounds 100x too tight: %d of %d certified cases contradicted", wrong, certified)
		}
	}
}

// A selection of every candidate (k at least the candidates) needs no
// proof as a set, yet its scores must be estimates of pi, not the start
// x = 0 with the whole mass as their error: SolveTopK, ordered or not,
// then solve to the tolerance (issue 16, defect 5: a certified top-5 of a
// 5-node graph came back as five zeros after no sweep).
func TestSolveTopKEveryCandidateSelected(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	rng := rand.New(rand.NewPCG(161, 162))
	for i := range 80 {
		c := newRandomCase(t, rng)
		n := c.g.NumNodes()
		exact := exactPPR(t, c.auth, c.seeds, c.damping)
		cands := randomCandidates(rng, n)
		if i%5 == 0 {
			cands = []uint32{uint32(rng.IntN(n))} // a selection of one
		}
		m := n
		if cands != nil {
			m = len(cands)
		}
		for _, k := range []int{m, m + 2} {
			for _, ordered := range []bool{false, true} {
				e, err := NewEngine(c.auth, c.seeds, c.damping)
				require.NoError(t, err)
				res, err := e.SolveTopK(k, cands, Options{Tol: tol, Ordered: ordered})
				require.NoError(t, err)
				where := fmt.Sprintf("case %d, k %d of %d candidates, ordered %v", i, k, m, ordered)
				require.Truef(t, res.Certified, "%s: every candidate selected is the exact set", where)
				require.Truef(t, math.IsInf(res.Gap, 1), "%s: gap %v, want +Inf", where, res.Gap)
				require.Lenf(t, res.TopK, m, "%s", where)
				require.LessOrEqualf(t, res.ErrorBound, tol, "%s: stopped at an L1 bound %v above the tolerance", where, res.ErrorBound)
				for j, s := range res.TopK {
					require.LessOrEqualf(t, res.ScoreErrs[j], tol, "%s: entry %d's error bound", where, j)
					require.InDeltaf(t, exact[s.Node], s.Score, res.ScoreErrs[j]+1e-12, "%s: entry %d (node %d) is no estimate of pi", where, j, s.Node)
				}
			}
		}
	}
}

// residualStatsReference is residualStats' plain pass: every node's terms
// in node order, each weight read through At.
func residualStatsReference(e *Engine) residualStats {
	inv := e.view.NodeInvOutWeights()
	var acc statsAcc
	for v, rv := range e.R {
		acc.add(rv, inv.At(uint32(v)))
	}
	st := residualStats{l1: acc.l1, maxRatio: acc.maxRatio, maxNeg: acc.maxNeg, signed: acc.minR < 0}
	for _, u := range e.view.DanglingNodes() {
		st.dangling += math.Abs(e.R[u])
		st.danglingNeg += max(-e.R[u], 0)
	}
	return st
}

// The block pass of residualStats (the array's 64-node blocks read
// directly, the replaced ones through At) gives the plain pass's
// statistics to the bit, on plain views and on patched ones with rows
// replaced and nodes added.
func TestResidualStatsMatchesThePlainPass(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(91, 92))
	dangling := 0
	for i := range 60 {
		c, err := randgraph.NewDeltaCase(rng, i%2 == 0, 400)
		require.NoError(t, err)
		view := c.Base
		if i%3 != 0 {
			// A patch: edges added (some to nodes new since) and removed.
			view, err = mask.WithDelta(c.Base, c.Delta)
			require.NoError(t, err)
		}
		e, err := NewEngine(view, Seeds{Nodes: []uint32{0}, Weights: []float64{1}}, 0.5)
		require.NoError(t, err)
		for v := range e.R {
			switch rng.IntN(4) {
			case 0:
				e.R[v] = 0
			case 1:
				e.R[v] = -rng.Float64() * 1e-3
			default:
				e.R[v] = rng.Float64() * math.Pow(10, -float64(rng.IntN(12)))
			}
		}
		if len(view.DanglingNodes()) > 0 {
			dangling++
		}
		want := residualStatsReference(e)
		got := e.residualStats()
		require.Equal(t, math.Float64bits(want.l1), math.Float64bits(got.l1), "case %d: l1", i)
		require.Equal(t, want, got, "case %d (%d nodes, patched %v)", i, view.NumNodes(), view.Patched())
	}
	require.Greater(t, dangling, 10, "cases with dangling nodes")
}
