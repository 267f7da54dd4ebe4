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

// Format names an edge format, spelled as the CLI's --format flag spells
// it.
type Format string

const (
	// FormatEdges is a SNAP-style edge list: "src dst [weight [channel]]".
	// The zero Format means it.
	FormatEdges Format = "edges"
	// FormatTriples is a knowledge-graph triple list:
	// "head relation tail [channel]", an edge head -> tail of weight 1.
	FormatTriples Format = "triples"
	// FormatPPREDGE1 is the binary edge list of
	// anchors/gen_graph.py, specified in docs/formats.md: node ids
	// 0..n-1 (named by their decimal form), float32 weights, directed or
	// undirected as its header says.
	FormatPPREDGE1 Format = "ppredge"
)

// text reports whether f is one of the text formats Stream parses (the
// zero Format is FormatEdges), or else returns the error naming f.
func (f Format) text(name string) (bool, error) {
	switch f {
	case "", FormatEdges, FormatTriples:
		return true, nil
	case FormatPPREDGE1:
		return false, nil
	}
	return false, &ParseError{File: name, Msg: fmt.Sprintf("unknown format %q, want edges, triples or ppredge", string(f))}
}

// ParseError locates a problem in an input.
type ParseError struct {
	File string // as given to the reader
	Line int    // 1-based; 0 when the problem is the input as a whole (or a binary input's)
	Msg  string
	Err  error // the error Msg reports (a *MemoryError, say), or nil
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

// ReadOptions are the settings of ReadFile and Read; the zero value reads
// an undirected edge list (FormatEdges) within the default memory limit,
// half the memory available (MemoryError.Default).
type ReadOptions struct {
	// Format is the input's format (FormatEdges when empty).
	Format Format
	// Directed says whether a text input's edges are directed; a PPREDGE1
	// file's header says it, and Directed is then not read.
	Directed bool
	// MaxMemory is the memory limit of the build in bytes (0: half the
	// memory available, MemoryError.Default; negative: none). A text input stops, with a
	// *ParseError wrapping a *MemoryError, at the line that would cross it
	// (Builder.SetMaxMemory); a PPREDGE1 file whose header promises a graph
	// that needs more (its body, the arrays decoded from it and FromIDs'
	// build) is refused before any of it is read.
	MaxMemory int64
	// Order numbers the nodes (StreamOrder, the zero value: in order of
	// first appearance; a PPREDGE1 file's ids are its own). A graph read
	// in DegreeOrder is the one Reorder makes of the stream-order graph,
	// built without that graph first.
	Order NodeOrder
	// Float64Weights stores every weight array as float64; by default
	// they are float32 when every weight is exactly one (the same values:
	// no weight is ever rounded).
	Float64Weights bool
}

// ReadFile reads a graph from a file. A text input may be gzipped: gzip
// is detected from the content, not the name.
func ReadFile(path string, opt ReadOptions) (*Graph, error) {
	text, err := opt.check(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("csr: %w", err)
	}
	defer f.Close()
	if text {
		return Read(f, path, opt)
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return readPPREDGE1(f, path, size, opt)
}

// check checks the format and the order, and reports whether the format is
// a text one.
func (opt ReadOptions) check(name string) (text bool, err error) {
	if err := opt.Order.check(); err != nil {
		return false, &ParseError{File: name, Msg: strings.TrimPrefix(err.Error(), "csr: ")}
	}
	return opt.Format.text(name)
}

// Read reads a graph from r; name is used in error messages. In the text
// formats, lines that are blank or start with '#' are skipped and fields
// are separated by spaces or tabs; an input without edges is an error.
func Read(r io.Reader, name string, opt ReadOptions) (*Graph, error) {
	text, err := opt.check(name)
	if err != nil {
		return nil, err
	}
	if !text {
		return readPPREDGE1(r, name, -1, opt)
	}
	b := NewBuilder(opt.Directed)
	b.SetMaxMemory(opt.MaxMemory)
	b.setNodeOrder(opt.Order)
	b.setWeightStorage(storageOf(opt.Float64Weights))
	if err := Stream(r, name, opt.Format, func(in Input, _ int) error {
		_, err := b.AddEdge(in)
		return err
	}); err != nil {
		return nil, err
	}
	if b.numEdges() == 0 {
		return nil, &ParseError{File: name, Msg: "no edges (the input is empty or only comments)"}
	}
	return b.Build()
}

// Stream parses r, in a text format, and calls add for every edge with its
// line number. An error from add is returned located at that line. Stream
// does not require edges.
func Stream(r io.Reader, name string, format Format, add func(in Input, line int) error) error {
	if text, err := format.text(name); err != nil || !text {
		if err == nil {
			err = &ParseError{File: name, Msg: fmt.Sprintf("Stream reads the text formats (edges, triples), not %s", string(format))}
		}
		return err
	}
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
