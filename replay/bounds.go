package replay

import (
	"math"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/mask"
)

// touchedRows returns the nodes whose out-rows differ between the native and
// the authenticated view, with l_u, an upper bound on ||P_A[u] - P_G[u]||_1
// that does not depend on the query:
//
//   - both rows dangling (both equal the seeds): l_u = 0, node dropped;
//   - exactly one dangling: ||s - p||_1 <= ||s||_1 + ||p||_1 = 2;
//   - neither: sum over u's arcs of |w*(a/W_A - g/W_G)|, where a and g say
//     whether the arc survives in each view. Summing per arc bounds the
//     per-neighbour sum by the triangle inequality (parallel arcs), and for
//     plain masking (g = 1 on every arc) it equals 2*f_u with
//     f_u = 1 - W_A/W_G: surviving arcs give W_A*(1/W_A - 1/W_G) = f_u,
//     masked ones (W_G - W_A)/W_G = f_u.
//
// A node is only listed when l_u > 0: masking zero-weight arcs changes no row.
//
// It also lists, per touched node, the arcs whose status differs (their
// neighbour and signed weight: + for authenticated-only, - for native-only),
// so replay can build the start residual in O(differing arcs).
func touchedRows(native, auth *mask.View) (t touched) {
	g := native.Graph()
	diff := roaring.Xor(native.Masked(), auth.Masked())
	candidates := roaring.New()
	it := diff.Iterator()
	for it.HasNext() {
		e := g.Edge(it.Next())
		candidates.Add(e.Src)
		if !g.Directed() {
			candidates.Add(e.Dst)
		}
	}
	out := g.Out()
	cit := candidates.Iterator()
	for cit.HasNext() {
		u := cit.Next()
		wg, wa := native.OutWeight(u), auth.OutWeight(u)
		both := wg > 0 && wa > 0
		l := 0.0
		if !both && (wg > 0 || wa > 0) {
			l = 2
		}
		first := len(t.arcs)
		lo, hi := out.Span(u)
		for p := lo; p < hi; p++ {
			e, w := out.Edge[p], out.Weight.At(p)
			inA, inG := !auth.MaskedEdge(e), !native.MaskedEdge(e)
			if inA != inG && w != 0 {
				signed := w
				if inG {
					signed = -w
				}
				t.arcs = append(t.arcs, diffArc{nbr: out.Nbr[p], weight: signed})
			}
			if both {
				coef := 0.0
				if inA {
					coef += 1 / wa
				}
				if inG {
					coef -= 1 / wg
				}
				l += math.Abs(w * coef)
			}
		}
		l = min(l, 2) // rows are distributions: never more than 2 apart
		if l > 0 {
			t.nodes = append(t.nodes, u)
			t.rowDiff = append(t.rowDiff, l)
			t.arcStart = append(t.arcStart, first)
		} else {
			t.arcs = t.arcs[:first]
		}
	}
	t.arcStart = append(t.arcStart, len(t.arcs))
	return t
}

// touched describes the rows that differ between the views.
type touched struct {
	nodes    []uint32
	rowDiff  []float64 // l_u per node
	arcStart []int     // node i's differing arcs are arcs[arcStart[i]:arcStart[i+1]]
	arcs     []diffArc
}

// diffArc is an arc present in one view only: weight > 0 when only the
// authenticated view has it, < 0 when only the native one does.
type diffArc struct {
	nbr    uint32
	weight float64
}

// errorModel bounds the authenticated vector around an estimate x:
//
//	pi_A(v) = x(v) + a(v) + b(v),  |a(v)| <= Coord*W_A(v),  ||b||_1 <= L1.
//
// The a part comes from residual on nodes with out-weight in an undirected
// view (the per-coordinate bound), the b part from every other residual.
type errorModel struct {
	Coord float64
	L1    float64
}

// residualModel bounds the effect of residual r on the nodes given (nil:
// every node): per coordinate on nodes with out-weight and in L1 on
// dangling ones for an undirected view, all in L1 for a directed one;
// base is added to the L1 term.
func residualModel(r, w []float64, nodes []uint32, alpha, base float64, directed bool) errorModel {
	maxRatio, danglingL1, l1 := 0.0, 0.0, 0.0
	visit := func(v int) {
		a := math.Abs(r[v])
		l1 += a
		if w[v] > 0 {
			maxRatio = max(maxRatio, a/w[v])
		} else {
			danglingL1 += a
		}
	}
	if nodes == nil {
		for v := range r {
			visit(v)
		}
	} else {
		for _, v := range nodes {
			visit(int(v))
		}
	}
	if directed {
		return errorModel{L1: base + l1/alpha}
	}
	return errorModel{Coord: perCoordinateBound(maxRatio, alpha), L1: base + danglingL1/alpha}
}

// perCoordinateBound returns Coord for a residual supported on nodes with
// out-weight in a symmetric view: max_u |r(u)|/W_A(u) / alpha.
//
// Proof. With A symmetric, D = diag(W_A) on the nodes with out-weight and
// P = D^-1*A, (I - d*P)^-1 = (D - d*A)^-1 * D and K = (D - d*A)^-1 is
// symmetric with non-negative entries (D - d*A is a diagonally dominant
// M-matrix for d < 1). So
//
//	|(r*(I-dP)^-1)(v)| = |sum_u r(u)*K[u][v]| * W(v)
//	                   <= max_u(|r(u)|/W(u)) * W(v) * sum_u W(u)*K[u][v]
//
// and sum_u W(u)*K[u][v] = (K*W)(v) = ((I-dP)^-1 * 1)(v) = 1/alpha, because
// P's rows sum to 1. No arc of positive weight enters a node without
// out-weight (the view is symmetric), so such a walk never reaches a
// dangling row and the seeds' row plays no part.
func perCoordinateBound(maxRatio, alpha float64) float64 { return maxRatio / alpha }

// gapInterval proves bounds on gapA = min_{v in sel} pi_A(v) -
// max_{u in cands \ sel} pi_A(u) from the estimate x(v) = xg[v] + dx[v]
// and the error model. inSel marks sel. cands nil means every node.
//
// Proof. Let v*, u* attain the min and the max for pi_A. Then
// gapA = x(v*) - x(u*) + a(v*) - a(u*) + b(v*) - b(u*), and
// |b(v*)| + |b(u*)| <= ||b||_1, so
// gapA >= min_sel(x - Coord*W) - max_rest(x + Coord*W) - L1. For any v' in
// sel and u' in the rest gapA <= pi_A(v') - pi_A(u'); taking v' that
// minimises x + Coord*W and u' that maximises x - Coord*W gives
// gapA <= min_sel(x + Coord*W) - max_rest(x - Coord*W) + L1.
//
// It also returns the largest per-coordinate term among the candidates.
func gapInterval(xg, dx, w []float64, inSel []bool, cands []uint32, em errorModel) (Interval, float64) {
	worst := 0.0
	iv := selectionGap(len(xg), cands, inSel, func(v uint32) (float64, float64) {
		x := xg[v] + dx[v]
		c := em.Coord * w[v]
		worst = max(worst, c)
		return x - c, x + c
	})
	if math.IsInf(iv.Lo, 1) { // everything selected
		return iv, worst
	}
	return Interval{Lo: iv.Lo - em.L1, Hi: iv.Hi + em.L1}, worst
}

// selectionGap bounds min_{v in sel} q(v) - max_{u in cands \ sel} q(u)
// for a quantity q known per candidate within bound(v) = [lo, hi]: below
// by the smallest lower end in sel minus the largest upper end outside,
// above by the smallest upper end in sel minus the largest lower end
// outside (the argument of gapInterval's proof). cands nil means every one
// of the n nodes; +Inf when every candidate is selected.
func selectionGap(n int, cands []uint32, inSel []bool, bound func(v uint32) (lo, hi float64)) Interval {
	minLo, minHi := math.Inf(1), math.Inf(1)
	maxLo, maxHi := math.Inf(-1), math.Inf(-1)
	forCandidates(n, cands, func(v uint32) {
		lo, hi := bound(v)
		if inSel[v] {
			minLo, minHi = min(minLo, lo), min(minHi, hi)
		} else {
			maxLo, maxHi = max(maxLo, lo), max(maxHi, hi)
		}
	})
	if math.IsInf(maxHi, -1) {
		return Interval{math.Inf(1), math.Inf(1)}
	}
	return Interval{Lo: minLo - maxHi, Hi: minHi - maxLo}
}

// forCandidates calls f for every candidate: cands, or all n nodes when nil.
func forCandidates(n int, cands []uint32, f func(v uint32)) {
	if cands == nil {
		for v := range n {
			f(uint32(v))
		}
		return
	}
	for _, v := range cands {
		f(v)
	}
}

// classify maps a proved interval for gapA to an outcome (see the package
// doc), or reports that more precision is needed: the interval straddles
// -tie, or it reaches above tie without lying above 0.
func classify(iv Interval, tie float64) (Outcome, bool) {
	switch {
	case iv.Lo > 0:
		return Same, true
	case iv.Hi < -tie:
		return Divergent, true
	case iv.Lo >= -tie && iv.Hi <= tie:
		return Tie, true
	}
	return 0, false
}
