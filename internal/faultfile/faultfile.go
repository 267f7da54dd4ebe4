package faultfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// File is what a wal log reads and writes through: an *os.File, or in
// tests a Faulty.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Truncate(size int64) error
	Sync() error
	Stat() (os.FileInfo, error)
	Close() error
}

// Hook wraps the file a wal log opened at path.
type Hook func(path string, f *os.File) File

var hook atomic.Pointer[Hook]

// SetHook makes every log opened afterwards read and write through h(path,
// f) (nil: the *os.File itself) and returns a function that restores the
// hook it replaced. For tests only.
func SetHook(h Hook) (restore func()) {
	var p *Hook
	if h != nil {
		p = &h
	}
	old := hook.Swap(p)
	return func() { hook.Store(old) }
}

// Wrap returns the file a log opened at path reads and writes through: f,
// unless a test set a hook.
func Wrap(path string, f *os.File) File {
	if h := hook.Load(); h != nil {
		return (*h)(path, f)
	}
	return f
}

// Op names the operations a Faulty can fail.
type Op uint8

const (
	Write Op = iota
	Sync
	Truncate
)

func (o Op) String() string {
	switch o {
	case Write:
		return "write"
	case Sync:
		return "sync"
	case Truncate:
		return "truncate"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// A Fault is what a Faulty does instead of an operation: fail with Err
// (a Write first writes its first Keep bytes, clamped to the write's
// length). A Write fault with a nil Err is a short write: Keep bytes
// written and no error.
type Fault struct {
	Err  error
	Keep int
}

// ErrCrashed is the error of every operation on a crashed Faulty.
var ErrCrashed = errors.New("faultfile: the file crashed")

// Faulty is a File that does what its Plan says on each write, sync and
// truncation, and can simulate a crash. Reads, Stat and Close pass through.
// Not safe for concurrent use (a wal log serialises its operations).
type Faulty struct {
	f *os.File
	// Plan, called before every Write (n: bytes to write), Sync and
	// Truncate (n: the new size), returns the fault to inject or nil.
	Plan    func(op Op, n int) *Fault
	durable []byte // the file at the last successful Sync
	crashed bool
}

// NewFaulty wraps f, whose current content is taken as durable.
func NewFaulty(f *os.File, plan func(op Op, n int) *Fault) (*Faulty, error) {
	content, err := readAll(f)
	if err != nil {
		return nil, err
	}
	return &Faulty{f: f, Plan: plan, durable: content}, nil
}

func readAll(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, st.Size())
	if _, err := f.ReadAt(buf, 0); err != nil {
		return nil, fmt.Errorf("faultfile: %w", err)
	}
	return buf, nil
}

func (x *Faulty) fault(op Op, n int) *Fault {
	if x.Plan == nil {
		return nil
	}
	return x.Plan(op, n)
}

func (x *Faulty) ReadAt(p []byte, off int64) (int, error) {
	if x.crashed {
		return 0, ErrCrashed
	}
	return x.f.ReadAt(p, off)
}

func (x *Faulty) WriteAt(p []byte, off int64) (int, error) {
	if x.crashed {
		return 0, ErrCrashed
	}
	if ft := x.fault(Write, len(p)); ft != nil {
		keep := min(max(ft.Keep, 0), len(p))
		n, err := x.f.WriteAt(p[:keep], off)
		if err != nil {
			return n, err
		}
		return n, ft.Err
	}
	return x.f.WriteAt(p, off)
}

func (x *Faulty) Truncate(size int64) error {
	if x.crashed {
		return ErrCrashed
	}
	if ft := x.fault(Truncate, int(size)); ft != nil {
		return ft.Err
	}
	return x.f.Truncate(size)
}

func (x *Faulty) Sync() error {
	if x.crashed {
		return ErrCrashed
	}
	if ft := x.fault(Sync, 0); ft != nil {
		return ft.Err
	}
	// Durability is simulated (Crash): the real fsync would only slow the
	// tests down.
	content, err := readAll(x.f)
	if err != nil {
		return err
	}
	x.durable = content
	return nil
}

func (x *Faulty) Stat() (os.FileInfo, error) { return x.f.Stat() }

func (x *Faulty) Close() error {
	if x.crashed {
		return nil // Crash closed the file
	}
	return x.f.Close()
}

// A Crash says what a simulated crash keeps of what was not synced.
type Crash uint8

const (
	// LoseUnsynced keeps the durable content only.
	LoseUnsynced Crash = iota
	// KeepAll keeps the file as it is (the unsynced writes reached the disk).
	KeepAll
	// KeepPart keeps the durable content and the first bytes of what was
	// appended after it (as many as Crash's keep argument says).
	KeepPart
	// ZeroFill keeps the durable content and the file's current size, with
	// zeros where the appended bytes were (a size that reached the disk
	// before the data).
	ZeroFill
)

// Crash simulates a crash of the machine: it rewrites the file as c says
// (keep: the bytes KeepPart keeps) and closes it; every later operation
// fails with ErrCrashed. When the file is not its durable content plus an
// append (an unsynced truncation), KeepPart and ZeroFill keep the durable
// content.
func (x *Faulty) Crash(c Crash, keep int) error {
	if x.crashed {
		return ErrCrashed
	}
	cur, err := readAll(x.f)
	if err != nil {
		return err
	}
	appended := len(cur) >= len(x.durable) && bytes.Equal(cur[:len(x.durable)], x.durable)
	var out []byte
	switch {
	case c == KeepAll:
		out = cur
	case c == KeepPart && appended:
		out = cur[:len(x.durable)+min(max(keep, 0), len(cur)-len(x.durable))]
	case c == ZeroFill && appended:
		out = append(bytes.Clone(x.durable), make([]byte, len(cur)-len(x.durable))...)
	default:
		out = x.durable
	}
	x.crashed = true
	if err := x.f.Truncate(0); err != nil {
		return err
	}
	if _, err := x.f.WriteAt(out, 0); err != nil {
		return err
	}
	return x.f.Close()
}
