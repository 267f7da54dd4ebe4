package store

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/crashtest"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

var soak = flag.Duration("soak", 0, "run TestSoak for this long (default: 1s with -short, 3s without); when set, a full-disk phase follows for a quarter of it (Linux, root: a small tmpfs)")

// TestSoak runs concurrent writers, readers (direct solves and a shared
// Cache) and a compactor for a fixed time on a durable store, then checks
// that every acknowledged write is present exactly once (also after
// recovery) and that every sampled query equals a from-scratch solve of
// its own version. The time is cut into rounds; between two, the store is
// closed, reopened from its files, compacted and queried by name and by
// a solve (issue 16: a reopened store's compaction once left names in the
// unmapped snapshot): one cycle in the normal suite, one every 2 s of a
// long -soak run.
func TestSoak(t *testing.T) {
	d := 3 * time.Second
	if testing.Short() {
		d = time.Second
	}
	rounds := 2
	if *soak > 0 {
		d = *soak
		rounds = max(2, int(d/(2*time.Second)))
	}
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	// A hub so that queries have something to walk.
	var seed []Op
	for i := range 50 {
		seed = append(seed, as("default", Edge("hub", fmt.Sprintf("t%d", i), 1)))
	}
	_, err = s.applyBatch(seed)
	require.NoError(t, err)

	const writers, readers = 3, 3
	type written struct {
		id     uint32
		src    string
		dst    string
		weight float64
	}
	acked := make([][]written, writers)
	deleted := make([]map[uint32]bool, writers)
	for w := range writers {
		deleted[w] = map[uint32]bool{}
	}
	var checked atomic.Int64
	// round runs the writers, the readers and the compactor on s for d.
	round := func(i int, s *Store, d time.Duration) {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var failed atomic.Value
		fail := func(err error) { failed.CompareAndSwap(nil, err) }
		for w := range writers {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), uint64(i)<<8|1))
				ch := fmt.Sprintf("w%d", w)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					var ops []Op
					for j := range 1 + rng.IntN(8) {
						n := len(acked[w]) + j
						ops = append(ops, as(ch, Edge(fmt.Sprintf("%s-%d", ch, n%40), fmt.Sprintf("t%d", rng.IntN(60)), float64(n+1))))
					}
					if len(acked[w]) > 0 && rng.IntN(3) == 0 {
						ops = append(ops, as(ch, Delete(acked[w][rng.IntN(len(acked[w]))].id)))
					}
					res, err := s.applyBatch(ops)
					if err != nil {
						fail(err)
						return
					}
					for j, op := range ops {
						switch op.kind {
						case addEdgeOp:
							acked[w] = append(acked[w], written{res.IDs[j], op.src, op.dst, op.weight})
						case deleteEdgeOp:
							deleted[w][op.edge] = true
						}
					}
				}
			})
		}
		cache := &Cache{Tol: 1e-8, Max: 8}
		for r := range readers {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(r), uint64(i)<<8|2))
				trust := mask.Trust("default", "w0")
				for q := 0; ; q++ {
					select {
					case <-stop:
						return
					default:
					}
					v := s.Current()
					hub, _ := v.ID("hub")
					seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: hub, Weight: 1}, {Node: uint32(rng.IntN(v.NumNodes())), Weight: float64(rng.IntN(2))}})
					if err != nil {
						fail(err)
						return
					}
					p := []*mask.Policy{nil, &trust}[rng.IntN(2)]
					got, err := cache.Query(v, p, seeds, 0.85)
					if err != nil {
						fail(err)
						return
					}
					if q%4 == 0 { // sample: compare with a from-scratch solve of the same version
						want := referenceSolve(t, v, p, seeds, 0.85, 1e-9)
						if dist := l1Dist(want, got.Scores); dist > 1.1e-8 {
							fail(fmt.Errorf("reader %d query %d: L1 distance %.3g from the reference on version %d", r, q, dist, v.Batches()))
							return
						}
						checked.Add(1)
					}
				}
			})
		}
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				if err := s.Compact(); err != nil && err != ErrCompacting {
					fail(err)
					return
				}
			}
		})
		time.Sleep(d)
		close(stop)
		wg.Wait()
		if err := failed.Load(); err != nil {
			t.Fatal(err)
		}
	}

	hubEdges := 50 // the seed's, and one written after each reopen
	check := func(v *Version, where string) {
		total := hubEdges
		for w := range writers {
			ch := fmt.Sprintf("w%d", w)
			seen := map[uint32]bool{}
			for _, x := range acked[w] {
				require.False(t, seen[x.id], "%s: edge id %d acknowledged twice", where, x.id)
				seen[x.id] = true
				e := v.Edge(x.id)
				require.Equal(t, []string{ch}, e.AddedBy, "%s: edge %d", where, x.id)
				require.Equal(t, x.src, v.Name(e.Src), where)
				require.Equal(t, x.dst, v.Name(e.Dst), where)
				require.Equal(t, x.weight, e.Weight, where)
				if deleted[w][x.id] {
					require.Equal(t, []string{ch}, e.DeletedBy, where)
				} else {
					require.Empty(t, e.DeletedBy, where)
				}
			}
			total += len(acked[w])
		}
		require.Equal(t, total, v.NumEdges(), "%s: edges beyond the acknowledged ones", where)
	}
	for i := range rounds {
		round(i, s, d/time.Duration(rounds))
		check(s.Current(), fmt.Sprintf("round %d: live", i))
		if i == rounds-1 {
			break
		}
		// Close, reopen, compact, let the old base go, query.
		require.NoError(t, s.Close())
		s, err = Open(dir, Options{})
		require.NoError(t, err)
		check(s.Current(), fmt.Sprintf("round %d: reopened", i))
		_, err = s.applyBatch([]Op{as("default", Edge("hub", "t0", 1))})
		require.NoError(t, err)
		snaps, _, err := listFiles(dir)
		require.NoError(t, err)
		require.NoError(t, s.Compact())
		if len(snaps) > 0 { // the snapshot reopened from is gone, and so is its base
			crashtest.WaitUnmapped(t, snapPath(dir, snaps[len(snaps)-1]))
		}
		v := s.Current()
		require.Zero(t, v.DeltaEdges(), "round %d: compacted", i)
		for u := range uint32(v.NumNodes()) { // every name, both ways, on the new base
			id, ok := v.ID(v.Name(u))
			require.True(t, ok, "round %d: node %d by name", i, u)
			require.Equal(t, u, id, "round %d: node %q", i, v.Name(u))
		}
		hub, ok := v.ID("hub")
		require.True(t, ok)
		seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: hub, Weight: 1}})
		require.NoError(t, err)
		trust := mask.Trust("default", "w0")
		got, err := solveOn(v, &trust, seeds, 0.85, 1e-9)
		require.NoError(t, err)
		want := referenceSolve(t, v, &trust, seeds, 0.85, 1e-10)
		require.Less(t, l1Dist(want, got.Scores), 2e-9, "round %d: a solve after reopen and compaction", i)
		hubEdges++ // the edge above, counted by check from now on
	}
	require.Positive(t, checked.Load(), "no query was checked")
	r, err := Open(dir, Options{})
	require.NoError(t, err)
	check(r.Current(), "recovered")
	t.Logf("%d rounds, %d edges, %d sampled queries checked", rounds, s.Current().NumEdges(), checked.Load())

	if *soak > 0 { // long mode: a quarter more on a disk that fills up
		t.Run("full disk", func(t *testing.T) { soakFullDisk(t, d/4) })
	}
}
