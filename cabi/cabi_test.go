//go:build cgo

package main

// The C ABI driven the way a C caller drives it (harness.go: C memory, calls
// through cgo into the exports).

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/golden"
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
				ids[2*e], ids[2*e+1], w[e], chanOf[e] = int64(ed.Src), int64(ed.Dst), ed.Weight, int32(g.EdgeChannel(uint32(e)))
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
	path, shared, err := golden.GraphPath(c, filepath.Join("..", "ppr", "testdata", "golden"), filepath.Join("..", "..", "shared", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if shared {
		if testing.Short() {
			t.Skip("-short: the real graphs of shared/data are left to the full run")
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			t.Skipf("graph %s not found (shared/data is not checked out next to the repository)", path)
		}
	}
	format, err := csr.ParseFormat(c.Format)
	if err != nil {
		t.Fatal(err)
	}
	g, err := csr.ReadFile(path, format, c.Directed)
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
	if len(d.Suspects) == 0 || d.Suspects[0].Edge != 7 || d.Suspects[0].Src != 0 || d.Suspects[0].Dst != 6 || d.Suspects[0].Channel != 1 || !(d.Suspects[0].Mass > 0) {
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
