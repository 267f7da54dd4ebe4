package attack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/store"
)

var smallMemory = bench.MemoryConfig{
	Entities: 1600, Passages: 400, MentionsMin: 3, MentionsMax: 9, Relations: 2, Synonyms: 0.2, Seed: 1,
}

// generatedMemory generates a HippoRAG-like memory graph (bench.NewMemory)
// with every edge trusted, named as pprbench attack names it.
func generatedMemory(c bench.MemoryConfig) (*Memory, error) {
	c.UntrustedShare = 0
	bm, err := bench.NewMemory(c)
	if err != nil {
		return nil, err
	}
	return NewMemory(fmt.Sprintf("memory-%dk", (c.Entities+c.Passages)/1000), bm.Graph, bm.Passages)
}

// testRoles are the channels of DefaultConfig.
var testRoles = roles{attacker: "peer", merger: "resolver"}

// smallRun is one lab run on a small memory graph, shared by the tests
// that pin its qualitative results.
var smallRun = sync.OnceValues(func() (*Report, error) {
	m, err := generatedMemory(smallMemory)
	if err != nil {
		return nil, err
	}
	qs, err := m.Queries(12, 5, 1)
	if err != nil {
		return nil, err
	}
	c := DefaultConfig()
	c.Budget, c.PerStep = 3, 4
	return Run(m, qs, c)
})

func selectorReport(t *testing.T, r *Report, prefix string) SelectorReport {
	t.Helper()
	for _, s := range r.Selectors {
		if len(s.Name) >= len(prefix) && s.Name[:len(prefix)] == prefix {
			return s
		}
	}
	t.Fatalf("no selector %s in %v", prefix, r.Selectors)
	return SelectorReport{}
}

func TestPPRIsEvictableAtSmallBudgets(t *testing.T) {
	t.Parallel()
	r, err := smallRun()
	require.NoError(t, err)
	s := selectorReport(t, r, "ppr")
	require.Positive(t, s.SAdv["edge-insert"][0], "one inserted edge changes some PPR top-k")
	for _, kind := range Kinds {
		curve := s.SAdv[kind.String()]
		require.Len(t, curve, r.Budget)
		require.True(t, slices.IsSorted(curve), "S_adv(b) never falls with b: %v", curve)
	}
	require.Positive(t, s.Reliance)
	require.Positive(t, s.SInj[r.Budget-1], "edge insertion injects a mid-content passage into some PPR top-k")
}

func TestContentSelectorIgnoresStructure(t *testing.T) {
	t.Parallel()
	r, err := smallRun()
	require.NoError(t, err)
	s := selectorReport(t, r, "content")
	require.Zero(t, s.Reliance)
	for kind, curve := range s.SAdv {
		require.Equal(t, make([]float64, r.Budget), curve, kind)
	}
}

func TestFixedPoolNeverSelectsOutOfPool(t *testing.T) {
	t.Parallel()
	r, err := smallRun()
	require.NoError(t, err)
	s := selectorReport(t, r, "fixed-pool")
	require.Positive(t, s.Evaluated)
	require.Zero(t, s.OutOfPool)
	require.Positive(t, s.InjQueries)
	require.Zero(t, s.SInj[r.Budget-1], "a passage outside the content pool never enters")

	// The strongest structural push there is: every out-of-pool candidate
	// linked to the centre (distance 1), every pool member cut off.
	m, err := generatedMemory(smallMemory)
	require.NoError(t, err)
	qs, err := m.Queries(5, 5, 2)
	require.NoError(t, err)
	f := FixedPool{Pool: 8, MaxHops: 6}
	for _, q := range qs {
		in := f.InPool(&q)
		var writes []*Write
		for i, c := range q.Candidates {
			if !in[i] {
				writes = append(writes, &Write{Kind: EdgeInsert, Add: []Arc{{q.Centre(), c, 1}}})
			} else {
				writes = append(writes, &Write{Kind: Delete, Delete: incident(m.Graph, c)})
			}
		}
		ag, base, err := attackGraph(m.Graph, writes, testRoles)
		require.NoError(t, err)
		v, err := stateView(ag, base, writes)
		require.NoError(t, err)
		keys, err := f.Keys(v, &q)
		require.NoError(t, err)
		sel := Select(keys, &q)
		require.Len(t, sel, 5)
		for _, u := range sel {
			require.True(t, in[slices.Index(q.Candidates, u)], "query %s selected %d outside the pool", q.ID, u)
		}
	}
}

func incident(g *csr.Graph, u uint32) []uint32 {
	out := g.Out()
	lo, hi := out.Span(u)
	ids := slices.Clone(out.Edge[lo:hi])
	slices.Sort(ids)
	return slices.Compact(ids)
}

func TestGuardHasNoHarmAndProvenanceIsBlind(t *testing.T) {
	t.Parallel()
	r, err := smallRun()
	require.NoError(t, err)
	require.Equal(t, r.Queries, r.CleanQueries)
	require.Zero(t, r.CleanOverBlocking, "guard refused a selection on a graph with no untrusted write")
	seen := 0
	for _, d := range r.Defences {
		require.Zero(t, d.Guard, "%s: guard let a divergent selection through", d.Kind)
		require.Zero(t, d.FalseAlarms, d.Kind)
		require.Equal(t, d.D, d.Provenance, "%s: provenance-only defence must accept all of D", d.Kind)
		require.Equal(t, d.D, d.GuardRefused-d.FalseAlarms, d.Kind)
		seen += d.D
	}
	require.Positive(t, seen, "the attacks produced no divergence at all")
}

func TestLedger(t *testing.T) {
	t.Parallel()
	r, err := Ledger(DefaultLedger)
	require.NoError(t, err)
	require.Equal(t, 499, r.Transfers)
	require.Positive(t, r.NoDefence, "the untrusted write misdirects no transfer")
	require.Equal(t, r.NoDefence, r.Provenance, "every paid account is authenticated")
	require.Zero(t, r.Guard)
	require.Equal(t, r.NoDefence, r.GuardRefused)
	require.Zero(t, r.FalseAlarms)
	require.Zero(t, r.CleanMisdirected)
	require.Zero(t, r.CleanOverBlocking)
	again, err := Ledger(DefaultLedger)
	require.NoError(t, err)
	require.Equal(t, r, again, "fixed seeds give the same numbers")

	// A light write changes no transfer: the guard, which sees an untrusted
	// edge carrying mass, must still refuse nothing.
	light := DefaultLedger
	light.WriteWeight = 1
	r, err = Ledger(light)
	require.NoError(t, err)
	require.Zero(t, r.NoDefence)
	require.Zero(t, r.GuardRefused)
	require.Zero(t, r.Guard)
}

func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a second lab run")
	}
	want, err := smallRun()
	require.NoError(t, err)
	m, err := generatedMemory(smallMemory)
	require.NoError(t, err)
	qs, err := m.Queries(12, 5, 1)
	require.NoError(t, err)
	c := DefaultConfig()
	c.Budget, c.PerStep, c.Workers = 3, 4, 3
	got, err := Run(m, qs, c)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestTopMatchesRanking compares the partial selection with a full sort,
// with many ties, at awkward lengths.
func TestTopMatchesRanking(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 4, 5, 6, 7, 31, 200} {
		q := &Query{}
		keys := make([]float64, n)
		for i := range n {
			q.Candidates = append(q.Candidates, uint32(rng.IntN(10*n+1)))
			keys[i] = float64(rng.IntN(4))
			if rng.IntN(5) == 0 {
				keys[i] = math.Inf(-1)
			}
		}
		slices.Sort(q.Candidates)
		q.Candidates = slices.Compact(q.Candidates)
		rng.Shuffle(len(q.Candidates), func(a, b int) { q.Candidates[a], q.Candidates[b] = q.Candidates[b], q.Candidates[a] })
		keys = keys[:len(q.Candidates)]
		full := Ranking(keys, q)
		for _, m := range []int{0, 1, 4, 5, 6, n, n + 1} {
			require.Equal(t, full[:min(m, len(full))], Top(keys, q, m), "n=%d m=%d", n, m)
		}
	}
}

// TestHopDistances compares BFS over a masked view with a plain
// Bellman-Ford-style relaxation over the edge list.
func TestHopDistances(t *testing.T) {
	t.Parallel()
	m, err := generatedMemory(smallMemory)
	require.NoError(t, err)
	g := m.Graph
	rng := rand.New(rand.NewPCG(5, 6))
	masked := roaring.New()
	for e := range g.NumEdges() {
		if rng.IntN(4) == 0 {
			masked.Add(uint32(e))
		}
	}
	v, err := mask.FromMasked(g, "test", masked)
	require.NoError(t, err)
	for _, src := range []uint32{0, 7, uint32(g.NumNodes() - 1)} {
		got := HopDistances(v, src, 4)
		want := make([]int32, g.NumNodes())
		for i := range want {
			want[i] = -1
		}
		want[src] = 0
		for h := int32(1); h <= 4; h++ {
			next := slices.Clone(want)
			for e := range g.NumEdges() {
				if masked.Contains(uint32(e)) {
					continue
				}
				ed := g.Edge(uint32(e))
				for _, p := range [][2]uint32{{ed.Src, ed.Dst}, {ed.Dst, ed.Src}} {
					if want[p[0]] == h-1 && next[p[1]] < 0 {
						next[p[1]] = h
					}
				}
			}
			want = next
		}
		require.Equal(t, want, got, "source %d", src)
	}
}

// TestAttackedSnapshotViews: the attacked snapshot with no write
// applied gives the clean graph's PPR scores, and a merge moves the merged
// entity's edges.
func TestAttackedSnapshotViews(t *testing.T) {
	t.Parallel()
	m, err := generatedMemory(smallMemory)
	require.NoError(t, err)
	qs, err := m.Queries(1, 5, 9)
	require.NoError(t, err)
	q := &qs[0]
	scores, err := HippoPPR.Scores(mask.Full(m.Graph), q)
	require.NoError(t, err)
	wr := newWriter(m, q, scores, 4, 1000, mask.Trust(csr.DefaultChannel, testRoles.merger))
	target := m.Passages[3]
	var writes []*Write
	for _, k := range Kinds {
		for _, w := range wr.propose(k, target, q.Candidates[:5]) {
			writes = append(writes, &w)
		}
	}
	require.NotEmpty(t, writes)
	ag, base, err := attackGraph(m.Graph, writes, testRoles)
	require.NoError(t, err)
	clean, err := stateView(ag, base, nil)
	require.NoError(t, err)
	got, err := HippoPPR.Scores(clean, q)
	require.NoError(t, err)
	for u := range m.Graph.NumNodes() {
		require.InDelta(t, scores[u], got[u], 1e-12)
	}

	for _, w := range writes {
		if w.Kind != Merge {
			continue
		}
		v, err := stateView(ag, base, []*Write{w})
		require.NoError(t, err)
		f := m.Graph.Edge(w.Delete[0])
		merged := f.Src
		if !slices.Contains(wr.mentioned(target), merged) {
			merged = f.Dst
		}
		require.Zero(t, v.OutWeight(merged), "a merged entity keeps no edge")
		if len(w.Add) == 0 {
			continue
		}
		// Every edge of the merged entity reappears at the survivor, except
		// its self-loops and its edges to the survivor.
		require.Len(t, w.Add, len(w.Delete)-selfOrSurvivor(m.Graph, merged, w.Add[0].Src, w))
	}
}

// selfOrSurvivor counts the merged entity's edges that are not re-added: its
// self-loops and its edges to the surviving entity.
func selfOrSurvivor(g *csr.Graph, f, survivor uint32, w *Write) int {
	n := 0
	for _, e := range w.Delete {
		ed := g.Edge(e)
		other := ed.Dst
		if other == f {
			other = ed.Src
		}
		if other == f || other == survivor {
			n++
		}
	}
	return n
}

func TestQueryValidation(t *testing.T) {
	t.Parallel()
	base := Query{ID: "q", Entities: []uint32{0}, Candidates: []uint32{1, 2}, Content: []float64{0.1, 0.2}, K: 1}
	require.NoError(t, base.Validate(3))
	for name, mutate := range map[string]func(q *Query){
		"k":        func(q *Query) { q.K = 0 },
		"entities": func(q *Query) { q.Entities = nil },
		"content":  func(q *Query) { q.Content = []float64{0.1} },
		"range":    func(q *Query) { q.Candidates = []uint32{1, 7} },
		"repeat":   func(q *Query) { q.Candidates = []uint32{1, 1} },
		"score":    func(q *Query) { q.Content = []float64{1, 0.2} },
		"nan":      func(q *Query) { q.Content = []float64{math.NaN(), 0.2} },
		"entity":   func(q *Query) { q.Entities = []uint32{2} },
	} {
		q := base
		q.Entities, q.Candidates, q.Content = slices.Clone(base.Entities), slices.Clone(base.Candidates), slices.Clone(base.Content)
		mutate(&q)
		require.ErrorContains(t, q.Validate(3), "attack: query q", name)
	}
	_, err := ParseKind("nope")
	require.ErrorContains(t, err, "attack: unknown attack kind")
	for _, k := range Kinds {
		got, err := ParseKind(k.String())
		require.NoError(t, err)
		require.Equal(t, k, got)
	}
	c := DefaultConfig()
	c.Selectors = []Selector{Content{}}
	_, err = Run(&Memory{Graph: nil}, nil, c)
	require.ErrorContains(t, err, "guarded PPR selector")
	c = DefaultConfig()
	c.Merger = c.Attacker
	_, err = Run(&Memory{Graph: nil}, nil, c)
	require.ErrorContains(t, err, `differ from the trusted channel "default" and the merger "peer"`)
	c.Merger = ""
	_, err = Run(&Memory{Graph: nil}, nil, c)
	require.ErrorContains(t, err, `merger "": want both named`)
}

// TestPPRKeysSelectExactly: the early-stopping solve behind PPR.Keys selects
// what a full solve to 1e-13 selects.
func TestPPRKeysSelectExactly(t *testing.T) {
	t.Parallel()
	m, err := generatedMemory(smallMemory)
	require.NoError(t, err)
	qs, err := m.Queries(8, 5, 4)
	require.NoError(t, err)
	exact := HippoPPR
	exact.Tol = 1e-13
	for _, q := range qs {
		keys, err := HippoPPR.Keys(mask.Full(m.Graph), &q)
		require.NoError(t, err)
		scores, err := exact.Scores(mask.Full(m.Graph), &q)
		require.NoError(t, err)
		ref := make([]float64, len(q.Candidates))
		for i, c := range q.Candidates {
			ref[i] = scores[c]
			require.InDelta(t, ref[i], keys[i], 1e-3)
		}
		require.Equal(t, Select(ref, &q), Select(keys, &q), q.ID)
	}
}

// TestLaunderingNeedsMinInheritance: an untrusted edge routed through a
// trusted merge changes PPR selections; the guard, whose labels carry
// min-inheritance, refuses every laundered divergence, and the same guard
// on the same labels with the Require labels dropped sees no untrusted
// structure at all and lets every one through.
func TestLaunderingNeedsMinInheritance(t *testing.T) {
	t.Parallel()
	r, err := smallRun()
	require.NoError(t, err)
	require.Positive(t, selectorReport(t, r, "ppr").SAdv[Launder.String()][0], "one laundered edge changes some PPR top-k")
	require.Zero(t, r.CleanOverBlocking)
	seen := false
	for _, d := range r.Defences {
		if d.Kind != Launder.String() {
			// No trusted channel rewrote untrusted structure: min-inheritance
			// changes nothing.
			require.Equal(t, d.Guard, d.NoInheritance, d.Kind)
			require.Equal(t, d.GuardRefused, d.NoInheritanceRefused, d.Kind)
			continue
		}
		seen = true
		require.Positive(t, d.D, "no laundered divergence")
		require.Equal(t, d.D, d.NoDefence)
		require.Zero(t, d.Guard, "the guard let a laundered selection through")
		require.Zero(t, d.FalseAlarms)
		require.Equal(t, d.D, d.GuardRefused)
		require.Zero(t, d.NoInheritanceRefused, "without min-inheritance the views agree")
		require.Equal(t, d.NoDefence, d.NoInheritance, "without min-inheritance every laundered divergence passes")
	}
	require.True(t, seen, "no launder row in %v", r.Defences)
}

// TestLaunderLabelsAsTheStore: a laundering write applied to a store by its
// two writers (the attacker's edge, then the resolver's merge) gives the
// lab's native and authenticated views edge for edge, with min-inheritance
// and without it, and the rewired copy of the planted edge is the
// resolver's and requires the attacker in both.
func TestLaunderLabelsAsTheStore(t *testing.T) {
	t.Parallel()
	m, err := generatedMemory(smallMemory)
	require.NoError(t, err)
	g := m.Graph
	qs, err := m.Queries(1, 5, 9)
	require.NoError(t, err)
	q := &qs[0]
	scores, err := HippoPPR.Scores(mask.Full(g), q)
	require.NoError(t, err)
	trust := mask.Trust(csr.DefaultChannel, testRoles.merger)
	wr := newWriter(m, q, scores, 4, 1000, trust)
	target := m.Passages[3]
	// Spares with edges of their own too, so that the trusted half of the
	// merge rewires trusted structure.
	linked := slices.DeleteFunc(slices.Clone(m.spare), func(f uint32) bool { return g.OutWeight(f) == 0 })
	for s, spare := range [][]uint32{m.spare, linked} {
		wr.spare = spare
		writes := wr.propose(Launder, target, nil)
		require.Len(t, writes, 4)
		for i := range writes {
			w := &writes[i]
			require.Len(t, w.Plant, 1)
			if s == 1 {
				require.NotEmpty(t, w.from, "the merge rewires no trusted edge")
			}
			f, e := w.Plant[0].Src, w.Add[len(w.Add)-1].Src
			ag, _, err := attackGraph(g, []*Write{w}, testRoles)
			require.NoError(t, err)
			labels, err := labelsFor(ag, g.NumEdges(), []*Write{w}, testRoles)
			require.NoError(t, err)
			copyID := w.added[len(w.added)-1]
			require.Equal(t, []string{testRoles.merger}, labels.ChannelsOf(copyID))
			require.Equal(t, []string{testRoles.attacker}, labels.RequiresOf(copyID))

			st, err := store.New(g, nil, store.Options{})
			require.NoError(t, err)
			peer, err := st.Writer(testRoles.attacker)
			require.NoError(t, err)
			resolver, err := st.Writer(testRoles.merger)
			require.NoError(t, err)
			p := w.Plant[0]
			_, err = peer.Apply(store.Edge(g.Name(p.Src), g.Name(p.Dst), p.Weight))
			require.NoError(t, err)
			res, err := resolver.Apply(store.MergeInto(g.Name(f), g.Name(e)))
			require.NoError(t, err)
			require.Equal(t, len(w.Add), res.Rewired[0])
			v := st.Current()
			sg, sl, err := v.Materialize()
			require.NoError(t, err)
			// The merge's copies follow the base's edges of f, then the
			// planted (delta) edge: its copy is the last.
			info := v.Edge(res.IDs[0] + uint32(res.Rewired[0]) - 1)
			require.Equal(t, []string{g.Name(e), g.Name(p.Dst)}, []string{v.Name(info.Src), v.Name(info.Dst)})
			require.Equal(t, labels.ChannelsOf(copyID), info.AddedBy)
			require.Equal(t, labels.RequiresOf(copyID), info.Requires)
			bare, err := dropRequires(labels)
			require.NoError(t, err)
			storeBare, err := dropRequires(sl)
			require.NoError(t, err)
			var views [4]map[string]int // lab auth, lab auth without inheritance, and the store's
			for j, c := range []struct {
				g *csr.Graph
				l *mask.Labels
			}{{ag, labels}, {ag, bare}, {sg, sl}, {sg, storeBare}} {
				native, err := mask.Native(c.g, c.l)
				require.NoError(t, err)
				auth, err := mask.Authenticated(c.g, c.l, trust)
				require.NoError(t, err)
				if j%2 == 0 {
					require.Equal(t, liveEdges(c.g, native), liveEdges(ag, mustNative(t, ag, labels)), "native view, spare %d write %d", f, i)
				}
				views[j] = liveEdges(c.g, auth)
			}
			require.Equal(t, views[2], views[0], "authenticated view with min-inheritance, write %d", i)
			require.Equal(t, views[3], views[1], "authenticated view without min-inheritance, write %d", i)
			laundered := edgeKey(g.Name(e), g.Name(p.Dst), p.Weight)
			clean := liveEdges(g, mask.Full(g))[laundered] // e may link p.Dst already
			require.Equal(t, clean, views[0][laundered], "the rewired planted edge is authenticated: %s, write %d", laundered, i)
			require.Equal(t, clean+1, views[1][laundered], "without min-inheritance the merge launders %s, write %d", laundered, i)
		}
	}
}

func mustNative(t *testing.T, g *csr.Graph, l *mask.Labels) *mask.View {
	t.Helper()
	v, err := mask.Native(g, l)
	require.NoError(t, err)
	return v
}

// liveEdges counts the edges v keeps by endpoint names (either order) and
// weight.
func liveEdges(g *csr.Graph, v *mask.View) map[string]int {
	out := map[string]int{}
	for e := range uint32(g.NumEdges()) {
		if !v.MaskedEdge(e) {
			ed := g.Edge(e)
			out[edgeKey(g.Name(ed.Src), g.Name(ed.Dst), ed.Weight)]++
		}
	}
	return out
}

func edgeKey(a, b string, w float64) string {
	if b < a {
		a, b = b, a
	}
	return fmt.Sprintf("%s|%s|%v", a, b, w)
}
