package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/authppr/authppr/internal/faultfile"
)

// faultRun is one run of the WAL fault fuzzer: a log written through a
// Faulty file, and the model it is checked against.
type faultRun struct {
	t    *testing.T
	path string
	l    *Log
	x    *faultfile.Faulty
	// armed holds the next fault of each operation kind.
	armed [3]*faultfile.Fault
	// acked are the records the log holds for certain, in order; unknown
	// are those of a batch whose append failed without a cut back (any
	// prefix of them may be found on reopening). A batch that failed with a
	// cut back is in neither: it must never be found.
	acked, unknown [][]byte
	made           int // records made so far, for unique contents
}

func (r *faultRun) plan(op faultfile.Op, n int) *faultfile.Fault {
	ft := r.armed[op]
	r.armed[op] = nil
	return ft
}

// open opens the log through a new Faulty and checks what it replayed
// against the model. A fault injected into Open's cut must fail it; Open
// then runs again without faults.
func (r *faultRun) open() {
	t := r.t
	var got [][]byte
	var x *faultfile.Faulty
	restore := faultfile.SetHook(func(_ string, f *os.File) faultfile.File {
		var err error
		if x, err = faultfile.NewFaulty(f, r.plan); err != nil {
			t.Fatal(err)
		}
		return x
	})
	defer restore()
	replay := func(seq uint64, rec []byte) error {
		if seq != uint64(len(got)) {
			t.Fatalf("replay: sequence %d, want %d", seq, len(got))
		}
		got = append(got, bytes.Clone(rec))
		return nil
	}
	cutFaults := r.armed[faultfile.Truncate] != nil || r.armed[faultfile.Sync] != nil
	l, err := Open(r.path, replay)
	if err != nil {
		// Only a fault injected into Open's cut may fail it.
		if !cutFaults || !strings.HasPrefix(err.Error(), "wal: ") || !strings.Contains(err.Error(), "cutting the log") {
			t.Fatalf("reopen: %v", err)
		}
		r.armed = [3]*faultfile.Fault{}
		got = nil
		if l, err = Open(r.path, replay); err != nil {
			t.Fatalf("reopen without faults: %v", err)
		}
	}
	r.l, r.x = l, x
	r.checkReplay(got, l.Recovered)
}

// checkReplay checks records a reopen replayed: every acknowledged one,
// in order, then a prefix of the unknown batch, and nothing else. Damage is
// allowed only where the run damaged the file (flip).
func (r *faultRun) checkReplay(got [][]byte, rec Recovery) {
	t := r.t
	if rec.Damaged != nil {
		t.Fatalf("damage reported where no byte was damaged: %s", rec.Damaged)
	}
	if len(got) < len(r.acked) {
		t.Fatalf("reopened with %d records, %d acknowledged", len(got), len(r.acked))
	}
	want := append(append([][]byte(nil), r.acked...), r.unknown...)
	if len(got) > len(want) {
		t.Fatalf("reopened with %d records: %d acknowledged, %d of unknown outcome", len(got), len(r.acked), len(r.unknown))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d: got %q, want %q", i, trim(got[i]), trim(want[i]))
		}
	}
	r.acked, r.unknown = got, nil
}

func trim(b []byte) []byte { return b[:min(len(b), 40)] }

func (r *faultRun) record(size int) []byte {
	r.made++
	if size == 0 {
		return nil
	}
	rec := []byte(fmt.Sprintf("r%d:", r.made))
	for len(rec) < size {
		rec = append(rec, byte(r.made+len(rec)))
	}
	return rec[:size]
}

// appendBatch appends recs and updates the model from the outcome.
func (r *faultRun) appendBatch(recs [][]byte) {
	t := r.t
	failedBefore := r.l.Err() != nil
	seq, err := r.l.AppendBatch(recs)
	switch {
	case failedBefore:
		if !errors.Is(err, ErrFailed) {
			t.Fatalf("append to a failed log: %v, want ErrFailed", err)
		}
	case err == nil:
		if want := uint64(len(r.acked)); len(recs) > 0 && seq != want {
			t.Fatalf("append: sequence %d, want %d", seq, want)
		}
		r.acked = append(r.acked, recs...)
	case errors.Is(err, ErrFailed):
		if r.l.Err() == nil {
			t.Fatalf("append failed with ErrFailed, yet Err is nil: %v", err)
		}
		r.unknown = recs
	default:
		if r.l.Err() != nil {
			t.Fatalf("a cut-back failure left the log failed: %v", r.l.Err())
		}
	}
}

// damage flips byte at of the closed log's file (which has size bytes)
// and reopens: Open either fails naming corruption, or replays a prefix of
// the records with every missing acknowledged one reported as damage. It
// reports whether the run can go on.
func (r *faultRun) damage(at int) bool {
	t := r.t
	data, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 {
		r.open()
		return true
	}
	at %= len(data)
	data[at] ^= 0x5a
	if err := os.WriteFile(r.path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	l, err := Open(r.path, func(_ uint64, rec []byte) error {
		got = append(got, bytes.Clone(rec))
		return nil
	})
	if err != nil {
		if !strings.Contains(err.Error(), "corrupted inside") && !strings.Contains(err.Error(), "not a log") {
			t.Fatalf("damage at byte %d: %v", at, err)
		}
		return false
	}
	want := append(append([][]byte(nil), r.acked...), r.unknown...)
	if len(got) > len(want) {
		t.Fatalf("damage at byte %d: %d records replayed, at most %d written", at, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("damage at byte %d: record %d: got %q, want %q", at, i, trim(got[i]), trim(want[i]))
		}
	}
	d := l.Recovered.Damaged
	if len(got) < len(r.acked) {
		if d == nil || d.Record != uint64(len(got)) {
			t.Fatalf("damage at byte %d: %d of %d acknowledged records replayed, damage reported: %v", at, len(got), len(r.acked), d)
		}
	}
	if d != nil {
		kept, err := os.ReadFile(d.KeptAt)
		if err != nil || !bytes.Equal(kept, data[d.Offset:]) || d.Offset+d.Bytes != int64(len(data)) {
			t.Fatalf("damage at byte %d: %s: kept bytes differ from the log's (%v)", at, d, err)
		}
		os.Remove(d.KeptAt)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	r.acked, r.unknown = got, nil
	r.open()
	return true
}

// runFaults interprets script as a program of appends, injected faults,
// reopenings, simulated crashes and damage, checking the log against the
// model after every reopening.
func runFaults(t *testing.T, script []byte) {
	r := &faultRun{t: t, path: filepath.Join(t.TempDir(), "log")}
	r.open()
	defer func() {
		if r.l != nil {
			r.l.Close()
		}
	}()
	next := func() int {
		if len(script) == 0 {
			return 0
		}
		b := script[0]
		script = script[1:]
		return int(b)
	}
	for steps := 0; len(script) > 0 && steps < 200; steps++ {
		switch op := next(); op % 10 {
		case 0, 1, 2, 3: // a batch of 1-4 records
			recs := make([][]byte, op%4+1)
			for i := range recs {
				size := next()
				if size >= 250 { // now and then a record longer than a scan chunk
					size = scanChunk + 100*(size-250)
				}
				recs[i] = r.record(size)
			}
			r.appendBatch(recs)
		case 4: // the next write fails after keeping some bytes (or is short)
			keep := next()
			ft := &faultfile.Fault{Err: syscall.ENOSPC, Keep: keep * 3}
			if keep%5 == 0 {
				ft.Err = nil
			}
			r.armed[faultfile.Write] = ft
		case 5:
			r.armed[faultfile.Sync] = &faultfile.Fault{Err: syscall.EIO}
		case 6:
			r.armed[faultfile.Truncate] = &faultfile.Fault{Err: syscall.EIO}
		case 7: // close and reopen
			if err := r.l.Close(); err != nil {
				t.Fatal(err)
			}
			r.open()
		case 8: // a crash of the machine, then reopen
			mode, keep := next(), next()
			if err := r.x.Crash(faultfile.Crash(mode%4), keep*7); err != nil {
				t.Fatal(err)
			}
			r.l.Close()
			r.open()
		case 9: // damage a byte of the closed log, then reopen
			at := next()<<8 | next()
			if err := r.l.Close(); err != nil {
				t.Fatal(err)
			}
			r.l = nil
			if !r.damage(at) {
				return
			}
		}
	}
	if err := r.l.Close(); err != nil {
		t.Fatal(err)
	}
	r.open()
}

// FuzzWALFaults runs random programs of appends, injected write, fsync and
// truncation failures, reopenings, crashes and damaged bytes against a
// model: every acknowledged record is found on reopening, in order; no
// record of a batch reported failed (without ErrFailed) ever is; a batch
// whose outcome the log said is unknown is found as a prefix or not at
// all; damage is an error or reported, never a silent loss.
func FuzzWALFaults(f *testing.F) {
	f.Add([]byte{0, 10, 1, 20, 30, 7, 2, 1, 2, 3})
	f.Add([]byte{0, 10, 4, 7, 1, 40, 50, 0, 3, 7})                     // a write fails part-way, then a smaller batch
	f.Add([]byte{0, 10, 4, 5, 0, 200, 0, 3, 7})                        // a short write
	f.Add([]byte{0, 10, 5, 0, 50, 0, 3, 7})                            // a failed fsync
	f.Add([]byte{0, 10, 5, 6, 0, 50, 0, 3, 7, 0, 3})                   // a failed fsync, then a failed cut back
	f.Add([]byte{0, 10, 5, 5, 0, 50, 0, 3, 8, 0, 0, 0, 4})             // failed fsync twice, then a crash that loses the unsynced
	f.Add([]byte{0, 10, 1, 20, 30, 8, 1, 0, 0, 3, 8, 2, 3, 0, 250, 7}) // crashes keeping all, or part
	f.Add([]byte{0, 10, 1, 20, 30, 9, 0, 40, 0, 5})                    // damage inside the log
	f.Add([]byte{0, 10, 1, 20, 30, 9, 0, 80, 0, 5})                    // damage to the last record's payload
	f.Add([]byte{0, 10, 1, 20, 30, 9, 0, 64, 0, 5})                    // damage to the last record's length
	f.Add([]byte{0, 0, 1, 0, 0, 4, 0, 3, 1, 1, 1, 8, 3, 0, 7})
	f.Add([]byte{0, 251, 0, 5, 9, 0, 200, 0, 5, 7})
	f.Fuzz(func(t *testing.T, script []byte) {
		runFaults(t, script)
	})
}
