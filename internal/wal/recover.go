package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// verdict is what recovery makes of the bytes at a record boundary.
type verdict uint8

const (
	whole    verdict = iota // a record that passes its checksums
	torn                    // a torn tail: see Recovery.TornBytes
	damaged                 // a record or header that fails its checksum
	overrun                 // version 1: a length that runs past the end of the log (torn, unless a whole record follows)
	zeroTail                // version 1: zero bytes to the end of the log (damage: empty records or never written)
)

// recover reads the log from the start, calls replay for every whole
// record, and sets l.Recovered and l.next. It returns the end of the last
// whole record (the magic's end when there is none and the magic is whole).
// Damage with a whole record after it is an error: corruption inside the
// log, never dropped as a tail.
func (l *Log) recover(replay func(uint64, []byte) error) (int64, error) {
	st, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("wal: %w", err)
	}
	total := st.Size()
	off, version, err := l.readMagic(total)
	if err != nil {
		return 0, err
	}
	if version == 0 {
		l.Recovered = Recovery{Version: 2, TornBytes: total}
		return 0, nil
	}
	var buf []byte
	s1 := scan1{nonzero: -1}
	parse := func(off int64) ([]byte, verdict, string, error) {
		if version == 1 {
			return l.parse1(off, total, &s1)
		}
		return l.parse(off, total, &buf)
	}
	header := int64(headerSize)
	if version == 1 {
		header = headerSize1
	}
	v, why := whole, ""
	for off < total {
		var rec []byte
		if rec, v, why, err = parse(off); err != nil {
			return 0, err
		}
		if v != whole {
			break
		}
		if replay != nil {
			if err := replay(l.next, rec); err != nil {
				return 0, err
			}
		}
		l.next++
		off += header + int64(len(rec))
	}
	l.Recovered = Recovery{Version: version, Records: l.next}
	// A version-1 log without a whole record is one whose first append a
	// crash tore, or a file of another kind: its bytes are damage, kept
	// rather than cut.
	unproven := version == 1 && l.next == 0
	if unproven {
		why += ", and no whole record before it: a version-1 log's first append torn by a crash, or not a log"
	}
	switch {
	case off == total:
	case v == torn && !unproven:
		l.Recovered.TornBytes = total - off
	case v == torn || v == zeroTail:
		l.Recovered.Damaged = &Damage{Record: l.next, Offset: off, Bytes: total - off, Reason: why}
	default:
		var at int64
		var found bool
		switch {
		case version == 2:
			at, found, err = l.findRecord(off+1, total)
		case total-off-1 > maxFind1:
			return 0, fmt.Errorf("wal: %s: record %d at byte %d: %s, and %d bytes follow, more than a record holds: the log is corrupted inside, not at its end", l.path, l.next, off, why, total-off-1)
		default:
			at, found, err = l.findRecord1(off+1, total)
		}
		if err != nil {
			return 0, err
		}
		if found {
			return 0, fmt.Errorf("wal: %s: record %d at byte %d: %s, and a whole record follows at byte %d: the log is corrupted inside, not at its end", l.path, l.next, off, why, at)
		}
		if v == overrun && !unproven {
			l.Recovered.TornBytes = total - off
		} else {
			l.Recovered.Damaged = &Damage{Record: l.next, Offset: off, Bytes: total - off, Reason: why}
		}
	}
	return off, nil
}

// readMagic says which format version the log of total bytes is in and
// where its records start: 2 after the magic; 1 at byte 0, when the file
// opens with a version-1 record (opensV1) or a version-1 header it ends
// inside (tornFirstV1); 0 for a log that holds no record yet: an empty
// file, a prefix of the magic, or zero bytes (a first append cut short).
// Anything else is an error: a file of another kind would read as damage.
func (l *Log) readMagic(total int64) (start int64, version int, err error) {
	head := make([]byte, min(total, int64(len(magic))))
	if err := l.readAt(head, 0); err != nil {
		return 0, 0, err
	}
	if total >= int64(len(magic)) && string(head) == magic {
		return int64(len(magic)), 2, nil
	}
	if total < int64(len(magic)) && magic[:len(head)] == string(head) {
		return 0, 0, nil
	}
	if nz, err := l.firstNonzero(0, total); err != nil || nz == total {
		return 0, 0, err
	}
	if v1, err := l.opensV1(total); err != nil || v1 || tornFirstV1(head, total) {
		return 0, 1, err
	}
	return 0, 0, fmt.Errorf("wal: %s: byte 0: %q, want the magic %q or a whole version-1 record: not a log (or a version-1 log whose first record is damaged)", l.path, head, magic)
}

// parse reads the record at off in a log of total bytes into *buf and
// says what it is: whole (rec is its payload), torn or damaged (why says
// how).
func (l *Log) parse(off, total int64, buf *[]byte) (rec []byte, v verdict, why string, err error) {
	if total-off < headerSize {
		return nil, torn, "", nil
	}
	var h [headerSize]byte
	if err := l.readAt(h[:], off); err != nil {
		return nil, 0, "", err
	}
	if crc32.Checksum(h[:8], castagnoli) != binary.LittleEndian.Uint32(h[8:]) {
		zero, err := l.allZero(off, total)
		if err != nil || zero {
			return nil, torn, "", err
		}
		return nil, damaged, "header checksum mismatch", nil
	}
	n := int64(binary.LittleEndian.Uint32(h[:]))
	if n > MaxRecord {
		return nil, damaged, fmt.Sprintf("length %d over the %d-byte limit", n, MaxRecord), nil
	}
	if off+headerSize+n > total {
		return nil, torn, "", nil // the header is whole and right: the file ends inside the record
	}
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	rec = (*buf)[:n]
	if err := l.readAt(rec, off+headerSize); err != nil {
		return nil, 0, "", err
	}
	if crc32.Checksum(rec, castagnoli) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, damaged, "payload checksum mismatch", nil
	}
	return rec, whole, "", nil
}

// scanChunk is the read size of the scans over a damaged or zero tail.
const scanChunk = 1 << 16

// findRecord returns the offset of the first whole record starting in
// [from, total), if any. It tries every offset: after damage, record
// boundaries are unknown.
func (l *Log) findRecord(from, total int64) (int64, bool, error) {
	buf := make([]byte, scanChunk+headerSize)
	var rec []byte
	for start := from; start+headerSize <= total; start += scanChunk {
		n := min(int64(len(buf)), total-start)
		if err := l.readAt(buf[:n], start); err != nil {
			return 0, false, err
		}
		for i := int64(0); i < scanChunk && i+headerSize <= n; i++ {
			h := buf[i : i+headerSize]
			if crc32.Checksum(h[:8], castagnoli) != binary.LittleEndian.Uint32(h[8:]) {
				continue
			}
			if _, v, _, err := l.parse(start+i, total, &rec); err != nil || v == whole {
				return start + i, err == nil, err
			}
		}
	}
	return 0, false, nil
}

// allZero reports whether the bytes [from, total) are all zero.
func (l *Log) allZero(from, total int64) (bool, error) {
	nz, err := l.firstNonzero(from, total)
	return nz == total, err
}

// firstNonzero returns the offset of the first byte in [from, total) that
// is not zero, or total.
func (l *Log) firstNonzero(from, total int64) (int64, error) {
	buf := make([]byte, min(scanChunk, total-from))
	for start := from; start < total; start += int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), total-start)]
		if err := l.readAt(chunk, start); err != nil {
			return 0, err
		}
		for i, b := range chunk {
			if b != 0 {
				return start + int64(i), nil
			}
		}
	}
	return total, nil
}

func (l *Log) readAt(p []byte, off int64) error {
	if n, err := l.f.ReadAt(p, off); err != nil && !(errors.Is(err, io.EOF) && n == len(p)) {
		return fmt.Errorf("wal: %s: read %d bytes at byte %d: %w", l.path, len(p), off, err)
	}
	return nil
}

// cutEnd makes end the end of the log: it keeps damaged bytes after it
// in a new file beside the log (synced, with its directory, before
// anything is cut), truncates the file and fsyncs it.
func (l *Log) cutEnd(end int64) error {
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	if total := st.Size(); end < total {
		if d := l.Recovered.Damaged; d != nil {
			if d.KeptAt, err = l.keep(end, total); err != nil {
				return fmt.Errorf("wal: %s: keep the damaged bytes from byte %d aside: %w (nothing was cut)", l.path, end, err)
			}
		}
		if err := l.f.Truncate(end); err != nil {
			return fmt.Errorf("wal: %s: cutting the log at byte %d: %w", l.path, end, err)
		}
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("wal: %s: fsync after cutting the log at byte %d: %w", l.path, end, err)
		}
	}
	l.size = end
	return nil
}

// keep copies the log's bytes [from, total) to a new file beside it and
// returns its path.
func (l *Log) keep(from, total int64) (string, error) {
	dir, base := filepath.Split(l.path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("%s.damaged-at-%d-*", base, from))
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, io.NewSectionReader(l.f, from, total-from))
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
