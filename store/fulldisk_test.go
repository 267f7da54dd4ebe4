package store

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fillBatch is batch i of the full-disk tests: n edges whose source names
// say which batch wrote them, padded so that a few batches fill a page.
// The padding is zero bytes (names are any non-empty strings): stale bytes
// of a failed write read as a record header then look like a short record
// rather than an impossible length, which a reader could take for a torn
// tail.
func fillBatch(i, n int) []Op {
	ops := make([]Op, n)
	for j := range ops {
		pad := strings.Repeat("\x00", 40+(i*7+j*13)%61)
		ops[j] = as("fill", Edge(fmt.Sprintf("f%d-%d-%s", i, j, pad), "hub", float64(i*1000+j+1)))
	}
	return ops
}

// fillLedger records what a store acknowledged and what it refused.
type fillLedger struct {
	acked  []int // batch numbers, in order
	sizes  map[int]int
	failed []int
	next   int
}

// apply writes batch number l.next of n edges and records the outcome.
func (l *fillLedger) apply(s *Store, n int) error {
	if l.sizes == nil {
		l.sizes = map[int]int{}
	}
	i := l.next
	l.next++
	l.sizes[i] = n
	if _, err := s.applyBatch(fillBatch(i, n)); err != nil {
		l.failed = append(l.failed, i)
		return err
	}
	l.acked = append(l.acked, i)
	return nil
}

// fillThenSmall writes large batches until one fails, then one small
// batch: the write that may land on the failed one's partial bytes.
func (l *fillLedger) fillThenSmall(s *Store) {
	for l.apply(s, 40) == nil {
	}
	l.apply(s, 1)
}

// applyUntilFull writes batches of varying sizes (a large one, then small
// ones that may fit where the large one failed) until the store has
// refused stop batches in a row.
func (l *fillLedger) applyUntilFull(s *Store, stop int) {
	sizes := []int{40, 1, 3, 1, 17, 2, 1}
	for refused := 0; refused < stop; {
		if l.apply(s, sizes[l.next%len(sizes)]) != nil {
			refused++
		} else {
			refused = 0
		}
	}
}

// check verifies that v holds every acknowledged batch, whole and in
// order, and nothing of a refused one.
func (l *fillLedger) check(t testing.TB, v *Version, where string) {
	t.Helper()
	e := uint32(0)
	for _, i := range l.acked {
		for j := range l.sizes[i] {
			require.Less(t, int(e), v.NumEdges(), "%s: acknowledged batch %d missing", where, i)
			info := v.Edge(e)
			require.Equal(t, fillBatch(i, l.sizes[i])[j].src, v.Name(info.Src), "%s: edge %d", where, e)
			require.Equal(t, float64(i*1000+j+1), info.Weight, "%s: edge %d", where, e)
			e++
		}
	}
	require.Equal(t, int(e), v.NumEdges(), "%s: edges beyond the acknowledged batches", where)
	for _, i := range l.failed {
		_, ok := v.ID(fillBatch(i, 1)[0].src)
		require.False(t, ok, "%s: batch %d was refused, yet it is there", where, i)
	}
}

// TestFullDisk fills a small tmpfs with a durable store: writes and
// compactions fail with errors, the store reopens on the full disk with
// every acknowledged batch and no refused one, and once the disk has room
// again writes, compaction and recovery go on.
func TestFullDisk(t *testing.T) {
	size := 128 << 10
	dir := mountTmpfs(t, size)
	var l fillLedger
	// Rounds: fill, one small write, reopen on the full disk; then a little
	// more room.
	for round := range 6 {
		s, err := Open(dir, Options{Directed: true})
		require.NoError(t, err, "round %d: reopen on the full disk", round)
		l.check(t, s.Current(), fmt.Sprintf("round %d: reopened on the full disk", round))
		l.fillThenSmall(s)
		l.check(t, s.Current(), fmt.Sprintf("round %d: live, disk full", round))
		require.NoError(t, s.Close())
		size += 8 << 10
		growTmpfs(t, dir, size)
	}
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	l.applyUntilFull(s, 20)
	require.NotEmpty(t, l.acked)
	require.NotEmpty(t, l.failed)
	l.check(t, s.Current(), "live, disk full")
	if err := s.Compact(); err != nil {
		require.ErrorContains(t, err, "store: compact:")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			require.NotContains(t, e.Name(), ".tmp-", "a failed compaction leaves no temporary file")
		}
	} else {
		t.Log("compaction succeeded on the full disk")
	}
	l.applyUntilFull(s, 5)
	l.check(t, s.Current(), "live, after compacting on a full disk")
	require.NoError(t, s.Close())
	t.Logf("%d batches acknowledged, %d refused", len(l.acked), len(l.failed))

	r, err := Open(dir, Options{})
	require.NoError(t, err, "reopen on the full disk")
	l.check(t, r.Current(), "reopened on the full disk")
	l.applyUntilFull(r, 5)
	l.check(t, r.Current(), "reopened, written on the full disk")
	require.NoError(t, r.Close())

	growTmpfs(t, dir, 4<<20)
	r, err = Open(dir, Options{})
	require.NoError(t, err, "reopen with room")
	l.check(t, r.Current(), "reopened with room")
	for range 5 {
		require.NoError(t, l.apply(r, 3), "a write with room on the disk")
	}
	require.NoError(t, r.Compact())
	l.check(t, r.Current(), "compacted with room")
	require.NoError(t, r.Close())
	r, err = Open(dir, Options{})
	require.NoError(t, err)
	l.check(t, r.Current(), "reopened after compaction")
	require.NoError(t, r.Close())
}
