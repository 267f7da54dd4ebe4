package consensus

import (
	"fmt"
	"slices"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/replay"
)

// Contradiction is one contradiction edge with its provenance: the channel
// (judge, peer, model) that reported it.
type Contradiction struct {
	I, J    int
	Channel string
}

// Guarded is the consensus selector under the replay guard: contradiction
// edges are structural writes, so the native selection uses every edge and
// the authenticated one only edges some trusted channel reported. Replay
// runs both and flags a divergence.
type Guarded struct {
	native, auth *Graph
	opt          Options
}

// NewGuarded builds both graphs over k items. trusts says whether a
// channel is authenticated (mask.Policy.Trusts fits); nil trusts every
// channel. An edge reported by several channels is authenticated when any
// of them is trusted.
func NewGuarded(k int, edges []Contradiction, trusts func(channel string) bool, opt Options) (*Guarded, error) {
	native, err := newGraph(k)
	if err != nil {
		return nil, err
	}
	auth, _ := newGraph(k)
	for n, e := range edges {
		if err := native.addContradiction(e.I, e.J); err != nil {
			return nil, fmt.Errorf("consensus: edge %d (channel %q): %w", n, e.Channel, err)
		}
		if trusts == nil || trusts(e.Channel) {
			auth.addContradiction(e.I, e.J)
		}
	}
	return &Guarded{native: native, auth: auth, opt: opt}, nil
}

// Replay runs the native and the authenticated selection and decides
// under policy as replay.ReplaySelector does: Divergent when the two
// selected sets differ; under replay.Reject the caller gets the
// authenticated selection, under replay.Report the native one (flagged),
// under replay.Escalate a *replay.SelectorDivergenceError.
func (g *Guarded) Replay(policy replay.OnDivergence) (*replay.SelectorDecision[*Selection], error) {
	return replay.ReplaySelector[*Selection](sides{g}, policy)
}

// sides is g as a replay.Selector: the selections on its two graphs.
type sides struct{ g *Guarded }

var _ replay.Selector[*Selection] = sides{}

func (s sides) SelectNative() (*Selection, error) { return Select(s.g.native, s.g.opt) }
func (s sides) SelectAuth() (*Selection, error)   { return Select(s.g.auth, s.g.opt) }
func (s sides) Equal(a, b *Selection) bool        { return slices.Equal(a.Items, b.Items) }

// FromViews builds the guarded selector over items (node ids in rank
// order: items[0] is the most reliable) from two views of one graph that
// holds contradictions as edges between item nodes: the native view's
// edges among the items are the native graph, the authenticated view's
// the authenticated one. A store version's views (store.Version.View) serve
// as well as a snapshot's, so a consensus selection is guarded on a living
// memory as a PPR selection is (derived contradiction edges inherit their
// sources' channels there). Edges to nodes outside items are ignored.
func FromViews(items []uint32, native, auth *mask.View, opt Options) (*Guarded, error) {
	if native.NumNodes() != auth.NumNodes() {
		return nil, fmt.Errorf("consensus: views of %d and %d nodes", native.NumNodes(), auth.NumNodes())
	}
	index := make(map[uint32]int, len(items))
	for i, u := range items {
		if int64(u) >= int64(native.NumNodes()) {
			return nil, fmt.Errorf("consensus: item %d: node %d out of range (%d nodes)", i, u, native.NumNodes())
		}
		if _, dup := index[u]; dup {
			return nil, fmt.Errorf("consensus: item %d: node %d repeated", i, u)
		}
		index[u] = i
	}
	build := func(v *mask.View) (*Graph, error) {
		g, err := newGraph(len(items))
		if err != nil {
			return nil, err
		}
		for i, u := range items {
			row := v.OutRow(u)
			for p, w := range row.Nbr {
				if j, ok := index[w]; ok && j != i && row.Live(p) {
					if err := g.addContradiction(i, j); err != nil {
						return nil, err
					}
				}
			}
		}
		return g, nil
	}
	n, err := build(native)
	if err != nil {
		return nil, err
	}
	a, err := build(auth)
	if err != nil {
		return nil, err
	}
	return &Guarded{native: n, auth: a, opt: opt}, nil
}
