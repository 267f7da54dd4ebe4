package replay

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// scenario is a random graph with labels, a trust policy and queries.
type scenario struct {
	g      *csr.Graph
	labels *mask.Labels
	trust  mask.Policy
}

// randomScenario makes a graph of n nodes where a share of edges comes from
// untrusted channels, some trusted edges are deleted by an untrusted
// channel, and weights vary.
func randomScenario(t testing.TB, rng *rand.Rand, n int, directed bool, untrusted float64) scenario {
	t.Helper()
	b := csr.NewBuilder(directed)
	for u := range n {
		_, err := b.AddNode(fmt.Sprint("v", u))
		require.NoError(t, err)
	}
	m := n * (1 + rng.IntN(4))
	for range m {
		ch := "trusted"
		if rng.Float64() < untrusted {
			ch = []string{"peer", "bot"}[rng.IntN(2)]
		}
		w := 1.0
		if rng.IntN(3) == 0 {
			w = 0.1 + 2*rng.Float64()
		}
		// Preferential endpoints make hubs, as in real memory graphs.
		src := rng.IntN(n)
		dst := rng.IntN(1 + rng.IntN(n))
		_, err := b.AddEdge(csr.Input{Src: fmt.Sprint("v", src), Dst: fmt.Sprint("v", dst), Weight: w, Channel: ch})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	labels := mask.FromGraph(g)
	for range rng.IntN(3) {
		require.NoError(t, labels.Delete("peer", uint32(rng.IntN(g.NumEdges()))))
	}
	return scenario{g: g, labels: labels, trust: mask.Trust("trusted")}
}

func randomQuery(rng *rand.Rand, n int) Query {
	q := Query{K: 1 + rng.IntN(5), Damping: []float64{0.5, 0.85, 0.3}[rng.IntN(3)]}
	for range 1 + rng.IntN(3) {
		q.Seeds = append(q.Seeds, ppr.Seed{Node: uint32(rng.IntN(n)), Weight: 0.5 + rng.Float64()})
	}
	if rng.IntN(2) == 0 {
		for _, v := range rng.Perm(n)[:1+rng.IntN(n)] {
			q.Candidates = append(q.Candidates, uint32(v))
		}
	}
	return q
}

// checkAgainstReference asserts the guard's decision is the reference's.
func checkAgainstReference(t *testing.T, sc scenario, q Query, opt Options, d *Decision) {
	t.Helper()
	ref, err := Reference(sc.g, sc.labels, sc.trust, q, opt)
	require.NoError(t, err)
	tie := opt.TieTol
	if tie == 0 {
		tie = 10 * ppr.DefaultTol
	}
	_, err = ref.Check(d, q, tie)
	require.NoError(t, err)
}

func TestGuardMatchesReferenceOnEveryPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cases := 150
	if testing.Short() {
		cases = 40
	}
	outcomes := map[Path]map[Outcome]int{}
	refined := 0
	for i := range cases {
		sc := randomScenario(t, rng, 5+rng.IntN(60), rng.IntN(2) == 0, []float64{0.01, 0.1, 0.3}[rng.IntN(3)])
		for range 4 {
			q := randomQuery(rng, sc.g.NumNodes())
			for _, force := range []Path{PathAuto, PathDelta, PathFull} {
				opt := Options{Force: force}
				if rng.IntN(4) == 0 {
					opt.TieTol = 1e-6 // a coarse band makes ties common
				}
				if rng.IntN(4) == 0 {
					opt.DeltaBudget = 1 + int64(rng.IntN(20)) // force hand-overs to full
				}
				gd, err := New(sc.g, sc.labels, sc.trust, opt)
				require.NoError(t, err)
				d, err := gd.Select(q)
				require.NoErrorf(t, err, "case %d", i)
				if force != PathAuto {
					require.GreaterOrEqualf(t, d.Path, force, "forced %s, decided by %s", force, d.Path)
				}
				checkAgainstReference(t, sc, q, opt, d)
				if d.Refined > 0 {
					refined++
				}
				if outcomes[d.Path] == nil {
					outcomes[d.Path] = map[Outcome]int{}
				}
				outcomes[d.Path][d.Outcome]++
			}
		}
	}
	t.Logf("path/outcome mix: %v; %d decided by reverse-refined bounds", outcomes, refined)
	require.Positive(t, refined, "no decision used reverse refinement")
	for _, p := range []Path{PathCertificate, PathDelta, PathFull} {
		require.NotEmptyf(t, outcomes[p], "path %s never decided", p)
	}
	require.Positive(t, outcomes[PathDelta][Divergent]+outcomes[PathFull][Divergent], "no divergence seen")
	require.Positive(t, outcomes[PathFull][Tie]+outcomes[PathDelta][Tie]+outcomes[PathCertificate][Tie], "no tie seen")
}

// The L1 certificate: ||pi_G - pi_A||_1 <= (d/alpha) * sum_u pi_G(u)*l_u,
// checked against tight solves; the tightness is logged.
func TestCertificateBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	worst, sumRatio, count := 0.0, 0.0, 0
	for range 300 {
		sc := randomScenario(t, rng, 3+rng.IntN(40), rng.IntN(2) == 0, 0.2)
		native, err := mask.Native(sc.g, sc.labels)
		require.NoError(t, err)
		auth, err := mask.Authenticated(sc.g, sc.labels, sc.trust)
		require.NoError(t, err)
		rows := touchedRows(native, auth)
		touched, rowDiff := rows.nodes, rows.rowDiff
		q := randomQuery(rng, sc.g.NumNodes())
		seeds, err := ppr.NewSeeds(sc.g.NumNodes(), q.Seeds)
		require.NoError(t, err)
		pg, err := ppr.Solve(native, seeds, q.Damping, ppr.Options{Tol: 1e-15})
		require.NoError(t, err)
		pa, err := ppr.Solve(auth, seeds, q.Damping, ppr.Options{Tol: 1e-15})
		require.NoError(t, err)
		B := 0.0
		for i, u := range touched {
			B += pg.Scores[u] * rowDiff[i]
		}
		bound := q.Damping / (1 - q.Damping) * B
		diff := 0.0
		for v := range pg.Scores {
			diff += math.Abs(pg.Scores[v] - pa.Scores[v])
		}
		require.LessOrEqual(t, diff, bound+1e-13)
		if bound > 0 {
			sumRatio += diff / bound
			count++
			worst = max(worst, diff/bound)
		}
	}
	t.Logf("certificate tightness ||pi_G-pi_A||_1 / B: mean %.3f, max %.3f over %d cases", sumRatio/float64(count), worst, count)
}

// The per-coordinate bound on undirected graphs: for r on nodes with
// out-weight, |(r*(I-dP)^-1)(v)| <= W(v)/alpha * max_u |r(u)|/W(u).
func TestPerCoordinateBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	tightest := 0.0
	for range 300 {
		sc := randomScenario(t, rng, 3+rng.IntN(30), false, 0.3)
		auth, err := mask.Authenticated(sc.g, sc.labels, sc.trust)
		require.NoError(t, err)
		n := sc.g.NumNodes()
		d := []float64{0.5, 0.85, 0.95}[rng.IntN(3)]
		w := auth.OutWeights()
		// r(I - dP)^-1 = sum_t r (dP)^t, summed to convergence by pushes:
		// an engine started at x = 0 with residual r converges to it when
		// the alpha*s term is absent, which an all-zero-seed view of the
		// identity gives: use a sweep loop on our own dense P instead.
		r := make([]float64, n)
		maxRatio := 0.0
		for u := range n {
			if w[u] > 0 && rng.IntN(2) == 0 {
				r[u] = rng.Float64()*2 - 1
				maxRatio = max(maxRatio, math.Abs(r[u])/w[u])
			}
		}
		y := applyResolvent(auth, r, d)
		for v := range n {
			bound := w[v] / (1 - d) * maxRatio
			require.LessOrEqualf(t, math.Abs(y[v]), bound+1e-12, "node %d", v)
			if bound > 0 {
				tightest = max(tightest, math.Abs(y[v])/bound)
			}
		}
	}
	t.Logf("per-coordinate bound: largest |y(v)|/bound seen %.3f", tightest)
}

// applyResolvent returns r*(I - d*P)^-1 for r supported on nodes with
// out-weight (so dangling rows never matter), by summing the series.
func applyResolvent(v *mask.View, r []float64, d float64) []float64 {
	g := v.Graph()
	out := g.Out()
	n := len(r)
	y := make([]float64, n)
	term := append([]float64(nil), r...)
	for range 5000 {
		next := make([]float64, n)
		norm := 0.0
		for u := range n {
			y[u] += term[u]
			wu := v.OutWeight(uint32(u))
			if wu == 0 || term[u] == 0 {
				continue
			}
			for p := out.Offsets[u]; p < out.Offsets[u+1]; p++ {
				if !v.MaskedEdge(out.Edge[p]) {
					next[out.Nbr[p]] += d * term[u] * out.Weight.At(p) / wu
				}
			}
		}
		for _, x := range next {
			norm += math.Abs(x)
		}
		term = next
		if norm < 1e-18 {
			break
		}
	}
	return y
}

// A tiny memory graph: one untrusted edge flips the answer, the guard
// catches it and names the edge and channel.
func TestWorkedExample(t *testing.T) {
	const memory = `# question entity q; passages p1..p3
q alice 1 default
q bob 1 default
alice p1 1 default
bob p2 1 default
alice p2 0.5 default
carol p3 1 default
bob carol 0.2 default
q p3 3 mallory
`
	g, err := csr.Read(strings.NewReader(memory), "memory", csr.ReadOptions{})
	require.NoError(t, err)
	labels := mask.FromGraph(g)
	gd, err := New(g, labels, mask.Trust("default"), Options{})
	require.NoError(t, err)
	id := func(name string) uint32 {
		v, ok := g.ID(name)
		require.True(t, ok)
		return v
	}
	q := Query{
		Seeds:      []ppr.Seed{{Node: id("q"), Weight: 1}},
		K:          1,
		Candidates: []uint32{id("p1"), id("p2"), id("p3")},
		Damping:    0.5,
	}
	d, err := gd.Select(q)
	require.NoError(t, err)
	require.Equal(t, id("p3"), d.Native[0].Node, "natively the untrusted edge wins")
	require.True(t, d.Divergent)
	require.Equal(t, Divergent, d.Outcome)
	require.Equal(t, id("p2"), d.Auth[0].Node, "authenticated, p2 wins")
	require.Equal(t, d.Auth, d.Selected, "reject policy hands over the authenticated selection")
	require.NotEmpty(t, d.Suspects)
	top := d.Suspects[0]
	require.Equal(t, []string{"mallory"}, top.Channels)
	require.ElementsMatch(t, []uint32{id("q"), id("p3")}, []uint32{top.Src, top.Dst})
	require.False(t, top.Deleted)
	require.Positive(t, top.Mass)

	// Report passes the native selection through, flagged.
	gd, err = New(g, labels, mask.Trust("default"), Options{OnDivergence: Report})
	require.NoError(t, err)
	d, err = gd.Select(q)
	require.NoError(t, err)
	require.True(t, d.Divergent)
	require.Equal(t, d.Native, d.Selected)

	// Escalate returns an error the caller must handle.
	gd, err = New(g, labels, mask.Trust("default"), Options{OnDivergence: Escalate})
	require.NoError(t, err)
	d, err = gd.Select(q)
	var div *DivergenceError
	require.True(t, errors.As(err, &div))
	require.Same(t, d, div.Decision)
	require.Contains(t, err.Error(), "diverges")
	require.Nil(t, d.Selected, "escalate refuses: it hands over no selection")
	require.NotEmpty(t, d.Native)
	require.NotEmpty(t, d.Auth)

	// Trusting mallory too, nothing is masked and the selection stands.
	gd, err = New(g, labels, mask.Trust("default", "mallory"), Options{})
	require.NoError(t, err)
	d, err = gd.Select(q)
	require.NoError(t, err)
	require.Equal(t, Same, d.Outcome)
	require.Equal(t, PathUntouched, d.Path)
}

// An untrusted channel deleting a trusted edge is undone by the replay and
// attributed as a deletion.
func TestUntrustedDeletionIsAttributed(t *testing.T) {
	const memory = `q a 1 default
q b 1 default
a p1 1 default
b p2 1 default
q p2 2 default
`
	g, err := csr.Read(strings.NewReader(memory), "memory", csr.ReadOptions{Directed: true})
	require.NoError(t, err)
	labels := mask.FromGraph(g)
	require.NoError(t, labels.Delete("mallory", 4)) // q -> p2: natively p1 and p2 tie, p1 wins by id
	gd, err := New(g, labels, mask.Trust("default"), Options{})
	require.NoError(t, err)
	p1, _ := g.ID("p1")
	p2, _ := g.ID("p2")
	q, _ := g.ID("q")
	d, err := gd.Select(Query{Seeds: []ppr.Seed{{Node: q, Weight: 1}}, K: 1, Candidates: []uint32{p1, p2}, Damping: 0.85})
	require.NoError(t, err)
	require.Equal(t, p1, d.Native[0].Node)
	require.True(t, d.Divergent)
	require.Equal(t, p2, d.Auth[0].Node)
	require.Equal(t, uint32(4), d.Suspects[0].Edge)
	require.True(t, d.Suspects[0].Deleted)
	require.Equal(t, []string{"mallory"}, d.Suspects[0].Channels)
}

// A clean graph (no untrusted writes) is never flagged, on any path.
func TestNoOverBlockingOnCleanGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for range 60 {
		sc := randomScenario(t, rng, 5+rng.IntN(50), rng.IntN(2) == 0, 0)
		sc.labels = mask.FromGraph(sc.g) // no deletions either
		for _, force := range []Path{PathAuto, PathDelta, PathFull} {
			gd, err := New(sc.g, sc.labels, sc.trust, Options{Force: force})
			require.NoError(t, err)
			require.Empty(t, gd.Touched())
			d, err := gd.Select(randomQuery(rng, sc.g.NumNodes()))
			require.NoError(t, err)
			require.False(t, d.Divergent)
			if force == PathAuto {
				require.Equal(t, PathUntouched, d.Path, "outcome %s gap %v", d.Outcome, d.Gap)
			}
		}
	}
}

func TestSelectRejectsBadQueries(t *testing.T) {
	sc := randomScenario(t, rand.New(rand.NewPCG(1, 1)), 10, true, 0.1)
	gd, err := New(sc.g, sc.labels, sc.trust, Options{})
	require.NoError(t, err)
	good := []ppr.Seed{{Node: 0, Weight: 1}}
	for name, q := range map[string]Query{
		"k zero":           {Seeds: good, K: 0, Damping: 0.5},
		"no seeds":         {K: 1, Damping: 0.5},
		"bad damping":      {Seeds: good, K: 1, Damping: 1},
		"empty candidates": {Seeds: good, K: 1, Damping: 0.5, Candidates: []uint32{}},
		"candidate range":  {Seeds: good, K: 1, Damping: 0.5, Candidates: []uint32{99}},
		"candidate repeat": {Seeds: good, K: 1, Damping: 0.5, Candidates: []uint32{1, 1}},
		"seed NaN":         {Seeds: []ppr.Seed{{Node: 0, Weight: math.NaN()}}, K: 1, Damping: 0.5},
	} {
		_, err := gd.Select(q)
		require.Errorf(t, err, name)
		require.Truef(t, strings.HasPrefix(err.Error(), "replay:"), "%s: %v", name, err)
		// Prepared, the query fails as it does unprepared: in Prepare, or
		// (a bad damping) in SelectPrepared.
		p, perr := Prepare(sc.g.NumNodes(), q)
		if perr == nil {
			_, perr = gd.SelectPrepared(p, nil, nil)
		}
		require.EqualErrorf(t, perr, err.Error(), name)
	}
	_, err = New(sc.g, sc.labels, sc.trust, Options{Force: PathCertificate})
	require.Error(t, err)
}

// A prepared query decides as the same query selected directly, its seeds
// in ppr's canonical form; a query prepared for another graph size, or
// none, is refused.
func TestSelectPreparedDecidesAsSelect(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	for i := range 40 {
		sc := randomScenario(t, rng, 5+rng.IntN(60), rng.IntN(2) == 0, []float64{0.01, 0.1, 0.3}[rng.IntN(3)])
		gd, err := New(sc.g, sc.labels, sc.trust, Options{})
		require.NoError(t, err)
		n := sc.g.NumNodes()
		q := randomQuery(rng, n)
		want, err := gd.Select(q)
		require.NoError(t, err)
		p, err := Prepare(n, q)
		require.NoError(t, err)
		seeds, err := ppr.NewSeeds(n, q.Seeds)
		require.NoError(t, err)
		require.Equal(t, seeds, p.Seeds())
		require.Equal(t, q, p.Query())
		got, err := gd.SelectPrepared(p, nil, nil)
		require.NoError(t, err)
		want.NativeTime, want.ReplayTime, got.NativeTime, got.ReplayTime = 0, 0, 0, 0
		require.Equalf(t, want, got, "case %d", i)

		other, err := Prepare(n+1, q)
		require.NoError(t, err)
		_, err = gd.SelectPrepared(other, nil, nil)
		require.ErrorContains(t, err, fmt.Sprintf("replay: query prepared for a graph of %d nodes, the guard's has %d", n+1, n))
	}
	sc := randomScenario(t, rng, 10, false, 0.1)
	gd, err := New(sc.g, sc.labels, sc.trust, Options{})
	require.NoError(t, err)
	_, err = gd.SelectPrepared(nil, nil, nil)
	require.EqualError(t, err, "replay: nil prepared query")
}

// A degree-reordered graph gives, by name, the decisions stream order gives:
// ties break by first-appearance rank, not by the new ids.
func TestReorderedGraphDecidesAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	names := func(g *csr.Graph, s []ppr.Scored) []string {
		out := make([]string, len(s))
		for i, x := range s {
			out[i] = g.Name(x.Node)
		}
		return out
	}
	for i := range 40 {
		sc := randomScenario(t, rng, 5+rng.IntN(40), rng.IntN(2) == 0, 0.2)
		rg, err := csr.Reorder(sc.g, csr.DegreeOrder)
		require.NoError(t, err)
		q := randomQuery(rng, sc.g.NumNodes())
		// The same query by name on the reordered graph.
		rq := Query{K: q.K, Damping: q.Damping}
		for _, s := range q.Seeds {
			id, _ := rg.ID(sc.g.Name(s.Node))
			rq.Seeds = append(rq.Seeds, ppr.Seed{Node: id, Weight: s.Weight})
		}
		for _, c := range q.Candidates {
			id, _ := rg.ID(sc.g.Name(c))
			rq.Candidates = append(rq.Candidates, id)
		}
		a, err := New(sc.g, sc.labels, sc.trust, Options{})
		require.NoError(t, err)
		b, err := New(rg, sc.labels, sc.trust, Options{}) // edge ids survive reordering
		require.NoError(t, err)
		da, err := a.Select(q)
		require.NoError(t, err)
		db, err := b.Select(rq)
		require.NoError(t, err)
		require.Equalf(t, names(sc.g, da.Native), names(rg, db.Native), "case %d: native", i)
		require.Equalf(t, da.Outcome, db.Outcome, "case %d: outcome", i)
		require.ElementsMatchf(t, names(sc.g, da.Auth), names(rg, db.Auth), "case %d: auth", i)
	}
}

// suspectsReference is suspects' plain form: every suspect built, sorted,
// cut (TestSuspectsMatchReference).
func (r *run) suspectsReference(mass map[uint32]suspectMass) []Suspect {
	gd := r.gd
	list := make([]Suspect, 0, len(mass))
	for e, m := range mass {
		src, dst, channels, deleters := gd.edges(e)
		s := Suspect{Edge: e, Src: src, Dst: dst, Mass: m.mass}
		if m.native {
			s.Channels = gd.untrusted(channels)
		} else {
			s.Deleted = true
			s.Channels = gd.untrusted(deleters)
		}
		list = append(list, s)
	}
	slices.SortFunc(list, func(a, b Suspect) int {
		if c := cmp.Compare(b.Mass, a.Mass); c != 0 {
			return c
		}
		return cmp.Compare(a.Edge, b.Edge)
	})
	return list[:min(len(list), gd.opt.MaxSuspects)]
}

// topSuspects (bounded insertion, channels looked up for the kept ones)
// returns what the plain build-sort-cut reference returns, on real
// decisions' masses and on masses with many ties.
func TestSuspectsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	checked := 0
	for i := range 60 {
		sc := randomScenario(t, rng, 5+rng.IntN(60), rng.IntN(2) == 0, 0.3)
		opt := Options{MaxSuspects: 1 + rng.IntN(8)}
		gd, err := New(sc.g, sc.labels, sc.trust, opt)
		require.NoError(t, err)
		q := randomQuery(rng, sc.g.NumNodes())
		seeds, err := validate(gd.native.NumNodes(), q)
		require.NoError(t, err)
		ws, _, err := gd.workspace(seeds, q.Damping, false)
		require.NoError(t, err)
		_, err = ws.nativeEng.SolveSweeps(ppr.Options{Tol: gd.opt.Tol})
		require.NoError(t, err)
		r := &run{gd: gd, ws: ws, q: q, seeds: seeds}
		ws.xTouched = ws.xTouched[:0]
		for _, u := range gd.touched.nodes {
			ws.xTouched = append(ws.xTouched, ws.nativeEng.X[u])
		}
		mass := r.suspectMasses()
		require.Equalf(t, r.suspectsReference(mass), r.topSuspects(mass), "case %d", i)
		// Ties: round the masses to a few values.
		for e, m := range mass {
			m.mass = math.Round(m.mass*4) / 4
			mass[e] = m
		}
		require.Equalf(t, r.suspectsReference(mass), r.topSuspects(mass), "case %d (ties)", i)
		if len(mass) > opt.MaxSuspects {
			checked++
		}
		gd.release(ws)
	}
	require.Positive(t, checked, "no case had more suspects than MaxSuspects")
}

// Guards sharing one Workspaces (a host's guards of successive versions)
// decide what guards with their own pools decide: a workspace moved from
// one guard's views to another's (larger or smaller) keeps nothing of the
// earlier graph or query.
func TestSharedWorkspacesDecideAlike(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	shared := &Workspaces{}
	moved := 0
	for i := range 60 {
		sc := randomScenario(t, rng, 5+rng.IntN(60), rng.IntN(2) == 0, []float64{0.01, 0.1, 0.3}[rng.IntN(3)])
		own, err := New(sc.g, sc.labels, sc.trust, Options{})
		require.NoError(t, err)
		pooled, err := New(sc.g, sc.labels, sc.trust, Options{Workspaces: shared})
		require.NoError(t, err)
		for range 3 {
			q := randomQuery(rng, sc.g.NumNodes())
			want, err := own.Select(q)
			require.NoError(t, err)
			if ws := shared.get(); ws != nil {
				if ws.nativeEng.View() != pooled.native {
					moved++
				}
				shared.put(ws)
			}
			got, err := pooled.Select(q)
			require.NoError(t, err)
			want.NativeTime, want.ReplayTime, got.NativeTime, got.ReplayTime = 0, 0, 0, 0
			require.Equalf(t, want, got, "case %d", i)
		}
	}
	require.Positive(t, moved, "no workspace moved between guards")
}

// A guard makes at construction what its first query would otherwise
// allocate and first touch (a workspace with its engines' refinement
// scratch, the views' inverse out-weights), so no query allocates an
// array of the graph's size, the first one included. Not parallel: it
// reads the process's allocation counter.
func TestFirstSelectAllocatesNoNodeArray(t *testing.T) {
	const n = 40000
	rng := rand.New(rand.NewPCG(91, 92))
	sc := randomScenario(t, rng, n, false, 0.05)
	gd, err := New(sc.g, sc.labels, sc.trust, Options{})
	require.NoError(t, err)
	q := Query{Seeds: []ppr.Seed{{Node: 1, Weight: 1}, {Node: 777, Weight: 1}}, K: 5, Damping: 0.5}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := gd.Select(q)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.NotEmpty(t, d.Native)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("the first query allocated %d bytes (%.2f per node), path %s, %d refined", got, float64(got)/n, d.Path, d.Refined)
	require.Less(t, got, uint64(8*n), "the first query allocated %d bytes: an array of the graph's size (8 bytes a node)", got)
}
