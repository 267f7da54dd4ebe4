package wal

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/faultfile"
)

// openFaulty opens the log at path through a Faulty file whose faults plan
// decides.
func openFaulty(t testing.TB, path string, plan func(op faultfile.Op, n int) *faultfile.Fault) (*Log, *faultfile.Faulty) {
	t.Helper()
	var x *faultfile.Faulty
	restore := faultfile.SetHook(func(_ string, f *os.File) faultfile.File {
		var err error
		x, err = faultfile.NewFaulty(f, plan)
		require.NoError(t, err)
		return x
	})
	defer restore()
	l, err := Open(path, nil)
	require.NoError(t, err)
	return l, x
}

// script returns a plan that injects faults[i] on the i-th operation of
// kind ops[i] after armed is set, in order, and nothing after them.
type script struct {
	armed  bool
	faults []scripted
}

type scripted struct {
	op faultfile.Op
	ft faultfile.Fault
}

func (s *script) plan(op faultfile.Op, n int) *faultfile.Fault {
	if !s.armed || len(s.faults) == 0 || s.faults[0].op != op {
		return nil
	}
	ft := s.faults[0].ft
	s.faults = s.faults[1:]
	return &ft
}

// After a failed append (a write that fails part-way or comes back short,
// a failed fsync, with the cut back working or not), the log never
// acknowledges a record on top of the failed one's bytes: every record it
// acknowledged is there after reopening, and the failed one is not, unless
// the error said its outcome is unknown (the cut back failed; the log then
// refuses appends).
func TestFailedAppendIsCutBack(t *testing.T) {
	enospc, eio := syscall.ENOSPC, syscall.EIO
	for _, c := range []struct {
		name    string
		faults  []scripted
		unknown bool // the cut back fails: the log refuses appends
	}{
		{"write fails part-way", []scripted{{faultfile.Write, faultfile.Fault{Err: enospc, Keep: 100}}}, false},
		{"write fails at once", []scripted{{faultfile.Write, faultfile.Fault{Err: enospc}}}, false},
		{"short write", []scripted{{faultfile.Write, faultfile.Fault{Keep: 50}}}, false},
		{"fsync fails", []scripted{{faultfile.Sync, faultfile.Fault{Err: eio}}}, false},
		{"fsync fails, then the truncation", []scripted{{faultfile.Sync, faultfile.Fault{Err: eio}}, {faultfile.Truncate, faultfile.Fault{Err: eio}}}, true},
		{"fsync fails, then the fsync of the truncation", []scripted{{faultfile.Sync, faultfile.Fault{Err: eio}}, {faultfile.Sync, faultfile.Fault{Err: eio}}}, true},
		{"write fails part-way, then the truncation", []scripted{{faultfile.Write, faultfile.Fault{Err: enospc, Keep: 100}}, {faultfile.Truncate, faultfile.Fault{Err: enospc}}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			s := &script{faults: c.faults}
			l, _ := openFaulty(t, path, s.plan)
			var acked [][]byte
			for i := range 5 {
				_, err := l.Append(record(i))
				require.NoError(t, err)
				acked = append(acked, record(i))
			}
			// The failed record is large and zero-filled: its stale bytes
			// would read as valid empty records.
			failed := make([]byte, 300)
			s.armed = true
			_, err := l.Append(failed)
			require.Error(t, err)
			if c.unknown {
				require.ErrorIs(t, err, ErrFailed, "the error says the outcome is unknown")
				require.ErrorContains(t, err, "may be in the log")
			} else {
				require.NotErrorIs(t, err, ErrFailed)
				require.ErrorContains(t, err, "none of the batch is in the log")
			}
			require.Empty(t, s.faults, "every scripted fault was used")
			_, err = l.Append(record(5))
			if c.unknown {
				require.ErrorIs(t, err, ErrFailed, "a log whose end is unknown refuses appends")
				require.ErrorIs(t, l.Err(), ErrFailed)
			} else {
				require.NoError(t, err, "the log goes on after a failure it cut back")
				require.NoError(t, l.Err())
				acked = append(acked, record(5))
			}
			require.NoError(t, l.Close())

			got, r := readAll(t, path)
			defer r.Close()
			if c.unknown && len(got) == len(acked)+1 {
				require.Equal(t, failed, got[len(acked)], "the record of unknown outcome is there whole")
				got = got[:len(acked)]
			}
			require.Equal(t, acked, got)
			for _, rec := range got {
				require.False(t, bytes.Equal(rec, failed) && !c.unknown, "the failed record is there")
			}
		})
	}
}
