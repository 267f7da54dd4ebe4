package store

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/faultfile"
	"github.com/authppr/authppr/wal"
)

// withFaults makes every log the store opens until the test ends write
// through a Faulty file that consults plan.
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
	_, err = s.Apply(fillBatch(l.next, 4))
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
