package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/wal"
)

// writeLedger opens a store in dir, applies n batches of the full-disk
// tests' kind and closes it.
func writeLedger(t *testing.T, dir string, n int) *fillLedger {
	t.Helper()
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	l := &fillLedger{}
	for range n {
		require.NoError(t, l.apply(s, 2))
	}
	require.NoError(t, s.Close())
	return l
}

// A damaged last batch (a whole record that fails its checksum) is not
// dropped without a word: Open cuts it off, keeps its bytes beside the log
// and Store.Recovery reports it.
func TestDamagedLastBatchIsReported(t *testing.T) {
	dir := t.TempDir()
	l := writeLedger(t, dir, 3)
	path := walPath(dir, 0)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[len(data)-1] ^= 1 // the last batch's last byte
	require.NoError(t, os.WriteFile(path, data, 0o644))

	s, err := Open(dir, Options{})
	require.NoError(t, err)
	rec := s.Recovery()
	require.Len(t, rec, 1)
	require.Equal(t, path, rec[0].Path)
	require.Equal(t, uint64(2), rec[0].Records)
	d := rec[0].Damaged
	require.NotNil(t, d, "the damaged batch is reported")
	require.Equal(t, uint64(2), d.Record)
	kept, err := os.ReadFile(d.KeptAt)
	require.NoError(t, err)
	require.Equal(t, data[d.Offset:], kept)
	lost := l.acked[2]
	l.acked = l.acked[:2]
	l.failed = append(l.failed, lost)
	l.check(t, s.Current(), "recovered without the damaged batch")
	require.NoError(t, l.apply(s, 1))
	require.NoError(t, s.Close())

	s, err = Open(dir, Options{})
	require.NoError(t, err)
	require.Nil(t, s.Recovery()[0].Damaged, "reported once: the bytes are cut off and kept")
	l.check(t, s.Current(), "reopened")
	require.NoError(t, s.Close())
}

// Damage at the end of a log that later logs follow is refused: the later
// batches were written on top of the damaged one (ids, deletions), so
// dropping it would replay them wrongly. The log is left as it was.
func TestDamageInAnOlderLogIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	var l fillLedger
	require.NoError(t, l.apply(s, 2))
	require.NoError(t, l.apply(s, 2))
	s.mu.Lock()
	_, err = s.durable.rotate() // what Compact does first: wal-1 follows wal-0
	s.mu.Unlock()
	require.NoError(t, err)
	require.NoError(t, l.apply(s, 2))
	require.NoError(t, s.Close())

	path := walPath(dir, 0)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[len(data)-1] ^= 1
	require.NoError(t, os.WriteFile(path, data, 0o644))
	_, err = Open(dir, Options{})
	require.ErrorContains(t, err, path)
	require.ErrorContains(t, err, "damaged")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, data, after)
}

// A zero-filled tail (a crash after the file's size reached the disk and
// before its data) is a torn tail: reported, cut, nothing replayed from it.
// An empty record, which the store never writes, is refused with its place.
func TestZeroTailAndEmptyRecord(t *testing.T) {
	dir := t.TempDir()
	l := writeLedger(t, dir, 3)
	path := walPath(dir, 0)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(make([]byte, 100))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.Equal(t, int64(100), s.Recovery()[0].TornBytes)
	require.Nil(t, s.Recovery()[0].Damaged)
	l.check(t, s.Current(), "after a zero tail")
	require.NoError(t, s.Close())

	w, err := wal.Open(path, nil)
	require.NoError(t, err)
	_, err = w.Append(nil)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = Open(dir, Options{})
	require.ErrorContains(t, err, fmt.Sprintf("store: recover %s record 3", filepath.Join(dir, "wal-0")))
}
