package ppr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkProof checks a proof of eng's state against the exact vector: every
// node within Bound (above x when the residual is non-negative), and the
// gap of random selections within Gap.
func checkProof(t *testing.T, rng *rand.Rand, eng *Engine, p *Proof, exact []float64, where string) {
	t.Helper()
	const slack = 1e-12
	signed := slices.ContainsFunc(eng.R, func(v float64) bool { return v < 0 })
	for v := range exact {
		err := exact[v] - eng.X[v]
		if b := p.bound(uint32(v)); math.Abs(err) > b+slack || !signed && err < -slack {
			t.Fatalf("%s: node %d: error %v outside the bound %v (signed %v)", where, v, err, b, signed)
		}
	}
	n := len(exact)
	for range 5 {
		cands := randomCandidates(rng, n)
		pool := cands
		if pool == nil {
			pool = make([]uint32, n)
			for i := range pool {
				pool[i] = uint32(i)
			}
		}
		sel := slices.Clone(pool[:1+rng.IntN(len(pool))])
		inSel := make([]bool, n)
		var scored []Scored
		for _, v := range sel {
			inSel[v] = true
			scored = append(scored, Scored{Node: v})
		}
		gap := exactGap(exact, scored, cands)
		iv := p.Gap(sel, cands, inSel)
		if math.IsInf(gap, 1) {
			if !math.IsInf(iv.Lo, 1) {
				t.Fatalf("%s: everything selected, interval %v", where, iv)
			}
			continue
		}
		if gap < iv.Lo-slack || gap > iv.Hi+slack {
			t.Fatalf("%s: exact gap %v outside the proved interval %v", where, gap, iv)
		}
	}
}

func TestProofBoundsHold(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 300 {
		c := newRandomCase(t, rng)
		if c.damping == 0 {
			continue
		}
		where := func(s string) string { return s + " (trial " + string(rune('0'+trial%10)) + ")" }
		// A partial solve from the native start: r >= 0.
		nat, err := NewEngine(c.native, c.seeds, c.damping)
		if err != nil {
			t.Fatal(err)
		}
		scans := 1 + rng.IntN(6)
		for range scans {
			nat.PushScan(0)
		}
		exactNative := exactPPR(t, c.native, c.seeds, c.damping)
		pn := nat.Prove(scans, nil, nil)
		checkProof(t, rng, nat, pn, exactNative, where("native"))

		// The same x on the authenticated view, its residual recomputed
		// (signed): a full proof, and one from the native proof with the
		// changed nodes listed.
		auth, err := NewEngine(c.auth, c.seeds, c.damping)
		if err != nil {
			t.Fatal(err)
		}
		copy(auth.X, nat.X)
		auth.SetResidual()
		exactAuth := exactPPR(t, c.auth, c.seeds, c.damping)
		checkProof(t, rng, auth, auth.Prove(scans+1, nil, nil), exactAuth, where("auth"))
		var changed []uint32
		for v := range auth.R {
			if auth.R[v] != nat.R[v] || c.auth.OutWeight(uint32(v)) != c.native.OutWeight(uint32(v)) {
				changed = append(changed, uint32(v))
			}
		}
		changed = append(changed, c.auth.Touched()...)
		changed = append(changed, c.native.Touched()...)
		checkProof(t, rng, auth, auth.Prove(scans+1, pn, changed), exactAuth, where("auth from native"))
		// And after more scans on the authenticated view.
		auth.PushScan(0)
		checkProof(t, rng, auth, auth.Prove(scans+2, nil, nil), exactAuth, where("auth scanned"))
	}
}

// A certified solve's Proof is the proof a full pass over its final state
// gives (its last check's statistics, not a second pass).
func TestTopKResultProofIsTheStatesProof(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 24))
	for range 200 {
		c := newRandomCase(t, rng)
		if c.damping == 0 {
			continue
		}
		e, err := NewEngine(c.auth, c.seeds, c.damping)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.SolveTopK(1+rng.IntN(3), randomCandidates(rng, c.g.NumNodes()), Options{Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		full := e.Prove(res.Sweeps, nil, nil)
		for v := range uint32(c.g.NumNodes()) {
			if a, b := res.Proof.bound(v), full.bound(v); a != b {
				t.Fatalf("node %d: the solve's proof bounds %v, a full pass %v", v, a, b)
			}
		}
		if res.Proof.l1Bound() != full.l1Bound() {
			t.Fatalf("L1 %v against %v", res.Proof.l1Bound(), full.l1Bound())
		}
	}
}
