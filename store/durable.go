package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/wal"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/snapshot"
)

// disk is the on-disk side of a durable store (see the package doc's
// Durability section for the file rules).
type disk struct {
	dir string
	log *wal.Log
	gen int // index of the wal appended to
	buf []byte
}

func snapPath(dir string, k int) string { return filepath.Join(dir, fmt.Sprintf("snap-%d", k)) }
func walPath(dir string, k int) string  { return filepath.Join(dir, fmt.Sprintf("wal-%d", k)) }

// Open opens the durable store in dir, creating dir and an empty store
// (edges directed as opt says) when it holds none. Recovery loads the newest
// snapshot and replays every later log in order; a log that cannot be
// replayed is an error, never skipped. Store.Recovery reports what it found
// (torn tails, a damaged last batch cut off and kept aside, logs of the
// wal's format version 1, the newest of which Open converts).
func Open(dir string, opt Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	snaps, wals, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{compactAt: opt.CompactAt}
	s.nice.Store(int32(opt.CompactNice))
	k := 0
	var b *base
	var progress snapshot.Progress
	if len(snaps) > 0 {
		k = snaps[len(snaps)-1]
		snap, err := snapshot.Load(snapPath(dir, k))
		if err != nil {
			return nil, fmt.Errorf("store: recover: %w", err)
		}
		// The graph holds its file's mapping (snapshot's Memory rule):
		// it stays mapped while this base, or a graph made on its arrays,
		// is reachable, and no name or label of it is mapped memory.
		if b, err = newBase(snap.Graph, snap.Labels, opt.Directed); err != nil {
			return nil, err
		}
		progress = snap.Progress
	} else {
		b = &base{directed: opt.Directed}
		if err := writeDirection(dir, opt.Directed); err != nil {
			return nil, err
		}
		if d, err := readDirection(dir); err != nil {
			return nil, err
		} else {
			b.directed = d
		}
	}
	s.reset(b)
	s.position, s.batches = progress.Position, progress.Batches
	last := k
	for _, w := range wals {
		if w >= k {
			last = w
		}
	}
	for w := k; w <= last; w++ {
		path := walPath(dir, w)
		replay := func(seq uint64, rec []byte) error {
			ops, pos, err := decodeRecord(rec)
			if err != nil {
				return fmt.Errorf("store: recover %s record %d: %w", path, seq, err)
			}
			if pos != 0 && pos <= s.position {
				return fmt.Errorf("store: recover %s record %d: position %d, not above the %d before it", path, seq, pos, s.position)
			}
			if err := s.validate(ops); err != nil {
				return fmt.Errorf("store: recover %s record %d: %w", path, seq, err)
			}
			s.apply(ops)
			if pos != 0 {
				s.position = pos
			}
			return nil
		}
		if w < last {
			// An older log is only read. Damage at its end is refused: the
			// later logs' batches were written on top of the damaged one.
			rec, err := wal.Replay(path, replay)
			if err != nil {
				return nil, err
			}
			if rec.Damaged != nil {
				return nil, fmt.Errorf("store: recover %s: damaged %s, and later logs hold batches written after it: refusing to replay them without it", path, rec.Damaged)
			}
			s.recovery = append(s.recovery, LogRecovery{Path: path, Recovery: rec})
			continue
		}
		log, err := wal.Open(path, replay)
		if err != nil {
			return nil, err
		}
		s.recovery = append(s.recovery, LogRecovery{Path: path, Recovery: log.Recovered})
		s.durable = &disk{dir: dir, log: log, gen: w}
	}
	s.publish()
	if err := s.durable.removeBefore(k); err != nil {
		return nil, err
	}
	return s, nil
}

// ErrLogFailed is wrapped by the errors of writes and compactions refused
// after the store's log failed (a write or fsync that could not be cut back):
// the store refuses writes until it is reopened, and the batch the failure
// hit may be there after the reopen, as after a crash during its Apply.
var ErrLogFailed = wal.ErrFailed

// LogRecovery is what Open found in one log it replayed.
type LogRecovery struct {
	Path string
	wal.Recovery
}

// Recovery returns what Open found in each log it replayed, oldest first:
// the batches replayed, a torn tail (a batch whose Apply never returned)
// and damage. Damage (Damaged not nil) is a whole batch at the end of the
// newest log that failed its checksum (in a log of the wal's format version
// 1, also bytes version 1 cannot tell from a batch or a torn one: see the
// wal package): Open cut it off and kept its bytes
// in the file Damaged.KeptAt names, and the store holds every batch before
// it. It may be a batch Apply acknowledged, damaged since, or one whose
// Apply never returned, torn by a crash of the machine: the log cannot
// tell, so a caller that must not lose writes silently checks Recovery
// after Open. Damage in an older log is an error from Open.
func (s *Store) Recovery() []LogRecovery { return slices.Clone(s.recovery) }

// Create writes g and its labels (nil: mask.FromGraph) as the first
// snapshot of a new durable store in dir, which must hold no store, and
// opens it with opt (whose Directed the graph's direction overrides). The
// labels must add every edge by exactly its own channel, as a snapshot
// file requires (deletions are free); snapshot.Save refuses others.
func Create(dir string, g *csr.Graph, labels *mask.Labels, opt Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	snaps, wals, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(snaps)+len(wals) > 0 {
		return nil, fmt.Errorf("store: create: %s already holds a store", dir)
	}
	if labels == nil {
		labels = mask.FromGraph(g)
	}
	if err := snapshot.Save(snapPath(dir, 1), g, labels); err != nil {
		return nil, fmt.Errorf("store: create: %w", err)
	}
	opt.Directed = g.Directed()
	return Open(dir, opt)
}

// Install makes the snapshot file at path (the snapshot format, such as a
// replica publishes: its Progress is the new store's position and counts)
// the first snapshot of a new durable store in dir, which must hold no
// store, and opens it with opt (whose Directed the snapshot's direction
// overrides). The file is moved into dir, not copied, so path must be on
// dir's file system; when Open refuses it, it is moved back to path.
func Install(dir, path string, opt Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	snaps, wals, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(snaps)+len(wals) > 0 {
		return nil, fmt.Errorf("store: install: %s already holds a store", dir)
	}
	first := snapPath(dir, 1)
	if err := os.Rename(path, first); err != nil {
		return nil, fmt.Errorf("store: install: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	s, err := Open(dir, opt)
	if err != nil {
		if rerr := os.Rename(first, path); rerr != nil {
			return nil, fmt.Errorf("%w (and moving %s back failed: %v)", err, first, rerr)
		}
		return nil, err
	}
	return s, nil
}

// syncDir makes the directory's entries durable (a rename into it).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	return nil
}

// Close closes the log; later writes fail with ErrClosed. Versions stay
// readable.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.durable == nil {
		return nil
	}
	return s.durable.log.Close()
}

func (d *disk) append(pos uint64, ops []Op) error {
	d.buf = encodeRecord(d.buf[:0], pos, ops)
	if _, err := d.log.Append(d.buf); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// rotate closes the current log and starts the next one; it returns the
// new log's index, the generation of the snapshot that will hold every
// write before it. The caller checks that the log has not failed.
func (d *disk) rotate() (int, error) {
	next := d.gen + 1
	log, err := wal.Open(walPath(d.dir, next), nil)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	if err := d.log.Close(); err != nil {
		log.Close()
		return 0, fmt.Errorf("store: %w", err)
	}
	d.log, d.gen = log, next
	return next, nil
}

func (d *disk) saveSnapshot(k int, g *csr.Graph, labels *mask.Labels, p snapshot.Progress) error {
	if err := snapshot.SaveProgress(snapPath(d.dir, k), g, labels, p); err != nil {
		return fmt.Errorf("store: compact: %w", err)
	}
	return nil
}

// removeBefore deletes snapshots and logs older than generation k, which a
// saved snap-k makes redundant.
func (d *disk) removeBefore(k int) error {
	snaps, wals, err := listFiles(d.dir)
	if err != nil {
		return err
	}
	for _, x := range snaps {
		if x < k {
			if err := os.Remove(snapPath(d.dir, x)); err != nil {
				return fmt.Errorf("store: %w", err)
			}
		}
	}
	for _, x := range wals {
		if x < k {
			if err := os.Remove(walPath(d.dir, x)); err != nil {
				return fmt.Errorf("store: %w", err)
			}
		}
	}
	return nil
}

// listFiles returns the generations of snap-K and wal-K files, ascending.
func listFiles(dir string) (snaps, wals []int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		for prefix, list := range map[string]*[]int{"snap-": &snaps, "wal-": &wals} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				if k, err := strconv.Atoi(rest); err == nil && k >= 0 {
					*list = append(*list, k)
				}
			}
		}
	}
	slices.Sort(snaps)
	slices.Sort(wals)
	return snaps, wals, nil
}

// The direction of a store that has no snapshot yet is kept in the file
// "directed" ("true" or "false"), written once when the store is created.
func writeDirection(dir string, directed bool) error {
	path := filepath.Join(dir, "directed")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.WriteFile(path, []byte(strconv.FormatBool(directed)), 0o644); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func readDirection(dir string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, "directed"))
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	d, err := strconv.ParseBool(strings.TrimSpace(string(b)))
	if err != nil {
		return false, fmt.Errorf("store: %s/directed: %q, want true or false", dir, b)
	}
	return d, nil
}
