package consensus_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/consensus"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/replay"
	"github.com/authppr/authppr/store"
)

// The consensus selector guarded on a living store's versions decides as
// the same selector built from the explicit contradiction list: the native
// graph holds every live contradiction, the authenticated one the trusted
// ones; an untrusted peer's contradictions (and a trusted merge of them,
// which inherits the peer's channel) are replayed away.
func TestGuardedOnStoreVersions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(61, 62))
	trust := mask.Trust("judge", "resolver")
	diverged := 0
	for trial := range 40 {
		s, err := store.New(nil, nil, store.Options{})
		require.NoError(t, err)
		judge, _ := s.Writer("judge")
		peer, _ := s.Writer("peer")
		resolver, _ := s.Writer("resolver")
		const k = 8
		name := func(i int) string { return fmt.Sprint("item", i) }
		for i := range k {
			_, err := judge.Apply(store.Node(name(i)))
			require.NoError(t, err)
		}
		type edge struct {
			i, j    int
			channel string
		}
		var written []edge
		for range 6 + rng.IntN(10) {
			i, j := rng.IntN(k), rng.IntN(k)
			if i == j {
				continue
			}
			w, channel := judge, "judge"
			if rng.IntN(3) == 0 {
				w, channel = peer, "peer"
			}
			_, err := w.Apply(store.Edge(name(i), name(j), 1))
			require.NoError(t, err)
			written = append(written, edge{i, j, channel})
		}
		// A spare node some contradictions get merged into by the trusted
		// resolver: the rewired copies inherit the writers' channels.
		merged := rng.IntN(2) == 0
		if merged {
			_, err := judge.Apply(store.Edge(name(k), name(0), 1))
			require.NoError(t, err)
			written = append(written, edge{k, 0, "judge"})
			_, err = peer.Apply(store.Edge(name(k), name(1), 1))
			require.NoError(t, err)
			written = append(written, edge{k, 1, "peer"})
			_, err = resolver.Apply(store.MergeInto(name(k), name(2)))
			require.NoError(t, err)
		}
		v := s.Current()
		items := make([]uint32, k)
		for i := range items {
			items[i], _ = v.ID(name(i))
		}
		native, err := v.View(nil)
		require.NoError(t, err)
		auth, err := v.View(&trust)
		require.NoError(t, err)
		got, err := consensus.FromViews(items, native, auth, consensus.Options{})
		require.NoError(t, err)
		// The explicit list: a merge rewires item k's contradictions onto
		// item 2 (keeping the writer's channel: min-inheritance).
		var list []consensus.Contradiction
		for _, e := range written {
			i, j := e.i, e.j
			if merged && i == k {
				i = 2
			}
			if i != j {
				list = append(list, consensus.Contradiction{I: i, J: j, Channel: e.channel})
			}
		}
		want, err := consensus.NewGuarded(k, list, trust.Trusts, consensus.Options{})
		require.NoError(t, err)
		dg, err := got.Replay(replay.Reject)
		require.NoError(t, err)
		dw, err := want.Replay(replay.Reject)
		require.NoError(t, err)
		require.True(t, slices.Equal(dw.Native.Items, dg.Native.Items), "trial %d: native", trial)
		require.True(t, slices.Equal(dw.Auth.Items, dg.Auth.Items), "trial %d: auth", trial)
		require.Equal(t, dw.Divergent, dg.Divergent, "trial %d", trial)
		if dg.Divergent {
			diverged++
		}
	}
	require.Positive(t, diverged, "no divergence seen")
}
