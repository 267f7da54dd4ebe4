package fuzz

import (
	"math"
	"slices"
	"testing"

	"github.com/authppr/authppr/internal/fuzzcase"
	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// FuzzSolveTopK checks certified top-k termination (ppr.SolveTopK, the
// fast path that stops as soon as the selection is proved) against a tight
// solve of the same problem, on the native and the authenticated view, from
// the cold start and from a warm start at the other view's solution (whose
// residual is signed, as a replay's is): a certified selection is the
// tight vector's top-k whenever the tight vector itself separates it, and
// the proved gap never exceeds the gap the tight vector shows plus its
// error; the ordered SolveTopK's leads and score bounds hold against the tight
// vector too. Every solve runs a second time with the view's visit bounds
// (ppr.Options.Visits). cand picks a candidate subset as in FuzzGuard.
func FuzzSolveTopK(f *testing.F) {
	f.Add([]byte{4, 0x30, 2, 1, 0, 1, 0, 1, 0x00, 1, 2, 0x08, 2, 3, 0x10, 3, 0, 0x28}, uint32(0))
	f.Add([]byte{6, 0x11, 3, 2, 0, 2, 5, 1, 0, 1, 0x20, 1, 0, 0x09, 2, 2, 0x02, 4, 5, 0x18}, uint32(0x3c))
	f.Add([]byte{9, 0x13, 1, 1, 0, 1, 0, 1, 0x00, 0, 2, 0x00, 1, 3, 0x00, 2, 3, 0x00, 0, 3, 0x08, 3, 4, 0x00, 2, 5, 0x00}, uint32(0x38))
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzSolveTopK.zip
	f.Fuzz(func(t *testing.T, data []byte, cand uint32) {
		c, err := fuzzcase.Decode(data)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		n := c.Graph.NumNodes()
		var cands []uint32
		if cand != 0 {
			for v := range n {
				if cand&(1<<(v%32)) != 0 {
					cands = append(cands, uint32(v))
				}
			}
		}
		native, err := mask.Native(c.Graph, c.Labels)
		if err != nil {
			t.Fatal(err)
		}
		auth, err := mask.Authenticated(c.Graph, c.Labels, c.Policy)
		if err != nil {
			t.Fatal(err)
		}
		views := []*mask.View{native, auth}
		tight := make([]*ppr.Result, len(views))
		for i, v := range views {
			if tight[i], err = ppr.Solve(v, c.Seeds, c.Damping, ppr.Options{Tol: 1e-13}); err != nil {
				t.Fatalf("%s: tight solve: %v", v.Name(), err)
			}
		}
		for i, v := range views {
			// Each solve runs without and with the view's visit bounds
			// (Options.Visits: per-node bounds on directed views).
			vb, err := ppr.NewVisitBounds(v, c.Damping)
			if err != nil {
				t.Fatalf("%s: NewVisitBounds: %v", v.Name(), err)
			}
			for _, opt := range []ppr.Options{{Tol: 1e-12}, {Tol: 1e-12, Visits: vb}} {
				name := v.Name()
				if opt.Visits != nil {
					name += " visits"
				}
				cold, err := ppr.SolveTopK(v, c.Seeds, c.Damping, c.K, cands, opt)
				if err != nil {
					t.Fatalf("%s: SolveTopK: %v", name, err)
				}
				checkTopK(t, name+" cold", cold, tight[i], c.K, cands)
				ordered, err := ppr.NewEngine(v, c.Seeds, c.Damping)
				if err != nil {
					t.Fatal(err)
				}
				ordOpt := opt
				ordOpt.Ordered = true
				res, err := ordered.SolveTopK(c.K, cands, ordOpt)
				if err != nil {
					t.Fatalf("%s: SolveTopK (Ordered): %v", name, err)
				}
				checkTopK(t, name+" ordered", res, tight[i], c.K, cands)
				checkOrder(t, name+" ordered", res, tight[i])

				// Warm start: X is the other view's tight vector, R its
				// residual on this view (signed where the views differ).
				e, err := ppr.NewEngine(v, c.Seeds, c.Damping)
				if err != nil {
					t.Fatal(err)
				}
				copy(e.X, tight[1-i].Scores)
				copy(e.R, residual(v, c.Seeds, c.Damping, e.X))
				warm, err := e.SolveTopK(c.K, cands, opt)
				if err != nil {
					t.Fatalf("%s: warm SolveTopK: %v", name, err)
				}
				checkTopK(t, name+" warm", warm, tight[i], c.K, cands)
				checkOrder(t, name+" warm", warm, tight[i])
			}
		}
	})
}

// checkTopK holds a SolveTopK result to the tight vector (error at most
// tight.ErrorBound in L1, so at most that per coordinate): the true gap of
// a selection S is within 2*tight.ErrorBound (+ roundoff) of the gap S shows in the
// tight vector.
func checkTopK(t *testing.T, what string, got *ppr.TopKResult, tight *ppr.Result, k int, cands []uint32) {
	t.Helper()
	slack := 2*tight.ErrorBound + roundoff
	if !got.Certified {
		if got.ErrorBound > 1e-12 {
			t.Fatalf("%s: stopped uncertified with error bound %g above the tolerance 1e-12", what, got.ErrorBound)
		}
		return
	}
	if !(got.ProvedGap > 0) {
		t.Fatalf("%s: certified with proved gap %g", what, got.ProvedGap)
	}
	selected := make([]uint32, len(got.TopK))
	for i, s := range got.TopK {
		selected[i] = s.Node
	}
	shown := gapOf(tight.Scores, selected, cands)
	if got.ProvedGap > shown+slack {
		t.Fatalf("%s: proved gap %g, but the tight vector shows %g (error %g)", what, got.ProvedGap, shown, tight.ErrorBound)
	}
	want := ppr.TopK(tight.Scores, k, cands, nil)
	wantNodes := make([]uint32, len(want))
	for i, s := range want {
		wantNodes[i] = s.Node
	}
	if gapOf(tight.Scores, wantNodes, cands) <= slack {
		return // the tight vector cannot tell its own boundary apart
	}
	slices.Sort(selected)
	slices.Sort(wantNodes)
	if !slices.Equal(selected, wantNodes) {
		t.Fatalf("%s: certified %v, the tight vector's top-%d is %v", what, selected, k, wantNodes)
	}
}

// checkOrder holds the leads between consecutive selected entries (lower
// bounds on pi(a) - pi(b), the ordered SolveTopK's proof) and the score error
// bounds to the tight vector: no lead above the difference the tight
// vector shows plus its error, no score further from the tight one than
// its bound, and an Ordered result ranked as the tight vector ranks it.
func checkOrder(t *testing.T, what string, got *ppr.TopKResult, tight *ppr.Result) {
	t.Helper()
	slack := 2*tight.ErrorBound + roundoff
	if len(got.Leads) != len(got.TopK) || len(got.ScoreErrs) != len(got.TopK) {
		t.Fatalf("%s: %d leads and %d score bounds for %d entries", what, len(got.Leads), len(got.ScoreErrs), len(got.TopK))
	}
	allPositive := true
	for i, s := range got.TopK {
		if d := math.Abs(tight.Scores[s.Node] - s.Score); d > got.ScoreErrs[i]+slack {
			t.Fatalf("%s: entry %d (node %d): score %g, tight %g, bound %g", what, i, s.Node, s.Score, tight.Scores[s.Node], got.ScoreErrs[i])
		}
		if i+1 == len(got.TopK) {
			break
		}
		next := got.TopK[i+1]
		shown := tight.Scores[s.Node] - tight.Scores[next.Node]
		if got.Leads[i] > shown+slack {
			t.Fatalf("%s: lead %g of node %d over node %d, the tight vector shows %g", what, got.Leads[i], s.Node, next.Node, shown)
		}
		allPositive = allPositive && got.Leads[i] > 0
	}
	if got.Ordered != allPositive {
		t.Fatalf("%s: Ordered %v with leads %v", what, got.Ordered, got.Leads)
	}
}

// roundoff allows for rounding in the bounds themselves (computed in
// floating point: ||r||_1/alpha from r = alpha*s is 1 - 1ulp, not 1), far
// below any bound error the target is after.
const roundoff = 1e-12

// gapOf returns min over sel of x minus max over the other candidates (nil:
// every node) of x; +Inf when no candidate is left out.
func gapOf(x []float64, sel, cands []uint32) float64 {
	in := make(map[uint32]bool, len(sel))
	lo := math.Inf(1)
	for _, u := range sel {
		in[u] = true
		lo = min(lo, x[u])
	}
	hi := math.Inf(-1)
	if cands == nil {
		for u, s := range x {
			if !in[uint32(u)] {
				hi = max(hi, s)
			}
		}
	} else {
		for _, u := range cands {
			if !in[u] {
				hi = max(hi, x[u])
			}
		}
	}
	return lo - hi
}

// residual returns alpha*s + d*(x P_view) + d*(dangling mass)*s - x, the
// plain model of the engine's residual: every unmasked edge read from the
// edge table (both directions on undirected graphs), each node's mass
// split by its out-weight in the view, a node without out-weight sending
// its mass to the seeds.
func residual(v *mask.View, s ppr.Seeds, d float64, x []float64) []float64 {
	g := v.Graph()
	n := g.NumNodes()
	r := make([]float64, n)
	dangling := 0.0
	for u := range n {
		r[u] = -x[u]
		if v.OutWeight(uint32(u)) == 0 {
			dangling += x[u]
		}
	}
	for e := range g.NumEdges() {
		edge := g.Edge(uint32(e))
		if v.MaskedEdge(uint32(e)) || edge.Weight == 0 {
			continue // (a zero-weight edge's ends may have out-weight 0)
		}
		r[edge.Dst] += d * x[edge.Src] * edge.Weight / v.OutWeight(edge.Src)
		if !g.Directed() {
			r[edge.Src] += d * x[edge.Dst] * edge.Weight / v.OutWeight(edge.Dst)
		}
	}
	for i, u := range s.Nodes {
		r[u] += (1 - d + d*dangling) * s.Weights[i]
	}
	return r
}
