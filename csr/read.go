package csr

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Format names a text edge format.
type Format int

const (
	// FormatEdges is a SNAP-style edge list: "src dst [weight [channel]]".
	FormatEdges Format = iota
	// FormatTriples is a knowledge-graph triple list:
	// "head relation tail [channel]", an edge head -> tail of weight 1.
	FormatTriples
)

func (f Format) String() string {
	if f == FormatTriples {
		return "triples"
	}
	return "edges"
}

// ParseFormat accepts "edges" or "triples".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "edges":
		return FormatEdges, nil
	case "triples":
		return FormatTriples, nil
	}
	return 0, fmt.Errorf("csr: unknown format %q, want edges or triples", s)
}

// ParseError locates a problem in a text input.
type ParseError struct {
	File string // as given to the reader
	Line int    // 1-based; 0 when the problem is the input as a whole
	Msg  string
	Err  error // the builder's error Msg reports (a *MemoryError, say), or nil
}

// Unwrap returns the error Msg reports, if any.
func (e *ParseError) Unwrap() error { return e.Err }

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("csr: %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("csr: %s:%d: %s", e.File, e.Line, e.Msg)
}

// maxLine bounds one input line; a longer line is an error, not a truncation.
const maxLine = 1 << 20

// ReadOptions are the settings of ReadWith and ReadFileWith; the zero
// value is Read's.
type ReadOptions struct {
	// MaxMemory is the memory limit of the build in bytes (0:
	// DefaultMaxMemory; negative: none): reading stops, with a
	// *ParseError wrapping a *MemoryError at the line that would cross it
	// (Builder.SetMaxMemory).
	MaxMemory int64
}

// ReadFile reads a graph from a file in the given format. Gzip is detected
// from the content, not the name.
func ReadFile(path string, format Format, directed bool) (*Graph, error) {
	return ReadFileWith(path, format, directed, ReadOptions{})
}

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, format Format, directed bool, opt ReadOptions) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("csr: %w", err)
	}
	defer f.Close()
	return ReadWith(f, path, format, directed, opt)
}

// Read reads a graph from r; name is used in error messages. Lines that are
// blank or start with '#' are skipped; fields are separated by spaces or tabs.
// The build's memory is limited to DefaultMaxMemory (see ReadWith).
func Read(r io.Reader, name string, format Format, directed bool) (*Graph, error) {
	return ReadWith(r, name, format, directed, ReadOptions{})
}

// ReadWith is Read with options.
func ReadWith(r io.Reader, name string, format Format, directed bool, opt ReadOptions) (*Graph, error) {
	b := NewBuilder(directed)
	b.SetMaxMemory(opt.MaxMemory)
	if err := Stream(r, name, format, func(in Input, _ int) error {
		_, err := b.AddEdge(in)
		return err
	}); err != nil {
		return nil, err
	}
	if b.NumEdges() == 0 {
		return nil, &ParseError{File: name, Msg: "no edges (the input is empty or only comments)"}
	}
	return b.Build()
}

// Stream parses r and calls add for every edge with its line number. An error
// from add is returned located at that line. Stream does not require edges.
func Stream(r io.Reader, name string, format Format, add func(in Input, line int) error) error {
	src, closeSrc, err := maybeGunzip(r, name)
	if err != nil {
		return err
	}
	defer closeSrc()
	failed := &errMemo{r: src}
	sc := bufio.NewScanner(failed)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	// A last line without its newline is a line only at a clean end of
	// input; after a read error (a truncated gzip stream) it is the cut-off
	// start of a line and must not become an edge.
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if atEOF && failed.err != nil && bytes.IndexByte(data, '\n') < 0 {
			return 0, nil, failed.err
		}
		return bufio.ScanLines(data, atEOF)
	})
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		in, msg := parseLine(text, format)
		if msg != "" {
			return &ParseError{File: name, Line: line, Msg: msg}
		}
		if err := add(in, line); err != nil {
			return &ParseError{File: name, Line: line, Msg: strings.TrimPrefix(err.Error(), "csr: "), Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{File: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return &ParseError{File: name, Line: line + 1, Msg: "input truncated (unexpected end of gzip stream)"}
		}
		return &ParseError{File: name, Line: line + 1, Msg: err.Error()}
	}
	return nil
}

// errMemo remembers the first error other than io.EOF that r returned.
type errMemo struct {
	r   io.Reader
	err error
}

func (m *errMemo) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err != nil && err != io.EOF && m.err == nil {
		m.err = err
	}
	return n, err
}

// maybeGunzip peeks at the first two bytes and unwraps gzip when present.
func maybeGunzip(r io.Reader, name string) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64*1024)
	head, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, &ParseError{File: name, Msg: err.Error()}
	}
	if !bytes.Equal(head, []byte{0x1f, 0x8b}) {
		return br, func() {}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, &ParseError{File: name, Msg: "gzip header: " + err.Error()}
	}
	return zr, func() { zr.Close() }, nil
}

// parseLine returns the edge on one non-comment line, or a message saying
// what is wrong with it.
func parseLine(text string, format Format) (Input, string) {
	f := strings.Fields(text)
	in := Input{Weight: 1}
	switch format {
	case FormatTriples:
		if len(f) != 3 && len(f) != 4 {
			return in, fmt.Sprintf("%d fields, want 'head relation tail [channel]'", len(f))
		}
		in.Src, in.Relation, in.Dst = f[0], f[1], f[2]
		if len(f) == 4 {
			in.Channel = f[3]
		}
	default:
		if len(f) < 2 || len(f) > 4 {
			return in, fmt.Sprintf("%d fields, want 'src dst [weight [channel]]'", len(f))
		}
		in.Src, in.Dst = f[0], f[1]
		if len(f) >= 3 {
			w, err := strconv.ParseFloat(f[2], 64)
			switch {
			case err != nil && !errors.Is(err, strconv.ErrRange):
				return in, fmt.Sprintf("weight %q is not a number", f[2])
			case math.IsInf(w, 0):
				return in, fmt.Sprintf("weight %q is infinite or out of range", f[2])
			case math.IsNaN(w):
				return in, fmt.Sprintf("weight %q is NaN", f[2])
			case w < 0:
				return in, fmt.Sprintf("weight %q is negative", f[2])
			case w == 0 && nonzeroMantissa(f[2]):
				return in, fmt.Sprintf("weight %q is below 2^-1022 (%.4g), the smallest positive weight accepted, and rounds to 0", f[2], MinWeight)
			}
			in.Weight = w
		}
		if len(f) == 4 {
			in.Channel = f[3]
		}
	}
	return in, ""
}

// nonzeroMantissa reports whether a number strconv.ParseFloat accepted has
// a non-zero digit before its exponent: when it parsed to 0, the value
// underflowed (ParseFloat returns 0 without an error) rather than being 0.
func nonzeroMantissa(s string) bool {
	s = strings.TrimLeft(s, "+-")
	hex := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	if hex {
		s = s[2:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 'p' || c == 'P' || (!hex && (c == 'e' || c == 'E')):
			return false
		case c >= '1' && c <= '9', hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
			return true
		}
	}
	return false
}
