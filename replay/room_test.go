package replay

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLowerRoomKeepsEveryLowerEnd checks the delta path's threshold for the
// negative residual: at the ratio lowerRoom returns, no selected node's
// lower end falls more than its room (its lead over the selection's lowest
// native score plus drop), one node's exactly, and the ratio is never finer
// than the selection's greatest out-weight alone would make it.
func TestLowerRoomKeepsEveryLowerEnd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 1))
	for trial := range 40 {
		sc := randomScenario(t, rng, 10+rng.IntN(40), false, 0.3)
		gd, err := New(sc.g, sc.labels, sc.trust, Options{})
		require.NoError(t, err)
		q := randomQuery(rng, sc.g.NumNodes())
		d, err := gd.Select(q)
		require.NoError(t, err)
		rn := &run{gd: gd, q: q, d: d}
		wref := 0.0
		lowest := math.Inf(1)
		for _, s := range d.Native {
			wref = max(wref, gd.auth.OutWeight(s.Node))
			lowest = min(lowest, s.Score)
		}
		if wref == 0 {
			continue
		}
		drop := 1e-6 * (1 + rng.Float64())
		room := rn.lowerRoom(drop)
		alpha := 1 - q.Damping
		require.GreaterOrEqual(t, room, alpha*drop/wref*(1-1e-12), "trial %d", trial)
		tight := false
		for _, s := range d.Native {
			w := gd.auth.OutWeight(s.Node)
			if w == 0 {
				continue
			}
			lead := s.Score - lowest + drop
			require.LessOrEqual(t, room*w/alpha, lead*(1+1e-12), "trial %d: node %d", trial, s.Node)
			tight = tight || room*w/alpha >= lead*(1-1e-12)
		}
		require.True(t, tight, "trial %d: no selected node's room is used whole", trial)
	}
}
