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
		w := l.v.NodeOutWeights() // no array of n built on a patched view
		for u := range l.v.NumNodes() {
			l.vol += w.At(uint32(u))
		}
	})
	return l.vol
}

// View returns the version seen through a trust policy (nil: native), as
// ppr's engine reads it: the base snapshot's view with the rows the delta
// changed replaced (mask.WithDelta), built once per policy on first use.
// Nothing of the snapshot is copied. When an earlier version on the same
// base has its view for the policy built, this one derives from it: it
// shares its rows and rebuilds the rows the writes between them changed,
// at a cost of O(those writes + the degrees of the nodes they touched)
// plus O(n/64) words of bitsets (with no change to the policy's view, it
// is that view); else it applies the whole delta to the base's view,
// O(delta + the degrees of the nodes it touched) plus O(n/64). PPR on
// a version is ppr's on this view (ppr.Solve, ppr.SolveTopK); a Cache
// brings solved vectors from version to version instead of solving again.
func (v *Version) View(p *mask.Policy) (*mask.View, error) {
	l, err := v.lazyView(p)
	if err != nil {
		return nil, err
	}
	return l.v, nil
}

func (v *Version) lazyView(p *mask.Policy) (*lazyView, error) {
	key := policyKey(p)
	lv, _ := v.views.LoadOrStore(key, &lazyView{})
	l := lv.(*lazyView)
	l.once.Do(func() {
		l.v, l.err = v.buildView(p, key)
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

// builtView is a version's view for one policy, as its base remembers the
// newest one built (base.recent).
type builtView struct {
	v    *Version
	view *mask.View
}

// buildView makes the view for p (key: its policyKey): derived from the
// newest earlier version's on the same base when the base remembers one
// (the delta logs are append-only, so that version's delta is a prefix of
// this one's), else the base's view with the whole delta applied.
func (v *Version) buildView(p *mask.Policy, key string) (*mask.View, error) {
	from, bv := v.base.recentView(key, v)
	var view *mask.View
	var err error
	if bv != nil {
		view, err = v.applyDelta(bv, from, p)
	} else if bv, err = v.base.view(p); err == nil {
		view, err = v.applyDelta(bv, nil, p)
	}
	if err != nil {
		return nil, err
	}
	v.base.remember(key, v, view)
	return view, nil
}

// applyDelta applies to bv, the view for p of version from (nil: of the
// base), the writes v has beyond it: the delta edges p keeps, and the
// deletions made by channels p selects.
func (v *Version) applyDelta(bv *mask.View, from *Version, p *mask.Policy) (*mask.View, error) {
	edges, dels := 0, 0
	if from != nil {
		edges, dels = len(from.l.src), len(from.l.dels)
	}
	d := mask.Delta{Nodes: v.NumNodes()}
	for i := edges; i < len(v.l.src); i++ {
		if v.keeps(p, i) {
			d.Src = append(d.Src, v.l.src[i])
			d.Dst = append(d.Dst, v.l.dst[i])
			d.Weight = append(d.Weight, v.l.weight[i])
			d.Edge = append(d.Edge, uint32(v.base.edges+i))
		}
	}
	for _, del := range v.l.dels[dels:] {
		if v.selects(p, del.channel) {
			d.Removed = append(d.Removed, del.edge)
			src, dst := v.ends(del.edge)
			d.RemovedSrc, d.RemovedDst = append(d.RemovedSrc, src), append(d.RemovedDst, dst)
		}
	}
	if len(d.Edge) == 0 && len(d.Removed) == 0 && d.Nodes == bv.NumNodes() {
		return bv, nil // nothing p sees changed (a freshly compacted version reads the base view as it is)
	}
	return mask.WithDelta(bv, d)
}

// ends returns edge e's ends.
func (v *Version) ends(e uint32) (src, dst uint32) {
	if int(e) < v.base.edges {
		ed := v.base.g.Edge(e)
		return ed.Src, ed.Dst
	}
	i := int(e) - v.base.edges
	return v.l.src[i], v.l.dst[i]
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
