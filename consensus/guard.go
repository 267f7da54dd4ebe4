package consensus

import (
	"fmt"
	"slices"

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
// the authenticated one only edges some trusted channel reported. It
// implements replay.Selector[*Selection]; replay.ReplaySelector runs both
// and flags a divergence.
type Guarded struct {
	native, auth *Graph
	opt          Options
}

var _ replay.Selector[*Selection] = (*Guarded)(nil)

// NewGuarded builds both graphs over k items. trusts says whether a
// channel is authenticated (mask.Policy.Trusts fits); nil trusts every
// channel. An edge reported by several channels is authenticated when any
// of them is trusted.
func NewGuarded(k int, edges []Contradiction, trusts func(channel string) bool, opt Options) (*Guarded, error) {
	native, err := NewGraph(k)
	if err != nil {
		return nil, err
	}
	auth, _ := NewGraph(k)
	for n, e := range edges {
		if err := native.AddContradiction(e.I, e.J); err != nil {
			return nil, fmt.Errorf("consensus: edge %d (channel %q): %w", n, e.Channel, err)
		}
		if trusts == nil || trusts(e.Channel) {
			auth.AddContradiction(e.I, e.J)
		}
	}
	return &Guarded{native: native, auth: auth, opt: opt}, nil
}

// Native returns the graph of every edge, Auth the graph of trusted edges.
func (g *Guarded) Native() *Graph { return g.native }
func (g *Guarded) Auth() *Graph   { return g.auth }

// SelectNative selects with every contradiction edge.
func (g *Guarded) SelectNative() (*Selection, error) { return Select(g.native, g.opt) }

// SelectAuth selects with trusted contradiction edges only.
func (g *Guarded) SelectAuth() (*Selection, error) { return Select(g.auth, g.opt) }

// Equal compares selected items.
func (g *Guarded) Equal(a, b *Selection) bool { return slices.Equal(a.Items, b.Items) }

// Replay runs both selections and decides under policy (see
// replay.ReplaySelector).
func (g *Guarded) Replay(policy replay.Policy) (*replay.SelectorDecision[*Selection], error) {
	return replay.ReplaySelector[*Selection](g, policy)
}
