package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// requireSameContent checks that two versions hold the same nodes, edges
// and labels, id for id.
func requireSameContent(t testing.TB, want, got *Version) {
	t.Helper()
	require.Equal(t, want.NumNodes(), got.NumNodes())
	require.Equal(t, want.NumEdges(), got.NumEdges())
	for u := range uint32(want.NumNodes()) {
		require.Equal(t, want.Name(u), got.Name(u))
		id, ok := got.ID(want.Name(u))
		require.True(t, ok)
		require.Equal(t, u, id)
	}
	for e := range uint32(want.NumEdges()) {
		require.Equal(t, want.Edge(e), got.Edge(e), "edge %d", e)
	}
}

func TestRecoverSnapshotPlusLog(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	for i := range 12 {
		_, err := s.applyBatch(randomOps(rng, 1+rng.IntN(10), 20, s.Current().NumNodes(), s.Current().NumEdges()))
		require.NoError(t, err)
		if i%5 == 4 {
			require.NoError(t, s.Compact())
		}
	}
	want := s.Current()
	// No Close: recovery must not depend on a clean shutdown.
	snaps, wals, err := listFiles(dir)
	require.NoError(t, err)
	require.Equal(t, []int{2}, snaps, "older snapshots are removed")
	require.Equal(t, []int{2}, wals, "logs folded into a snapshot are removed")

	r, err := Open(dir, Options{})
	require.NoError(t, err)
	got := r.Current()
	require.True(t, got.Directed())
	requireSameContent(t, want, got)
	seeds, err := ppr.NewSeeds(got.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
	require.NoError(t, err)
	trust := mask.Trust("default")
	a, err := solveOn(want, &trust, seeds, 0.85, 1e-12)
	require.NoError(t, err)
	b, err := solveOn(got, &trust, seeds, 0.85, 1e-12)
	require.NoError(t, err)
	requireClose(t, a.Scores, b.Scores, 1e-11, "solve after recovery")

	// Writes continue after recovery, and survive another one.
	_, err = r.applyBatch([]Op{as("default", Edge("fresh", "n1", 1))})
	require.NoError(t, err)
	want = r.Current()
	require.NoError(t, r.Close())
	_, err = r.applyBatch([]Op{as("default", Edge("x", "y", 1))})
	require.ErrorIs(t, err, ErrClosed)
	r2, err := Open(dir, Options{})
	require.NoError(t, err)
	requireSameContent(t, want, r2.Current())
	require.NoError(t, r2.Close())
}

// A crash between the log rotation and the new snapshot leaves the old
// snapshot and two logs; recovery replays both.
func TestRecoverAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("default", Edge("a", "b", 1)), as("m", Edge("b", "c", 2))})
	require.NoError(t, err)
	s.mu.Lock()
	_, err = s.durable.rotate() // what Compact does first
	s.mu.Unlock()
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("m", Delete(0)), as("m", MergeInto("c", "a"))})
	require.NoError(t, err)
	want := s.Current()
	r, err := Open(dir, Options{})
	require.NoError(t, err)
	requireSameContent(t, want, r.Current())
}

func TestCreateFromGraph(t *testing.T) {
	b := csr.NewBuilder(false)
	for i := range 10 {
		_, err := b.AddEdge(csr.Input{Src: fmt.Sprint(i), Dst: fmt.Sprint((i + 1) % 10), Weight: 1})
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	dir := t.TempDir()
	s, err := Create(dir, g, nil, Options{})
	require.NoError(t, err)
	_, err = s.applyBatch([]Op{as("mallory", Edge("3", "7", 1))})
	require.NoError(t, err)
	want := s.Current()
	require.NoError(t, s.Close())
	_, err = Create(dir, g, nil, Options{})
	require.ErrorContains(t, err, "already holds a store")
	r, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	require.False(t, r.Current().Directed(), "the snapshot's direction wins")
	requireSameContent(t, want, r.Current())
}

func TestRecoverCorruptLogIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	for range 3 {
		_, err = s.applyBatch([]Op{as("default", Edge("a", "b", 1))})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	path := filepath.Join(dir, "wal-0")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[10] ^= 0xff // inside the first record's payload
	require.NoError(t, os.WriteFile(path, data, 0o644))
	_, err = Open(dir, Options{})
	require.ErrorContains(t, err, "wal:")
}

func TestBatchRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ops := randomOps(rng, 200, 30, 5, 10)
	got, err := decodeBatch(encodeBatch(nil, ops))
	require.NoError(t, err)
	require.Equal(t, ops, got)
	rec := encodeBatch(nil, ops)
	for _, cut := range []int{0, 3, 4, 9, len(rec) - 1} {
		_, err := decodeBatch(rec[:cut])
		require.ErrorContains(t, err, "store: batch record")
	}
	_, err = decodeBatch(append(rec, 0))
	require.ErrorContains(t, err, "trailing bytes")
}
