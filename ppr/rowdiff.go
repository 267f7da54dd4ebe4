package ppr

// DiffRows are the out-rows in which an engine's view (A) and a donor's
// (G) differ (Engine.ShareEstimates), as the host computed them once for
// the pair of views: a row of a hub may have thousands of arcs and one
// that differs, and every estimate that reaches it needs
// (P'_A[u] - P'_G[u]).q (see diffChange), from the differing arcs alone.
type DiffRows interface {
	// DiffRow returns u's out-weights in A and G and the arcs only one of
	// the views has, weight > 0 where A has the arc and < 0 where G has
	// it, or false when u's rows do not differ (in anything but arcs of
	// weight zero). The slices must not be modified.
	DiffRow(u uint32) (wA, wG float64, nbr []uint32, weight []float64, ok bool)
}

// diffChange returns d*(P'_A[u] - P'_G[u]).q for the donor's estimate (q
// spread, s(u) = su its remainder at u, origin whether u is the estimate's
// node v) and u's out-weights in both views, reading only u's differing
// arcs (the reference, rowDiffDot, reads both rows), or false when rows
// has u's rows equal (then the entry is 0 and the weights the same).
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
func diffChange(rows DiffRows, d float64, u uint32, origin bool, su float64, q spreadQ) (delta, wA, wG float64, ok bool) {
	wA, wG, nbr, weight, ok := rows.DiffRow(u)
	if !ok {
		return 0, 0, 0, false
	}
	g := 0.0
	if wG > 0 {
		g = su + q.at(u)
		if origin {
			g--
		}
	}
	if wA == 0 {
		return -g, wA, wG, true
	}
	ab := 0.0
	for i, v := range nbr {
		ab += weight[i] * q.at(v)
	}
	return ((wG-wA)*g + d*ab) / wA, wA, wG, true
}

// spreadQ is an estimate's q over the nodes: q holds its entries at their
// nodes and zero elsewhere, and in marks its support. Almost every node a
// row difference reaches lies outside the support, where at answers from
// the bitset (n/8 bytes, which stays in cache) without reading q's line.
type spreadQ struct {
	q  []float64
	in []uint64
}

// at returns q(v).
func (s spreadQ) at(v uint32) float64 {
	if s.in[v/64]&(1<<(v%64)) == 0 {
		return 0
	}
	return s.q[v]
}

// origin returns the node the estimate is of: the first the push reached.
func (e *reverseEstimate) origin() uint32 { return e.reached[0] }
