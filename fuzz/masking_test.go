package fuzz

import (
	"math"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/internal/fuzzcase"
	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// FuzzMaskedSolve checks that solving on a view (shared arrays, masked edges
// skipped) equals solving on a physically copied subgraph, for the native and
// the authenticated view: every coordinate within 1e-12 and the same top-k.
// The local push (PushRounds), started from scratch, must agree too.
func FuzzMaskedSolve(f *testing.F) {
	f.Add([]byte{4, 0x30, 2, 1, 0, 1, 0, 1, 0x00, 1, 2, 0x08, 2, 3, 0x10, 3, 0, 0x28})
	f.Add([]byte{6, 0x11, 3, 2, 0, 2, 5, 1, 0, 1, 0x20, 1, 0, 0x09, 2, 2, 0x02, 4, 5, 0x18})
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzMaskedSolve.zip
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := fuzzcase.Decode(data)
		if err != nil {
			t.Fatalf("decode: %v", err) // every input must decode
		}
		native, err := mask.Native(c.Graph, c.Labels)
		if err != nil {
			t.Fatal(err)
		}
		auth, err := mask.Authenticated(c.Graph, c.Labels, c.Policy)
		if err != nil {
			t.Fatal(err)
		}
		for _, view := range []*mask.View{native, auth} {
			checkViewAgainstCopy(t, c, view)
		}
	})
}

func checkViewAgainstCopy(t *testing.T, c *fuzzcase.Case, view *mask.View) {
	t.Helper()
	sub, err := fuzzcase.CopySubgraph(view)
	if err != nil {
		t.Fatalf("%s: copy: %v", view.Name(), err)
	}
	if err := csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]().Validate(sub); err != nil {
		t.Fatalf("%s: copied subgraph invalid: %v", view.Name(), err)
	}
	const tol = 1e-13
	masked, err := ppr.Solve(view, c.Seeds, c.Damping, ppr.Options{Tol: tol})
	if err != nil {
		t.Fatalf("%s: masked solve: %v", view.Name(), err)
	}
	copied, err := ppr.Solve(mask.Full(sub), c.Seeds, c.Damping, ppr.Options{Tol: tol})
	if err != nil {
		t.Fatalf("%s: copied solve: %v", view.Name(), err)
	}
	for u := range masked.Scores {
		if d := math.Abs(masked.Scores[u] - copied.Scores[u]); d > 1e-12 {
			t.Fatalf("%s: node %d: masked %g, copied %g (diff %g)", view.Name(), u, masked.Scores[u], copied.Scores[u], d)
		}
		if sub.OutWeight(uint32(u)) != view.OutWeight(uint32(u)) {
			t.Fatalf("%s: node %d: view out-weight %g, copy %g", view.Name(), u, view.OutWeight(uint32(u)), sub.OutWeight(uint32(u)))
		}
	}
	got, want := ppr.TopK(masked.Scores, c.K, nil, nil), ppr.TopK(copied.Scores, c.K, nil, nil)
	for i := range want {
		if got[i].Node != want[i].Node {
			t.Fatalf("%s: top-%d differs at rank %d: masked %v, copied %v", view.Name(), c.K, i, got, want)
		}
	}

	// Local push from scratch on the view (PushRounds, the local push of
	// replay and the store), finished by sweeps, reaches the same vector. Push work grows like 1/(alpha*eps), so eps stays coarse:
	// the sweeps that follow do the rest from the state push left.
	e, err := ppr.NewEngine(view, c.Seeds, c.Damping)
	if err != nil {
		t.Fatal(err)
	}
	if !e.PushRounds(1e-4, c.Seeds.Nodes, 0) {
		t.Fatalf("%s: push did not finish without a budget", view.Name())
	}
	pushed, err := e.SolveSweeps(ppr.Options{Tol: tol})
	if err != nil {
		t.Fatalf("%s: finishing push: %v", view.Name(), err)
	}
	for u := range pushed.Scores {
		if d := math.Abs(pushed.Scores[u] - copied.Scores[u]); d > 1e-12 {
			t.Fatalf("%s: node %d: push %g, copied %g (diff %g)", view.Name(), u, pushed.Scores[u], copied.Scores[u], d)
		}
	}
}
