package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/wal"
	"github.com/authppr/authppr/ppr"
)

// soakBatch is what the full-disk soak knows of one batch.
type soakBatch struct {
	edges int
	first string // its first edge's source name
}

// soakLedger records the batches of the full-disk soak's writers.
type soakLedger struct {
	mu      sync.Mutex
	acked   map[string]soakBatch
	refused map[string]soakBatch
	unknown map[string]soakBatch // failed with wal.ErrFailed: whole or absent on reopening
}

// check verifies that s holds every acknowledged batch and nothing else,
// after settling the batches of unknown outcome by what s holds.
func (l *soakLedger) check(t *testing.T, s *Store, where string) {
	t.Helper()
	v := s.Current()
	l.mu.Lock()
	defer l.mu.Unlock()
	for key, b := range l.unknown {
		if _, ok := v.ID(b.first); ok {
			l.acked[key] = b
		} else {
			l.refused[key] = b
		}
	}
	clear(l.unknown)
	want := 0
	for _, b := range l.acked {
		want += b.edges
	}
	require.Equal(t, want, v.NumEdges(), "%s: edges against the acknowledged batches", where)
	for e := range uint32(v.NumEdges()) {
		name := v.Name(v.Edge(e).Src)
		key, _, _ := strings.Cut(name, "-e")
		require.Contains(t, l.acked, key, "%s: edge %d (%s) of a batch not acknowledged", where, e, name)
	}
	for key, b := range l.refused {
		_, ok := v.ID(b.first)
		require.False(t, ok, "%s: refused batch %s is there", where, key)
	}
}

// soakFullDisk is TestSoak's full-disk phase (long mode, where a tmpfs can
// be mounted): writers, a reader and a compactor run on a store whose
// small disk fills up, until every writer has been refused many times in a
// row; then the store is closed, reopened on the full disk and checked
// (every acknowledged batch there, no refused one), and the disk grows a
// little for the next round. Failed writes and compactions must fail with
// an error; none may be acknowledged on top of a failed one.
func soakFullDisk(t *testing.T, d time.Duration) {
	size := 512 << 10
	dir := mountTmpfs(t, size)
	const writers, refusedInARow = 3, 30
	l := &soakLedger{acked: map[string]soakBatch{}, refused: map[string]soakBatch{}, unknown: map[string]soakBatch{}}
	next := make([]int, writers)
	var refused, compactRefused, batches atomic.Int64
	start := time.Now()
	rounds := 0
	for ; rounds == 0 || time.Since(start) < d; rounds++ {
		s, err := Open(dir, Options{})
		require.NoError(t, err, "round %d: open on the full disk", rounds)
		l.check(t, s, fmt.Sprintf("round %d: reopened", rounds))

		var writing, others sync.WaitGroup
		stop := make(chan struct{})
		var fatal atomic.Value
		for w := range writers {
			writing.Go(func() {
				for inARow := 0; inARow < refusedInARow && time.Since(start) < 2*d; {
					i := next[w]
					next[w]++
					key := fmt.Sprintf("w%d-b%d", w, i)
					ops := make([]Op, 1+(i*7)%9)
					for j := range ops {
						ops[j] = as(fmt.Sprintf("w%d", w), Edge(fmt.Sprintf("%s-e%d-%s", key, j, strings.Repeat("x", (i+j)%50)), fmt.Sprintf("t%d", (i+j)%40), float64(j+1)))
					}
					b := soakBatch{len(ops), ops[0].src}
					_, err := s.applyBatch(ops)
					l.mu.Lock()
					switch {
					case err == nil:
						l.acked[key] = b
						inARow = 0
						batches.Add(1)
					case errors.Is(err, wal.ErrFailed): // the store refuses writes from now on
						l.unknown[key] = b
						inARow = refusedInARow
					default:
						l.refused[key] = b
						inARow++
						refused.Add(1)
					}
					l.mu.Unlock()
				}
			})
		}
		others.Go(func() { // a reader
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := s.Current()
				if v.NumNodes() == 0 {
					continue
				}
				seeds, err := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
				if err == nil {
					_, err = solveOn(v, nil, seeds, 0.85, 1e-6)
				}
				if err != nil {
					fatal.CompareAndSwap(nil, err)
					return
				}
			}
		})
		others.Go(func() { // a compactor
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if err := s.Compact(); err != nil && err != ErrCompacting {
					compactRefused.Add(1)
				}
			}
		})
		writing.Wait()
		close(stop)
		others.Wait()
		if err := fatal.Load(); err != nil {
			t.Fatal(err)
		}
		l.check(t, s, fmt.Sprintf("round %d: live, disk full", rounds))
		require.NoError(t, s.Close())
		size += 64 << 10
		growTmpfs(t, dir, size)
	}
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	l.check(t, s, "final reopen")
	require.NoError(t, s.Close())
	t.Logf("full disk: %d rounds, %d batches acknowledged, %d writes and %d compactions refused, the disk grown to %d KiB", rounds, batches.Load(), refused.Load(), compactRefused.Load(), size>>10)
}
