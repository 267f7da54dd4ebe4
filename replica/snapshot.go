package replica

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/authppr/authppr/snapshot"
	"github.com/authppr/authppr/store"
)

// SnapshotInfo describes a published snapshot.
type SnapshotInfo struct {
	Name     string // snap-POSITION (zero-padded)
	Position uint64 // the last stream sequence it holds
	Batches  uint64 // the batches applied up to it
	Size     uint64 // bytes
}

// incoming and outgoing are the follower's temporary snapshot files, in
// its directory (no store file is named so).
const (
	incoming = "incoming-snapshot"
	outgoing = "outgoing-snapshot"
)

func snapshotName(pos uint64) string { return fmt.Sprintf("snap-%020d", pos) }

// snapshots lists the bucket's snapshots, oldest first (nil, nil when the
// bucket does not exist).
func snapshots(ctx context.Context, js jetstream.JetStream, memory string) (jetstream.ObjectStore, []SnapshotInfo, error) {
	obs, err := js.ObjectStore(ctx, snapshotBucket(memory))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("replica: memory %s: snapshot bucket: %w", memory, err)
	}
	list, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return obs, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("replica: memory %s: list snapshots: %w", memory, err)
	}
	var out []SnapshotInfo
	for _, o := range list {
		pos, err := strconv.ParseUint(o.Metadata["position"], 10, 64)
		if err != nil || o.Name != snapshotName(pos) {
			continue // not ours
		}
		batches, _ := strconv.ParseUint(o.Metadata["batches"], 10, 64)
		out = append(out, SnapshotInfo{Name: o.Name, Position: pos, Batches: batches, Size: o.Size})
	}
	slices.SortFunc(out, func(a, b SnapshotInfo) int { return cmp.Compare(a.Position, b.Position) })
	return obs, out, nil
}

// installNewest installs the newest published snapshot as the store in dir
// (empty); nil, nil, nil when none is published.
func installNewest(ctx context.Context, js jetstream.JetStream, memory, dir string, opt store.Options) (*SnapshotInfo, *store.Store, error) {
	obs, list, err := snapshots(ctx, js, memory)
	if err != nil || len(list) == 0 {
		return nil, nil, err
	}
	newest := list[len(list)-1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("replica: %w", err)
	}
	path := filepath.Join(dir, incoming)
	// GetFile checks the object's digest as it reads.
	if err := obs.GetFile(ctx, newest.Name, path); err != nil {
		os.Remove(path)
		return nil, nil, fmt.Errorf("replica: memory %s: fetch snapshot %s: %w", memory, newest.Name, err)
	}
	st, err := store.Install(dir, path, opt)
	if err != nil {
		os.Remove(path)
		return nil, nil, fmt.Errorf("replica: memory %s: install snapshot %s: %w", memory, newest.Name, err)
	}
	if got := st.Current().Position(); got != newest.Position {
		st.Close()
		return nil, nil, fmt.Errorf("replica: memory %s: snapshot %s holds position %d, its name says %d", memory, newest.Name, got, newest.Position)
	}
	return &newest, st, nil
}

// Retention is the snapshot retention rule PublishSnapshot applies.
type Retention struct {
	// Keep is how many of the newest snapshots to keep (at least 1).
	Keep int
	// Purge removes the stream's messages up to and including the oldest
	// kept snapshot's position (none later): a follower below it then gets
	// ErrBehind and starts again from a snapshot. It needs the right to
	// purge the stream.
	Purge bool
}

// PublishSnapshot publishes the follower's newest version as a snapshot
// (named for its position, the last batch it holds) to the memory's object
// store, created with the stream's replica count when absent, then applies
// the retention rule. A version at a position already published is not
// published again. It needs JetStream API rights.
func (f *Follower) PublishSnapshot(ctx context.Context, keep Retention) (SnapshotInfo, error) {
	if keep.Keep < 1 {
		return SnapshotInfo{}, fmt.Errorf("replica: keep %d snapshots, want at least 1", keep.Keep)
	}
	v := f.st.Current()
	if v.Position() == 0 || v.NumNodes() == 0 {
		return SnapshotInfo{}, fmt.Errorf("replica: memory %s: nothing to snapshot at sequence %d", f.memory, v.Position())
	}
	obs, list, err := snapshots(ctx, f.js, f.memory)
	if err != nil {
		return SnapshotInfo{}, err
	}
	if obs == nil {
		s, err := f.js.Stream(ctx, streamName(f.memory))
		if err != nil {
			return SnapshotInfo{}, fmt.Errorf("replica: memory %s: %w", f.memory, err)
		}
		obs, err = f.js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      snapshotBucket(f.memory),
			Description: "authppr memory " + f.memory + ": snapshots, named for the stream sequence they hold",
			Storage:     jetstream.FileStorage,
			Replicas:    s.CachedInfo().Config.Replicas,
		})
		if err != nil {
			return SnapshotInfo{}, fmt.Errorf("replica: memory %s: create snapshot bucket: %w", f.memory, err)
		}
	}
	info := SnapshotInfo{Name: snapshotName(v.Position()), Position: v.Position(), Batches: v.Batches()}
	if !slices.ContainsFunc(list, func(s SnapshotInfo) bool { return s.Position == info.Position }) {
		g, labels, err := v.Materialize()
		if err != nil {
			return SnapshotInfo{}, fmt.Errorf("replica: memory %s: %w", f.memory, err)
		}
		path := filepath.Join(f.dir, outgoing)
		defer os.Remove(path)
		p := snapshot.Progress{Position: v.Position(), Batches: v.Batches()}
		if err := snapshot.SaveProgress(path, g, labels, p); err != nil {
			return SnapshotInfo{}, fmt.Errorf("replica: memory %s: %w", f.memory, err)
		}
		file, err := os.Open(path)
		if err != nil {
			return SnapshotInfo{}, fmt.Errorf("replica: %w", err)
		}
		defer file.Close()
		oi, err := obs.Put(ctx, jetstream.ObjectMeta{Name: info.Name, Metadata: map[string]string{
			"position": strconv.FormatUint(info.Position, 10), "batches": strconv.FormatUint(info.Batches, 10),
		}}, file)
		if err != nil {
			return SnapshotInfo{}, fmt.Errorf("replica: memory %s: put snapshot %s: %w", f.memory, info.Name, err)
		}
		info.Size = oi.Size
		list = append(list, info)
		slices.SortFunc(list, func(a, b SnapshotInfo) int { return cmp.Compare(a.Position, b.Position) })
	}
	return info, f.retain(ctx, obs, list, keep)
}

// retain deletes all but the newest keep.Keep snapshots and, with
// keep.Purge, purges the stream up to the oldest kept one's position.
func (f *Follower) retain(ctx context.Context, obs jetstream.ObjectStore, list []SnapshotInfo, keep Retention) error {
	for len(list) > keep.Keep {
		if err := obs.Delete(ctx, list[0].Name); err != nil {
			return fmt.Errorf("replica: memory %s: delete snapshot %s: %w", f.memory, list[0].Name, err)
		}
		list = list[1:]
	}
	if !keep.Purge || len(list) == 0 {
		return nil
	}
	s, err := f.js.Stream(ctx, streamName(f.memory))
	if err != nil {
		return fmt.Errorf("replica: memory %s: %w", f.memory, err)
	}
	// WithPurgeSequence(n) removes the messages below n.
	if err := s.Purge(ctx, jetstream.WithPurgeSequence(list[0].Position+1)); err != nil {
		return fmt.Errorf("replica: memory %s: purge the stream up to sequence %d: %w", f.memory, list[0].Position, err)
	}
	return nil
}
