package store

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// v1Log returns the version-1 wal log of batches: what a store wrote before
// the wal's format version 2. No magic; per batch, uint32 length, uint32
// CRC-32C of the record, and the record encodeBatch writes.
func v1Log(batches [][]Op) []byte {
	var out []byte
	for _, ops := range batches {
		rec := encodeBatch(nil, ops)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(rec)))
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(rec, crc32.MakeTable(crc32.Castagnoli)))
		out = append(out, rec...)
	}
	return out
}

// v1Batches returns n random batches that ref applies (it applies them),
// of every kind of write and two channels.
func v1Batches(t testing.TB, rng *rand.Rand, ref *Store, n int) [][]Op {
	t.Helper()
	var batches [][]Op
	for len(batches) < n {
		v := ref.Current()
		ops := randomOps(rng, 1+rng.IntN(8), 15, v.NumNodes(), v.NumEdges())
		if _, err := ref.applyBatch(ops); err == nil {
			batches = append(batches, ops)
		}
	}
	return batches
}

// v1Store writes a store directory whose logs are version 1: with
// snapshot false, the direction file and wal-0 holding every batch; with
// snapshot true, snap-1 (saved by a compaction) holding the first third of
// the batches and the logs wal-1 (older, only read) and wal-2 (the newest)
// the rest. It returns the batches, the in-memory store that applied them
// (the reference) and the newest log's path.
func v1Store(t *testing.T, dir string, snapshot bool) ([][]Op, *Store, string) {
	t.Helper()
	ref, err := New(nil, nil, Options{Directed: true})
	require.NoError(t, err)
	batches := v1Batches(t, rand.New(rand.NewPCG(7, 1)), ref, 12)
	if !snapshot {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "directed"), []byte("true"), 0o644))
		require.NoError(t, os.WriteFile(walPath(dir, 0), v1Log(batches), 0o644))
		return batches, ref, walPath(dir, 0)
	}
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	for _, ops := range batches[:4] {
		_, err := s.applyBatch(ops)
		require.NoError(t, err)
	}
	require.NoError(t, s.Compact())
	require.NoError(t, s.Close())
	snaps, wals, err := listFiles(dir)
	require.NoError(t, err)
	require.Equal(t, []int{1}, snaps)
	require.Equal(t, []int{1}, wals)
	require.NoError(t, os.WriteFile(walPath(dir, 1), v1Log(batches[4:8]), 0o644))
	require.NoError(t, os.WriteFile(walPath(dir, 2), v1Log(batches[8:]), 0o644))
	return batches, ref, walPath(dir, 2)
}

// A store whose logs were written before the wal's format version 2 opens
// with every batch: the older log is read as it is, the newest is
// converted to version 2 before the first write, and writes, compaction
// and reopening go on.
func TestOpenVersion1Store(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		name := "logs only"
		if snapshot {
			name = "snapshot and two logs"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, ref, newest := v1Store(t, dir, snapshot)
			older, err := os.ReadFile(walPath(dir, 1))
			if !snapshot {
				require.ErrorIs(t, err, os.ErrNotExist)
			}
			s, err := Open(dir, Options{})
			require.NoError(t, err)
			require.True(t, s.Current().Directed())
			requireSameContent(t, ref.Current(), s.Current())
			rec := s.Recovery()
			for _, r := range rec {
				require.Equal(t, 1, r.Version, r.Path)
				require.Zero(t, r.TornBytes, r.Path)
				require.Nil(t, r.Damaged, r.Path)
			}
			require.Equal(t, newest, rec[len(rec)-1].Path)
			data, err := os.ReadFile(newest)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(data, []byte("authwal2")), "the newest log is converted before the first write")
			if snapshot {
				require.Len(t, rec, 2)
				after, err := os.ReadFile(walPath(dir, 1))
				require.NoError(t, err)
				require.Equal(t, older, after, "the older log is only read")
			}

			ops := []Op{as("default", Edge("after", "conversion", 1)), as("mallory", Node("m"))}
			_, err = s.applyBatch(ops)
			require.NoError(t, err)
			_, err = ref.applyBatch(ops)
			require.NoError(t, err)
			require.NoError(t, s.Close())
			s, err = Open(dir, Options{})
			require.NoError(t, err)
			requireSameContent(t, ref.Current(), s.Current())
			require.Equal(t, 2, s.Recovery()[len(s.Recovery())-1].Version)
			require.NoError(t, s.Compact())
			require.NoError(t, s.Close())
			s, err = Open(dir, Options{})
			require.NoError(t, err)
			requireSameContent(t, ref.Current(), s.Current())
			for _, r := range s.Recovery() {
				require.Equal(t, 2, r.Version, "%s: compaction folded the version-1 logs", r.Path)
			}
			require.NoError(t, s.Close())
		})
	}
}

// The newest version-1 log of a store, with a torn or damaged last batch:
// a torn one is cut off; a damaged one is kept aside and reported by
// Store.Recovery, as in a version-2 log. Damage at the end of an older
// version-1 log is an error, and the log is left as it was.
func TestVersion1StoreTornAndDamaged(t *testing.T) {
	t.Run("torn", func(t *testing.T) {
		dir := t.TempDir()
		batches, _, newest := v1Store(t, dir, true)
		data, err := os.ReadFile(newest)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(newest, data[:len(data)-3], 0o644))
		want := replayBatches(t, batches[:len(batches)-1])
		s, err := Open(dir, Options{})
		require.NoError(t, err)
		requireSameContent(t, want.Current(), s.Current())
		r := s.Recovery()[1]
		require.Equal(t, 1, r.Version)
		require.Equal(t, int64(len(data)-3-len(v1Log(batches[8:11]))), r.TornBytes)
		require.Nil(t, r.Damaged)
		require.NoError(t, s.Close())
	})
	t.Run("damaged", func(t *testing.T) {
		dir := t.TempDir()
		batches, _, newest := v1Store(t, dir, true)
		data, err := os.ReadFile(newest)
		require.NoError(t, err)
		data[len(data)-1] ^= 1
		require.NoError(t, os.WriteFile(newest, data, 0o644))
		want := replayBatches(t, batches[:len(batches)-1])
		s, err := Open(dir, Options{})
		require.NoError(t, err)
		requireSameContent(t, want.Current(), s.Current())
		d := s.Recovery()[1].Damaged
		require.NotNil(t, d, "the damaged batch is reported")
		require.Equal(t, uint64(3), d.Record)
		require.Equal(t, int64(len(v1Log(batches[8:11]))), d.Offset)
		kept, err := os.ReadFile(d.KeptAt)
		require.NoError(t, err)
		require.Equal(t, data[d.Offset:], kept)
		require.NoError(t, s.Close())
		s, err = Open(dir, Options{})
		require.NoError(t, err)
		requireSameContent(t, want.Current(), s.Current())
		require.Nil(t, s.Recovery()[1].Damaged, "reported once")
		require.NoError(t, s.Close())
	})
	t.Run("torn first batch", func(t *testing.T) {
		// A crash during the first write to a new log, before the upgrade:
		// no batch of it was acknowledged, and the store opens.
		dir := t.TempDir()
		batches, _, newest := v1Store(t, dir, true)
		torn := v1Log(batches[8:9])[:20]
		require.NoError(t, os.WriteFile(newest, torn, 0o644))
		want := replayBatches(t, batches[:8])
		s, err := Open(dir, Options{})
		require.NoError(t, err)
		requireSameContent(t, want.Current(), s.Current())
		d := s.Recovery()[1].Damaged
		require.NotNil(t, d, "the torn first batch is reported")
		require.Zero(t, d.Offset)
		kept, err := os.ReadFile(d.KeptAt)
		require.NoError(t, err)
		require.Equal(t, torn, kept)
		ops := []Op{as("default", Edge("after", "the torn batch", 1))}
		_, err = s.applyBatch(ops)
		require.NoError(t, err)
		_, err = want.applyBatch(ops)
		require.NoError(t, err)
		require.NoError(t, s.Close())
		s, err = Open(dir, Options{})
		require.NoError(t, err)
		requireSameContent(t, want.Current(), s.Current())
		require.NoError(t, s.Close())
	})
	t.Run("damaged older log", func(t *testing.T) {
		dir := t.TempDir()
		v1Store(t, dir, true)
		path := walPath(dir, 1)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		data[len(data)-1] ^= 1
		require.NoError(t, os.WriteFile(path, data, 0o644))
		newest, err := os.ReadFile(walPath(dir, 2))
		require.NoError(t, err)
		_, err = Open(dir, Options{})
		require.ErrorContains(t, err, "store: recover "+path+": damaged record 3 at byte")
		require.ErrorContains(t, err, "later logs hold batches written after it")
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, data, after)
		after, err = os.ReadFile(walPath(dir, 2))
		require.NoError(t, err)
		require.Equal(t, newest, after, "the newest log is not converted when Open fails before it")
	})
}

// replayBatches returns an in-memory store that applied batches.
func replayBatches(t testing.TB, batches [][]Op) *Store {
	t.Helper()
	s, err := New(nil, nil, Options{Directed: true})
	require.NoError(t, err)
	for i, ops := range batches {
		_, err := s.applyBatch(ops)
		require.NoError(t, err, "batch %d", i)
	}
	return s
}
