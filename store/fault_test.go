package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/faultfile"
	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/internal/wal"
)

// withFaults makes every log the store opens until the test ends write
// through a Faulty file that consults plan. The hook is global: tests that
// use it must not run in parallel with other durable-store tests.
func withFaults(t testing.TB, plan func(op faultfile.Op, n int) *faultfile.Fault) {
	t.Helper()
	restore := faultfile.SetHook(func(_ string, f *os.File) faultfile.File {
		x, err := faultfile.NewFaulty(f, plan)
		if err != nil {
			t.Fatal(err)
		}
		return x
	})
	t.Cleanup(restore)
}

// A batch whose fsync failed and whose cut back failed too may be in the
// log: the store refuses writes and compaction (a rotation would put later
// batches after it) until it is reopened; a batch refused after a clean cut
// back is not there, and the store goes on.
func TestFailedLogRefusesWrites(t *testing.T) {
	var faults []faultfile.Op // the next operations of these kinds fail, in order
	withFaults(t, func(op faultfile.Op, n int) *faultfile.Fault {
		if len(faults) > 0 && faults[0] == op {
			faults = faults[1:]
			return &faultfile.Fault{Err: syscall.EIO}
		}
		return nil
	})
	dir := t.TempDir()
	s, err := Open(dir, Options{Directed: true})
	require.NoError(t, err)
	var l fillLedger
	require.NoError(t, l.apply(s, 2))

	faults = []faultfile.Op{faultfile.Sync} // a clean failure: the cut back works
	err = l.apply(s, 3)
	require.Error(t, err)
	require.NotErrorIs(t, err, wal.ErrFailed)
	require.NoError(t, l.apply(s, 1), "the store goes on after a clean failure")
	l.check(t, s.Current(), "live after a clean failure")

	faults = []faultfile.Op{faultfile.Sync, faultfile.Truncate}
	before := s.Current()
	_, err = s.applyBatch(fillBatch(l.next, 4))
	unknown := l.next
	l.next++
	require.ErrorIs(t, err, wal.ErrFailed)
	require.Same(t, before, s.Current(), "a failed batch is not published")
	err = l.apply(s, 1)
	require.ErrorIs(t, err, wal.ErrFailed, "writes are refused after the log failed")
	require.ErrorIs(t, s.Compact(), wal.ErrFailed, "compaction is refused after the log failed")
	require.NoError(t, s.Close())

	r, err := Open(dir, Options{})
	require.NoError(t, err)
	// The batch of unknown outcome is there (its bytes were written and
	// could not be cut off): it counts as acknowledged from now on.
	l.acked = append(l.acked, unknown)
	l.sizes[unknown] = 4
	l.check(t, r.Current(), "reopened")
	require.NoError(t, l.apply(r, 2))
	require.NoError(t, r.Compact())
	l.check(t, r.Current(), "written and compacted after reopening")
	require.NoError(t, r.Close())
}

// storeFaultRun is one run of FuzzStoreFaults: a durable store whose logs
// write through Faulty files, and the ledger it is checked against.
type storeFaultRun struct {
	t       *testing.T
	dir     string
	s       *Store
	x       *faultfile.Faulty // the file of the log the store appends to
	armed   [3]*faultfile.Fault
	l       fillLedger
	unknown int // a batch whose Apply failed with wal.ErrFailed, or -1
}

func (r *storeFaultRun) plan(op faultfile.Op, n int) *faultfile.Fault {
	ft := r.armed[op]
	r.armed[op] = nil
	return ft
}

// open (re)opens the store and checks it against the ledger: the batch of
// unknown outcome, if any, is there whole (and acknowledged from now on)
// or not at all.
func (r *storeFaultRun) open(where string) {
	t := r.t
	r.armed = [3]*faultfile.Fault{} // faults are injected into appends, not recovery
	s, err := Open(r.dir, Options{Directed: true})
	if err != nil {
		t.Fatalf("%s: reopen: %v", where, err)
	}
	r.s = s
	for _, rec := range s.Recovery() {
		if rec.Damaged != nil {
			t.Fatalf("%s: damage reported where nothing was damaged: %s", where, rec.Damaged)
		}
	}
	if i := r.unknown; i >= 0 {
		if _, ok := s.Current().ID(fillBatch(i, 1)[0].src); ok {
			r.l.acked = append(r.l.acked, i)
		} else {
			r.l.failed = append(r.l.failed, i)
		}
		r.unknown = -1
	}
	r.l.check(t, s.Current(), where)
}

// runStoreFaults interprets script as a program of batches, injected
// faults, compactions, reopenings and crashes of a durable store.
func runStoreFaults(t *testing.T, script []byte) {
	r := &storeFaultRun{t: t, dir: t.TempDir(), unknown: -1}
	r.l.sizes = map[int]int{}
	restore := faultfile.SetHook(func(_ string, f *os.File) faultfile.File {
		x, err := faultfile.NewFaulty(f, r.plan)
		if err != nil {
			t.Fatal(err)
		}
		r.x = x // the store opens its appending log last
		return x
	})
	defer restore()
	r.open("start")
	defer func() { r.s.Close() }()
	next := func() int {
		if len(script) == 0 {
			return 0
		}
		b := script[0]
		script = script[1:]
		return int(b)
	}
	for steps := 0; len(script) > 0 && steps < 100; steps++ {
		where := fmt.Sprintf("step %d", steps)
		switch op := next(); op % 8 {
		case 0, 1: // a batch
			i, n := r.l.next, 1+next()%6
			r.l.next++
			r.l.sizes[i] = n
			failedBefore := r.unknown >= 0
			before := r.s.Current()
			_, err := r.s.applyBatch(fillBatch(i, n))
			switch {
			case err == nil && !failedBefore:
				r.l.acked = append(r.l.acked, i)
			case err == nil:
				t.Fatalf("%s: a store whose log failed acknowledged batch %d", where, i)
			case errors.Is(err, wal.ErrFailed) && !failedBefore:
				r.unknown = i
			case failedBefore && !errors.Is(err, wal.ErrFailed):
				t.Fatalf("%s: a store whose log failed: %v, want wal.ErrFailed", where, err)
			default:
				r.l.failed = append(r.l.failed, i)
			}
			if err != nil && r.s.Current() != before {
				t.Fatalf("%s: a failed batch was published", where)
			}
		case 2:
			keep := next() * 5
			r.armed[faultfile.Write] = &faultfile.Fault{Err: syscall.ENOSPC, Keep: keep}
		case 3:
			r.armed[faultfile.Sync] = &faultfile.Fault{Err: syscall.EIO}
		case 4:
			r.armed[faultfile.Truncate] = &faultfile.Fault{Err: syscall.EIO}
		case 5:
			err := r.s.Compact()
			if r.unknown >= 0 && !errors.Is(err, wal.ErrFailed) {
				t.Fatalf("%s: compaction of a store whose log failed: %v, want wal.ErrFailed", where, err)
			}
			if r.unknown < 0 && err != nil {
				t.Fatalf("%s: compaction: %v", where, err)
			}
			r.l.check(t, r.s.Current(), where+": compacted")
		case 6:
			if err := r.s.Close(); err != nil {
				t.Fatal(err)
			}
			r.open(where + ": reopened")
		case 7: // a crash of the machine
			mode, keep := next(), next()
			if err := r.x.Crash(faultfile.Crash(mode%4), keep*11); err != nil {
				t.Fatal(err)
			}
			r.s.Close()
			r.open(where + ": after a crash")
		}
	}
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	r.open("end")
}

// FuzzStoreFaults runs random programs of batches, injected write, fsync
// and truncation failures of the log, compactions, reopenings and crashes
// on a durable store: every acknowledged batch is there after each reopen,
// whole and in order; a batch reported failed never is; a batch the store
// said may be there (wal.ErrFailed) is whole or absent; a store whose log
// failed refuses writes and compaction until reopened.
func FuzzStoreFaults(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 6})
	f.Add([]byte{0, 3, 2, 10, 0, 5, 0, 1, 6})         // a write fails part-way, then a smaller batch
	f.Add([]byte{0, 3, 3, 0, 5, 0, 1, 5, 6})          // a failed fsync
	f.Add([]byte{0, 3, 3, 4, 0, 5, 0, 1, 5, 6, 0, 1}) // a failed fsync, then a failed cut back
	f.Add([]byte{0, 3, 5, 0, 2, 3, 4, 0, 4, 5, 7, 0, 0, 0, 2, 6})
	f.Add([]byte{0, 3, 0, 4, 7, 1, 0, 0, 2, 7, 2, 9, 6})
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzStoreFaults.zip
	f.Fuzz(func(t *testing.T, script []byte) {
		runStoreFaults(t, script)
	})
}
