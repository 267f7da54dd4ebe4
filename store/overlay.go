package store

import (
	"sync"

	"github.com/authppr/authppr/mask"
)

// overlay is a version seen through one trust policy, as the solver reads
// it: the out-row of a node the delta touched is listed in rows; every other
// node's row is the base view's (its arcs with the base view's mask).
type overlay struct {
	n       int
	baseN   int
	view    *mask.View // base view; nil for an empty base
	touched []uint64   // bitset over n: rows[u] replaces the base row
	rows    map[uint32]*row

	volOnce sync.Once
	vol     float64
}

// row is a replaced out-row: arcs in edge-id order (base arcs, then delta
// arcs), so W sums in the order of the materialised snapshot's arcs and is
// equal to its view's W_A bit for bit.
type row struct {
	nbr []uint32
	wt  []float64
	w   float64
}

type lazyOverlay struct {
	once sync.Once
	o    *overlay
	err  error
}

// overlay returns the version's overlay for a policy (nil: native), built
// once on first use at a cost of O(delta + rows of touched nodes).
func (v *Version) overlay(p *mask.Policy) (*overlay, error) {
	lo, _ := v.overlays.LoadOrStore(policyKey(p), &lazyOverlay{})
	l := lo.(*lazyOverlay)
	l.once.Do(func() { l.o, l.err = v.buildOverlay(p) })
	return l.o, l.err
}

func (v *Version) selects(p *mask.Policy, channel uint32) bool {
	return p == nil || p.Trusts(v.l.channels[channel])
}

func (v *Version) buildOverlay(p *mask.Policy) (*overlay, error) {
	bv, err := v.base.view(p)
	if err != nil {
		return nil, err
	}
	n := v.NumNodes()
	o := &overlay{n: n, baseN: v.base.nodes, view: bv, touched: make([]uint64, (n+63)/64), rows: make(map[uint32]*row)}
	// Edges the delta deletes in this view: deleted by a selected channel.
	gone := make(map[uint32]bool)
	for _, d := range v.l.dels {
		if v.selects(p, d.channel) {
			gone[d.edge] = true
		}
	}
	mark := func(u uint32) {
		if o.touched[u/64]&(1<<(u%64)) == 0 {
			o.touched[u/64] |= 1 << (u % 64)
			o.rows[u] = &row{}
		}
	}
	directed := v.base.directed
	for e := range gone {
		if int(e) < v.base.edges && !bv.MaskedEdge(e) {
			ed := v.base.g.Edge(e)
			mark(ed.Src)
			if !directed {
				mark(ed.Dst)
			}
		}
	}
	// Base arcs of touched base nodes first (edge ids below every delta id).
	if bv != nil {
		out := v.base.g.Out()
		for u, r := range o.rows {
			lo, hi := out.Span(u)
			for a := lo; a < hi; a++ {
				if e := out.Edge[a]; !bv.MaskedEdge(e) && !gone[e] {
					r.nbr = append(r.nbr, out.Nbr[a])
					r.wt = append(r.wt, out.Weight[a])
				}
			}
		}
	}
	// Rows of nodes touched only by new edges start with their base arcs too.
	addArc := func(u, w uint32, wt float64) {
		r, ok := o.rows[u]
		if !ok {
			mark(u)
			r = o.rows[u]
			if bv != nil && int(u) < o.baseN {
				out := v.base.g.Out()
				lo, hi := out.Span(u)
				for a := lo; a < hi; a++ {
					if e := out.Edge[a]; !bv.MaskedEdge(e) && !gone[e] {
						r.nbr = append(r.nbr, out.Nbr[a])
						r.wt = append(r.wt, out.Weight[a])
					}
				}
			}
		}
		r.nbr = append(r.nbr, w)
		r.wt = append(r.wt, wt)
	}
	for i := range v.l.src {
		e := uint32(v.base.edges + i)
		if !v.selects(p, v.l.creator[i]) || gone[e] {
			continue
		}
		s, d, w := v.l.src[i], v.l.dst[i], v.l.weight[i]
		addArc(s, d, w)
		if !directed {
			addArc(d, s, w)
		}
	}
	for _, r := range o.rows {
		for _, w := range r.wt {
			r.w += w
		}
	}
	return o, nil
}

// outWeight returns W_A(u) in the overlay.
func (o *overlay) outWeight(u uint32) float64 {
	if o.touched[u/64]&(1<<(u%64)) != 0 {
		return o.rows[u].w
	}
	if int(u) >= o.baseN {
		return 0
	}
	return o.view.OutWeight(u)
}

// forEachArc calls f for every arc of u's row that the view keeps.
func (o *overlay) forEachArc(u uint32, f func(v uint32, wt float64)) {
	if o.touched[u/64]&(1<<(u%64)) != 0 {
		r := o.rows[u]
		for i, v := range r.nbr {
			f(v, r.wt[i])
		}
		return
	}
	if int(u) >= o.baseN {
		return
	}
	out := o.view.Graph().Out()
	lo, hi := out.Span(u)
	for a := lo; a < hi; a++ {
		if !o.view.MaskedEdge(out.Edge[a]) {
			f(out.Nbr[a], out.Weight[a])
		}
	}
}

// volume returns the sum of W_A(u) over every node, computed once.
func (o *overlay) volume() float64 {
	o.volOnce.Do(func() {
		for u := range o.n {
			o.vol += o.outWeight(uint32(u))
		}
	})
	return o.vol
}
