package ppr

import (
	"fmt"
	"math"

	"github.com/authppr/authppr/mask"
)

// TopKResult is a top-k selection with the evidence that it is exact.
type TopKResult struct {
	TopK []Scored
	// Certified reports that the selection is the top-k of the exact
	// vector: ProvedGap > 0. It is false when the solve reached its
	// tolerance first (a tie, or a gap smaller than the tolerance).
	Certified bool
	// Gap is the k-th score minus the best unselected one (+Inf when every
	// candidate is selected; the solve then ran to its tolerance).
	Gap float64
	// ProvedGap is a lower bound on the exact vector's gap between the
	// selection and the best unselected candidate (see SolveTopK).
	ProvedGap  float64
	ErrorBound float64 // ||pi - x||_1 bound at the end
	// CoordBound, on undirected views, bounds the error per coordinate:
	// 0 <= pi(v) - x(v) <= CoordBound*W(v) + (dangling residual)/alpha;
	// 0 on directed views.
	CoordBound float64
	// Leads[i], for i < len(TopK)-1, is a lower bound on
	// pi(TopK[i]) - pi(TopK[i+1]) in the exact vector; the last entry is
	// ProvedGap. A positive lead proves that pair's order (see
	// Options.Ordered); a non-positive one leaves it unproved (a tie as
	// far as the solve can tell).
	Leads []float64
	// Ordered reports that every lead between consecutive selected
	// entries is positive: the selection's order is the exact vector's
	// (true for a selection of one). Certified && Ordered is the exact
	// ranked top-k.
	Ordered bool
	// ScoreErrs[i] bounds the error of TopK[i].Score: 0 <= pi(v) - x(v) <=
	// ScoreErrs[i] while the residual is non-negative (the native start
	// under Gauss-Seidel or Jacobi sweeps), |pi(v) - x(v)| <= ScoreErrs[i]
	// when it is Signed (a signed warm start, Normalized sweeps).
	ScoreErrs []float64
	// Signed reports a residual with negative entries at the last check:
	// the errors then go both ways.
	Signed bool
	// Sweeps counts the passes over the nodes: full sweeps and, among
	// them, Scans threshold scans (see scanFraction).
	Sweeps, Scans int
	// Refined counts the candidates whose reverse-push interval the last
	// check used (see refineTopK; 0: the unrefined bound alone), and
	// ReverseArcs the arcs the solve's reverse pushes read.
	Refined     int
	ReverseArcs int64
	// LocalChecks counts the checks that read only the nodes the solve
	// had reached (see local.go).
	LocalChecks int
	Scores      []float64 // the engine's vector (not a copy)
	// Proof is the proof of the engine's state as the solve left it (the
	// statistics of its last check, with no second pass over the nodes),
	// valid until the engine's X or R change.
	Proof *Proof
}

// SolveTopK sweeps until the top-k over the candidates (nil: every node) is
// proved, or the error bound reaches opt.Tol, whichever comes first. Ties
// break by the graph's Rank (see TopK), so a reordered graph selects the
// same names.
//
// Proof of the stopping rule. The solve starts from x = 0, r = alpha*s >= 0
// and every sweep or push keeps r >= 0, so e = pi - x = r*(I-dP)^-1 >= 0
// (the inverse is a sum of non-negative matrices). For a selected v and an
// unselected u, pi(v) - pi(u) >= x(v) - x(u) - e(u), so
//
//	gap(pi) >= min_sel x - max_rest (x(u) + E(u)) =: ProvedGap
//
// for any bound E(u) >= e(u). Directed views use E(u) = ||e||_1 <=
// ||r||_1/alpha and, once few candidates straddle the boundary, sharper
// intervals from reverse pushes at those candidates (refineTopK in
// reverse.go proves them); ProvedGap is the larger of the two bounds.
//
// Undirected views use the per-coordinate bound of docs/design.md: e(u) <= W(u)*max_w(r(w)/W(w))/alpha + D/alpha, with D the
// residual on nodes without out-weight (their rows are the seeds, outside
// the symmetric part; bounded in L1). Proof of the first term: with A
// symmetric and D_W = diag(W), (I-dP)^-1 = K*D_W with K = (D_W - d*A)^-1
// symmetric and non-negative, so e(u) = W(u)*sum_w (r(w)/W(w))*W(w)*K[u][w]
// <= W(u)*max_w(r(w)/W(w))*((I-dP)^-1*1)(u) = W(u)*max_w(r(w)/W(w))/alpha.
// One step sharpens it: e = r + d*e*P, and the part e_A of e that comes
// from the residual r_A on nodes with out-weight is zero on the nodes
// without (no arc reaches them; the seeds' share of their rows is fed
// only by themselves, and a fixed point z = d*sum(z)*s_D is 0), so e_A(u)
// = r_A(u) + d*sum_w e_A(w)*A[w][u]/W(w) over w with out-weight, and
// |e_A(w)| <= C*W(w) (C = max_w |r(w)|/W(w)/alpha) gives |e_A(u)| <=
// |r(u)| + d*C*sum_w A[w][u] = |r(u)| + d*C*W(u) (A symmetric). As |r(u)|
// <= alpha*C*W(u), this is at most C*W(u), and d*C*W(u) wherever a push
// has just cleared r(u): half the bound at d = 0.5. So E(u) = |r(u)| +
// d*C*W(u) + D/alpha (D/alpha alone where W(u) = 0; TestCoordBoundsHold
// checks it against exact solves).
//
// From a caller's warm start, and after Normalized sweeps normalize the
// mass (SolveTopK's default on directed views, see Normalized), the
// residual is signed; then E(u) bounds |e(u)| and the selected side takes
// -E(v) as well (coordGap; on directed views the L1 bound covers both
// ends of a pair at once, |e(v)| + |e(u)| <= ||e||_1). Every proved gap
// and lead is net of a rounding margin (roundoff). Once at most
// maxRefined unselected candidates straddle the boundary, undirected views
// refine them by reverse pushes too, with a remainder that the symmetry
// shrinks with the push's reach (reverse.go); the refined bound also sets
// the threshold scans' threshold. (Measurements of the one-step bound and
// of undirected refinement: docs/benchmarks.md, "ppr: certified top-k".)
//
// When ProvedGap > 0 every selected candidate beats every unselected one
// in pi, and the selection (as a set) is exact. Exact ties can never be
// certified; they run to opt.Tol and come back with Certified false.
// When k is at least the number of candidates, every candidate is
// selected: the set is exact before any sweep (Certified, Gap and
// ProvedGap +Inf), and the solve runs to opt.Tol, so that the scores are
// estimates within it (ScoreErrs), never the starting zeros.
func SolveTopK(view *mask.View, seeds Seeds, damping float64, k int, candidates []uint32, opt Options) (*TopKResult, error) {
	if k < 1 {
		return nil, fmt.Errorf("ppr: k = %d, want at least 1", k)
	}
	e, err := NewEngine(view, seeds, damping)
	if err != nil {
		return nil, err
	}
	return e.SolveTopK(k, candidates, opt)
}

// SolveTopK is the function SolveTopK on this engine's problem, from its
// current state: the native start state after NewEngine or Restart, or any
// state (x, r) of the problem, such as a warm start. A signed residual
// (only a warm start has one) makes the undirected proof bound the error
// on both sides of the gap, as the L1 proof always does. An engine reused
// through Restart allocates nothing proportional to the graph after its
// first query.
//
// With opt.Ordered the solve also proves the order within the selection:
// it sweeps until the set is proved and every selected entry is proved to
// beat the next one, or the error bound reaches opt.Tol; pairs left
// unproved then have non-positive Leads (ties at that tolerance).
//
// Proof of the order. Let a, b be consecutive selected entries (x(a) >=
// x(b)) and E(.) the bound of the set's proof: 0 <= pi(u) - x(u) <= E(u)
// for a non-negative residual, |pi(u) - x(u)| <= E(u) for a signed one.
// Then
//
//	pi(a) - pi(b) >= lo(a) - (x(b) + E(b)) =: Lead
//
// with lo(a) = x(a), or x(a) - E(a) when the residual is signed. With the
// L1 bound B = ||r||_1/alpha >= ||pi - x||_1 >= |e(a)| + |e(b)| the lead
// x(a) - x(b) - B holds for either sign, and the larger of the two leads
// is taken. If every Lead is positive, pi(a1) > pi(a2) > ... > pi(ak): the
// order of x within the selection is pi's, and with ProvedGap > 0 the
// list is the exact ranked top-k (ties in pi can never be proved). Order
// among consecutive pairs suffices because > is transitive.
func (e *Engine) SolveTopK(k int, candidates []uint32, opt Options) (*TopKResult, error) {
	return e.solveTopK(k, candidates, opt)
}

// Threshold scans. On an undirected view the proof waits for
// C = max_w r(w)/W(w)/alpha to drop below need (the largest C at which
// every blocking comparison would hold at the current x). A full sweep
// pushes every node; a threshold scan (PushScan(eps), one pass in id order)
// pushes only the nodes with r(w) > eps*W(w), exactly the ones that keep C
// above eps/alpha, so once the first sweep has given the scores a shape,
// SolveTopK runs scans at eps = alpha*need*scanFraction instead of sweeps.
// A scan is a sequence of pushes, so the residual identity and (from the
// native start) r >= 0 hold after it and the proof is unchanged; it reads
// every node but only the pushed nodes' arcs, so it costs at most a sweep.
// scanFraction keeps a margin below the threshold; it was chosen on the
// arcs read to proved selections (docs/benchmarks.md, "ppr: threshold
// scans"). Tests switch the scans off (tuning.thresholdScans) to compare
// with plain sweeps.
const scanFraction = 0.9

// warmScanReach: from a warm start a threshold scan pushes no node whose
// ratio r(w)/W(w) is below the largest over this. A warm state is precise
// but at the nodes a change of the graph adjusted (a cache's residual
// adjustment): their ratios can be orders of magnitude above the rest,
// and while they are, the blockers are many and need is far below every
// ratio, so a scan at it would push every node, a sweep's work; bounded
// at the largest ratio over this it pushes the adjusted nodes and what
// they spread to, and the next check sees the state's own precision.
const warmScanReach = 16

// visitCheckWithin: with visit bounds, SolveTopK checks a directed proof
// after every sweep once the L1 term is below this many times the k-th
// score (2 without them, see topKSolve.schedule): the per-node bounds leave
// few candidates straddling the boundary well before the L1 term alone
// does (docs/benchmarks.md, "ppr: visit bounds").
const visitCheckWithin = 8.0

// maxCheckWait caps how many sweeps SolveTopK runs without checking the
// proof: a selection provable now is proved at most this many sweeps late.
const maxCheckWait = 2

// errorBounds bounds the error e = pi - x per node at one state of an
// engine (see SolveTopK): on undirected views E(u) = min(rScale*|r(u)| +
// dCoord*W(u) + dangling, l1) where W(u) > 0 and min(dangling, l1) where
// W(u) = 0, with dCoord = d*coord (the one-step bound, see SolveTopK); l1
// on directed ones (w nil).
//
// A signed residual splits as r = r+ - r- (both non-negative), and so does
// the error, e = e+ - e- with e+- = r+-*(I - d*P)^-1 >= 0: each part has
// the bound above with its own statistics, so on undirected views pi(u)
// lies in [x(u) - E-(u), x(u) + E+(u)] (at and below), E+ from r+ and E-
// from r-. A state whose negative part is small and local (a native state
// corrected on a few rows, a warm start) keeps nearly the one-sided bound
// of a non-negative residual.
type errorBounds struct {
	w                   *mask.NodeWeights // out-weights; nil: the L1 bound alone
	r                   []float64         // the residual (undirected views)
	coord, dangling, l1 float64           // of r+ (of |r| when neg is nil)
	rScale, dCoord      float64
	neg                 *negBounds // the bounds of r-, when the residual is signed (undirected)
	round               float64    // the rounding margin of leads (roundoff)
	signed              bool       // the residual has negative entries: bound |e|
	// On directed views with visit bounds V, Dg (see visits.go), w nil:
	// N(u) = x(u) + (r*M0)(u) (refineTopK) lies within n(u) =
	// min(nScale*V(u), l1r*Dg(u), l1) of x(u), and E(u) = min(n(u)*inv1c
	// + xScale*|x(u)|, l1).
	vis, dg                    []float32
	x                          []float64
	nScale, l1r, inv1c, xScale float64
}

// negBounds are the per-coordinate bounds of a residual's negative part.
type negBounds struct {
	dCoord, dangling float64
}

// at returns E(u), the bound on the error above x (E+ for a signed
// residual on an undirected view). coordGap calls it once per candidate;
// it is past the compiler's inlining budget (NodeWeights.At inlines the
// lookup of a replaced weight), so each is a call.
func (b *errorBounds) at(u uint32) float64 {
	if b.w != nil {
		if wu := b.w.At(u); wu > 0 {
			return min(b.rScale*b.up(b.r[u])+b.dCoord*wu+b.dangling, b.l1)
		}
		return min(b.dangling, b.l1)
	}
	return b.directedAt(u)
}

// up is the share of a residual entry the upper bound carries: all of |r|,
// or r+ when the negative part is bounded apart.
func (b *errorBounds) up(rv float64) float64 {
	if b.neg != nil {
		return max(rv, 0)
	}
	return math.Abs(rv)
}

// below returns the bound on the error below x: 0 for a non-negative
// residual (pi >= x), E-(u) when the negative part is bounded apart, and
// E(u) otherwise.
func (b *errorBounds) below(u uint32) float64 {
	switch {
	case !b.signed:
		return 0
	case b.neg != nil:
		if wu := b.w.At(u); wu > 0 {
			return min(b.rScale*max(-b.r[u], 0)+b.neg.dCoord*wu+b.neg.dangling, b.l1)
		}
		return min(b.neg.dangling, b.l1)
	}
	return b.at(u)
}

// abs returns a bound on |e(u)|.
func (b *errorBounds) abs(u uint32) float64 { return max(b.at(u), b.below(u)) }

// ends returns below(u) and at(u) with one read of u's residual and
// weight on an undirected view (b.w set): the two bounds a pass over the
// candidates needs of each (the same arithmetic, so the same bits).
func (b *errorBounds) ends(u uint32) (under, above float64) {
	return b.endsOf(b.r[u], b.w.At(u))
}

// endsOf is ends for a node of residual rv and out-weight wu.
func (b *errorBounds) endsOf(rv, wu float64) (under, above float64) {
	up := math.Abs(rv)
	if b.neg != nil {
		up = max(rv, 0)
	}
	if wu > 0 {
		above = min(b.rScale*up+b.dCoord*wu+b.dangling, b.l1)
	} else {
		above = min(b.dangling, b.l1)
	}
	switch {
	case !b.signed:
		return 0, above
	case b.neg == nil:
		return above, above
	case wu > 0:
		return min(b.rScale*max(-rv, 0)+b.neg.dCoord*wu+b.neg.dangling, b.l1), above
	}
	return min(b.neg.dangling, b.l1), above
}

// directedAt is at on a directed view.
func (b *errorBounds) directedAt(u uint32) float64 {
	if b.vis != nil {
		return min(b.nTerm(u)*b.inv1c+b.xScale*math.Abs(b.x[u]), b.l1)
	}
	return b.l1
}

// nTerm bounds |N(u) - x(u)| = |(r*M0)(u)| for refineTopK: the L1 term
// ||r||_1/alpha (every entry of M0 is at most its row sum, 1/alpha), with
// visit bounds max|r|*V(u) and ||r||_1*Dg(u), and on undirected views the
// per-coordinate E(u) (M0 <= (I - d*P)^-1 entrywise, and E(u) bounds
// (|r|*(I - d*P)^-1)(u)).
func (b *errorBounds) nTerm(u uint32) float64 {
	switch {
	case b.w != nil:
		return b.at(u)
	case b.vis != nil:
		return min(b.nScale*float64(b.vis[u]), b.l1r*float64(b.dg[u]), b.l1)
	}
	return b.l1
}

// residualL1Max returns ||r||_1, summed in node order as residualL1
// sums it, and max|r| in one pass.
func (e *Engine) residualL1Max() (l1, rmax float64) {
	// max over the bits of |r|: for non-negative floats the integer order
	// is the float order, and an integer compare has none of the NaN
	// handling of the float max, which made this pass several times
	// slower than residualL1's (docs/benchmarks.md, "ppr: small passes").
	// R holds no NaN.
	var top uint64
	for _, v := range e.R {
		b := math.Float64bits(v) &^ (1 << 63)
		l1 += math.Float64frombits(b)
		if b > top {
			top = b
		}
	}
	return l1, math.Float64frombits(top)
}

// maxAbsResidual returns max|r|.
func (e *Engine) maxAbsResidual() float64 {
	rmax := 0.0
	for _, v := range e.R {
		rmax = max(rmax, math.Abs(v))
	}
	return rmax
}

// visitErrorBounds returns the per-node bounds of a directed view from
// visit bounds vb (see visits.go): with cbar = d*||r||_1/alpha < 1,
// |e(u)| <= (min(max|r|*V(u), ||r||_1*Dg(u)) + cbar*|x(u)|)/(1 - cbar);
// the L1 bound alone when cbar >= 1. l1 is ||r||_1 and l1Bound
// ||r||_1/alpha.
func (e *Engine) visitErrorBounds(vb *VisitBounds, l1, l1Bound, rmax float64, signed bool) errorBounds {
	boundScale := e.tune.boundScale
	eb := errorBounds{l1: boundScale * l1Bound, signed: signed}
	cbar := e.damping * l1 / e.alpha
	if !(cbar < 1) {
		return eb
	}
	eb.vis, eb.dg, eb.x = vb.v, vb.dg, e.X
	scale := boundScale * e.tune.visitScale
	eb.nScale, eb.l1r = scale*rmax, scale*l1
	eb.inv1c = 1 / (1 - cbar)
	eb.xScale = scale * cbar / (1 - cbar)
	return eb
}

// lower returns a lower bound on pi(s.Node) given x(s.Node) = s.Score.
func (b *errorBounds) lower(s Scored) float64 { return s.Score - b.below(s.Node) }

// lead returns a lower bound on pi(a) - pi(b) (the ordered SolveTopK's proof):
// the per-node bounds or, whichever is larger, the L1 bound, which covers
// both errors at once.
func (b *errorBounds) lead(a, c Scored) float64 {
	return max(b.lower(a)-(c.Score+b.at(c.Node)), a.Score-c.Score-b.l1) - b.round
}

// roundoff is the margin for floating-point rounding that a proved gap or
// lead must clear after the given number of sweeps. The bounds cover the
// truncation of the series, not rounding: each sweep moves the state off
// the residual identity by a few ulps of x (x += r rounds every entry of a
// vector of mass about 1), so by at most about 4*2^-53 in L1 (8 here, for
// the products and sums of the sweep and of a normalization), and an
// identity off by delta in L1 moves pi - x by at most delta/alpha. An exact
// tie then shows as a gap of that size (a node that holds 5.6e-17 after a
// normalization where the exact vector holds 0) and is not proved.
func (e *Engine) roundoff(sweeps int) float64 {
	return float64(sweeps+2) * 8 * 0x1p-53 / e.alpha
}

// residualStats summarises the residual for the per-coordinate bound.
type residualStats struct {
	l1       float64 // ||r||_1, summed in node order as residualL1 sums it
	maxRatio float64 // max |r(v)|/W(v) over the nodes with out-weight
	dangling float64 // sum of |r(v)| over the nodes without
	signed   bool    // some r(v) < 0
	// The negative part r-: max r-(v)/W(v) and the sum over the nodes
	// without out-weight (the positive part's are bounded by the totals).
	maxNeg, danglingNeg float64
}

// residualStats computes them in one pass over the nodes (and one over the
// dangling nodes, usually none). With local checks on (see local.go) the
// pass reads S alone, where every non-zero r is: a zero adds nothing to
// any of them, so the sums are the full pass's to the bit.
func (e *Engine) residualStats() residualStats {
	r := e.R
	// 1/W multiplies instead of dividing (a division per node cost as much
	// as the rest of the check); it is 0 exactly on the dangling nodes, so
	// they never raise maxRatio.
	inv := e.view.NodeInvOutWeights()
	var acc statsAcc
	if e.local.on {
		for _, v := range e.local.list {
			acc.add(r[v], inv.At(v))
		}
	} else {
		acc.addAll(r, inv)
	}
	for _, u := range e.view.DanglingNodes() {
		acc.addDangling(r[u])
	}
	return residualStats{l1: acc.l1, maxRatio: acc.maxRatio, dangling: acc.dangling, signed: acc.minR < 0,
		maxNeg: acc.maxNeg, danglingNeg: acc.danglingNeg}
}

// statsAcc accumulates residualStats' terms, each sum in the order added.
type statsAcc struct {
	l1, maxRatio, maxNeg, minR float64
	dangling, danglingNeg      float64
}

// add adds node v's terms but the dangling sums: its residual rv and
// 1/W(v) (0 where v dangles).
func (a *statsAcc) add(rv, inv float64) {
	m := math.Abs(rv)
	a.l1 += m
	if t := m * inv; t > a.maxRatio {
		a.maxRatio = t
	}
	if rv < 0 {
		a.minR = min(a.minR, rv)
		a.maxNeg = max(a.maxNeg, m*inv)
	}
}

// addDangling adds a dangling node's residual rv to the dangling sums.
func (a *statsAcc) addDangling(rv float64) {
	a.dangling += math.Abs(rv)
	a.danglingNeg += max(-rv, 0)
}

// addAll adds every node's terms in node order, as add would one by one
// (the same operations on the same values, so the same bits). It reads inv's
// array directly, a word of its replaced bits per 64 nodes, with every
// sum in a local: add's body, which through a and inv.At reloads them
// after every store.
func (a *statsAcc) addAll(r []float64, inv *mask.NodeWeights) {
	flat, replaced := inv.Flat()
	l1, maxRatio, maxNeg, minR := a.l1, a.maxRatio, a.maxNeg, a.minR
	for lo := 0; lo < len(r); lo += 64 {
		hi := min(lo+64, len(r))
		var word uint64
		switch {
		case hi > len(flat) || replaced != nil && lo/64 >= len(replaced):
			word = ^uint64(0) // every weight through At
		case replaced != nil:
			word = replaced[lo/64]
		}
		for i, rv := range r[lo:hi] {
			var w float64
			if word&(1<<uint(i)) != 0 {
				w = inv.At(uint32(lo + i))
			} else {
				w = flat[lo+i]
			}
			m := math.Abs(rv)
			l1 += m
			if t := m * w; t > maxRatio {
				maxRatio = t
			}
			if rv < 0 {
				minR = min(minR, rv)
				maxNeg = max(maxNeg, m*w)
			}
		}
	}
	a.l1, a.maxRatio, a.maxNeg, a.minR = l1, maxRatio, maxNeg, minR
}

// coordBounds returns the engine's per-node error bounds on an undirected
// view from its residual statistics st: with C = max_w |r(w)|/W(w)/alpha
// over nodes with out-weight and L = the residual on the others over
// alpha, |e(u)| <= |r(u)| + d*C*W(u) + L for u with out-weight, L for the
// others (see SolveTopK), and |e(u)| <= l1Bound as well (the tighter while
// the residual sits on a few nodes).
//
// A signed residual's negative part gets bounds of its own (errorBounds):
// r+ and r- are each at most |r|, so |r|'s statistics bound r+'s, and r-'s
// are st.maxNeg and st.danglingNeg.
func (e *Engine) coordBounds(st residualStats, l1Bound float64) errorBounds {
	boundScale := e.tune.boundScale
	coord := boundScale * st.maxRatio / e.alpha
	eb := errorBounds{
		w:        e.view.NodeOutWeights(),
		r:        e.R,
		coord:    coord,
		dCoord:   e.damping * coord,
		rScale:   boundScale,
		dangling: boundScale * st.dangling / e.alpha,
		l1:       boundScale * l1Bound,
		signed:   st.signed,
	}
	if st.signed {
		eb.neg = &negBounds{
			dCoord:   e.damping * boundScale * st.maxNeg / e.alpha,
			dangling: boundScale * st.danglingNeg / e.alpha,
		}
	}
	return eb
}

// blockerSet collects in coordGap's pass what refineTopK would collect in
// its own: the unselected candidates whose interval [x, x + E] reaches the
// selection's lowest lower end (at most limit of them; over when more do)
// and the highest upper end among the others. On a view without a
// candidate list that pass reads every node, as often as the proof is
// checked, so a second pass would be a visible share of the solve
// (docs/benchmarks.md, "ppr: small passes").
type blockerSet struct {
	limit  int
	nodes  []uint32
	over   bool
	restHi float64
}

// reset empties the set for a pass allowing limit blockers.
func (bs *blockerSet) reset(limit int) {
	bs.limit, bs.nodes, bs.over, bs.restHi = limit, bs.nodes[:0], false, math.Inf(-1)
}

// add files unselected candidate u with upper end hi against the
// selection's lowest lower end minSel.
func (bs *blockerSet) add(u uint32, hi, minSel float64) {
	switch {
	case hi < minSel:
		bs.restHi = max(bs.restHi, hi)
	case len(bs.nodes) == bs.limit:
		bs.over = true
	default:
		bs.nodes = append(bs.nodes, u)
	}
}

// coordGap returns the proved gap min_sel lower(v) - max_rest(x(u) + E(u))
// over the candidates (nil: every node) for the bounds eb, the error term
// at the unselected candidate that sets it (for scheduling), and need: the
// smallest (min_sel lower - x(u))/W(u) over the unselected candidates the
// bound does not yet separate (+Inf when none), the per-coordinate factor
// that would separate them. One pass over the candidates; inSel is all
// false on entry and on return.
//
// maxRest is the greatest upper end x(u) + E(u) over the unselected
// candidates, maxErr the greatest E(u) over the candidates and maxW their
// greatest out-weight on undirected views (+Inf when the pass is not given
// them all; restSummary keeps the three).
//
// outsideHi is the highest upper end among unselected candidates the pass
// is not given (-Inf: it is given them all), below the selection's lowest
// end (see local.go). Between upper ends that are equal the larger
// error term is the one reported, so the result does not depend on the
// order of the candidates.
func coordGap(x []float64, eb *errorBounds, sel []Scored, candidates []uint32, inSel []bool, bs *blockerSet, outsideHi float64) (proved, slack, need, maxRest, maxErr, maxW float64) {
	minSel := selectionFloor(eb, sel)
	for _, s := range sel {
		inSel[s.Node] = true
	}
	need = math.Inf(1)
	w := eb.w
	// The pass splits at minSel. A selected v has x(v) + E(v) >= x(v) >=
	// lower(v) >= minSel, so every candidate below minSel is unselected
	// and only the few at or above it (the selection and its blockers)
	// need the inSel test, in blocking; rest stays small enough to inline.
	restHi, restAt := outsideHi, 0.0 // the highest upper end below minSel, its error term
	if restHi > math.Inf(-1) {
		restAt = outsideHi // x = 0 there: the upper end is the error term
	}
	maxErr = restAt // the greatest error term of the nodes not given is outsideHi's

	blockHi, blockAt := math.Inf(-1), 0.0
	blocking := func(u uint32, hi, err float64) {
		if inSel[u] {
			return
		}
		if hi > blockHi || hi == blockHi && err > blockAt {
			blockHi, blockAt = hi, err
		}
		if x[u] < minSel && w != nil {
			if wu := w.At(u); wu > 0 {
				need = min(need, (minSel-x[u])/wu)
			}
		}
		if bs != nil {
			bs.add(u, hi, minSel)
		}
	}
	rest := func(u uint32) {
		err := eb.at(u)
		maxErr = max(maxErr, err)
		if w != nil {
			maxW = max(maxW, w.At(u))
		}
		hi := x[u] + err
		if hi >= minSel {
			blocking(u, hi, err)
		} else if hi > restHi || hi == restHi && err > restAt {
			restHi, restAt = hi, err
		}
	}
	eachCandidate(len(x), candidates, rest)
	if bs != nil {
		bs.restHi = max(bs.restHi, restHi)
	}
	maxRest, at := restHi, restAt
	if blockHi > maxRest {
		maxRest, at = blockHi, blockAt
	}
	for _, s := range sel {
		inSel[s.Node] = false
	}
	if outsideHi > math.Inf(-1) {
		maxW = math.Inf(1) // the nodes not given were not read
	}
	return minSel - maxRest, at, need, maxRest, maxErr, maxW
}

// selectionFloor returns the selection's lowest lower end under eb. A
// non-negative residual gives pi >= x, so a selected candidate needs no
// error term; a signed one (a caller's warm start) bounds |e| on both
// sides.
func selectionFloor(eb *errorBounds, sel []Scored) float64 {
	minSel := math.Inf(1)
	for _, s := range sel {
		minSel = min(minSel, eb.lower(s))
	}
	return minSel
}
