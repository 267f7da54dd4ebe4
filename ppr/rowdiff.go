package ppr

import "github.com/authppr/authppr/mask"

// rowDiffs holds, for the nodes of differ that adaptations reach, the arcs
// in which the row of this engine's view (A) and the donor's (G) differ,
// read once per pair of views: a row of a hub may have thousands of arcs
// and one that differs, and every estimate that reaches it needs
// (P'_A[u] - P'_G[u]).q (see change).
type rowDiffs struct {
	a, g *mask.View
	rows map[uint32]*rowDiff
}

// rowDiff is one node's: its out-weights in both views and the arcs only
// one view has, with the weight positive for A's and negative for G's.
type rowDiff struct {
	wA, wG float64
	nbr    []uint32
	weight []float64
}

// views keeps the rows read when the views are the ones they were read
// for, and forgets them otherwise.
func (rd *rowDiffs) views(a, g *mask.View) {
	if rd.a != a || rd.g != g {
		rd.a, rd.g, rd.rows = a, g, nil
	}
}

// row returns u's differing arcs, read on first use.
func (rd *rowDiffs) row(u uint32) *rowDiff {
	if r := rd.rows[u]; r != nil {
		return r
	}
	if rd.rows == nil {
		rd.rows = make(map[uint32]*rowDiff)
	}
	r := &rowDiff{wA: rd.a.OutWeight(u), wG: rd.g.OutWeight(u)}
	ra, rg := rd.a.OutRow(u), rd.g.OutRow(u)
	if len(ra.Nbr) > 0 && len(ra.Nbr) == len(rg.Nbr) && &ra.Nbr[0] == &rg.Nbr[0] {
		// The same graph row under two masks.
		for p, v := range ra.Nbr {
			if la, lg := ra.Live(p), rg.Live(p); la != lg {
				w := ra.Weight.At(p)
				if lg {
					w = -w
				}
				r.nbr, r.weight = append(r.nbr, v), append(r.weight, w)
			}
		}
	} else {
		// Different rows (a patched view's): an edge id in one row's live
		// arcs and not the other's is an arc only that view has.
		inA := make(map[uint32]bool, len(ra.Nbr))
		for p, e := range ra.Edge {
			if ra.Live(p) {
				inA[e] = true
			}
		}
		inG := make(map[uint32]bool, len(rg.Nbr))
		for p, e := range rg.Edge {
			if rg.Live(p) {
				inG[e] = true
				if !inA[e] {
					r.nbr, r.weight = append(r.nbr, rg.Nbr[p]), append(r.weight, -rg.Weight.At(p))
				}
			}
		}
		for p, e := range ra.Edge {
			if ra.Live(p) && !inG[e] {
				r.nbr, r.weight = append(r.nbr, ra.Nbr[p]), append(r.weight, ra.Weight.At(p))
			}
		}
	}
	rd.rows[u] = r
	return r
}

// change returns d*(P'_A[u] - P'_G[u]).q for the donor's estimate (q
// dense, s(u) = su its remainder at u, origin whether u is the estimate's
// node v), reading only u's differing arcs (the reference, rowDiffDot,
// reads both rows).
//
// Proof. The donor's push keeps s = e_v - (I - d*P'_G)*q (see adapt), so
// g = d*P'_G[u].q = s(u) + q(u) - [u = v] (0 where u dangles in G, as P'
// has no row there). The arcs common to both rows give W_G*P'_G[u].q less
// G's own arcs, so with a = sum of w*q over A's own arcs and b over G's,
// W_A*P'_A[u].q = W_G*g/d - b + a, and
//
//	d*(P'_A[u] - P'_G[u]).q = ((W_G - W_A)*g + d*(a - b)) / W_A,
//
// or -g where u dangles in A.
func (rd *rowDiffs) change(e *Engine, u uint32, origin bool, su float64, q []float64) float64 {
	r := rd.row(u)
	g := 0.0
	if r.wG > 0 {
		g = su + q[u]
		if origin {
			g--
		}
	}
	if r.wA == 0 {
		return -g
	}
	ab := 0.0
	for i, v := range r.nbr {
		ab += r.weight[i] * q[v]
	}
	return ((r.wG-r.wA)*g + e.damping*ab) / r.wA
}

// origin returns the node the estimate is of: the first the push reached.
func (e *reverseEstimate) origin() uint32 { return e.reached[0] }
