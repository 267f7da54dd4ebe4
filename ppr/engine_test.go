package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/internal/reference"
	"github.com/authppr/authppr/mask"
)

// randomCase is a small random graph with random labels, an untrusted view
// and seeds, for property tests.
type randomCase struct {
	g       *csr.Graph
	native  *mask.View
	auth    *mask.View
	seeds   Seeds
	damping float64
}

// randomCandidates returns nil (every node competes) half the time, else
// a random non-empty subset of the n nodes in random order.
func randomCandidates(rng *rand.Rand, n int) []uint32 {
	if rng.IntN(2) != 0 {
		return nil
	}
	var cands []uint32
	for _, v := range rng.Perm(n)[:1+rng.IntN(n)] {
		cands = append(cands, uint32(v))
	}
	return cands
}

func newRandomCase(t testing.TB, rng *rand.Rand) randomCase {
	t.Helper()
	n := 1 + rng.IntN(30)
	m := rng.IntN(4 * n)
	b := csr.NewBuilder(rng.IntN(2) == 0)
	for u := range n {
		_, err := b.AddNode(fmt.Sprint("n", u))
		require.NoError(t, err)
	}
	channels := []string{"trusted", "peer", "bot"}
	for range m {
		w := 1.0
		switch rng.IntN(4) {
		case 0:
			w = rng.Float64() * 3
		case 1:
			w = 0
		}
		_, err := b.AddEdge(csr.Input{
			Src:     fmt.Sprint("n", rng.IntN(n)),
			Dst:     fmt.Sprint("n", rng.IntN(n)),
			Weight:  w,
			Channel: channels[rng.IntN(len(channels))],
		})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	labels := mask.FromGraph(g)
	// Untrusted deletions of a few edges.
	for range rng.IntN(3) {
		if g.NumEdges() > 0 {
			require.NoError(t, labels.Delete("peer", uint32(rng.IntN(g.NumEdges()))))
		}
	}
	native, auth := caseViews(t, g, labels)
	var raw []Seed
	for range 1 + rng.IntN(3) {
		raw = append(raw, Seed{Node: uint32(rng.IntN(n)), Weight: 0.1 + rng.Float64()})
	}
	seeds, err := NewSeeds(n, raw)
	require.NoError(t, err)
	damping := []float64{0, 0.5, 0.85, 0.99}[rng.IntN(4)]
	return randomCase{g, native, auth, seeds, damping}
}

// caseViews returns a case's native view and its authenticated view
// trusting the channel "trusted".
func caseViews(t testing.TB, g *csr.Graph, labels *mask.Labels) (native, auth *mask.View) {
	t.Helper()
	native, err := mask.Native(g, labels)
	require.NoError(t, err)
	auth, err = mask.Authenticated(g, labels, mask.Trust("trusted"))
	require.NoError(t, err)
	return native, auth
}

// denseP returns the view's transition matrix with dangling rows set to s.
func denseP(v *mask.View, s Seeds) *mat.Dense {
	g := v.Graph()
	n := g.NumNodes()
	P := mat.NewDense(n, n, nil)
	out := g.Out()
	dense := s.dense(n)
	for u := range n {
		wu := v.OutWeight(uint32(u))
		if wu == 0 {
			P.SetRow(u, dense)
			continue
		}
		for p := out.Offsets[u]; p < out.Offsets[u+1]; p++ {
			if !v.MaskedEdge(out.Edge[p]) {
				P.Set(u, int(out.Nbr[p]), P.At(u, int(out.Nbr[p]))+out.Weight.At(p)/wu)
			}
		}
	}
	return P
}

// exactPPR solves (I - d*P)^T pi = alpha*s with a dense LU factorisation.
func exactPPR(t testing.TB, v *mask.View, s Seeds, d float64) []float64 {
	t.Helper()
	n := v.Graph().NumNodes()
	P := denseP(v, s)
	A := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			id := 0.0
			if i == j {
				id = 1
			}
			A.Set(j, i, id-d*P.At(i, j)) // transposed
		}
	}
	rhs := mat.NewVecDense(n, s.dense(n))
	rhs.ScaleVec(1-d, rhs)
	var pi mat.VecDense
	require.NoError(t, pi.SolveVec(A, rhs))
	return pi.RawVector().Data
}

// residualOf returns alpha*s + d*x*P - x.
// dense returns the seeds as a vector of length n.
func (s Seeds) dense(n int) []float64 {
	v := make([]float64, n)
	for i, u := range s.Nodes {
		v[u] = s.Weights[i]
	}
	return v
}

// referencePowerIteration is reference.PowerIteration on a seed vector.
func referencePowerIteration(view *mask.View, s Seeds, damping, tol float64, maxIter int) ([]float64, int) {
	return reference.PowerIteration(view, s.Nodes, s.Weights, damping, tol, maxIter)
}

func residualOf(v *mask.View, s Seeds, d float64, x []float64) []float64 {
	n := len(x)
	P := denseP(v, s)
	r := s.dense(n)
	for j := range n {
		r[j] *= 1 - d
		for i := range n {
			r[j] += d * x[i] * P.At(i, j)
		}
		r[j] -= x[j]
	}
	return r
}

func l1Diff(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s
}

func TestSolveMatchesExactOnRandomGraphs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		c := newRandomCase(t, rng)
		for _, v := range []*mask.View{c.native, c.auth} {
			want := exactPPR(t, v, c.seeds, c.damping)
			res, err := Solve(v, c.seeds, c.damping, Options{Tol: 1e-12})
			require.NoError(t, err)
			diff := l1Diff(res.Scores, want)
			require.LessOrEqualf(t, diff, res.ErrorBound+1e-12, "case %d view %s: L1 error %g above reported bound %g", i, v.Name(), diff, res.ErrorBound)
			require.LessOrEqual(t, res.ErrorBound, 1e-12)

			ref, _ := referencePowerIteration(v, c.seeds, c.damping, 1e-13, 100000)
			require.LessOrEqualf(t, l1Diff(ref, want), 1e-12, "case %d view %s: reference power iteration", i, v.Name())
		}
	}
}

// Every push and sweep keeps r = alpha*s + d*x*P - x, from any start (x, r)
// with r consistent, signed entries included.
func TestEngineKeepsResidualIdentity(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		c := newRandomCase(t, rng)
		v := c.auth
		e, err := NewEngine(v, c.seeds, c.damping)
		require.NoError(t, err)
		n := c.g.NumNodes()
		// Arbitrary signed start x; r computed to match.
		for u := range n {
			e.X[u] = rng.Float64()*2 - 0.5
		}
		copy(e.R, residualOf(v, c.seeds, c.damping, e.X))
		for step := range 20 {
			switch rng.IntN(5) {
			case 0:
				e.jacobiSweep()
			case 1:
				e.pushSweep()
			case 2:
				e.PushScan([]float64{0, 1e-3, 1e-1}[rng.IntN(3)])
			default:
				e.pushNode(uint32(rng.IntN(n)), nil)
			}
			want := residualOf(v, c.seeds, c.damping, e.X)
			require.LessOrEqualf(t, l1Diff(e.R, want), 1e-10, "case %d step %d", i, step)
		}
	}
}

func TestSweepReturnsResidualL1(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		c := newRandomCase(t, rng)
		e, err := NewEngine(c.native, c.seeds, c.damping)
		require.NoError(t, err)
		for range 5 {
			got := e.jacobiSweep()
			require.InDelta(t, e.residualL1(), got, 1e-15)
		}
	}
}

func TestPushUntilReachesThreshold(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		c := newRandomCase(t, rng)
		v := c.auth
		e, err := NewEngine(v, c.seeds, c.damping)
		require.NoError(t, err)
		const eps = 1e-9
		require.True(t, e.pushUntil(eps, c.seeds.Nodes, 0))
		for u := range c.g.NumNodes() {
			require.Falsef(t, e.overThreshold(uint32(u), eps), "case %d node %d: r=%g W=%g", i, u, e.R[u], v.OutWeight(uint32(u)))
		}
		want := exactPPR(t, v, c.seeds, c.damping)
		require.LessOrEqual(t, l1Diff(e.X, want), e.errorBound()+1e-12)
	}
}

func TestPushUntilBudgetLeavesValidState(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100 {
		c := newRandomCase(t, rng)
		if c.damping == 0 {
			continue
		}
		e, err := NewEngine(c.native, c.seeds, c.damping)
		require.NoError(t, err)
		e.pushUntil(1e-12, c.seeds.Nodes, 3)
		want := residualOf(c.native, c.seeds, c.damping, e.X)
		require.LessOrEqual(t, l1Diff(e.R, want), 1e-12)
		// Finishing with sweeps from that state reaches the solution.
		res, err := e.SolveSweeps(Options{Tol: 1e-12})
		require.NoError(t, err)
		require.LessOrEqual(t, l1Diff(res.Scores, exactPPR(t, c.native, c.seeds, c.damping)), 1e-11)
	}
}

func TestSolveRejectsBadInput(t *testing.T) {
	t.Parallel()
	b := csr.NewBuilder(true)
	_, err := b.AddEdge(csr.Input{Src: "a", Dst: "b", Weight: 1})
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	v := mask.Full(g)
	seeds, err := NewSeeds(2, []Seed{{0, 1}})
	require.NoError(t, err)
	for _, d := range []float64{1, -0.1, math.NaN(), 2} {
		_, err := Solve(v, seeds, d, Options{})
		require.ErrorContains(t, err, "ppr: damping")
	}
	for _, tol := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := Solve(v, seeds, 0.85, Options{Tol: tol})
		require.ErrorContains(t, err, "ppr: tolerance")
	}
	_, err = Solve(v, seeds, 0.99, Options{Tol: 1e-12, MaxSweeps: 3})
	require.ErrorContains(t, err, "not reached")

	for name, raw := range map[string][]Seed{
		"no seeds":     nil,
		"out of range": {{5, 1}},
		"negative":     {{0, -1}},
		"NaN":          {{0, math.NaN()}},
		"Inf":          {{0, math.Inf(1)}},
		"all zero":     {{0, 0}, {1, 0}},
	} {
		_, err := NewSeeds(2, raw)
		require.Errorf(t, err, name)
		require.Containsf(t, err.Error(), "ppr:", name)
	}
}

func TestNewSeedsMergesAndNormalises(t *testing.T) {
	t.Parallel()
	s, err := NewSeeds(5, []Seed{{3, 1}, {1, 2}, {3, 1}, {4, 0}})
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 3}, s.Nodes)
	require.Equal(t, []float64{0.5, 0.5}, s.Weights)
}

func TestTopKMatchesSortReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		n := rng.IntN(60)
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = float64(rng.IntN(8)) / 8 // many ties
		}
		var cands []uint32
		if rng.IntN(2) == 0 {
			cands = []uint32{}
			for _, u := range rng.Perm(n)[:rng.IntN(n+1)] {
				cands = append(cands, uint32(u))
			}
		}
		k := rng.IntN(n + 3)
		want, got := topKReference(scores, k, cands), TopK(scores, k, cands, nil)
		require.Len(t, got, len(want))
		if len(want) > 0 {
			require.Equal(t, want, got)
		}
	}
	require.Nil(t, TopK([]float64{1, 2}, 0, nil, nil))
}

func TestPushUntilMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 300 {
		c := newRandomCase(t, rng)
		for _, keep := range []bool{false, true} {
			fast, err := NewEngine(c.auth, c.seeds, c.damping)
			require.NoError(t, err)
			ref, err := NewEngine(c.auth, c.seeds, c.damping)
			require.NoError(t, err)
			fast.keepDangling, ref.keepDangling = keep, keep
			fast.Support, ref.Support = nodeset.New(c.g.NumNodes()), nodeset.New(c.g.NumNodes())
			eps := []float64{1e-2, 1e-5, 1e-8}[rng.IntN(3)]
			budget := []int64{0, 5, 50}[rng.IntN(3)]
			doneFast := fast.pushUntil(eps, c.seeds.Nodes, budget)
			doneRef := ref.pushUntilReference(eps, c.seeds.Nodes, budget)
			require.Equalf(t, doneRef, doneFast, "case %d", i)
			require.Equalf(t, ref.X, fast.X, "case %d", i)
			require.Equalf(t, ref.R, fast.R, "case %d", i)
			require.Equal(t, ref.Stats, fast.Stats)
			require.Equal(t, ref.Support.AppendNodes(nil), fast.Support.AppendNodes(nil))
		}
	}
}

// PushRounds keeps the residual identity, leaves every reached node at or
// below its threshold, and converges to the solution like the FIFO.
func TestPushRoundsKeepsIdentity(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 18))
	for i := range 300 {
		c := newRandomCase(t, rng)
		v := c.auth
		e, err := NewEngine(v, c.seeds, c.damping)
		require.NoError(t, err)
		e.keepDangling = rng.IntN(3) == 0
		e.Support = nodeset.New(c.g.NumNodes())
		eps := []float64{1e-3, 1e-6, 1e-9}[rng.IntN(3)]
		budget := []int64{0, 0, 10}[rng.IntN(3)]
		done := e.PushRounds(eps, c.seeds.Nodes, budget)
		want := residualOf(v, c.seeds, c.damping, e.X)
		require.LessOrEqualf(t, l1Diff(e.R, want), 1e-10, "case %d", i)
		if budget == 0 {
			require.True(t, done)
			for u := range c.g.NumNodes() {
				require.Falsef(t, e.overThreshold(uint32(u), eps), "case %d node %d", i, u)
			}
		}
		// Every node whose state changed is in the support.
		for u := range c.g.NumNodes() {
			if e.X[u] != 0 || (e.R[u] != 0 && !slicesContains(c.seeds.Nodes, uint32(u))) {
				require.Truef(t, e.Support.Has(uint32(u)), "case %d node %d", i, u)
			}
		}
		if !e.keepDangling && c.damping > 0 {
			res, err := e.SolveSweeps(Options{Tol: 1e-12})
			require.NoError(t, err)
			require.LessOrEqual(t, l1Diff(res.Scores, exactPPR(t, v, c.seeds, c.damping)), 1e-11)
		}
	}
}

func slicesContains(s []uint32, v uint32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// normalizeMass keeps the residual identity, brings sum(x) to 1 and
// sum(r) to 0; Normalized solves reach their tolerance and the exact
// vector on every kind of view, from the native start and from warm starts.
func TestNormalizeMass(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	for i := range 300 {
		c := newRandomCase(t, rng)
		e, err := NewEngine(c.auth, c.seeds, c.damping)
		require.NoError(t, err)
		require.False(t, e.normalizeMass(), "case %d: x = 0 has no mass to scale", i)
		for range 1 + rng.IntN(3) {
			e.pushSweep()
		}
		require.True(t, e.normalizeMass())
		sumX, sumR := 0.0, 0.0
		for u := range e.X {
			sumX += e.X[u]
			sumR += e.R[u]
		}
		require.InDelta(t, 1, sumX, 1e-12, "case %d", i)
		require.InDelta(t, 0, sumR, 1e-12, "case %d", i)
		require.Less(t, l1Diff(residualOf(c.auth, c.seeds, c.damping, e.X), e.R), 1e-12, "case %d: identity", i)

		// A Normalized sweep tracks sum(x) from the mass its scan pushed and
		// sums ||r||_1 in its scaling pass: against the sums themselves.
		f, err := NewEngine(c.auth, c.seeds, c.damping)
		require.NoError(t, err)
		var nr normalizedRun
		for m := range 5 {
			l1 := f.sweep(Normalized, 1, &nr)
			if nr.fellBack {
				break
			}
			sumX := 0.0
			for _, v := range f.X {
				sumX += v
			}
			require.InDelta(t, 1, sumX, 1e-12, "case %d sweep %d", i, m)
			require.Equal(t, f.residualL1(), l1, "case %d sweep %d", i, m)
		}

		exact := exactPPR(t, c.auth, c.seeds, c.damping)
		for _, threads := range []int{1, 2} { // Gauss-Seidel scans, parallel Jacobi sweeps
			res, err := Solve(c.auth, c.seeds, c.damping, Options{Tol: 1e-12, Order: Normalized, Threads: threads})
			require.NoError(t, err)
			require.LessOrEqual(t, res.ErrorBound, 1e-12)
			require.Less(t, l1Diff(exact, res.Scores), 1e-10, "case %d: Normalized solve on %d threads", i, threads)
		}
	}
}

// Every order has its name (pprbench's --sweeps reads them back,
// TestParseOrder there), and one out of range says so.
func TestOrderString(t *testing.T) {
	t.Parallel()
	names := map[Order]string{defaultOrder: "default", GaussSeidel: "gauss-seidel", Jacobi: "jacobi", Normalized: "normalized"}
	for o := defaultOrder; o <= Normalized; o++ {
		require.Equal(t, names[o], o.String())
	}
	require.Equal(t, "Order(9)", Order(9).String())
}
