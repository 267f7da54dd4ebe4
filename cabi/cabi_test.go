//go:build cgo

package main

// The C ABI driven the way a C caller drives it (harness.go: C memory, calls
// through cgo into the exports).

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/internal/golden"
	"github.com/authppr/authppr/internal/version"
	"github.com/authppr/authppr/ppr"
)

// abiTol is the per-coordinate agreement asked of the C ABI against igraph
// PRPACK's golden vectors: the library solves to an L1 bound of 1e-12 here,
// and PRPACK is within 6e-12 of the exact vector on these graphs (see
// ppr/golden_test.go), so 1e-10 leaves room only for a wrong convention.
const abiTol = 1e-10

// TestGoldenThroughABI: every native golden case of ppr/testdata/golden
// (igraph PRPACK vectors), the graph passed through authppr_graph_create by
// ids, with weights and channels, and solved through authppr_ppr.
func TestGoldenThroughABI(t *testing.T) {
	paths, err := filepath.Glob("../ppr/testdata/golden/*.json.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	checked := 0
	for _, path := range paths {
		c, err := golden.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.View != "native" {
			continue // authenticated views are the guard's business, tested below
		}
		t.Run(c.Case, func(t *testing.T) {
			g := goldenGraph(t, c)
			n := g.NumNodes()
			ids := make([]int64, 2*g.NumEdges())
			w := make([]float64, g.NumEdges())
			chanOf := make([]int32, g.NumEdges())
			for e := range g.NumEdges() {
				ed := g.Edge(uint32(e))
				ids[2*e], ids[2*e+1], w[e], chanOf[e] = int64(ed.Src), int64(ed.Dst), ed.Weight, int32(csrHooks.EdgeChannels(g)[e])
			}
			width := 8
			if checked%2 == 1 {
				width = 4
			}
			h, e := cGraphCreate(int64(n), ids, width, w, c.Directed, chanOf, g.Channels())
			mustOK(t, e)
			defer cGraphFree(h)
			for _, q := range c.Queries {
				reset := make([]float64, n)
				for name, wt := range q.Seeds {
					u, ok := g.ID(name)
					if !ok {
						t.Fatalf("seed %q not in graph", name)
					}
					reset[u] += wt
				}
				x, stats, e := cPPR(h, reset, c.Damping, 1e-12, n, errCap)
				mustOK(t, e)
				if !(stats.ErrorBound <= 1e-12) {
					t.Fatalf("query %s: error bound %v", q.ID, stats.ErrorBound)
				}
				worst := 0.0
				for _, entry := range slices.Concat(q.Top, q.Coords) {
					id, score := entry.ID, entry.Score
					d := math.Abs(x[id] - score)
					if !(d <= abiTol) {
						t.Fatalf("query %s: node %v (id %d): %.17g, igraph %.17g", q.ID, entry.Name, id, x[id], score)
					}
					worst = max(worst, d)
				}
				// The default tolerance (1e-10, PRPACK's) is within its own bound.
				y, ystats, e := cPPR(h, reset, c.Damping, 0, n, errCap)
				mustOK(t, e)
				if l1 := l1Dist(x, y); !(l1 <= ystats.ErrorBound+1e-12) || !(ystats.ErrorBound <= 1e-10) {
					t.Fatalf("query %s: default tolerance: L1 distance %v, bound %v", q.ID, l1, ystats.ErrorBound)
				}
				t.Logf("query %s: max |ours - igraph| = %.2g", q.ID, worst)
			}
			checked++
		})
	}
	if checked < 2 {
		t.Fatalf("only %d golden cases checked", checked)
	}
}

func goldenGraph(t *testing.T, c golden.Case) *csr.Graph {
	t.Helper()
	path, real, err := golden.GraphPath(c, filepath.Join("..", "ppr", "testdata", "golden"), filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if real && testing.Short() {
		t.Skip("-short: the real graphs of testdata/ are left to the full run")
	}
	g, err := csr.ReadFile(path, csr.ReadOptions{Format: csr.Format(c.Format), Directed: c.Directed})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func l1Dist(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += math.Abs(x[i] - y[i])
	}
	return s
}

func mustOK(t *testing.T, e cErr) {
	t.Helper()
	if e.status != 0 || e.msg != "" {
		t.Fatalf("status %d, message %q", e.status, e.msg)
	}
}

func wantErr(t *testing.T, what string, e cErr, status int, prefix string) {
	t.Helper()
	if e.status != status || !strings.HasPrefix(e.msg, prefix) {
		t.Errorf("%s: status %d %q, want %d and prefix %q", what, e.status, e.msg, status, prefix)
	}
}

// Isolated nodes exist (n past the largest id), parallel edges add up, and
// the output is written in full (cPPR fills it with NaN first).
func TestPPRIsolatedAndParallel(t *testing.T) {
	// 0 -> 1 twice (weights 1 and 2) and 0 -> 2 once (weight 3): row 0 is
	// half to 1, half to 2. Node 3 is isolated, node 1 and 2 dangling.
	h, e := cGraphCreate(4, []int64{0, 1, 0, 2, 0, 1}, 8, []float64{1, 3, 2}, true, nil, nil)
	mustOK(t, e)
	defer cGraphFree(h)
	n, m, directed, e := cGraphInfo(h)
	mustOK(t, e)
	if n != 4 || m != 3 || !directed {
		t.Fatalf("info %d %d %v", n, m, directed)
	}
	x, _, e := cPPR(h, []float64{2, 0, 0, 0}, 0.5, 1e-14, 4, errCap)
	mustOK(t, e)
	// Dangling mass returns to node 0: pi0 = a + d*(pi1+pi2), pi1 = pi2 = d*pi0/2,
	// so pi0 = a/(1-d^2) with a = 0.5: 2/3, pi1 = pi2 = 1/6, pi3 = 0.
	want := []float64{2.0 / 3, 1.0 / 6, 1.0 / 6, 0}
	for u := range want {
		if !(math.Abs(x[u]-want[u]) <= 1e-13) {
			t.Fatalf("node %d: %v, want %v (all: %v)", u, x[u], want[u], x)
		}
	}
}

// TestMemoryLimitThroughABI is issue 16's authppr.Graph(2**31, [(0, 1)]),
// which allocated O(n) until the interpreter was killed: refused before
// allocating, naming n, the estimate and the limit (max_memory, or the
// default: half the memory available); within the limit a graph builds,
// and a negative limit is none.
func TestMemoryLimitThroughABI(t *testing.T) {
	need := csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().FromIDsBytes(1<<31, 1)
	wantErr(t, "2^31 nodes, 1 GiB", second(cGraphCreateLimited(1<<31, []int64{0, 1}, 8, nil, true, nil, nil, 1<<30)), 1,
		"csr: a graph of 2147483648 nodes and 1 edges needs about 136.0 GiB")
	_, e := cGraphCreateLimited(1<<31, []int64{0, 1}, 8, nil, true, nil, nil, 1<<30)
	if !strings.Contains(e.msg, "over the memory limit of 1.0 GiB (1073741824 bytes; the limit set)") {
		t.Fatalf("message %q does not name the limit", e.msg)
	}
	if csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().DefaultMaxMemory() < need {
		wantErr(t, "2^31 nodes, default limit", second(cGraphCreate(1<<31, []int64{0, 1}, 8, nil, false, nil, nil)), 1,
			"csr: a graph of 2147483648 nodes and 1 edges needs about")
	}
	small := csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().FromIDsBytes(3, 2)
	wantErr(t, "one byte short", second(cGraphCreateLimited(3, []int64{0, 1, 1, 2}, 8, nil, true, nil, nil, small-1)), 1,
		"csr: a graph of 3 nodes and 2 edges needs about")
	for _, limit := range []int64{small, -1} {
		h, e := cGraphCreateLimited(3, []int64{0, 1, 1, 2}, 8, nil, true, nil, nil, limit)
		mustOK(t, e)
		mustOK(t, cGraphFree(h))
	}
}

func TestErrorsThroughABI(t *testing.T) {
	h, e := cGraphCreate(3, []int64{0, 1, 1, 2}, 8, nil, false, nil, nil)
	mustOK(t, e)
	wantErr(t, "id out of range", second(cGraphCreate(3, []int64{0, 3}, 8, nil, false, nil, nil)), 1, "csr: edge 0: node 0 -> 3 out of range")
	wantErr(t, "negative 32-bit id", second(cGraphCreate(3, []int64{-1, 0}, 4, nil, false, nil, nil)), 1, "csr: edge 0: node -1 -> 0 out of range")
	wantErr(t, "unsigned 32-bit id", second(cGraphCreate(3, []int64{0, 1, math.MaxUint32, 0}, -4, nil, false, nil, nil)), 1, "csr: edge 1: node 4294967295 -> 0 out of range")
	wantErr(t, "unsigned 64-bit id", second(cGraphCreate(3, []int64{-1, 0}, -8, nil, false, nil, nil)), 1, "csr: edge 0: node 18446744073709551615 -> 0 out of range")
	wantErr(t, "id width", second(cGraphCreate(3, []int64{0, 1}, 2, nil, false, nil, nil)), 1, "cabi: node ids 2 bytes wide")
	wantErr(t, "NaN weight", second(cGraphCreate(3, []int64{0, 1}, 8, []float64{math.NaN()}, false, nil, nil)), 1, "csr: edge 0 (0 -> 1): weight NaN")
	wantErr(t, "zero nodes", second(cGraphCreate(0, nil, 8, nil, false, nil, nil)), 1, "cabi: n = 0 nodes")
	wantErr(t, "weights whose sum overflows", second(cGraphCreate(3, []int64{0, 1, 0, 2}, 8, []float64{1e308, 1e308}, false, nil, nil)), 1,
		"csr: edge 0 (0 -> 1): weight 1e+308 above 2^988")
	wantErr(t, "subnormal weight", second(cGraphCreate(3, []int64{0, 1}, 8, []float64{1e-320}, false, nil, nil)), 1,
		"csr: edge 0 (0 -> 1): weight 1e-320 below 2^-1022")

	_, _, e = cPPR(h, []float64{0, 0, 0}, 0.85, 0, 3, errCap)
	wantErr(t, "all-zero reset", e, 1, "cabi: reset sums to 0")
	_, _, e = cPPR(h, []float64{1, 0}, 0.85, 0, 3, errCap)
	wantErr(t, "short reset", e, 1, "cabi: reset has 2 entries, graph has 3 nodes")
	_, _, e = cPPR(h, []float64{1, 0, 0}, 0.85, 0, 2, errCap)
	wantErr(t, "short output", e, 1, "cabi: output has room for 2 scores")
	_, _, e = cPPR(h, []float64{1, 0, 0}, 1, 0, 3, errCap)
	wantErr(t, "damping 1", e, 1, "ppr: damping 1")
	_, _, e = cPPR(h, []float64{1, 0, 0}, 0.85, -1, 3, errCap)
	wantErr(t, "negative tolerance", e, 1, "ppr: tolerance -1")

	// Truncation: 8 bytes hold 7 characters and the NUL; no buffer at all
	// still gives the status.
	_, _, e = cPPR(h, []float64{0, 0, 0}, 0.85, 0, 3, 8)
	if e.status != 1 || e.msg != "cabi: r" {
		t.Errorf("truncated message: %d %q", e.status, e.msg)
	}
	_, _, e = cPPR(h, []float64{0, 0, 0}, 0.85, 0, 3, 0)
	if e.status != 1 {
		t.Errorf("no error buffer: status %d", e.status)
	}

	// Handles: freed, never created, wrong kind.
	mustOK(t, cGraphFree(h))
	wantErr(t, "double free", cGraphFree(h), 2, "cabi: free graph handle")
	_, _, e = cPPR(h, []float64{1, 0, 0}, 0.85, 0, 3, errCap)
	wantErr(t, "freed handle", e, 2, "cabi: graph handle")
	wantErr(t, "handle 0", second(cGuardCreate(0, []string{"default"}, 0)), 2, "cabi: graph handle 0: unknown")
	h2, e := cGraphCreate(2, []int64{0, 1}, 8, nil, false, nil, nil)
	mustOK(t, e)
	defer cGraphFree(h2)
	wantErr(t, "graph as guard", cGuardFree(h2), 2, "cabi: free guard handle")
	_, e = cGuardSelect(h2, []float64{1, 0}, 1, nil, 0.5, 5)
	wantErr(t, "graph as guard in select", e, 2, "cabi: guard handle")
}

func second[T any](_ T, e cErr) cErr { return e }

func TestPanicBecomesError(t *testing.T) {
	e := cCallPanicking("boom")
	if e.status != 3 || !strings.HasPrefix(e.msg, "cabi: internal error (please report): boom") {
		t.Fatalf("status %d %q", e.status, e.msg)
	}
	e = cCallPanicking(errors.New("x"))
	if e.status != 3 || !strings.HasPrefix(e.msg, "cabi: internal error (please report): x") {
		t.Fatalf("status %d %q", e.status, e.msg)
	}
}

func TestGuardThroughABI(t *testing.T) {
	ids, w, chanOf, names := workedExample(t)
	before := handles.live()
	h, e := cGraphCreate(7, ids, 8, w, false, chanOf, names)
	mustOK(t, e)
	gh, e := cGuardCreate(h, []string{"default"}, 0)
	mustOK(t, e)
	// The guard keeps the snapshot: freeing the graph first is safe.
	mustOK(t, cGraphFree(h))
	reset := []float64{1, 0, 0, 0, 0, 0, 0}
	d, e := cGuardSelect(gh, reset, 1, []int64{3, 4, 6}, 0.5, 5)
	mustOK(t, e)
	if !slices.Equal(d.Native, []int64{6}) || !slices.Equal(d.Auth, []int64{4}) || !d.Divergent || d.Outcome != 2 || d.Path < 1 || d.Path > 4 {
		t.Fatalf("decision %+v", d)
	}
	if len(d.Suspects) == 0 || d.Suspects[0].Edge != 7 || d.Suspects[0].Src != 0 || d.Suspects[0].Dst != 6 || !slices.Equal(d.Suspects[0].Channels, []int32{1}) || !(d.Suspects[0].Mass > 0) {
		t.Fatalf("suspects %+v", d.Suspects)
	}
	if !(d.GapHi < 0) || d.GapLo > d.GapHi {
		t.Fatalf("gap [%v, %v]", d.GapLo, d.GapHi)
	}
	// Trusting mallory too: nothing is masked, the native answer stands.
	h2, e := cGraphCreate(7, ids, 4, w, false, chanOf, names)
	mustOK(t, e)
	gh2, e := cGuardCreate(h2, []string{"default", "mallory"}, 0)
	mustOK(t, e)
	d, e = cGuardSelect(gh2, reset, 2, nil, 0.5, 5)
	mustOK(t, e)
	if !slices.Equal(d.Native, d.Auth) || d.Divergent || len(d.Suspects) != 0 || len(d.Native) != 2 || d.Native[0] != 0 {
		t.Fatalf("all trusted: %+v", d)
	}
	_, e = cGuardSelect(gh2, reset, 1, nil, 0.5, 4)
	wantErr(t, "suspect room", e, 1, "cabi: guard_select: room for 4 suspects, the guard names up to 5")
	_, e = cGuardSelect(gh2, reset, 0, nil, 0.5, 5)
	wantErr(t, "k = 0", e, 1, "cabi: k = 0")
	_, e = cGuardSelect(gh2, []float64{0, 0, 0, 0, 0, 0, 0}, 1, nil, 0.5, 5)
	wantErr(t, "zero reset", e, 1, "cabi: reset sums to 0")
	_, e = cGuardCreate(h2, []string{"mallroy"}, 0)
	wantErr(t, "unknown channel", e, 1, "mask: trusted channel(s) mallroy label no edge")
	for _, x := range []uint64{gh, gh2} {
		mustOK(t, cGuardFree(x))
	}
	mustOK(t, cGraphFree(h2))
	if after := handles.live(); after != before {
		t.Fatalf("%d handles live before, %d after", before, after)
	}
}

// Concurrent calls on one handle give the sequential answers.
func TestConcurrentCalls(t *testing.T) {
	const n = 500
	var ids []int64
	for u := range n {
		ids = append(ids, int64(u), int64((u*7+1)%n), int64(u), int64((u*13+5)%n))
	}
	h, e := cGraphCreate(n, ids, 8, nil, true, nil, nil)
	mustOK(t, e)
	defer cGraphFree(h)
	want := make([][]float64, 8)
	for i := range want {
		reset := make([]float64, n)
		reset[i*31] = 1
		want[i], _, e = cPPR(h, reset, 0.85, 0, n, errCap)
		mustOK(t, e)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				reset := make([]float64, n)
				reset[i*31] = 1
				x, _, e := cPPR(h, reset, 0.85, 0, n, errCap)
				if e.status != 0 || !slices.Equal(x, want[i]) {
					errs <- e.msg
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Errorf("concurrent call differs from the sequential one (%q)", msg)
	}
}

// authppr_top_k's argument errors, each with its status and message.
func TestTopKErrorsThroughABI(t *testing.T) {
	h, e := cGraphCreate(4, []int64{0, 1, 1, 2, 2, 3}, 8, nil, false, nil, nil)
	mustOK(t, e)
	reset := []float64{1, 0, 0, 0}
	cases := []struct {
		what    string
		reset   []float64
		k       int64
		cands   []int64
		damping float64
		tol     float64
		flags   int32
		prefix  string
	}{
		{"k 0", reset, 0, nil, 0.5, 0, 0, "cabi: k = 0, want 1 to"},
		{"k negative", reset, -3, nil, 0.5, 0, 0, "cabi: k = -3, want 1 to"},
		{"k too large", reset, math.MaxInt32 + 1, nil, 0.5, 0, 0, "cabi: k = 2147483648, want 1 to 2147483647"},
		{"candidate out of range", reset, 1, []int64{0, 4}, 0.5, 0, 0, "cabi: candidate 1: node 4 out of range (graph has 4 nodes)"},
		{"negative candidate", reset, 1, []int64{-1}, 0.5, 0, 0, "cabi: candidate 0: node -1 out of range"},
		{"repeated candidate", reset, 1, []int64{2, 3, 2}, 0.5, 0, 0, "cabi: candidate 2: node 2 repeats an earlier candidate"},
		{"empty candidate list", reset, 1, []int64{}, 0.5, 0, 0, "cabi: the candidate list is empty"},
		{"NaN reset", []float64{1, math.NaN(), 0, 0}, 1, nil, 0.5, 0, 0, "cabi: reset[1] = NaN, want finite and non-negative"},
		{"negative reset", []float64{1, 0, -1, 0}, 1, nil, 0.5, 0, 0, "cabi: reset[2] = -1"},
		{"all-zero reset", []float64{0, 0, 0, 0}, 1, nil, 0.5, 0, 0, "cabi: reset sums to 0"},
		{"short reset", []float64{1}, 1, nil, 0.5, 0, 0, "cabi: reset has 1 entries, graph has 4 nodes"},
		{"damping 1", reset, 1, nil, 1, 0, 0, "ppr: damping 1"},
		{"NaN tolerance", reset, 1, nil, 0.5, math.NaN(), 0, "ppr: tolerance NaN"},
		{"unknown flag", reset, 1, nil, 0.5, 0, 2, "cabi: top_k: flags = 2, want 0 or AUTHPPR_TOPK_ORDERED (1)"},
	}
	for _, c := range cases {
		_, e := cTopK(h, c.reset, c.k, c.cands, c.damping, c.tol, c.flags)
		wantErr(t, c.what, e, 1, c.prefix)
	}
	wantErr(t, "NULL stats", cTopKNullStats(h, reset), 1, "cabi: top_k: stats is NULL")
	// The marks of a rejected candidate list are cleared: the same
	// candidates, valid this time, are accepted.
	r, e := cTopK(h, reset, 1, []int64{2, 3}, 0.5, 0, 0)
	mustOK(t, e)
	if len(r.IDs) != 1 || r.IDs[0] != 2 {
		t.Errorf("after rejected lists: %v", r.IDs)
	}

	g, e := cGuardCreate(h, []string{"default"}, 0)
	mustOK(t, e)
	_, e = cTopK(g, reset, 1, nil, 0.5, 0, 0)
	wantErr(t, "guard as graph", e, 2, "cabi: graph handle")
	mustOK(t, cGuardFree(g))
	mustOK(t, cGraphFree(h))
	_, e = cTopK(h, reset, 1, nil, 0.5, 0, 0)
	wantErr(t, "freed handle", e, 2, "cabi: graph handle")
	_, e = cTopK(0, reset, 1, nil, 0.5, 0, 0)
	wantErr(t, "handle 0", e, 2, "cabi: graph handle 0: unknown")
}

// authppr_top_k against a near-exact solve (authppr_ppr at an L1 bound of
// 1e-14) on random graphs, directed and undirected, with and without
// candidates, dense and sparse resets: a certified set is the exact top-k,
// a proved order the exact order, every lead and score bound holds.
func TestTopKMatchesExactThroughABI(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const slack = 1e-13 // the reference solve's error
	certified, ordered, cut, scanned := 0, 0, 0, int64(0)
	for trial := range 120 {
		n := 2 + rng.IntN(60)
		m := rng.IntN(4 * n)
		ids := make([]int64, 2*m)
		w := make([]float64, m)
		for e := range m {
			ids[2*e], ids[2*e+1] = int64(rng.IntN(n)), int64(rng.IntN(n))
			w[e] = float64(1 + rng.IntN(3))
		}
		directed := trial%2 == 0
		h, e := cGraphCreate(int64(n), ids, 8, w, directed, nil, nil)
		mustOK(t, e)
		reset := make([]float64, n)
		if trial%3 == 0 { // HippoRAG-like: dense reset
			for u := range reset {
				reset[u] = rng.Float64() * 0.05
			}
		}
		reset[rng.IntN(n)] += 1
		d := []float64{0.5, 0.85}[trial%2]
		exact, _, e := cPPR(h, reset, d, 1e-14, n, errCap)
		mustOK(t, e)
		var cands []int64
		var cands32 []uint32
		if trial%4 >= 2 {
			for _, v := range rng.Perm(n)[:1+rng.IntN(n)] {
				cands = append(cands, int64(v))
				cands32 = append(cands32, uint32(v))
			}
		}
		k := 1 + rng.IntN(6)
		want := ppr.TopK(exact, k, cands32, nil)
		for _, flags := range []int32{0, 1} {
			r, e := cTopK(h, reset, int64(k), cands, d, 1e-12, flags)
			mustOK(t, e)
			if len(r.IDs) != len(want) {
				t.Fatalf("trial %d: %d entries, want %d", trial, len(r.IDs), len(want))
			}
			if r.Certified {
				certified++
				got, ws := slices.Clone(r.IDs), []int64{}
				for _, s := range want {
					ws = append(ws, int64(s.Node))
				}
				slices.Sort(got)
				slices.Sort(ws)
				if !slices.Equal(got, ws) {
					t.Fatalf("trial %d flags %d: certified %v, exact top-%d %v", trial, flags, r.IDs, k, want)
				}
			}
			if r.Certified && r.Ordered {
				ordered++
				for i, s := range want {
					if r.IDs[i] != int64(s.Node) {
						t.Fatalf("trial %d flags %d: proved order %v, exact %v", trial, flags, r.IDs, want)
					}
				}
			}
			if flags == 1 && !(r.Certified && r.Ordered) && !(r.ErrorBound <= 1e-12) {
				t.Fatalf("trial %d: ordered solve stopped unproved at error bound %v", trial, r.ErrorBound)
			}
			for i, v := range r.IDs {
				if x := exact[v]; !(x >= r.Scores[i]-slack && x <= r.Scores[i]+r.ScoreErrs[i]+slack) {
					t.Fatalf("trial %d: node %d exact %v outside [%v, %v + %v]", trial, v, x, r.Scores[i], r.Scores[i], r.ScoreErrs[i])
				}
				if i+1 < len(r.IDs) && r.Leads[i] > exact[v]-exact[r.IDs[i+1]]+slack {
					t.Fatalf("trial %d: lead %d = %v above the exact difference %v", trial, i, r.Leads[i], exact[v]-exact[r.IDs[i+1]])
				}
			}
			if r.Sweeps > 0 && r.ErrorBound > 1e-12 {
				cut++
			}
			if r.Scans < 0 || r.Scans > r.Sweeps || (directed && r.Scans != 0) || r.SolveNanos <= 0 {
				t.Fatalf("trial %d: %d scans of %d sweeps (directed %v), %d ns", trial, r.Scans, r.Sweeps, directed, r.SolveNanos)
			}
			scanned += r.Scans
		}
		mustOK(t, cGraphFree(h))
	}
	if certified == 0 || ordered == 0 || scanned == 0 {
		t.Fatalf("%d certified, %d ordered: the test proves nothing", certified, ordered)
	}
	t.Logf("240 solves: %d certified, %d ordered, %d stopped before the tolerance", certified, ordered, cut)
}

// Concurrent authppr_top_k calls on one handle give the sequential answers
// (the resident engine serves one, the pool the others).
func TestTopKConcurrentCalls(t *testing.T) {
	const n = 400
	var ids []int64
	for u := range n {
		ids = append(ids, int64(u), int64((u*7+1)%n), int64(u), int64((u*13+5)%n))
	}
	h, e := cGraphCreate(n, ids, 8, nil, false, nil, nil)
	mustOK(t, e)
	defer cGraphFree(h)
	cands := make([]int64, 0, n/2)
	for u := n / 2; u < n; u++ {
		cands = append(cands, int64(u))
	}
	resetFor := func(i int) []float64 {
		reset := make([]float64, n)
		reset[i*31] = 1
		reset[i*17+3] = 0.5
		return reset
	}
	want := make([]*topKResult, 8)
	for i := range want {
		want[i], e = cTopK(h, resetFor(i), 5, cands, 0.5, 0, 1)
		mustOK(t, e)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				r, e := cTopK(h, resetFor(i), 5, cands, 0.5, 0, 1)
				if e.status != 0 || !slices.Equal(r.IDs, want[i].IDs) || !slices.Equal(r.Scores, want[i].Scores) {
					errs <- e.msg
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Errorf("concurrent call differs from the sequential one (%q)", msg)
	}
}

// Min-inheritance through the ABI: an edge added by a trusted channel but
// requiring an untrusted one is masked like an untrusted edge, and the
// suspect names the required channels the guard does not trust.
func TestRequiresThroughABI(t *testing.T) {
	ids, w, _, _ := workedExample(t)
	chanOf := []int32{0, 0, 0, 0, 0, 0, 0, 0} // edge 7 added by "default"...
	names := []string{"default", "mallory", "eve"}
	reqOff := []int64{0, 0, 0, 0, 0, 0, 0, 0, 2} // ... requiring mallory and eve
	h, e := cGraphCreateFull(7, ids, 8, w, false, chanOf, names, reqOff, []int32{1, 2}, 0)
	mustOK(t, e)
	defer cGraphFree(h)
	reset := []float64{1, 0, 0, 0, 0, 0, 0}
	for _, c := range []struct {
		trust []string
		want  []int32 // suspect 0's channels; nil: no divergence
	}{
		{[]string{"default"}, []int32{2, 1}}, // sorted by name: eve, mallory
		{[]string{"default", "eve"}, []int32{1}},
		{[]string{"default", "mallory", "eve"}, nil},
	} {
		gh, e := cGuardCreate(h, c.trust, 0)
		mustOK(t, e)
		d, e := cGuardSelect(gh, reset, 1, []int64{3, 4, 6}, 0.5, 5)
		mustOK(t, e)
		if c.want == nil {
			if d.Divergent || len(d.Suspects) != 0 || d.Native[0] != 6 {
				t.Fatalf("trust %v: %+v", c.trust, d)
			}
		} else if !d.Divergent || d.Suspects[0].Edge != 7 || !slices.Equal(d.Suspects[0].Channels, c.want) {
			t.Fatalf("trust %v: %+v", c.trust, d)
		}
		if c.want != nil && len(c.want) > 1 {
			_, e = cGuardSelectChans(gh, reset, 1, []int64{3, 4, 6}, 0.5, 5, 1)
			wantErr(t, "room for suspect channels", e, 1, "cabi: guard_select: room for 1 suspect channels, the suspects name 2")
		}
		mustOK(t, cGuardFree(gh))
	}
	for _, c := range []struct {
		off  []int64
		ch   []int32
		want string
	}{
		{[]int64{1, 1, 1, 1, 1, 1, 1, 1, 1}, []int32{0}, "cabi: requirement offset 0 is 1, want 0"},
		{[]int64{0, 1, 0, 0, 0, 0, 0, 0, 0}, []int32{0}, "cabi: edge 1: requirement offsets 1 then 0, want non-decreasing"},
		{[]int64{0, 0, 0, 0, 0, 0, 0, 0, 1}, []int32{3}, "cabi: edge 7: required channel 3 out of range (3 channel names)"},
		{[]int64{0, 0, 0, 0, 0, 0, 0, 0, -1}, nil, "cabi: required channels length -1"},
		{nil, []int32{0}, "cabi: graph_create: required channels given without their offsets"},
	} {
		_, e := cGraphCreateFull(7, ids, 8, w, false, chanOf, names, c.off, c.ch, 0)
		wantErr(t, c.want, e, 1, c.want)
	}
}

func TestVersionThroughABI(t *testing.T) {
	v, e := cVersion(64)
	mustOK(t, e)
	if v != version.Version {
		t.Fatalf("authppr_version %q, want %q", v, version.Version)
	}
	v, e = cVersion(2)
	mustOK(t, e)
	if v != version.Version[:1] {
		t.Fatalf("truncated to 2 bytes: %q", v)
	}
	_, e = cVersion(0)
	wantErr(t, "no room", e, 1, "cabi: version: buffer NULL or capacity 0")
}
