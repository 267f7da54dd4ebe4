package attack

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/bench"
	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

var smallMemory = bench.MemoryConfig{
	Entities: 1600, Passages: 400, MentionsMin: 3, MentionsMax: 9, Relations: 2, Synonyms: 0.2, Seed: 1,
}

// smallRun is one lab run on a small memory graph, shared by the tests
// that pin its qualitative results.
var smallRun = sync.OnceValues(func() (*Report, error) {
	m, err := GeneratedMemory(smallMemory)
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
	r, err := smallRun()
	require.NoError(t, err)
	s := selectorReport(t, r, "content")
	require.Zero(t, s.Reliance)
	for kind, curve := range s.SAdv {
		require.Equal(t, make([]float64, r.Budget), curve, kind)
	}
}

func TestFixedPoolNeverSelectsOutOfPool(t *testing.T) {
	r, err := smallRun()
	require.NoError(t, err)
	s := selectorReport(t, r, "fixed-pool")
	require.Positive(t, s.Evaluated)
	require.Zero(t, s.OutOfPool)
	require.Positive(t, s.InjQueries)
	require.Zero(t, s.SInj[r.Budget-1], "a passage outside the content pool never enters")

	// The strongest structural push there is: every out-of-pool candidate
	// linked to the centre (distance 1), every pool member cut off.
	m, err := GeneratedMemory(smallMemory)
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
		ag, base, err := attackGraph(m.Graph, writes, "peer")
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
	if testing.Short() {
		t.Skip("a second lab run")
	}
	want, err := smallRun()
	require.NoError(t, err)
	m, err := GeneratedMemory(smallMemory)
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
	m, err := GeneratedMemory(smallMemory)
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

// TestCleanStateIsTheCleanGraph: the attacked snapshot with no write
// applied gives the clean graph's PPR scores, and a merge moves the merged
// entity's edges.
func TestAttackedSnapshotViews(t *testing.T) {
	m, err := GeneratedMemory(smallMemory)
	require.NoError(t, err)
	qs, err := m.Queries(1, 5, 9)
	require.NoError(t, err)
	q := &qs[0]
	scores, err := HippoPPR.Scores(mask.Full(m.Graph), q)
	require.NoError(t, err)
	wr := newWriter(m.Graph, q, m.isCandidate, m.Entities, scores, 4, 1000, mask.Trust(csr.DefaultChannel))
	target := m.Passages[3]
	var writes []*Write
	for _, k := range Kinds {
		for _, w := range wr.propose(k, target, q.Candidates[:5]) {
			writes = append(writes, &w)
		}
	}
	require.NotEmpty(t, writes)
	ag, base, err := attackGraph(m.Graph, writes, "peer")
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
}

// TestPPRKeysSelectExactly: the early-stopping solve behind PPR.Keys selects
// what a full solve to 1e-13 selects.
func TestPPRKeysSelectExactly(t *testing.T) {
	m, err := GeneratedMemory(smallMemory)
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
