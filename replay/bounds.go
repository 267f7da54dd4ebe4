package replay

import (
	"math"
	"slices"
	"sync"

	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/internal/rowindex"
	"github.com/authppr/authppr/mask"
)

// touchedRows returns the nodes whose out-rows differ between the native and
// the authenticated view, with l_u, an upper bound on ||P_A[u] - P_G[u]||_1
// that does not depend on the query:
//
//   - both rows dangling (both equal the seeds): l_u = 0, node dropped;
//   - exactly one dangling: ||s - p||_1 <= ||s||_1 + ||p||_1 = 2;
//   - neither: sum over u's arcs of |w*(a/W_A - g/W_G)|, where a and g say
//     whether the arc is in each view. Summing per arc bounds the
//     per-neighbour sum by the triangle inequality (parallel arcs), and for
//     plain masking (g = 1 on every arc) it equals 2*f_u with
//     f_u = 1 - W_A/W_G: surviving arcs give W_A*(1/W_A - 1/W_G) = f_u,
//     masked ones (W_G - W_A)/W_G = f_u.
//
// A node is only listed when l_u > 0: masking zero-weight arcs changes no row.
//
// It also lists, per touched node, the arcs whose status differs (their
// neighbour, signed weight: + for authenticated-only, - for native-only,
// and edge), so replay can build the start residual in O(differing arcs).
//
// A row can differ only where one of the views does not read the graph's
// row as stored (a masked arc or a replaced row: mask.View.Touched), so
// those nodes are the candidates; each one's two rows are merged by edge id
// (both are in edge-id order; an undirected self-loop's two arcs pair up).
func touchedRows(native, auth *mask.View) (t touched) {
	t.addRows(native, auth, nodeset.Union(native.Touched(), auth.Touched()))
	t.arcStart = append(t.arcStart, t.arcs.len())
	return t
}

// addRows appends the rows of the given nodes (ascending) that differ
// between the views (see touchedRows), leaving arcStart open.
func (t *touched) addRows(native, auth *mask.View, candidates []uint32) {
	for _, u := range candidates {
		wg, wa := native.OutWeight(u), auth.OutWeight(u)
		both := wg > 0 && wa > 0
		l := 0.0
		if !both && (wg > 0 || wa > 0) {
			l = 2
		}
		first := t.arcs.len()
		rowG, rowA := native.OutRow(u), auth.OutRow(u)
		if wg == wa && rowG.AllLive() && rowA.AllLive() && slices.Equal(rowG.Edge, rowA.Edge) {
			// The same arcs (an edge id is one edge of the graph, its ends
			// and weight the same in every view) and out-weights: the
			// rows are equal.
			continue
		}
		for a := range mask.PairArcs(rowG, rowA) {
			inG, inA := a.InA, a.InB
			if inA != inG && a.Weight != 0 {
				signed := a.Weight
				if inG {
					signed = -a.Weight
				}
				t.arcs.add(a.Nbr, signed, a.Edge)
			}
			if both {
				coef := 0.0
				if inA {
					coef += 1 / wa
				}
				if inG {
					coef -= 1 / wg
				}
				l += math.Abs(a.Weight * coef)
			}
		}
		l = min(l, 2) // rows are distributions: never more than 2 apart
		if l > 0 {
			t.nodes = append(t.nodes, u)
			t.rowDiff = append(t.rowDiff, l)
			t.outWeight = append(t.outWeight, rowWeights{native: wg, auth: wa})
			t.arcStart = append(t.arcStart, first)
		} else {
			t.arcs.truncate(first)
		}
	}
}

// Diff is the set of rows that differ between a native and an
// authenticated view of one graph, with what differs in each: what a guard
// is built from (NewFromViews). Computing it reads every row that differs,
// in either view, from the graph's as stored; Patch recomputes only the
// rows a delta replaced, so a host that presents versions of a snapshot as
// patched views (the store) pays for the snapshot's rows once.
type Diff struct{ t touched }

// Difference returns the rows that differ between native and auth.
func Difference(native, auth *mask.View) *Diff {
	return &Diff{touchedRows(native, auth)}
}

// Patch returns the difference between native and auth, views of the
// same graph as the views d was computed on, with rows replaced: the
// nodes in rows (ascending) are computed afresh, every other node's row is
// d's. rows must hold every node whose row in either view differs from
// its row in d's views (a store version: the rows its delta replaced).
func (d *Diff) Patch(native, auth *mask.View, rows []uint32) *Diff {
	var t touched
	i, j := 0, 0
	old := &d.t
	for i < len(old.nodes) || j < len(rows) {
		switch {
		case j == len(rows) || i < len(old.nodes) && old.nodes[i] < rows[j]:
			// The base row: copy its entry.
			u := old.nodes[i]
			first := t.arcs.len()
			lo, hi := old.span(i)
			t.arcs.appendRange(&old.arcs, lo, hi)
			t.nodes = append(t.nodes, u)
			t.rowDiff = append(t.rowDiff, old.rowDiff[i])
			t.outWeight = append(t.outWeight, old.outWeight[i])
			t.arcStart = append(t.arcStart, first)
			i++
		default:
			u := rows[j]
			if i < len(old.nodes) && old.nodes[i] == u {
				i++ // replaced: computed afresh below
			}
			t.addRows(native, auth, []uint32{u})
			j++
		}
	}
	t.arcStart = append(t.arcStart, t.arcs.len())
	return &Diff{t}
}

// touched describes the rows that differ between the views.
type touched struct {
	nodes     []uint32
	rowDiff   []float64    // l_u per node
	outWeight []rowWeights // W_G(u) and W_A(u) per node
	arcStart  []int        // node i's differing arcs are arcs[span(i)]
	arcs      diffArcs
}

// span returns the positions [lo, hi) of node i's differing arcs.
func (t *touched) span(i int) (lo, hi int) { return t.arcStart[i], t.arcStart[i+1] }

// rowWeights are a touched node's out-weights in the two views, kept
// beside its entry: a correction reads them once per row and query, and
// from the views they are two reads far apart in memory.
type rowWeights struct{ native, auth float64 }

// diffArcs are arcs present in one view only, in parallel slices (the
// neighbours and weights are what ppr.DiffRows hands out): weight > 0 when
// only the authenticated view has the arc, < 0 when only the native one
// does.
type diffArcs struct {
	nbr    []uint32
	weight []float64
	edge   []uint32
}

func (a *diffArcs) len() int { return len(a.nbr) }

func (a *diffArcs) add(nbr uint32, weight float64, edge uint32) {
	a.nbr, a.weight, a.edge = append(a.nbr, nbr), append(a.weight, weight), append(a.edge, edge)
}

func (a *diffArcs) truncate(n int) {
	a.nbr, a.weight, a.edge = a.nbr[:n], a.weight[:n], a.edge[:n]
}

// appendRange appends b's arcs lo..hi-1.
func (a *diffArcs) appendRange(b *diffArcs, lo, hi int) {
	a.nbr, a.weight, a.edge = append(a.nbr, b.nbr[lo:hi]...), append(a.weight, b.weight[lo:hi]...), append(a.edge, b.edge[lo:hi]...)
}

// diffRows is a guard's touched rows as ppr.DiffRows (A the authenticated
// view, G the native one), numbered on first use: only a query whose
// refinement adapts a native estimate reads them, and a living store's
// every version has a guard of its own.
type diffRows struct {
	t     *touched
	n     int // the views' nodes
	once  sync.Once
	index rowindex.Ranks
}

// DiffRow returns u's out-weights in both views and its differing arcs,
// or false when u's rows do not differ.
func (d *diffRows) DiffRow(u uint32) (wA, wG float64, nbr []uint32, weight []float64, ok bool) {
	d.once.Do(func() { d.index = rowindex.NewRanks(d.t.nodes, d.n) })
	i := d.index.Index(u) // u is a node of the guard's views
	if i < 0 {
		return 0, 0, nil, nil, false
	}
	t := d.t
	lo, hi := t.span(i)
	return t.outWeight[i].auth, t.outWeight[i].native, t.arcs.nbr[lo:hi], t.arcs.weight[lo:hi], true
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
