package store

import (
	"fmt"
	"math"
	"sync"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

type lazyView struct {
	once sync.Once
	v    *mask.View
	err  error

	volOnce sync.Once
	vol     float64 // sum of the out-weights (volume), for the cache's first threshold
}

// volume returns the sum of the view's out-weights, summed on first use:
// only the cache's updates need it, not a guard's authenticated view.
func (l *lazyView) volume() float64 {
	l.volOnce.Do(func() {
		for _, w := range l.v.OutWeights() {
			l.vol += w
		}
	})
	return l.vol
}

// View returns the version seen through a trust policy (nil: native), as
// ppr's engine reads it: the base snapshot's view with the rows the delta
// changed replaced (mask.WithDelta), built once per policy on first use at
// a cost of O(delta + the degrees of the nodes it touched) plus O(n) words
// for the out-weights. Nothing of the snapshot is copied. PPR on a version
// is ppr's on this view (ppr.Solve, ppr.SolveTopK); a Cache brings solved
// vectors from version to version instead of solving again.
func (v *Version) View(p *mask.Policy) (*mask.View, error) {
	l, err := v.lazyView(p)
	if err != nil {
		return nil, err
	}
	return l.v, nil
}

func (v *Version) lazyView(p *mask.Policy) (*lazyView, error) {
	lv, _ := v.views.LoadOrStore(policyKey(p), &lazyView{})
	l := lv.(*lazyView)
	l.once.Do(func() {
		l.v, l.err = v.buildView(p)
	})
	return l, l.err
}

func (v *Version) selects(p *mask.Policy, channel uint32) bool {
	return p == nil || p.Trusts(v.l.channels[channel])
}

// keeps reports whether the view for p has delta edge i: its creator and
// every channel it requires selected (min-inheritance).
func (v *Version) keeps(p *mask.Policy, i int) bool {
	if !v.selects(p, v.l.creator[i]) {
		return false
	}
	for _, c := range v.l.reqSets[v.l.requires[i]] {
		if !v.selects(p, c) {
			return false
		}
	}
	return true
}

// buildView applies the delta to the base view for p: the delta edges p
// selects, and the deletions made by channels p selects.
func (v *Version) buildView(p *mask.Policy) (*mask.View, error) {
	bv, err := v.base.view(p)
	if err != nil {
		return nil, err
	}
	d := mask.Delta{Nodes: v.NumNodes()}
	for i := range v.l.src {
		if v.keeps(p, i) {
			d.Src = append(d.Src, v.l.src[i])
			d.Dst = append(d.Dst, v.l.dst[i])
			d.Weight = append(d.Weight, v.l.weight[i])
			d.Edge = append(d.Edge, uint32(v.base.edges+i))
		}
	}
	for _, del := range v.l.dels {
		if v.selects(p, del.channel) {
			d.Removed = append(d.Removed, del.edge)
		}
	}
	if len(d.Edge) == 0 && len(d.Removed) == 0 && d.Nodes == v.base.nodes {
		return bv, nil // a freshly compacted version reads the base view as it is
	}
	return mask.WithDelta(bv, d)
}

// emptyGraphs are the 0-node snapshots an empty store's versions patch.
var emptyGraphs = [2]*csr.Graph{csrHooks.Empty(false), csrHooks.Empty(true)}

func emptyGraph(directed bool) *csr.Graph {
	if directed {
		return emptyGraphs[1]
	}
	return emptyGraphs[0]
}

// solve is ppr.Solve on the version's view for policy p (nil: native),
// from the native start state to an L1 error bound tol (ppr.DefaultTol
// when 0), keeping the engine: the cache takes its residual (eng.R) and
// its work (eng.Stats).
func (v *Version) solve(p *mask.Policy, seeds ppr.Seeds, damping, tol float64) (*ppr.Engine, *ppr.Result, error) {
	view, err := v.View(p)
	if err != nil {
		return nil, nil, err
	}
	eng, err := ppr.NewEngine(view, seeds, damping)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	res, err := eng.SolveSweeps(ppr.Options{Tol: tol})
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	return eng, res, nil
}

// residualL1 returns ||r||_1.
func residualL1(r []float64) float64 {
	l1 := 0.0
	for _, x := range r {
		l1 += math.Abs(x)
	}
	return l1
}
