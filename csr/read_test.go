package csr

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func gzipBytes(t testing.TB, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func readString(t testing.TB, text string, format Format, directed bool) *Graph {
	t.Helper()
	g, err := Read(strings.NewReader(text), "mem.txt", ReadOptions{Format: format, Directed: directed})
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	return g
}

func allEdges(g *Graph) []Edge {
	out := make([]Edge, g.NumEdges())
	for e := range out {
		out[e] = g.Edge(uint32(e))
	}
	return out
}

// TestFormatNames: formats are spelled as the CLI's --format spells them,
// the zero Format reads edges, and an unknown format is a *ParseError
// naming it, from every reader.
func TestFormatNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, "edges", string(FormatEdges))
	require.Equal(t, "triples", string(FormatTriples))
	require.Equal(t, "ppredge", string(FormatPPREDGE1))
	zero, err := Read(strings.NewReader("a b 2\n"), "zero.txt", ReadOptions{})
	require.NoError(t, err)
	edges, err := Read(strings.NewReader("a b 2\n"), "edges.txt", ReadOptions{Format: FormatEdges})
	require.NoError(t, err)
	require.Equal(t, edges.parts(), zero.parts())
	var pe *ParseError
	_, err = Read(strings.NewReader("a b\n"), "in.csv", ReadOptions{Format: "csv"})
	require.ErrorAs(t, err, &pe)
	require.EqualError(t, err, `csr: in.csv: unknown format "csv", want edges, triples or ppredge`)
	path := filepath.Join(t.TempDir(), "in.csv")
	require.NoError(t, os.WriteFile(path, []byte("a b\n"), 0o644))
	_, err = ReadFile(path, ReadOptions{Format: "csv"})
	require.EqualError(t, err, `csr: `+path+`: unknown format "csv", want edges, triples or ppredge`)
	err = Stream(strings.NewReader("a b\n"), "in.csv", "csv", func(Input, int) error { return nil })
	require.EqualError(t, err, `csr: in.csv: unknown format "csv", want edges, triples or ppredge`)
	err = Stream(strings.NewReader("a b\n"), "g.bin", FormatPPREDGE1, func(Input, int) error { return nil })
	require.EqualError(t, err, `csr: g.bin: Stream reads the text formats (edges, triples), not ppredge`)
}

// TestReadOptionsOrderAndStorage: a text input read in an order and a
// weight storage is the graph Reorder and withWeightStorage make of the
// plain read, array for array.
func TestReadOptionsOrderAndStorage(t *testing.T) {
	t.Parallel()
	text := "a b 1\nc a 0.1\nd a 2\nd c 1\nb b 3\n"
	for _, directed := range []bool{false, true} {
		plain, err := Read(strings.NewReader(text), "g.txt", ReadOptions{Directed: directed})
		require.NoError(t, err)
		for _, order := range []NodeOrder{StreamOrder, DegreeOrder} {
			for _, f64 := range []bool{false, true} {
				got, err := Read(strings.NewReader(text), "g.txt", ReadOptions{Directed: directed, Order: order, Float64Weights: f64})
				require.NoError(t, err)
				want, err := Reorder(plain, order)
				require.NoError(t, err)
				want = want.withWeightStorage(storageOf(f64))
				require.Equal(t, want.parts(), got.parts(), "directed %v, %v, float64 %v", directed, order, f64)
			}
		}
	}
}

func TestReadEdgesColumnsSeparatorsComments(t *testing.T) {
	t.Parallel()
	text := "# a comment\n" +
		"\n" +
		"a b\n" +
		"  \t \n" +
		"b\tc\t2.5\n" +
		"   # indented comment\n" +
		" c   a \t 0 \t alice \r\n" +
		"a a 1e-3 bob\n" +
		"b a 0x1p-2\n" +
		"d e 7 alice" // no final newline
	g := readString(t, text, FormatEdges, true)
	require.Equal(t, []string{"a", "b", "c", "d", "e"}, g.Names())
	require.Equal(t, []Edge{
		{Src: 0, Dst: 1, Weight: 1, Channel: DefaultChannel},
		{Src: 1, Dst: 2, Weight: 2.5, Channel: DefaultChannel},
		{Src: 2, Dst: 0, Weight: 0, Channel: "alice"},
		{Src: 0, Dst: 0, Weight: 1e-3, Channel: "bob"},
		{Src: 1, Dst: 0, Weight: 0.25, Channel: DefaultChannel},
		{Src: 3, Dst: 4, Weight: 7, Channel: "alice"},
	}, allEdges(g))
	require.Equal(t, []string{DefaultChannel, "alice", "bob"}, g.Channels())
}

func TestReadUndirected(t *testing.T) {
	t.Parallel()
	g := readString(t, "a b 2\nb b 3\n", FormatEdges, false)
	require.False(t, g.Directed())
	require.Equal(t, 4, g.NumArcs())
	require.Equal(t, 2.0, g.OutWeight(0))
	require.Equal(t, 2.0+3+3, g.OutWeight(1))
}

func TestReadTriples(t *testing.T) {
	t.Parallel()
	text := "# kg\n" +
		"h1 _hypernym t1\n" +
		"t1\t_also_see\th2\tuntrusted\n" +
		"h1 _hypernym t1\n" + // repeated triple: a parallel edge
		"\n" +
		"h2 _member_of t2 alice\n"
	g := readString(t, text, FormatTriples, true)
	require.Equal(t, []string{"h1", "t1", "h2", "t2"}, g.Names())
	require.Equal(t, []Edge{
		{Src: 0, Dst: 1, Weight: 1, Channel: DefaultChannel, Relation: "_hypernym"},
		{Src: 1, Dst: 2, Weight: 1, Channel: "untrusted", Relation: "_also_see"},
		{Src: 0, Dst: 1, Weight: 1, Channel: DefaultChannel, Relation: "_hypernym"},
		{Src: 2, Dst: 3, Weight: 1, Channel: "alice", Relation: "_member_of"},
	}, allEdges(g))
	// A triple's middle field is a relation, never a weight.
	g = readString(t, "a 2.5 b\n", FormatTriples, true)
	require.Equal(t, Edge{Src: 0, Dst: 1, Weight: 1, Channel: DefaultChannel, Relation: "2.5"}, g.Edge(0))
}

func TestReadGzipDetectedFromContent(t *testing.T) {
	t.Parallel()
	text := "# header\n1 2\n2 3 0.5\n3 1 2 eve\n"
	plain := readString(t, text, FormatEdges, true)
	gz := gzipBytes(t, text)
	zipped, err := Read(bytes.NewReader(gz), "no-suffix", ReadOptions{Directed: true})
	require.NoError(t, err)
	require.NoError(t, zipped.checkAll())
	require.Equal(t, plain.Names(), zipped.Names())
	require.Equal(t, allEdges(plain), allEdges(zipped))

	// The name does not matter: a .gz name holding plain text is plain text,
	// and gzip in a .txt file is gzip.
	dir := t.TempDir()
	p := filepath.Join(dir, "plain.gz")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	g, err := ReadFile(p, ReadOptions{Directed: true})
	require.NoError(t, err)
	require.Equal(t, allEdges(plain), allEdges(g))
	p = filepath.Join(dir, "zipped.txt")
	require.NoError(t, os.WriteFile(p, gz, 0o644))
	g, err = ReadFile(p, ReadOptions{Directed: true})
	require.NoError(t, err)
	require.Equal(t, allEdges(plain), allEdges(g))

	// A one-byte input that starts like gzip is just text.
	g = readString(t, "\x1f b\n", FormatEdges, true)
	require.Equal(t, []string{"\x1f", "b"}, g.Names())
}

func TestReadFileMissing(t *testing.T) {
	t.Parallel()
	_, err := ReadFile(filepath.Join(t.TempDir(), "nope.txt"), ReadOptions{Directed: true})
	require.Error(t, err)
	require.True(t, errors.Is(err, fs.ErrNotExist), "got %v", err)
	require.Contains(t, err.Error(), "csr: ")
	require.Contains(t, err.Error(), "nope.txt")
}

// requireParseError checks that err is a *ParseError at file:line whose
// message contains every want.
func requireParseError(t *testing.T, err error, file string, line int, want ...string) {
	t.Helper()
	require.Error(t, err)
	var pe *ParseError
	require.True(t, errors.As(err, &pe), "error %T %v is not a *ParseError", err, err)
	require.Equal(t, file, pe.File, "file of %v", err)
	require.Equal(t, line, pe.Line, "line of %v", err)
	for _, w := range want {
		require.Contains(t, pe.Msg, w, "message of %v", err)
	}
	if line > 0 {
		require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("csr: %s:%d: ", file, line)), "%q", err.Error())
	} else {
		require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("csr: %s: ", file)), "%q", err.Error())
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxLine+10)
	cases := []struct {
		name   string
		format Format
		text   string
		line   int
		want   []string
	}{
		{"one field", FormatEdges, "a b\n# c\n\nlonely\n", 4, []string{"1 fields", "src dst [weight [channel]]"}},
		{"five fields", FormatEdges, "a b 1 ch extra\n", 1, []string{"5 fields"}},
		{"triple two fields", FormatTriples, "a r b\na r\n", 2, []string{"2 fields", "head relation tail [channel]"}},
		{"triple five fields", FormatTriples, "\n\na r b c d\n", 3, []string{"5 fields"}},
		{"weight NaN", FormatEdges, "a b 1\nb c NaN\n", 2, []string{`"NaN"`, "NaN"}},
		{"weight nan lower", FormatEdges, "b c nan\n", 1, []string{`"nan"`}},
		{"weight inf", FormatEdges, "a b inf\n", 1, []string{`"inf"`, "infinite"}},
		{"weight -Inf", FormatEdges, "a b -Inf\n", 1, []string{`"-Inf"`, "infinite"}},
		{"weight overflow", FormatEdges, "a b 1e400\n", 1, []string{`"1e400"`, "out of range"}},
		{"weight negative", FormatEdges, "#\na b -1\n", 2, []string{`"-1"`, "negative"}},
		{"weight unparsable", FormatEdges, "a b 1.2.3\n", 1, []string{`"1.2.3"`, "not a number"}},
		{"weight word", FormatEdges, "a b heavy ch\n", 1, []string{`"heavy"`, "not a number"}},
		{"empty file", FormatEdges, "", 0, []string{"no edges"}},
		{"only comments", FormatEdges, "# one\n\n   \n# two\n", 0, []string{"no edges"}},
		{"only comments triples", FormatTriples, "# one\n", 0, []string{"no edges"}},
		{"line too long", FormatEdges, "a b\n# ok\n" + long + " y\nc d\n", 3, []string{"longer than"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, zipped := range []bool{false, true} {
				var r io.Reader = strings.NewReader(tc.text)
				if zipped {
					r = bytes.NewReader(gzipBytes(t, tc.text))
				}
				g, err := Read(r, "in/"+tc.name, ReadOptions{Format: tc.format, Directed: true})
				require.Nil(t, g)
				requireParseError(t, err, "in/"+tc.name, tc.line, tc.want...)
			}
		})
	}
}

func TestReadLongLineWithinLimit(t *testing.T) {
	t.Parallel()
	// Longer than bufio's default 64 KiB token, shorter than maxLine.
	name := strings.Repeat("n", 200_000)
	g := readString(t, "a "+name+" 3\n"+name+" a\n", FormatEdges, true)
	require.Equal(t, []string{"a", name}, g.Names())
	require.Equal(t, 2, g.NumEdges())
}

func TestReadTruncatedGzip(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	lines := 3000
	for i := range lines {
		fmt.Fprintf(&sb, "node%d node%d %d.5\n", i*7919%1000, i*104729%1009, i%10)
	}
	text := sb.String()
	textLines := strings.Split(text, "\n")
	gz := gzipBytes(t, text)
	full, err := Read(bytes.NewReader(gz), "full.gz", ReadOptions{Directed: true})
	require.NoError(t, err)
	require.Equal(t, lines, full.NumEdges())

	// The gzip header is 10 bytes; cutting inside it fails while opening
	// the stream (no line yet), cutting later fails at the line where the
	// data stops. Every cut must report truncation, not a bogus field
	// count from a half line, and must not hand a half line to add.
	stride := 97
	if testing.Short() {
		stride = 997
	}
	// A single byte 0x1f is not recognisably gzip, so cuts start at 2.
	for cut := 2; cut < len(gz); cut++ {
		if cut > 40 && cut < len(gz)-40 && cut%stride != 0 {
			continue
		}
		name := fmt.Sprintf("cut%d.gz", cut)
		g, err := Read(bytes.NewReader(gz[:cut]), name, ReadOptions{Directed: true})
		require.Nil(t, g, "cut %d", cut)
		require.Error(t, err, "cut %d", cut)
		var pe *ParseError
		require.True(t, errors.As(err, &pe), "cut %d: %T %v", cut, err, err)
		require.Equal(t, name, pe.File)
		if cut < 10 {
			require.Equal(t, 0, pe.Line, "cut %d: %v", cut, err)
			require.Contains(t, pe.Msg, "gzip header", "cut %d", cut)
			continue
		}
		require.Contains(t, pe.Msg, "truncated", "cut %d: %v", cut, err)
		require.GreaterOrEqual(t, pe.Line, 1, "cut %d", cut)
		require.LessOrEqual(t, pe.Line, lines+1, "cut %d", cut)

		// Every edge Stream reports before the error is a whole line of the
		// original, at its own line number.
		var seen int
		err = Stream(bytes.NewReader(gz[:cut]), name, FormatEdges, func(in Input, line int) error {
			seen++
			want := strings.Fields(textLines[line-1])
			if line != seen || in.Src != want[0] || in.Dst != want[1] || fmt.Sprint(in.Weight) != want[2] {
				t.Fatalf("cut %d: edge %d at line %d is %+v, want line %d: %q", cut, seen, line, in, seen, textLines[seen-1])
			}
			return nil
		})
		requireParseError(t, err, name, seen+1, "truncated")
	}
}

func TestStreamLinesAndAddErrors(t *testing.T) {
	t.Parallel()
	text := "# c\na b\n\nb c 2 x\n#\nc d\n"
	var lines []int
	var ins []Input
	err := Stream(strings.NewReader(text), "s.txt", FormatEdges, func(in Input, line int) error {
		lines = append(lines, line)
		ins = append(ins, in)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []int{2, 4, 6}, lines)
	require.Equal(t, []Input{
		{Src: "a", Dst: "b", Weight: 1},
		{Src: "b", Dst: "c", Weight: 2, Channel: "x"},
		{Src: "c", Dst: "d", Weight: 1},
	}, ins)

	// Stream does not require edges.
	require.NoError(t, Stream(strings.NewReader("# nothing\n"), "e.txt", FormatEdges, func(Input, int) error {
		t.Fatal("no edge expected")
		return nil
	}))

	// An error from add is located at the line, without a doubled prefix.
	err = Stream(strings.NewReader(text), "s.txt", FormatEdges, func(in Input, line int) error {
		if line == 4 {
			return errors.New("csr: refused")
		}
		return nil
	})
	requireParseError(t, err, "s.txt", 4, "refused")
	require.Equal(t, "csr: s.txt:4: refused", err.Error())
}

func TestParseErrorFormat(t *testing.T) {
	t.Parallel()
	require.Equal(t, "csr: f.txt:3: bad", (&ParseError{File: "f.txt", Line: 3, Msg: "bad"}).Error())
	require.Equal(t, "csr: f.txt: bad", (&ParseError{File: "f.txt", Msg: "bad"}).Error())
}

// dataDir is the repository's real graphs (testdata/ at its root).
var dataDir = filepath.Join("..", "testdata")

// plainCount reads a gzipped edge or triple file with nothing but the
// standard library: the nodes in first-appearance order, the edges as
// (src, dst, relation) names, and the distinct relations.
type plainCount struct {
	names     []string
	edges     [][3]string
	relations map[string]bool
}

func countPlain(t *testing.T, path string, triples bool) plainCount {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	seen := map[string]bool{}
	pc := plainCount{relations: map[string]bool{}}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			pc.names = append(pc.names, s)
		}
	}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		var src, rel, dst string
		if triples {
			require.Len(t, f, 3, "line %q", line)
			src, rel, dst = f[0], f[1], f[2]
			pc.relations[rel] = true
		} else {
			require.Len(t, f, 2, "line %q", line)
			src, dst = f[0], f[1]
		}
		add(src)
		add(dst)
		pc.edges = append(pc.edges, [3]string{src, dst, rel})
	}
	require.NoError(t, sc.Err())
	return pc
}

func TestReadRealGraphs(t *testing.T) {
	t.Parallel()
	dir := dataDir
	cases := []struct {
		file         string
		format       Format
		nodes, edges int
		relations    int
	}{
		{"email-Eu-core.txt.gz", FormatEdges, 1005, 25571, 0},
		{"wiki-Vote.txt.gz", FormatEdges, 7115, 103689, 0},
		{"wn18rr-train.txt.gz", FormatTriples, -1, 86835, 11}, // nodes: counted below
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			start := time.Now()
			g, err := ReadFile(path, ReadOptions{Format: tc.format, Directed: true})
			require.NoError(t, err)
			require.NoError(t, g.checkAll())
			t.Logf("%s: %d nodes, %d edges, read and validated in %v", tc.file, g.NumNodes(), g.NumEdges(), time.Since(start))

			want := countPlain(t, path, tc.format == FormatTriples)
			if tc.nodes >= 0 {
				require.Equal(t, tc.nodes, len(want.names), "independent count disagrees with the published size")
			}
			require.Equal(t, tc.edges, len(want.edges))
			require.Equal(t, tc.relations, len(want.relations))

			require.Equal(t, len(want.names), g.NumNodes())
			require.Equal(t, want.names, g.Names(), "ids in first-appearance order")
			require.Equal(t, tc.edges, g.NumEdges())
			require.Equal(t, tc.edges, g.NumArcs())
			relations := map[string]bool{}
			for e, w := range want.edges {
				got := g.Edge(uint32(e))
				if g.Name(got.Src) != w[0] || g.Name(got.Dst) != w[1] || got.Relation != w[2] || got.Weight != 1 || got.Channel != DefaultChannel {
					t.Fatalf("edge %d: got %s -[%s]-> %s (w %v, %s), want %s -[%s]-> %s",
						e, g.Name(got.Src), got.Relation, g.Name(got.Dst), got.Weight, got.Channel, w[0], w[2], w[1])
				}
				relations[got.Relation] = true
			}
			if tc.relations > 0 {
				require.Len(t, relations, tc.relations)
			}
			require.Equal(t, []string{DefaultChannel}, g.Channels())

			// Undirected reading of the same file is valid too.
			u, err := ReadFile(path, ReadOptions{Format: tc.format})
			require.NoError(t, err)
			require.NoError(t, u.checkAll())
			require.Equal(t, 2*tc.edges, u.NumArcs())
		})
	}
}
