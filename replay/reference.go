package replay

import (
	"fmt"
	"math"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/reference"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// ReferenceDecision is the decision of two from-scratch solves: the native
// certified top-k exactly as a Guard runs it, and the authenticated solve
// to reference.Tol, classified by the estimated gap itself.
type ReferenceDecision struct {
	Native  []ppr.Scored
	Auth    []ppr.Scored // top-k of the authenticated solve
	Outcome Outcome
	GapA    float64   // estimated gapA; |error| <= reference.Tol
	AuthPPR []float64 // the authenticated solve, for checking claims
}

// Reference decides q the plain way: no paths, no bounds, two solves. It is
// the model every Guard path is tested against.
func Reference(g *csr.Graph, labels *mask.Labels, trust mask.Policy, q Query, opt Options) (*ReferenceDecision, error) {
	if opt.Tol == 0 {
		opt.Tol = ppr.DefaultTol
	}
	if opt.TieTol == 0 {
		opt.TieTol = 10 * opt.Tol
	}
	native, err := mask.Native(g, labels)
	if err != nil {
		return nil, err
	}
	auth, err := mask.Authenticated(g, labels, trust)
	if err != nil {
		return nil, err
	}
	seeds, err := ppr.NewSeeds(g.NumNodes(), q.Seeds)
	if err != nil {
		return nil, err
	}
	k := q.K
	if q.Candidates != nil {
		k = min(k, len(q.Candidates))
	} else {
		k = min(k, g.NumNodes())
	}
	xg, err := ppr.SolveTopK(native, seeds, q.Damping, k, q.Candidates, ppr.Options{Tol: opt.Tol})
	if err != nil {
		return nil, err
	}
	xa, err := ppr.Solve(auth, seeds, q.Damping, ppr.Options{Tol: reference.Tol})
	if err != nil {
		return nil, err
	}
	ref := &ReferenceDecision{
		Native:  xg.TopK,
		Auth:    ppr.TopK(xa.Scores, k, q.Candidates, g.Ranks()),
		AuthPPR: xa.Scores,
	}
	ref.GapA = selectionGap(xa.Scores, ref.Native, q.Candidates)
	ref.Outcome, _ = classify(Interval{Lo: ref.GapA, Hi: ref.GapA}, opt.TieTol) // a point always classifies
	return ref, nil
}

// selectionGap returns min_{v in sel} scores[v] - max_{u in cands \ sel}
// scores[u] (+Inf when every candidate is selected); cands nil means all.
func selectionGap(scores []float64, sel []ppr.Scored, cands []uint32) float64 {
	in := make(map[uint32]bool, len(sel))
	lo := math.Inf(1)
	for _, s := range sel {
		in[s.Node] = true
		lo = min(lo, scores[s.Node])
	}
	hi := math.Inf(-1)
	visit := func(u uint32) {
		if !in[u] {
			hi = max(hi, scores[u])
		}
	}
	if cands == nil {
		for u := range scores {
			visit(uint32(u))
		}
	} else {
		for _, u := range cands {
			visit(u)
		}
	}
	if math.IsInf(hi, -1) {
		return math.Inf(1)
	}
	return lo - hi
}

// ambiguityMargin is how close to the tie band's edge (+-TieTol) the
// reference gap may lie before either outcome is accepted: the reference's
// own error, the guard's precision floor and rounding, with room to spare.
const ambiguityMargin = 1e-12

// Check compares a guard's decision for the same query and options with the
// reference: the native selection (the same certified top-k, to the bit),
// then CheckDecision. It reports whether the case was ambiguous.
func (ref *ReferenceDecision) Check(d *Decision, q Query, tieTol float64) (ambiguous bool, err error) {
	if len(ref.Native) != len(d.Native) {
		return false, fmt.Errorf("native selection %v, reference %v", d.Native, ref.Native)
	}
	for i := range ref.Native {
		if ref.Native[i] != d.Native[i] {
			return false, fmt.Errorf("native selection %v, reference %v", d.Native, ref.Native)
		}
	}
	return CheckDecision(ref.AuthPPR, d, q, tieTol)
}

// CheckDecision checks a decision against the authenticated vector authPPR
// (solved to reference.Tol): the proved gap interval must hold the gap of
// d's native selection on it, the authenticated selection must be a top-k
// of it up to tieTol and, unless the case is ambiguous (the gap within
// ambiguityMargin of -tieTol), the outcome must be the one the gap gives.
// It serves decisions whose native selection was solved elsewhere (a warm
// start, a store version). It reports whether the case was ambiguous.
func CheckDecision(authPPR []float64, d *Decision, q Query, tieTol float64) (ambiguous bool, err error) {
	gapA := selectionGap(authPPR, d.Native, q.Candidates)
	if d.Gap.Lo > gapA+ambiguityMargin || d.Gap.Hi < gapA-ambiguityMargin {
		return false, fmt.Errorf("path %s: proved gap interval [%g, %g] misses the reference gap %g", d.Path, d.Gap.Lo, d.Gap.Hi, gapA)
	}
	k := len(d.Native)
	if len(d.Auth) != k {
		return false, fmt.Errorf("path %s: auth selection has %d nodes, native %d", d.Path, len(d.Auth), k)
	}
	if g := selectionGap(authPPR, d.Auth, q.Candidates); g < -tieTol-ambiguityMargin {
		return false, fmt.Errorf("path %s: auth selection %v is not a top-k of the authenticated vector (gap %g)", d.Path, d.Auth, g)
	}
	if d.Divergent != (d.Outcome == Divergent) {
		return false, fmt.Errorf("divergent flag %v with outcome %s", d.Divergent, d.Outcome)
	}
	// The refusal is decided by gapA < -tieTol alone; near that edge either
	// answer is within tolerance.
	if math.Abs(gapA+tieTol) < ambiguityMargin {
		return true, nil
	}
	if d.Divergent != (gapA < -tieTol) {
		return false, fmt.Errorf("path %s: divergent %v, reference gap %g with tie tolerance %g (interval [%g, %g])", d.Path, d.Divergent, gapA, tieTol, d.Gap.Lo, d.Gap.Hi)
	}
	// Same claims gapA > 0, Tie claims |gapA| <= tieTol; both overlap on
	// (0, tieTol], so check each claim rather than one label.
	switch d.Outcome {
	case Same:
		if gapA <= -ambiguityMargin {
			return false, fmt.Errorf("path %s: same, but the reference gap is %g", d.Path, gapA)
		}
	case Tie:
		if math.Abs(gapA) > tieTol+ambiguityMargin {
			return false, fmt.Errorf("path %s: tie, but the reference gap is %g (tie tolerance %g)", d.Path, gapA, tieTol)
		}
	}
	return false, nil
}
