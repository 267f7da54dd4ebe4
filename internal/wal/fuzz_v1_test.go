package wal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authppr/authppr/internal/faultfile"
)

// openChecked writes data as the log of a new directory, Replays it and
// Opens it, and checks what holds for any bytes: nothing panics; Replay
// changes nothing; Replay and Open agree (both fail, or find the same
// records and report the same tail); a refused log is left as it was with
// nothing beside it; damage kept aside is the log's bytes from its offset
// to the end; after Open the log is a version-2 log holding the records
// found, which takes an append. It returns what Open found.
func openChecked(t *testing.T, data []byte) ([][]byte, Recovery, error) {
	// The logs' fsyncs are simulated (a Faulty without faults): the
	// fuzzer's time goes to the bytes, not the disk.
	defer faultfile.SetHook(func(_ string, f *os.File) faultfile.File {
		x, err := faultfile.NewFaulty(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		return x
	})()
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged := func(where string) {
		after, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(after, data) {
			t.Fatalf("%s changed the log (%v)", where, err)
		}
	}
	var replayed, got [][]byte
	rrec, rerr := Replay(p, func(_ uint64, rec []byte) error {
		replayed = append(replayed, bytes.Clone(rec))
		return nil
	})
	unchanged("Replay")
	l, err := Open(p, func(seq uint64, rec []byte) error {
		if seq != uint64(len(got)) {
			t.Fatalf("Open replayed sequence %d, want %d", seq, len(got))
		}
		got = append(got, bytes.Clone(rec))
		return nil
	})
	if (err == nil) != (rerr == nil) {
		t.Fatalf("Replay: %v; Open: %v", rerr, err)
	}
	if err != nil {
		if !strings.HasPrefix(err.Error(), "wal: ") || err.Error() != rerr.Error() {
			t.Fatalf("Replay: %v; Open: %v", rerr, err)
		}
		unchanged("a refusing Open")
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("a refusing Open left %d files", len(entries))
		}
		return nil, Recovery{}, err
	}
	rec := l.Recovered
	if !equalRecords(got, replayed) {
		t.Fatalf("Open found %d records, Replay %d", len(got), len(replayed))
	}
	if d := rec.Damaged; d != nil {
		kept, err := os.ReadFile(d.KeptAt)
		if err != nil || !bytes.Equal(kept, data[d.Offset:]) || d.Offset+d.Bytes != int64(len(data)) || rec.TornBytes != 0 {
			t.Fatalf("damage %s: kept bytes differ from the log's (%v)", d, err)
		}
		k := *d
		k.KeptAt = ""
		rec.Damaged = &k
	}
	if rec.Version != rrec.Version || rec.Records != rrec.Records || rec.TornBytes != rrec.TornBytes ||
		(rec.Damaged == nil) != (rrec.Damaged == nil) || rec.Damaged != nil && *rec.Damaged != *rrec.Damaged {
		t.Fatalf("Open found %+v, Replay %+v", rec, rrec)
	}
	if _, err := l.Append([]byte("appended")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var again [][]byte
	arec, err := Replay(p, func(_ uint64, rec []byte) error {
		again = append(again, bytes.Clone(rec))
		return nil
	})
	if err != nil || arec.Version != 2 || arec.TornBytes != 0 || arec.Damaged != nil || !equalRecords(again, append(got, []byte("appended"))) {
		t.Fatalf("the log after Open and an append: %+v, %d records (%d found, then 1 appended), %v", arec, len(again), len(got), err)
	}
	return got, rec, nil
}

func equalRecords(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// v1Change is what a fuzzed program does to the version-1 log it wrote.
type v1Change uint8

const (
	noChange   v1Change = iota
	cutAt               // the file cut at at
	flipByte            // byte at xored with a non-zero byte
	zeroEnd             // zero bytes appended
	garbageEnd          // the rest of the script appended
	v1Changes
)

// runV1 builds a version-1 log from script (1 to 6 records of 1 to 255
// bytes, or 70000 to cross a scan chunk, then one change), opens it with
// openChecked and checks the outcome against what the change allows.
func runV1(t *testing.T, script []byte) {
	next := func() int {
		if len(script) == 0 {
			return 0
		}
		b := script[0]
		script = script[1:]
		return int(b)
	}
	recs := make([][]byte, 1+next()%6)
	for i := range recs {
		size := next() + 1
		if size == 256 {
			size = 70000
		}
		rec := []byte(fmt.Sprintf("v1-%d:", i))
		for len(rec) < size {
			rec = append(rec, byte(i*31+len(rec)))
		}
		recs[i] = rec[:size]
	}
	data := encodeV1(recs)
	n, end := len(recs), len(data)
	change := v1Change(next()) % v1Changes
	at := (next()<<8 | next()) % end
	switch change {
	case cutAt:
		data = data[:at]
	case flipByte:
		data[at] ^= byte(next()) | 1
	case zeroEnd:
		data = append(data, make([]byte, next())...)
	case garbageEnd:
		data = append(data, script...)
	}
	got, rec, err := openChecked(t, data)
	if err != nil {
		msg := err.Error()
		ok := change == flipByte && (strings.Contains(msg, "corrupted inside") || strings.Contains(msg, "not a log")) ||
			change == garbageEnd && strings.Contains(msg, "corrupted inside")
		if !ok {
			t.Fatalf("change %d at %d: %v", change, at, err)
		}
		return
	}
	prefix := func(k int) {
		if !equalRecords(got, recs[:k]) {
			t.Fatalf("change %d at %d: %d records found, want the first %d of %d", change, at, len(got), k, n)
		}
	}
	switch change {
	case noChange:
		prefix(n)
		if rec.Version != 1 || rec.TornBytes != 0 || rec.Damaged != nil {
			t.Fatalf("an unchanged log: %+v", rec)
		}
	case cutAt:
		k := 0
		for k < n && v1Start(recs, k+1) <= at {
			k++
		}
		prefix(k)
		// A cut inside the first record leaves no proof of a log: its
		// bytes are kept as damage (or, all zeros or a prefix of the
		// magic, cut as a torn first append).
		firstTorn := rec.Damaged != nil && rec.Damaged.Offset == 0 && rec.Damaged.Bytes == int64(at) || rec.TornBytes == int64(at)
		if k > 0 && (rec.TornBytes != int64(at-v1Start(recs, k)) || rec.Damaged != nil) || k == 0 && !firstTorn {
			t.Fatalf("cut at %d: %+v", at, rec)
		}
	case flipByte:
		// One damaged byte loses the last record at most, and reported:
		// damage, or a torn tail when it was in the last length (version 1
		// cannot tell a length made to run past the end from a torn tail).
		prefix(n - 1)
		lastLength := at >= v1Start(recs, n-1) && at < v1Start(recs, n-1)+4
		if !(rec.Damaged != nil && rec.Damaged.Record == uint64(n-1) || rec.TornBytes > 0 && lastLength) {
			t.Fatalf("flip at %d: the lost record is not reported: %+v", at, rec)
		}
	case zeroEnd:
		prefix(n)
		z := int64(len(data) - end)
		if z < headerSize1 && rec.TornBytes != z ||
			z >= headerSize1 && (rec.Damaged == nil || rec.Damaged.Offset != int64(end) || rec.Damaged.Bytes != z) {
			t.Fatalf("%d zero bytes at the end: %+v", z, rec)
		}
	case garbageEnd:
		if len(got) < n || !equalRecords(got[:n], recs) {
			t.Fatalf("garbage at the end: %d records found, %d written", len(got), n)
		}
	}
}

// FuzzWALV1 reads version-1 logs: raw bytes (any file: nothing panics,
// Replay and Open agree, a refused file is left as it was, an opened one
// is converted with the records found), and programs that write a
// version-1 log and change it once (a cut, a damaged byte, a zero or
// garbage tail), checked against what the change allows: a cut loses only
// the records it cuts, reported as torn (as damage when no record is left
// whole: nothing then proves the file a log); damage loses at most the last
// record, reported, or is an error; no record is ever changed or invented.
func FuzzWALV1(f *testing.F) {
	// Three records of 11, 21 and 31 bytes start at bytes 0, 19 and 48;
	// the log is 87 bytes long.
	f.Add([]byte{2, 10, 20, 30, 0}, false)                            // unchanged
	f.Add([]byte{2, 10, 20, 30, 1, 0, 60}, false)                     // cut inside the last record
	f.Add([]byte{2, 10, 20, 30, 1, 0, 25}, false)                     // cut inside record 1
	f.Add([]byte{2, 10, 20, 30, 2, 0, 19, 0x20}, false)               // record 1's length made larger, inside the log
	f.Add([]byte{2, 10, 20, 30, 2, 0, 49, 0x10}, false)               // the last length made to run past the end
	f.Add([]byte{2, 10, 20, 30, 2, 0, 80, 1}, false)                  // the last payload
	f.Add([]byte{2, 10, 20, 30, 3, 0, 0, 40}, false)                  // a zero tail
	f.Add([]byte{2, 10, 20, 30, 3, 0, 0, 5}, false)                   // a torn header of zeros
	f.Add([]byte{1, 5, 255, 2, 0x10, 0, 0x71}, false)                 // a record past a scan chunk, damaged
	f.Add([]byte{1, 5, 255, 1, 0xff, 0xff}, false)                    // cut inside it
	f.Add([]byte{1, 5, 5, 4, 0, 0, 9, 0, 0, 0, 1, 2, 3, 4, 5}, false) // garbage: a length that runs past the end
	f.Add(encodeV1(goldenV1Records()), true)                          // the golden log
	f.Add(append(encodeV1(goldenV1Records()), 0, 0), true)            // and a torn header of zeros
	f.Add([]byte("authwal2"), true)
	f.Add([]byte("not a log at all"), true)
	f.Add(make([]byte, 20), true)
	f.Add(append(make([]byte, 16), encodeV1([][]byte{[]byte("after two empty records")})...), true)
	f.Fuzz(func(t *testing.T, script []byte, raw bool) {
		if raw {
			openChecked(t, script)
			return
		}
		runV1(t, script)
	})
}
