package ppr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
)

// The engine on a patched view (mask.WithDelta) must do, push for push and
// bit for bit, what it does on the materialised graph's view: same rows in
// the same order, same out-weights.

func patchedPair(t *testing.T, r *rand.Rand, directed bool) (patched, material *mask.View) {
	t.Helper()
	c, err := randgraph.NewDeltaCase(r, directed, 40)
	if err != nil {
		t.Fatal(err)
	}
	v, err := mask.WithDelta(c.Base, c.Delta)
	if err != nil {
		t.Fatal(err)
	}
	return v, c.Material
}

func randomSeeds(t *testing.T, r *rand.Rand, n int) Seeds {
	t.Helper()
	var ss []Seed
	for range 1 + r.IntN(3) {
		ss = append(ss, Seed{Node: uint32(r.IntN(n)), Weight: 0.5 + r.Float64()})
	}
	s, err := NewSeeds(n, ss)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPatchedViewPushesMatchMaterialized(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 300 {
		directed := trial%2 == 1
		pv, mv := patchedPair(t, r, directed)
		seeds := randomSeeds(t, r, pv.NumNodes())
		d := []float64{0.5, 0.85}[trial%2]
		a, err := NewEngine(pv, seeds, d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewEngine(mv, seeds, d)
		if err != nil {
			t.Fatal(err)
		}
		same := func(what string) {
			t.Helper()
			if !slices.Equal(a.X, b.X) || !slices.Equal(a.R, b.R) {
				t.Fatalf("trial %d (directed %v): %s: patched and materialised states differ", trial, directed, what)
			}
			if a.Stats.Pushes != b.Stats.Pushes {
				t.Fatalf("trial %d: %s: %d pushes, materialised %d", trial, what, a.Stats.Pushes, b.Stats.Pushes)
			}
		}
		a.PushScan(0)
		b.PushScan(0)
		same("scan")
		eps := 1e-3
		a.PushScan(eps)
		b.PushScan(eps)
		same("threshold scan")
		frontier := []uint32{seeds.Nodes[0], uint32(r.IntN(pv.NumNodes()))}
		a.PushRounds(1e-4, frontier, 0)
		b.PushRounds(1e-4, frontier, 0)
		same("rounds")
		a.pushUntil(1e-5, frontier, 0)
		b.pushUntil(1e-5, frontier, 0)
		same("FIFO pushes")
		a.pushNode(frontier[1], nil)
		b.pushNode(frontier[1], nil)
		same("one push")

		// A reverse push reads in-rows.
		target := uint32(r.IntN(pv.NumNodes()))
		ea := newReversePusher(pv.NumNodes()).push(pv, d, target, 1e-6, 1<<20)
		eb := newReversePusher(mv.NumNodes()).push(mv, d, target, 1e-6, 1<<20)
		if !slices.Equal(ea.Nodes, eb.Nodes) || !slices.Equal(ea.Q, eb.Q) || ea.MaxS != eb.MaxS {
			t.Fatalf("trial %d (directed %v): reverse push from %d differs", trial, directed, target)
		}

		// The reference reads rows through View.OutRow.
		xa, _ := referencePowerIteration(pv, seeds, d, 1e-12, 2000)
		xb, _ := referencePowerIteration(mv, seeds, d, 1e-12, 2000)
		if !slices.Equal(xa, xb) {
			t.Fatalf("trial %d: reference power iterations differ", trial)
		}
	}
}

func TestPatchedViewSolvesMatchMaterialized(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 14))
	for trial := range 200 {
		directed := trial%2 == 1
		pv, mv := patchedPair(t, r, directed)
		seeds := randomSeeds(t, r, pv.NumNodes())
		ra, err := Solve(pv, seeds, 0.85, Options{Tol: 1e-11})
		if err != nil {
			t.Fatal(err)
		}
		rb, err := Solve(mv, seeds, 0.85, Options{Tol: 1e-11})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ra.Scores, rb.Scores) || ra.Sweeps != rb.Sweeps {
			t.Fatalf("trial %d (directed %v): solves differ", trial, directed)
		}
		exact, _ := referencePowerIteration(mv, seeds, 0.85, 1e-14, 100000)
		l1 := 0.0
		for v := range exact {
			l1 += math.Abs(exact[v] - ra.Scores[v])
		}
		if l1 > ra.ErrorBound+1e-12 {
			t.Fatalf("trial %d: error %v over the bound %v", trial, l1, ra.ErrorBound)
		}
		k := 1 + r.IntN(4)
		ta, err := SolveTopK(pv, seeds, 0.5, k, nil, Options{Tol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		tb, err := SolveTopK(mv, seeds, 0.5, k, nil, Options{Tol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		// The proofs may differ: reverse refinement's allowance follows the
		// arcs read, and a replaced row lists only live arcs where the
		// materialised view reads masked ones too. Both must hold.
		if !slices.Equal(ta.TopK, tb.TopK) {
			t.Fatalf("trial %d (directed %v): certified top-%d differs: %v vs %v", trial, directed, k, ta.TopK, tb.TopK)
		}
		pi, _ := referencePowerIteration(mv, seeds, 0.5, 1e-15, 100000)
		if gap := exactGap(pi, ta.TopK, nil); ta.ProvedGap > gap+1e-12 {
			t.Fatalf("trial %d (directed %v): proved gap %v above the exact %v", trial, directed, ta.ProvedGap, gap)
		}
	}
}

func TestPatchedViewRefusesPulls(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 16))
	pv, _ := patchedPair(t, r, true)
	seeds := randomSeeds(t, r, pv.NumNodes())
	for _, opt := range []Options{{Order: Jacobi}, {Threads: 2}} {
		if _, err := Solve(pv, seeds, 0.85, opt); err == nil {
			t.Errorf("Solve with %+v on a patched view: no error", opt)
		}
	}
	if _, _, err := SolvePair(pv, pv, seeds, 0.85, Options{}); err == nil {
		t.Error("SolvePair on a patched view: no error")
	}
	if _, err := SolveBatch(pv, []Seeds{seeds}, 0.85, Options{}); err == nil {
		t.Error("SolveBatch on a patched view: no error")
	}
	if _, err := NewVisitBounds(pv, 0.85); err == nil {
		t.Error("NewVisitBounds on a patched view: no error")
	}
}

// An engine moved between views (Rebind: a living graph's versions, which
// grow and, for an older version, shrink) solves on each as a new engine
// does, bit for bit: nothing of an earlier view or query survives in its
// reused storage. Each engine goes smaller view, larger, smaller, larger
// again: storage grows, and storage dirtied by a longer use is grown into.
func TestRebindMatchesNewEngine(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	for trial := range 200 {
		directed := trial%2 == 1
		c, err := randgraph.NewDeltaCase(r, directed, 40)
		if err != nil {
			t.Fatal(err)
		}
		pv, err := mask.WithDelta(c.Base, c.Delta)
		if err != nil {
			t.Fatal(err)
		}
		seeds := randomSeeds(t, r, c.Base.NumNodes())
		d := []float64{0.5, 0.85}[trial%2]
		k := 1 + r.IntN(4)
		var rebound *Engine
		for step, view := range []*mask.View{c.Base, pv, c.Base, c.Material, pv} {
			fresh, err := NewEngine(view, seeds, d)
			if err != nil {
				t.Fatal(err)
			}
			if rebound == nil {
				if rebound, err = NewEngine(view, seeds, d); err != nil {
					t.Fatal(err)
				}
				rebound.Reserve() // as replay's workspaces do: no result may change
			} else {
				rebound.Rebind(view)
				rebound.Reserve()
				if err := rebound.Restart(seeds, d); err != nil {
					t.Fatal(err)
				}
			}
			want, err := fresh.SolveTopK(k, nil, Options{Tol: 1e-9})
			if err != nil {
				t.Fatal(err)
			}
			got, err := rebound.SolveTopK(k, nil, Options{Tol: 1e-9})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.TopK, want.TopK) || got.Gap != want.Gap || got.ProvedGap != want.ProvedGap ||
				got.ErrorBound != want.ErrorBound || got.Certified != want.Certified {
				t.Fatalf("trial %d step %d: rebound engine selects %v (gap %v, proved %v), a new one %v (gap %v, proved %v)",
					trial, step, got.TopK, got.Gap, got.ProvedGap, want.TopK, want.Gap, want.ProvedGap)
			}
			// The FIFO pushes' scratch too (SolveTopK need not use it).
			fresh.pushUntil(1e-12, seeds.Nodes, 0)
			rebound.pushUntil(1e-12, seeds.Nodes, 0)
			if !slices.Equal(rebound.X, fresh.X) || !slices.Equal(rebound.R, fresh.R) || rebound.Stats != fresh.Stats {
				t.Fatalf("trial %d step %d: rebound and new engines' states or work differ", trial, step)
			}
		}
	}
}

// A reverse push on a patched view reads the replaced in-rows and the
// graph's others under the mask, and makes the estimate the materialised
// view's push makes, bit for bit.
func TestPatchedViewReversePushesMatchMaterialized(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 14))
	for trial := range 300 {
		directed := trial%2 == 1
		pv, mv := patchedPair(t, r, directed)
		n := pv.NumNodes()
		d := []float64{0.5, 0.85}[trial%2]
		eps := []float64{0.1, 1e-3, 1e-6}[r.IntN(3)]
		target := uint32(r.IntN(n))
		a := newReversePusher(n).push(pv, d, target, eps, math.MaxInt64)
		b := newReversePusher(n).push(mv, d, target, eps, math.MaxInt64)
		if !slices.Equal(a.Nodes, b.Nodes) || !slices.Equal(a.Q, b.Q) || !slices.Equal(a.reached, b.reached) || !slices.Equal(a.s, b.s) || a.MaxS != b.MaxS || a.SW != b.SW || a.SD != b.SD {
			t.Fatalf("trial %d (directed %v, target %d, eps %v): patched estimate %+v, materialised %+v", trial, directed, target, eps, a, b)
		}
	}
}
