package ppr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// denseM0 returns (I - d*P0)^-1, P0 the view's P with its dangling rows
// zeroed.
func denseM0(t *testing.T, view *mask.View, seeds Seeds, d float64) *mat.Dense {
	t.Helper()
	n := view.Graph().NumNodes()
	P := denseP(view, seeds)
	A := mat.NewDense(n, n, nil)
	for i := range n {
		A.Set(i, i, 1)
		if view.OutWeight(uint32(i)) == 0 {
			continue
		}
		for j := range n {
			A.Set(i, j, A.At(i, j)-d*P.At(i, j))
		}
	}
	var M mat.Dense
	require.NoError(t, M.Inverse(A))
	return &M
}

// Visit bounds bracket the dense truth: G(u) <= V(u) <= (1+Loose)*G(u)
// for G the column sums of M0 = (I - d*P0)^-1, and M0[u][u] <= Dg(u) <=
// min(V(u), 1/alpha), on native and masked views, directed and
// undirected, at every damping tried.
func TestVisitBoundsBracketDense(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	pushed := 0
	for i := range 300 {
		c := newRandomCase(t, rng)
		d := []float64{0, 0.5, 0.85, 0.95, c.damping}[rng.IntN(5)]
		for _, view := range []*mask.View{c.native, c.auth} {
			vb, err := NewVisitBounds(view, d)
			require.NoError(t, err)
			pushed += vb.Pushed
			M := denseM0(t, view, c.seeds, d)
			n := view.Graph().NumNodes()
			for u := range n {
				G := 0.0
				for w := range n {
					G += M.At(w, u)
				}
				v, dg := vb.at(uint32(u))
				require.GreaterOrEqualf(t, v, G*(1-1e-12), "case %d node %d: V below the column sum", i, u)
				require.LessOrEqualf(t, v, G*(1+vb.Loose)*(1+1e-6), "case %d node %d: V looser than Loose %g", i, u, vb.Loose)
				require.GreaterOrEqualf(t, dg, M.At(u, u)*(1-1e-12), "case %d node %d: Dg below the diagonal", i, u)
				require.LessOrEqualf(t, dg, min(v, 1/(1-d))*(1+1e-6), "case %d node %d", i, u)
			}
			require.LessOrEqual(t, vb.Loose, (1+visitTol)*(1+visitTol)-1+1e-9)
		}
	}
	require.Positive(t, pushed, "no diagonal bound came from a reverse push")
}

// NewVisitBounds (the engine's pull kernels, then the check) matches
// visitsReference (scatter, every arc's mask tested) to float32 rounding.
func TestVisitBoundsMatchReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(73, 74))
	same, other := 0, 0
	defer func() {
		require.Greaterf(t, same, 100*other, "%d cases took other pulls than the reference, %d the same", other, same)
	}()
	for i := range 200 {
		c := newRandomCase(t, rng)
		for _, view := range []*mask.View{c.native, c.auth} {
			vb, err := NewVisitBounds(view, c.damping)
			require.NoError(t, err)
			want, pulls := visitsReference(view, c.damping)
			require.NotNil(t, want)
			if pulls+1 != vb.Pulls {
				// A different rounding moved a ratio across the
				// candidate's threshold, or the first candidate failed
				// its check: rare.
				other++
				t.Logf("case %d: reference %d pulls, NewVisitBounds %d (the check included)", i, pulls, vb.Pulls)
				continue
			}
			for u, w := range want {
				v, _ := vb.at(uint32(u))
				require.InDeltaf(t, w, v*vb.scale, 1e-6*w, "case %d node %d", i, u)
			}
			same++
		}
	}
}

// A view or damping the bounds were not built for is an error.
func TestVisitBoundsWrongProblem(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(75, 76))
	for {
		c := newRandomCase(t, rng)
		if !c.g.Directed() {
			continue
		}
		vb, err := NewVisitBounds(c.native, 0.85)
		require.NoError(t, err)
		_, err = SolveTopK(c.native, c.seeds, 0.5, 1, nil, Options{Visits: vb})
		require.ErrorContains(t, err, "ppr: visit bounds built for view native at damping 0.85, used on view native at damping 0.5")
		_, err = SolveTopK(c.auth, c.seeds, 0.85, 1, nil, Options{Visits: vb})
		require.ErrorContains(t, err, "used on view auth")
		_, err = NewVisitBounds(c.native, 1)
		require.Error(t, err)
		return
	}
}

// With visit bounds, SolveTopK on directed views proves only exact
// selections, its proved gap stays below the exact gap and its score
// bounds hold, from the native start and from signed warm starts, on
// masked views and candidate subsets; it certifies whatever the solve
// without them certifies, and it counts the cases it proved earlier.
func TestSolveTopKWithVisitBounds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(77, 78))
	cases, earlier, later, certified, byVisits := 0, 0, 0, 0, 0
	for i := range 1500 {
		c := newRandomCase(t, rng)
		if !c.g.Directed() {
			continue
		}
		cases++
		n := c.g.NumNodes()
		k := 1 + rng.IntN(4)
		cands := randomCandidates(rng, n)
		seeds := c.seeds
		warm := i%3 == 2
		if warm {
			var err error
			seeds, err = NewSeeds(n, []Seed{{Node: uint32(rng.IntN(n)), Weight: 1}, {Node: uint32(rng.IntN(n)), Weight: 0.5}})
			require.NoError(t, err)
		}
		start := func() *Engine {
			e, err := NewEngine(c.auth, c.seeds, c.damping)
			require.NoError(t, err)
			if warm {
				// A signed warm start: another query's rough solution.
				_, err = e.SolveSweeps(Options{Tol: 1e-3})
				require.NoError(t, err)
				require.NoError(t, e.SetProblem(seeds, c.damping))
				copy(e.R, residualOf(c.auth, seeds, c.damping, e.X))
			}
			return e
		}
		vb, err := NewVisitBounds(c.auth, c.damping)
		require.NoError(t, err)
		ordered := rng.IntN(2) == 0
		solve := func(opt Options) *TopKResult {
			opt.Ordered = ordered
			res, err := start().SolveTopK(k, cands, opt)
			require.NoError(t, err)
			return res
		}
		got := solve(Options{Tol: 1e-12, Visits: vb})
		plain := solve(Options{Tol: 1e-12})
		exact := exactPPR(t, c.auth, seeds, c.damping)
		if plain.Certified {
			require.Truef(t, got.Certified, "case %d: certified without visit bounds, not with them", i)
		}
		if got.Certified {
			certified++
			require.Equalf(t, nodeSet(TopK(exact, k, cands, nil)), nodeSet(got.TopK), "case %d: certified selection differs from the exact one", i)
			if g := exactGap(exact, got.TopK, cands); !math.IsInf(g, 1) {
				require.LessOrEqualf(t, got.ProvedGap, g+1e-12, "case %d: proved gap above the exact gap", i)
			}
			if got.Gap <= got.ErrorBound && got.Refined == 0 {
				byVisits++
			}
		}
		for j, s := range got.TopK {
			require.LessOrEqualf(t, math.Abs(exact[s.Node]-s.Score), got.ScoreErrs[j]+1e-12, "case %d: score bound of node %d", i, s.Node)
			if j+1 < len(got.TopK) && got.Leads[j] > 0 {
				require.LessOrEqualf(t, got.Leads[j], exact[s.Node]-exact[got.TopK[j+1].Node]+1e-12, "case %d: lead %d above the exact one", i, j)
			}
		}
		switch {
		case got.Sweeps < plain.Sweeps:
			earlier++
		case got.Sweeps > plain.Sweeps:
			later++
		}
	}
	require.Positive(t, earlier, "visit bounds never proved a selection earlier")
	require.Positive(t, byVisits, "no selection was proved by the per-node bound alone below the L1 bound")
	t.Logf("%d directed cases: %d certified (%d by the per-node bound alone below the L1 bound); %d proved earlier, %d later (checks fall on other sweeps)", cases, certified, byVisits, earlier, later)
}

// Per-node bounds made too tight are caught: with the per-node terms of
// the visit bounds 100x too small (the L1 bound left as it is), some selection certified with visit bounds contradicts the
// exact solve.
func TestSolveTopKVisitBoundsTooTightFails(t *testing.T) {
	t.Parallel()
	tight := tuned(func(t *tuning) { t.visitScale = 0.01 })
	rng := rand.New(rand.NewPCG(79, 80))
	wrong := 0
	for range 3000 {
		c := newRandomCase(t, rng)
		if !c.g.Directed() {
			continue
		}
		vb, err := NewVisitBounds(c.auth, c.damping)
		require.NoError(t, err)
		k := 1 + rng.IntN(4)
		res, err := SolveTopK(c.auth, c.seeds, c.damping, k, nil, Options{Tol: 1e-12, Visits: vb}.with(tight))
		require.NoError(t, err)
		if !res.Certified {
			continue
		}
		exact := exactPPR(t, c.auth, c.seeds, c.damping)
		g := exactGap(exact, res.TopK, nil)
		if !slicesEqual(nodeSet(TopK(exact, k, nil, nil)), nodeSet(res.TopK)) || res.ProvedGap > g+1e-12 {
			wrong++
		}
	}
	require.Positive(t, wrong, "per-node bounds 100x too tight went unnoticed")
	t.Logf("per-node bounds 100x too tight: %d certified cases contradicted", wrong)
}

func slicesEqual(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// On a periodic graph (a directed 2-cycle fed by one node and leaking to
// another) the construction still ends after a few pulls, at high damping
// too, and brackets the truth (through either of visitUpdate's
// candidates).
func TestVisitBoundsPeriodic(t *testing.T) {
	t.Parallel()
	b := csr.NewBuilder(true)
	for _, e := range [][2]string{{"a", "b"}, {"b", "a"}, {"c", "a"}, {"b", "d"}} {
		_, err := b.AddEdge(csr.Input{Src: e[0], Dst: e[1], Weight: 1})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	view := mask.Full(g)
	seeds, err := NewSeeds(g.NumNodes(), []Seed{{Node: 0, Weight: 1}})
	require.NoError(t, err)
	for _, d := range []float64{0.5, 0.85, 0.99} {
		vb, err := NewVisitBounds(view, d)
		require.NoError(t, err)
		require.Less(t, vb.Pulls, 2000, "d = %g", d)
		M := denseM0(t, view, seeds, d)
		for u := range g.NumNodes() {
			G := 0.0
			for w := range g.NumNodes() {
				G += M.At(w, u)
			}
			v, dg := vb.at(uint32(u))
			require.GreaterOrEqual(t, v, G*(1-1e-12))
			require.LessOrEqual(t, v, G*(1+vb.Loose)*(1+1e-6))
			require.GreaterOrEqual(t, dg, M.At(u, u)*(1-1e-12))
		}
		t.Logf("d = %g: %d pulls, within %.3g", d, vb.Pulls, vb.Loose)
	}
}
