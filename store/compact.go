package store

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/authppr/authppr/snapshot"
)

// ErrCompacting is returned by Compact while another compaction runs.
var ErrCompacting = errors.New("store: a compaction is already running")

// Compact folds the delta of the current version into a new csr snapshot
// and makes it the base. It runs in the caller's goroutine without holding
// the writer lock while it builds: readers and writers go on meanwhile
// (writes made during the build stay in the new, smaller delta). A durable
// store saves the new snapshot before switching to it. Ids and labels do not
// change (see the package doc).
func (s *Store) Compact() error {
	if !s.compacting.CompareAndSwap(false, true) {
		return ErrCompacting
	}
	defer s.compacting.Store(false)

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.durable != nil {
		// A failed log (ErrLogFailed) may hold a batch Apply refused:
		// rotating would put every later batch after it for a reopen to
		// replay. Refused even with nothing to fold, so the rule is plain.
		if err := s.durable.log.Err(); err != nil {
			s.mu.Unlock()
			return fmt.Errorf("store: compact: %w", err)
		}
	}
	v := s.cur.Load()
	if (v.DeltaEdges() == 0 && len(v.l.names) == 0 && len(v.l.dels) == 0) || v.NumNodes() == 0 {
		s.mu.Unlock()
		return nil
	}
	gen := -1
	if s.durable != nil {
		var err error
		if gen, err = s.durable.rotate(); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	s.mu.Unlock()

	nb, err := s.build(v, gen)
	if err != nil {
		return err
	}

	s.mu.Lock()
	s.rebase(nb, v)
	s.publish()
	s.mu.Unlock()

	if s.durable != nil {
		return s.durable.removeBefore(gen)
	}
	return nil
}

// build materialises v as a new base (and saves it as snapshot gen when
// the store is durable). With Options.CompactNice it runs on a goroutine
// locked to a thread of lowered priority that exits with it.
func (s *Store) build(v *Version, gen int) (*base, error) {
	nice := int(s.nice.Load())
	if nice <= 0 {
		return s.buildNow(v, gen)
	}
	type result struct {
		nb  *base
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked, see lowerThreadPriority
		if err := lowerThreadPriority(nice); err != nil {
			done <- result{err: fmt.Errorf("store: compaction priority: %w", err)}
			return
		}
		nb, err := s.buildNow(v, gen)
		done <- result{nb, err}
	}()
	r := <-done
	return r.nb, r.err
}

func (s *Store) buildNow(v *Version, gen int) (*base, error) {
	g, labels, err := v.Materialize()
	if err != nil {
		return nil, err
	}
	nb, err := newBase(g, labels, v.base.directed)
	if err != nil {
		return nil, err
	}
	// Warm the views queries will read, off the readers' path: the
	// native one and every live guard's (Guard.prepareBase). A view that
	// fails to build here fails the query that needs it, as it would have.
	if bn, err := nb.view(nil); err == nil {
		bn.Prepare()
	}
	for _, g := range s.liveGuards() {
		g.prepareBase(nb)
	}
	if s.durable != nil {
		p := snapshot.Progress{Position: v.position, Batches: v.batches}
		if err := s.durable.saveSnapshot(gen, g, labels, p); err != nil {
			return nil, err
		}
	}
	return nb, nil
}

// liveGuards returns the guards made on the store that are still held,
// forgetting the others.
func (s *Store) liveGuards() []*Guard {
	s.guardsMu.Lock()
	defer s.guardsMu.Unlock()
	var live []*Guard
	kept := s.guards[:0]
	for _, wp := range s.guards {
		if g := wp.Value(); g != nil {
			live = append(live, g)
			kept = append(kept, wp)
		}
	}
	clear(s.guards[len(kept):])
	s.guards = kept
	return live
}

// rebase makes nb (the materialised v) the base; the delta keeps only the
// writes made after v. Called with mu held.
func (s *Store) rebase(nb *base, v *Version) {
	nn, ne, nd := len(v.l.names), len(v.l.src), len(v.l.dels)
	old := s.l
	s.base = nb
	s.l = logs{
		names:    slices.Clone(old.names[nn:]),
		src:      slices.Clone(old.src[ne:]),
		dst:      slices.Clone(old.dst[ne:]),
		weight:   slices.Clone(old.weight[ne:]),
		creator:  slices.Clone(old.creator[ne:]),
		requires: slices.Clone(old.requires[ne:]),
		reqSets:  old.reqSets,
		dels:     slices.Clone(old.dels[nd:]),
		channels: old.channels,
		journal:  old.journal,
	}
	s.names = make(map[string]uint32, len(s.l.names))
	for i, name := range s.l.names {
		id := uint32(nb.nodes + i)
		s.names[name] = id
	}
}
