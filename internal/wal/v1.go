package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/authppr/authppr/internal/faultfile"
)

// Format version 1 (see the package doc): no magic; records of uint32
// payload length, uint32 CRC-32C of the payload, payload. Replay reads such
// a log as it is; Open reads it and converts it to version 2 (convert)
// before it appends.

// headerSize1 is a version-1 record header's length: payload length,
// payload checksum.
const headerSize1 = 8

// maxFind1 bounds the bytes findRecord1 searches: more than a record
// holds (MaxRecord and its header) after a damaged record is never one
// torn record, so recover refuses such a log without searching.
const maxFind1 = headerSize1 + MaxRecord

// convertSuffix names the file beside the log that a conversion writes
// the version-2 log into before renaming it over the log.
const convertSuffix = ".v2-tmp"

// scan1 is what parse1 keeps between the records of one log.
type scan1 struct {
	buf []byte
	// nonzero is the offset of a byte known not to be zero (-1: none yet):
	// no zero run to the end of the log starts before it, so each byte is
	// scanned for zeros once however many empty records precede it.
	nonzero int64
}

// parse1 reads the version-1 record at off in a log of total bytes and
// says what it is: whole (rec is its payload); torn (the file ends inside
// its header); overrun (its length runs past the end of the log: a torn
// tail, unless a whole record follows and the length is damaged); zeroTail
// (zero bytes from off to the end: empty records, 8 zero bytes each, or
// space a crash allocated and never wrote, which version 1 cannot tell
// apart); or damaged (a length over MaxRecord, a payload failing its
// checksum). why says how.
func (l *Log) parse1(off, total int64, s *scan1) (rec []byte, v verdict, why string, err error) {
	if total-off < headerSize1 {
		return nil, torn, "the file ends inside its header", nil
	}
	var h [headerSize1]byte
	if err := l.readAt(h[:], off); err != nil {
		return nil, 0, "", err
	}
	n := int64(binary.LittleEndian.Uint32(h[:]))
	sum := binary.LittleEndian.Uint32(h[4:])
	if n == 0 && sum == 0 && off > s.nonzero {
		if s.nonzero, err = l.firstNonzero(off, total); err != nil {
			return nil, 0, "", err
		}
		if s.nonzero == total {
			return nil, zeroTail, "zero bytes to the end of the log: empty records, or space a crash allocated and never wrote (format version 1 cannot tell them apart)", nil
		}
	}
	if n > MaxRecord {
		return nil, damaged, fmt.Sprintf("length %d over the %d-byte limit", n, MaxRecord), nil
	}
	if off+headerSize1+n > total {
		return nil, overrun, fmt.Sprintf("length %d runs past the end of the log", n), nil
	}
	if int64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	rec = s.buf[:n]
	if err := l.readAt(rec, off+headerSize1); err != nil {
		return nil, 0, "", err
	}
	if crc32.Checksum(rec, castagnoli) != sum {
		return nil, damaged, "payload checksum mismatch", nil
	}
	return rec, whole, "", nil
}

// opensV1 reports whether a log of total bytes that does not open with the
// magic is a version-1 log: after any empty records it opens with a whole
// record that is not empty, a length and a payload checksum that agree,
// which a file of another kind gives with odds of 1 in 2^32.
func (l *Log) opensV1(total int64) (bool, error) {
	s := scan1{nonzero: -1}
	for off := int64(0); ; off += headerSize1 {
		rec, v, _, err := l.parse1(off, total, &s)
		if err != nil || v != whole {
			return false, err
		}
		if len(rec) > 0 {
			return true, nil
		}
	}
}

// tornFirstV1 reports whether a log of total bytes whose first bytes are
// head opens with a version-1 header that the file ends inside, or whose
// length (at most MaxRecord) runs past the end of the file: what a crash
// leaves of a version-1 log's first append, or a file of another kind.
// recover keeps such bytes aside as damage.
func tornFirstV1(head []byte, total int64) bool {
	if total < 4 {
		return true
	}
	n := int64(binary.LittleEndian.Uint32(head))
	return n <= MaxRecord && (total < headerSize1 || headerSize1+n > total)
}

// findRecord1 returns the offset of the first whole version-1 record that
// is not empty starting in [from, total), if any; total-from is at most
// maxFind1. Empty records are not looked for: they are 8 zero bytes, which
// a damaged or torn stretch holds as easily as a log. A header has no
// checksum, so every offset whose length fits is a candidate, each checked
// in constant time (rangeSums).
func (l *Log) findRecord1(from, total int64) (int64, bool, error) {
	data := make([]byte, total-from)
	if err := l.readAt(data, from); err != nil {
		return 0, false, err
	}
	sums := newRangeSums(data)
	for p := 0; p+headerSize1 <= len(data); p++ {
		n := int(binary.LittleEndian.Uint32(data[p:]))
		if n == 0 || n > MaxRecord || n > len(data)-p-headerSize1 {
			continue
		}
		if sums.sum(p+headerSize1, p+headerSize1+n) == binary.LittleEndian.Uint32(data[p+4:]) {
			return from + int64(p), true, nil
		}
	}
	return 0, false, nil
}

// convert makes the version-1 log l recovered, whose whole records end at
// end, a version-2 log holding the same records, and l ready to append to
// it. Damaged bytes after end are kept aside first, as cutEnd keeps them.
// The version-2 log is written to path + convertSuffix, fsynced, renamed
// over the log, and the directory fsynced: a crash at any point leaves
// under path either the version-1 log, which the next Open converts again
// (overwriting what the crash left of the new file), or the version-2 one,
// and both read as the same records. A conversion that fails before the
// rename leaves the log as it was (and its damaged bytes kept). at, when
// not nil, is called after each step with the step's name.
func (l *Log) convert(end int64, at func(step string)) error {
	step := func(s string) {
		if at != nil {
			at(s)
		}
	}
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	if d := l.Recovered.Damaged; d != nil {
		if d.KeptAt, err = l.keep(end, st.Size()); err != nil {
			return fmt.Errorf("wal: %s: keep the damaged bytes from byte %d aside: %w (nothing was changed)", l.path, end, err)
		}
		step("kept the damaged bytes")
	}
	tmp := l.path + convertSuffix
	size, err := l.writeV2(tmp, st.Size(), end, st.Mode().Perm(), step)
	if err == nil {
		err = os.Rename(tmp, l.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("wal: %s: convert from format version 1 to 2: %w (the log was left as it was)", l.path, err)
	}
	step("renamed")
	if err := syncDir(filepath.Dir(l.path)); err != nil {
		return fmt.Errorf("wal: %s: converted to format version 2, then %w (reopening finds either version, with the same records)", l.path, err)
	}
	step("synced the directory")
	f, err := os.OpenFile(l.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("wal: %s: open after the conversion to format version 2: %w", l.path, err)
	}
	l.f.Close() // the version-1 file, unlinked by the rename and only read
	l.f = faultfile.Wrap(l.path, f)
	l.size = size
	return nil
}

// copyChunk is the size of the writes that copy records into the
// version-2 log.
const copyChunk = 1 << 20

// writeV2 writes the magic and the version-1 records of l (a log of total
// bytes) before end as version-2 records to a new file at tmp, with mode
// perm, fsyncs it and returns its size.
func (l *Log) writeV2(tmp string, total, end int64, perm os.FileMode, step func(string)) (int64, error) {
	osf, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return 0, err
	}
	if err := osf.Chmod(perm); err != nil {
		osf.Close()
		return 0, err
	}
	f := faultfile.Wrap(tmp, osf)
	var size int64
	write := func(buf []byte) error {
		n, err := f.WriteAt(buf, size)
		if err == nil && n != len(buf) {
			err = fmt.Errorf("short write: %d of %d bytes: %w", n, len(buf), io.ErrShortWrite)
		}
		size += int64(n)
		return err
	}
	buf := append(make([]byte, 0, copyChunk), magic...)
	s := scan1{nonzero: -1}
	var records uint64
	for off := int64(0); off < end && err == nil; records++ {
		var rec []byte
		var v verdict
		if rec, v, _, err = l.parse1(off, total, &s); err == nil && v != whole {
			err = fmt.Errorf("record %d at byte %d is no longer whole: the log changed while it was converted", records, off)
		}
		if err == nil {
			off += headerSize1 + int64(len(rec))
			buf = appendRecord(buf, rec)
			if len(buf) >= copyChunk {
				err = write(buf)
				buf = buf[:0]
			}
		}
	}
	if err == nil {
		err = write(buf)
	}
	if err == nil && records != l.Recovered.Records {
		err = fmt.Errorf("%d records copied, %d read: the log changed while it was converted", records, l.Recovered.Records)
	}
	if err == nil {
		step("written")
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("fsync: %w", err)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", tmp, err)
	}
	step("synced")
	return size, nil
}
