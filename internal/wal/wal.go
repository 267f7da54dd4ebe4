package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/authppr/authppr/internal/faultfile"
)

// MaxRecord bounds one record's payload.
const MaxRecord = 64 << 20

// magic opens every version-2 log that holds a record; its last byte is
// the format's version (version 1, the unversioned format of 8-byte headers
// without a header checksum, has no magic: see v1.go).
const magic = "authwal2"

// headerSize is a record header's length: payload length, payload
// checksum, header checksum.
const headerSize = 12

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// file is what the log reads and writes through: the *os.File it opened,
// or in tests a file that injects faults (internal/faultfile).
type file interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Truncate(size int64) error
	Sync() error
	Stat() (os.FileInfo, error)
	Close() error
}

// Log is an open write-ahead log. It is safe for concurrent use.
type Log struct {
	mu   sync.Mutex
	f    file
	path string
	size int64  // end of the last acknowledged record: the file holds nothing after it, after Open or a clean append
	next uint64 // sequence number of the next record (records are numbered from 0)
	// failed, when not nil, is why the bytes after size are unknown (an
	// append failed and cutting them off failed too): appends are refused.
	failed error

	// Recovered describes what Open found.
	Recovered Recovery
}

// Recovery is what Open (or Replay) found in a log.
type Recovery struct {
	// Version is the format version the log was found in: 1 (Open
	// converted it to version 2; Replay left it as it was) or 2, which an
	// empty or missing log counts as.
	Version int
	// Records is the number of whole records replayed.
	Records uint64
	// TornBytes is the length of the torn tail cut off (Replay: found):
	// a record the file ends before the end of, or zero bytes from a
	// record boundary to the end of the file. Either is an append that
	// never returned, cut short by a crash: no acknowledged record is lost.
	TornBytes int64
	// Damaged, when not nil, describes damaged bytes at the end of the
	// log: a whole record (or record header) that fails its checksum, with
	// no whole record after it.
	Damaged *Damage
}

// Damage describes damaged bytes at the end of a log. The log cannot tell
// an append that never returned, torn by a crash of the machine that wrote
// its pages out of order, from an acknowledged record damaged since: Open
// keeps the bytes in a file beside the log, cuts them off and reports them,
// and the caller decides.
type Damage struct {
	Record uint64 // sequence number the first damaged record would have had
	Offset int64  // byte offset of the damaged bytes in the log as found (a version-1 log: before its conversion)
	Bytes  int64  // their length: from Offset to the end of the file
	Reason string // what was wrong with the first damaged record
	KeptAt string // the file holding the bytes Open cut off ("" from Replay)
}

func (d *Damage) String() string {
	s := fmt.Sprintf("record %d at byte %d: %s; %d bytes to the end of the log", d.Record, d.Offset, d.Reason, d.Bytes)
	if d.KeptAt != "" {
		s += " cut off and kept in " + d.KeptAt
	}
	return s
}

// Open opens (creating if needed) the log at path, calls replay for every
// whole record in order, cuts off a torn tail or damaged end (see the
// package doc; Recovered reports both), converts a version-1 log to
// version 2, and returns the log ready for appends. An error from replay
// stops Open and is returned; a log Open refuses as corrupted is left as
// it was.
func Open(path string, replay func(seq uint64, rec []byte) error) (*Log, error) {
	return openLog(path, replay, nil)
}

// openLog is Open; convertStep, when not nil, is called after each step of
// a conversion from version 1 (tests copy the directory there: what a crash
// at that point would leave).
func openLog(path string, replay func(uint64, []byte) error, convertStep func(step string)) (*Log, error) {
	l, err := open(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	end, err := l.recover(replay)
	if err == nil && l.Recovered.Version == 1 {
		err = l.convert(end, convertStep)
	} else if err == nil {
		err = l.cutEnd(end)
	}
	if err != nil {
		l.f.Close()
		return nil, err
	}
	return l, nil
}

// Replay calls replay for every whole record of the log at path, in order,
// and reports what it found as Open would, changing nothing: a torn tail or
// damaged end is reported, not cut off (Damage.KeptAt is empty), and a
// version-1 log is read as it is. A missing file is an empty log.
func Replay(path string, replay func(seq uint64, rec []byte) error) (Recovery, error) {
	l, err := open(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return Recovery{Version: 2}, nil
	}
	if err != nil {
		return Recovery{}, err
	}
	defer l.f.Close()
	if _, err := l.recover(replay); err != nil {
		return Recovery{}, err
	}
	return l.Recovered, nil
}

// open opens the file at path (O_RDWR: creating it, and syncing the
// directory when it did, so that records acknowledged in a new log are not
// lost with its directory entry).
func open(path string, flag int) (*Log, error) {
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, os.ErrNotExist) && flag == os.O_RDWR {
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			err = syncDir(filepath.Dir(path))
			if err != nil {
				f.Close()
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	return &Log{f: faultfile.Wrap(path, f), path: path}, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// Append writes rec, fsyncs, and returns its sequence number. When Append
// returns without error the record survives a crash of this process or of
// the machine (as far as the storage honours fsync).
func (l *Log) Append(rec []byte) (uint64, error) {
	return l.AppendBatch([][]byte{rec})
}

// AppendBatch writes recs with one write and one fsync (group commit) and
// returns the sequence number of the first; all of them are durable when it
// returns. When it returns an error none of them is in the log, unless the
// error wraps ErrFailed (see the package doc). A crash during the call can
// leave any prefix of the batch, which Open recovers like any torn tail.
func (l *Log) AppendBatch(recs [][]byte) (uint64, error) {
	size := len(magic)
	for i, rec := range recs {
		if len(rec) > MaxRecord {
			return 0, fmt.Errorf("wal: record %d of the batch: %d bytes over the %d-byte limit", i, len(rec), MaxRecord)
		}
		size += headerSize + len(rec)
	}
	buf := make([]byte, len(magic), size)
	copy(buf, magic)
	for _, rec := range recs {
		buf = appendRecord(buf, rec)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, errors.New("wal: append to a closed log")
	}
	if l.failed != nil {
		return 0, fmt.Errorf("wal: %s: %w: %w", l.path, ErrFailed, l.failed)
	}
	if len(recs) == 0 {
		return l.next, nil
	}
	if l.size > 0 {
		buf = buf[len(magic):] // the magic opens the file's first append only
	}
	n, err := l.f.WriteAt(buf, l.size)
	if err == nil && n != len(buf) {
		err = fmt.Errorf("short write: %d of %d bytes: %w", n, len(buf), io.ErrShortWrite)
	}
	if err == nil {
		if err = l.f.Sync(); err != nil {
			err = fmt.Errorf("fsync: %w", err)
		}
	}
	if err != nil {
		return 0, l.cutBack(err)
	}
	l.size += int64(len(buf))
	first := l.next
	l.next += uint64(len(recs))
	return first, nil
}

// appendRecord appends rec's header and payload to buf.
func appendRecord(buf, rec []byte) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rec)))
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(rec, castagnoli))
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf[len(buf)-8:], castagnoli))
	return append(buf, rec...)
}

// cutBack handles an append that failed with err: whatever it wrote (all
// of it, when only the fsync failed: its bytes may even be durable) is cut
// off, back to the end of the last acknowledged record, and the cut is
// fsynced, so that no later record is written after bytes of unknown
// content and a reopen finds none of the failed records. When the cut
// fails the log is failed: it refuses appends until reopened, and the
// error says the records may be found on reopening (a failed fsync is
// never retried and trusted). Called with mu held.
func (l *Log) cutBack(err error) error {
	cut := l.f.Truncate(l.size)
	if cut == nil {
		if cut = l.f.Sync(); cut != nil {
			cut = fmt.Errorf("fsync: %w", cut)
		}
	}
	if cut == nil {
		return fmt.Errorf("wal: %s: append at byte %d: %w (cut back to byte %d: none of the batch is in the log)", l.path, l.size, err, l.size)
	}
	l.failed = fmt.Errorf("append at byte %d: %w; cutting back to byte %d: %w", l.size, err, l.size, cut)
	return fmt.Errorf("wal: %s: %w: %w (the batch may be in the log when it is reopened)", l.path, ErrFailed, l.failed)
}

// ErrFailed is wrapped by the error of an append whose failure left bytes of
// unknown content after the last acknowledged record (cutting them off
// failed), and by every later append's: the log refuses appends until it is
// reopened, and the failed batch may be there on reopening.
var ErrFailed = errors.New("log failed, appends refused until reopened")

// Err returns nil while the log accepts appends, or the failure (wrapping
// ErrFailed) that made it refuse them.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed == nil {
		return nil
	}
	return fmt.Errorf("wal: %s: %w: %w", l.path, ErrFailed, l.failed)
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
