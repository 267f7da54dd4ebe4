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

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

var soak = flag.Duration("soak", 0, "run TestSoak for this long (default: 1s with -short, 3s without)")

// TestSoak runs concurrent writers, readers (direct solves and a shared
// Cache) and a compactor for a fixed time on a durable store, then checks
// that every acknowledged write is present exactly once (also after
// recovery) and that every sampled query equals a from-scratch solve of
// its own version.
func TestSoak(t *testing.T) {
	d := 3 * time.Second
	if testing.Short() {
		d = time.Second
	}
	if *soak > 0 {
		d = *soak
	}
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	// A hub so that queries have something to walk.
	var seed []Op
	for i := range 50 {
		seed = append(seed, Edge("hub", fmt.Sprintf("t%d", i), 1, "default"))
	}
	_, err = s.Apply(seed)
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
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failed atomic.Value
	fail := func(err error) { failed.CompareAndSwap(nil, err) }
	for w := range writers {
		deleted[w] = map[uint32]bool{}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
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
					ops = append(ops, Edge(fmt.Sprintf("%s-%d", ch, n%40), fmt.Sprintf("t%d", rng.IntN(60)), float64(n+1), ch))
				}
				if len(acked[w]) > 0 && rng.IntN(3) == 0 {
					ops = append(ops, Delete(acked[w][rng.IntN(len(acked[w]))].id, ch))
				}
				res, err := s.Apply(ops)
				if err != nil {
					fail(err)
					return
				}
				for j, op := range ops {
					switch op.Kind {
					case AddEdge:
						acked[w] = append(acked[w], written{res.IDs[j], op.Src, op.Dst, op.Weight})
					case DeleteEdge:
						deleted[w][op.Edge] = true
					}
				}
			}
		})
	}
	cache := &Cache{Tol: 1e-8, Max: 8}
	var checked atomic.Int64
	for r := range readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			trust := mask.Trust("default", "w0")
			for q := 0; ; q++ {
				select {
				case <-stop:
					return
				default:
				}
				v := s.Current()
				hub, _ := v.ID("hub")
				seeds, err := v.Seeds([]ppr.Seed{{Node: hub, Weight: 1}, {Node: uint32(rng.IntN(v.NumNodes())), Weight: float64(rng.IntN(2))}})
				if err != nil {
					fail(err)
					return
				}
				p := []*mask.Policy{nil, &trust}[rng.IntN(2)]
				got, _, err := cache.Query(v, p, seeds, 0.85)
				if err != nil {
					fail(err)
					return
				}
				if q%4 == 0 { // sample: compare with a from-scratch solve of the same version
					want := referenceSolve(t, v, p, seeds, 0.85, 1e-9)
					if dist := l1Dist(want, got.X); dist > 1.1e-8 {
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
	require.Positive(t, checked.Load(), "no query was checked")

	check := func(v *Version, where string) {
		total := 50
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
	check(s.Current(), "live")
	r, err := Open(dir, Options{})
	require.NoError(t, err)
	check(r.Current(), "recovered")
	t.Logf("%d writes in %d batches, %d edges, %d sampled queries checked", s.Current().Writes(), s.Current().Batches(), s.Current().NumEdges(), checked.Load())
}
