package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/authppr/authppr/internal/faultfile"
)

// MaxRecord bounds one record's payload.
const MaxRecord = 64 << 20

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
	size int64  // end of the last acknowledged record: the file holds nothing else after Open or a clean append
	next uint64 // sequence number of the next record (records are numbered from 0)
	// failed, when not nil, is why the bytes after size are unknown (an
	// append failed and cutting them off failed too): appends are refused.
	failed error

	// Recovered describes what Open found: the whole records and the bytes
	// of a torn tail it cut off (0 when the file ended cleanly).
	Recovered struct {
		Records   uint64
		TornBytes int64
	}
}

// Open opens (creating if needed) the log at path, calls replay for every
// intact record in order, truncates a torn tail, and returns the log ready
// for appends. An error from replay stops Open and is returned.
func Open(path string, replay func(seq uint64, rec []byte) error) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	l := &Log{f: faultfile.Wrap(path, f), path: path}
	if err := l.recover(replay); err != nil {
		l.f.Close()
		return nil, err
	}
	return l, nil
}

func (l *Log) recover(replay func(uint64, []byte) error) error {
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	total := st.Size()
	var off int64
	head := make([]byte, 8)
	var buf []byte
	for off < total {
		if total-off < 8 {
			break // torn header
		}
		if _, err := l.f.ReadAt(head, off); err != nil {
			return fmt.Errorf("wal: %s: read at %d: %w", l.path, off, err)
		}
		n := int64(binary.LittleEndian.Uint32(head))
		sum := binary.LittleEndian.Uint32(head[4:])
		if n > MaxRecord {
			if off+8+n > total {
				break // a torn header can hold any length
			}
			return fmt.Errorf("wal: %s: record %d at byte %d: length %d over the %d-byte limit (corrupted)", l.path, l.next, off, n, MaxRecord)
		}
		if off+8+n > total {
			break // torn payload
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := l.f.ReadAt(buf, off+8); err != nil {
			return fmt.Errorf("wal: %s: read at %d: %w", l.path, off+8, err)
		}
		if crc32.Checksum(buf, castagnoli) != sum {
			if off+8+n == total {
				break // the last record, partly written: torn
			}
			return fmt.Errorf("wal: %s: record %d at byte %d: checksum mismatch before the end of the log (corrupted, not a torn write)", l.path, l.next, off)
		}
		if replay != nil {
			if err := replay(l.next, buf); err != nil {
				return err
			}
		}
		l.next++
		off += 8 + n
	}
	l.Recovered.Records = l.next
	l.Recovered.TornBytes = total - off
	if off < total {
		if err := l.f.Truncate(off); err != nil {
			return fmt.Errorf("wal: %s: cut the torn tail at byte %d: %w", l.path, off, err)
		}
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("wal: %s: %w", l.path, err)
		}
	}
	l.size = off
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
// returns. A crash during the call can leave any prefix of the batch, which
// Open recovers like any torn tail.
func (l *Log) AppendBatch(recs [][]byte) (uint64, error) {
	size := 0
	for i, rec := range recs {
		if len(rec) > MaxRecord {
			return 0, fmt.Errorf("wal: record %d of the batch: %d bytes over the %d-byte limit", i, len(rec), MaxRecord)
		}
		size += 8 + len(rec)
	}
	buf := make([]byte, 0, size)
	for _, rec := range recs {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rec)))
		buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(rec, castagnoli))
		buf = append(buf, rec...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, errors.New("wal: append to a closed log")
	}
	if l.failed != nil {
		return 0, fmt.Errorf("wal: %s: %w: %v", l.path, ErrFailed, l.failed)
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
