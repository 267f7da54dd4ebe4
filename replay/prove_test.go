package replay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/ppr"
)

// TestDeltaProofCoversEveryChangedNode checks the delta path's proof
// against a proof of the same state that reads every node: its largest
// ratio is at least that one's and its gap interval holds that one's. The
// leftover of the push rounds stands for the support, and the proof reads
// only the touched rows outside it (unvisitedTouched): a row the
// correction left out keeps its native residual under the authenticated
// out-weight, which can be the state's largest ratio.
func TestDeltaProofCoversEveryChangedNode(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 2))
	checked, leftOut := 0, 0
	for trial := range 400 {
		sc := randomScenario(t, rng, 20+rng.IntN(60), false, 0.3)
		gd, err := New(sc.g, sc.labels, sc.trust, Options{Force: PathDelta})
		require.NoError(t, err)
		q := randomQuery(rng, sc.g.NumNodes())
		p, err := Prepare(sc.g.NumNodes(), q)
		require.NoError(t, err)
		rn, ok := deltaRun(t, gd, p)
		if !ok {
			continue
		}
		ws := rn.ws
		got := rn.prove()
		want := ws.authEng.Prove(rn.passes, nil, nil)
		// A ratio or a sum computed another way rounds differently: a few
		// ulps.
		le := func(a, b float64) bool { return a <= b || a-b <= 1e-12*math.Abs(b)+1e-15 }
		require.Truef(t, le(want.MaxRatio(), got.MaxRatio()), "trial %d: largest ratio %g below %g", trial, got.MaxRatio(), want.MaxRatio())
		gi, wi := got.Gap(rn.sel, q.Candidates, ws.inSel), want.Gap(rn.sel, q.Candidates, ws.inSel)
		require.Truef(t, le(gi.Lo, wi.Lo) && le(wi.Hi, gi.Hi), "trial %d: gap %+v does not hold %+v", trial, gi, wi)
		checked++
		if len(rn.unvisitedTouched()) > 0 {
			leftOut++
		}
	}
	require.Greater(t, checked, 100)
	require.Greater(t, leftOut, 20, "too few cases with touched rows outside the support")
}

// deltaRun runs a query as SelectPrepared does, on the delta path alone,
// and returns its run with the workspace kept (not released) when the
// delta path decided after pushing.
func deltaRun(t *testing.T, gd *Guard, p *Prepared) (*run, bool) {
	t.Helper()
	q := p.q
	ws, _, err := gd.workspace(p.seeds, q.Damping, false)
	require.NoError(t, err)
	k := selectionSize(q, gd.native.NumNodes())
	res, err := ws.nativeEng.SolveTopK(k, q.Candidates, ppr.Options{Tol: gd.opt.Tol})
	if err != nil {
		return nil, false
	}
	d := &Decision{Native: slices.Clone(res.TopK), NativeSweeps: res.Sweeps, NativeGap: res.Gap}
	rn := &run{gd: gd, ws: ws, q: q, k: k, d: d, seeds: p.seeds, passes: res.Sweeps + 1, nativeProof: res.Proof}
	rn.decide()
	if d.Path != PathDelta || !rn.pushed {
		return nil, false
	}
	// decide cleared the selection's marks; the gaps need them.
	for _, v := range rn.sel {
		ws.inSel[v] = true
	}
	return rn, true
}
