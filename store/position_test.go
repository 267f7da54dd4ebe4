package store

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/snapshot"
)

// ApplyAt records each batch's position with it: positions only rise, a
// refused batch leaves the position as it was, and the position and the
// batch count survive a reopen, a compaction (the snapshot keeps them) and
// a reopen from that snapshot.
func TestApplyAtKeepsPosition(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	w, err := s.Writer("default")
	require.NoError(t, err)
	require.Equal(t, uint64(0), s.Current().Position())

	_, err = w.ApplyAt(3, Edge("a", "b", 1))
	require.NoError(t, err)
	require.Equal(t, uint64(3), s.Current().Position())
	_, err = w.ApplyAt(3, Edge("a", "c", 1))
	require.ErrorIs(t, err, ErrStalePosition)
	_, err = w.ApplyAt(2, Edge("a", "c", 1))
	require.ErrorIs(t, err, ErrStalePosition)
	_, err = w.ApplyAt(5, Delete(99)) // invalid: refused whole, position kept
	require.ErrorContains(t, err, "no such edge")
	require.Equal(t, uint64(3), s.Current().Position())
	_, err = w.Apply(Edge("b", "c", 1)) // unpositioned: the position stays
	require.NoError(t, err)
	require.Equal(t, uint64(3), s.Current().Position())
	res, err := w.ApplyAt(9, Edge("c", "d", 1))
	require.NoError(t, err)
	require.Equal(t, uint64(9), res.Version.Position())
	require.Equal(t, uint64(3), res.Version.Batches())
	require.NoError(t, s.Close())

	reopen := func(wantPos, wantBatches uint64) *Store {
		t.Helper()
		r, err := Open(dir, Options{})
		require.NoError(t, err)
		require.Equal(t, wantPos, r.Current().Position())
		require.Equal(t, wantBatches, r.Current().Batches())
		return r
	}
	s = reopen(9, 3)
	w, err = s.Writer("peer")
	require.NoError(t, err)
	_, err = w.ApplyAt(9, Edge("x", "y", 1))
	require.ErrorIs(t, err, ErrStalePosition)
	_, err = w.ApplyAt(10, Edge("x", "y", 1))
	require.NoError(t, err)
	require.NoError(t, s.Compact())
	_, err = w.ApplyAt(12, Edge("y", "z", 1))
	require.NoError(t, err)
	want := s.Current()
	require.Equal(t, uint64(5), want.Batches())
	require.NoError(t, s.Close())

	snaps, _, err := listFiles(dir)
	require.NoError(t, err)
	snap, err := snapshot.Load(snapPath(dir, snaps[len(snaps)-1]))
	require.NoError(t, err)
	require.Equal(t, snapshot.Progress{Position: 10, Batches: 4}, snap.Progress)

	s = reopen(12, 5)
	requireSameContent(t, want, s.Current())
	require.NoError(t, s.Close())
}

// A crash while a positioned batch is written leaves the batch and its
// position together or neither: the torn record is cut off and the
// position is the previous batch's.
func TestTornPositionedBatch(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	w, err := s.Writer("default")
	require.NoError(t, err)
	for pos := uint64(1); pos <= 4; pos++ {
		_, err = w.ApplyAt(10*pos, Edge("a", "b", float64(pos)))
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	path := walPath(dir, 0)
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, info.Size()-3))

	r, err := Open(dir, Options{})
	require.NoError(t, err)
	require.Equal(t, uint64(30), r.Current().Position())
	require.Equal(t, uint64(3), r.Current().Batches())
	require.Equal(t, 3, r.Current().NumEdges())
	require.NoError(t, r.Close())
}

// Records with and without a position read back as written; a positioned
// record cut anywhere, or with position 0, is an error naming the record.
func TestPositionedRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ops := randomOps(rng, 50, 30, 5, 10)
	for _, pos := range []uint64{0, 1, 1 << 62} {
		got, gotPos, err := decodeRecord(encodeRecord(nil, pos, ops))
		require.NoError(t, err)
		require.Equal(t, ops, got)
		require.Equal(t, pos, gotPos)
	}
	// An unpositioned record is encodeBatch's, byte for byte: old logs read
	// as they always have.
	require.Equal(t, encodeBatch(nil, ops), encodeRecord(nil, 0, ops))
	rec := encodeRecord(nil, 77, ops)
	for _, cut := range []int{4, 5, 11, 12, 15, len(rec) - 1} {
		_, _, err := decodeRecord(rec[:cut])
		require.ErrorContains(t, err, "store: batch record", "cut at %d", cut)
	}
	zero := encodeRecord(nil, 77, ops)
	clear(zero[4:12])
	_, _, err := decodeRecord(zero)
	require.ErrorContains(t, err, "position 0")
}

// Install opens a new store on a snapshot file that carries a progress: the
// store resumes from its position and counts, and refuses positions at or
// below it. A dir that holds a store is refused, and a file Open refuses is
// moved back.
func TestInstallSnapshot(t *testing.T) {
	src := t.TempDir()
	s, err := Open(src, Options{Directed: true})
	require.NoError(t, err)
	w, err := s.Writer("default")
	require.NoError(t, err)
	for pos := uint64(1); pos <= 5; pos++ {
		_, err = w.ApplyAt(pos, Edge("a", string(rune('b'+pos)), 1))
		require.NoError(t, err)
	}
	v := s.Current()
	g, labels, err := v.Materialize()
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "published.snap")
	require.NoError(t, snapshot.SaveProgress(file, g, labels, snapshot.Progress{Position: v.Position(), Batches: v.Batches()}))

	// Install moves, so the file must be on the store's file system.
	dst := filepath.Join(t.TempDir(), "follower")
	require.NoError(t, os.MkdirAll(dst, 0o755))
	incoming := filepath.Join(dst, "incoming")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(incoming, data, 0o644))
	r, err := Install(dst, incoming, Options{})
	require.NoError(t, err)
	require.Equal(t, uint64(5), r.Current().Position())
	require.Equal(t, uint64(5), r.Current().Batches())
	requireSameContent(t, v, r.Current())
	rw, err := r.Writer("default")
	require.NoError(t, err)
	_, err = rw.ApplyAt(5, Edge("a", "z", 1))
	require.ErrorIs(t, err, ErrStalePosition)
	_, err = rw.ApplyAt(6, Edge("a", "z", 1))
	require.NoError(t, err)
	require.NoError(t, r.Close())

	require.NoError(t, os.WriteFile(incoming, data, 0o644))
	_, err = Install(dst, incoming, Options{})
	require.ErrorContains(t, err, "already holds a store")

	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	junk := filepath.Join(bad, "incoming")
	require.NoError(t, os.WriteFile(junk, []byte("not a snapshot"), 0o644))
	_, err = Install(bad, junk, Options{})
	require.ErrorContains(t, err, "snapshot")
	_, err = os.Stat(junk)
	require.NoError(t, err, "a refused file is moved back")
	require.NoError(t, s.Close())
}
