package mask

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/fuzzseed"
)

var update = flag.Bool("update", false, "rewrite mask/testdata/labels.golden and the FuzzReadLabels seeds")

const goldenPath = "testdata/labels.golden"

func serialize(t testing.TB, l *Labels) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := l.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	return buf.Bytes()
}

// requireEqualLabels compares labels as sets (an absent bitmap equals an
// empty one).
func requireEqualLabels(t testing.TB, want, got *Labels, where string) {
	t.Helper()
	require.Equal(t, want.NumEdges(), got.NumEdges(), where)
	require.Equal(t, want.Channels(), got.Channels(), where)
	for _, c := range want.Channels() {
		require.Equal(t, ids(want.Added(c)), ids(got.Added(c)), "%s: added by %q", where, c)
		require.Equal(t, ids(want.Deleted(c)), ids(got.Deleted(c)), "%s: deleted by %q", where, c)
		require.Equal(t, ids(want.Required(c)), ids(got.Required(c)), "%s: requiring %q", where, c)
	}
}

// requireRoundTrip writes l, reads it back, and checks that the result is
// equal and serialises to the same bytes.
func requireRoundTrip(t testing.TB, l *Labels, where string) {
	t.Helper()
	data := serialize(t, l)
	read := bytes.Clone(data)
	back, err := ReadLabels(bytes.NewReader(read))
	require.NoError(t, err, where)
	for i := range read { // the labels share no memory with the bytes read
		read[i] = 0xA5
	}
	requireEqualLabels(t, l, back, where)
	require.Equal(t, data, serialize(t, back), "%s: re-serialised bytes differ", where)
}

// goldenLabels is fixed: changing it changes the golden file. It has array
// containers in two 64Ki chunks, a bitmap container, a run container, a
// channel that only deletes, a channel that is only required, and a
// non-ASCII name.
func goldenLabels() *Labels {
	l := goldenLabelsV1()
	if err := l.Require("mallory", 10_001, 20_000, 70_000); err != nil {
		panic(err)
	}
	if err := l.Require("entity-resolution", 7); err != nil {
		panic(err)
	}
	return l
}

// goldenLabelsV1 is the content of the version-1 golden file (labels that
// require nothing): version 2 reads it unchanged.
func goldenLabelsV1() *Labels {
	l := NewLabels(70_001)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	var dense []uint32
	for e := uint32(10_000); e < 15_000; e += 1 {
		if e%7 != 0 {
			dense = append(dense, e)
		}
	}
	must(l.Add("alice", dense...))
	must(l.Add("alice", 0, 1, 2, 3, 65_536, 65_540, 70_000))
	must(l.Add("bob", 7, 70_000))
	must(l.Add("default", 5))
	must(l.Delete("mallory", 1, 2, 3))
	must(l.Add("mallory", 9))
	must(l.Delete("zoë", 99))
	run := roaring.New()
	run.AddRange(20_000, 30_000)
	run.RunOptimize()
	l.added["runs"] = run
	return l
}

// smallLabels is small enough to cut and corrupt at every byte.
func smallLabels() *Labels {
	l := NewLabels(40)
	if err := l.Add("alice", 0, 3, 39); err != nil {
		panic(err)
	}
	if err := l.Delete("mallory", 3); err != nil {
		panic(err)
	}
	return l
}

func TestLabelsGolden(t *testing.T) {
	data := serialize(t, goldenLabels())
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenPath), 0o755))
		require.NoError(t, os.WriteFile(goldenPath, data, 0o644))
		writeFuzzSeeds(t)
	}
	want, err := os.ReadFile(goldenPath)
	require.NoError(t, err, "golden file missing: run go test ./mask -run TestLabelsGolden -update")
	require.True(t, bytes.Equal(want, data), "serialised labels differ from %s (%d vs %d bytes); if the format changed on purpose, bump the magic and run with -update", goldenPath, len(data), len(want))

	// The golden file decodes to the same labels, and its layout is the one
	// WriteTo documents.
	l, err := ReadLabels(bytes.NewReader(want))
	require.NoError(t, err)
	requireEqualLabels(t, goldenLabels(), l, "golden")
	require.Equal(t, "APPRLBL2", string(want[:8]))
	require.Equal(t, uint64(70_001), binary.LittleEndian.Uint64(want[8:16]))
	require.Equal(t, uint32(7), binary.LittleEndian.Uint32(want[16:20]))
	require.Equal(t, uint32(5), binary.LittleEndian.Uint32(want[20:24]))
	require.Equal(t, "alice", string(want[24:29]))
	body := want[:len(want)-4]
	require.Equal(t, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)), binary.LittleEndian.Uint32(want[len(want)-4:]))
	require.True(t, bytes.Contains(want, []byte("zoë")))
}

// writeFuzzSeeds stores the seeds of FuzzReadLabels in the go test fuzz v1
// corpus format.
func writeFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReadLabels")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	// Two 64Ki chunks and a run container, in a few hundred bytes.
	containers := NewLabels(70_001)
	require.NoError(t, containers.Add("alice", 0, 65_536, 70_000))
	require.NoError(t, containers.Delete("bob", 5))
	run := roaring.New()
	run.AddRange(100, 300)
	run.RunOptimize()
	containers.added["runs"] = run
	seeds := map[string][]byte{
		"containers": serialize(t, containers),
		"small":      serialize(t, smallLabels()),
		"empty":      serialize(t, NewLabels(0)),
		"bad-magic":  append([]byte("APPRLBL0"), serialize(t, NewLabels(3))[8:]...),
	}
	for name, data := range seeds {
		text := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
}

func TestLabelsRoundTripRandom(t *testing.T) {
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	channels := []string{"a", "b", "default", "mallory", "long/channel name with spaces", "é"}
	for seed := range rounds {
		r := rand.New(rand.NewPCG(uint64(seed), 0x5E71))
		m := []int{0, 1, 63, 64, 65, 1000, 70_000, 200_000}[r.IntN(8)]
		l := NewLabels(m)
		for range r.IntN(10) {
			if m == 0 {
				break
			}
			c := channels[r.IntN(len(channels))]
			var edges []uint32
			switch r.IntN(3) {
			case 0: // sparse
				for range 1 + r.IntN(20) {
					edges = append(edges, uint32(r.IntN(m)))
				}
			case 1: // a dense stretch
				lo := r.IntN(m)
				hi := min(m, lo+1+r.IntN(10_000))
				for e := lo; e < hi; e++ {
					if r.IntN(4) > 0 {
						edges = append(edges, uint32(e))
					}
				}
			default:
				edges = append(edges, uint32(m-1))
			}
			if r.IntN(3) == 0 {
				require.NoError(t, l.Delete(c, edges...))
			} else {
				require.NoError(t, l.Add(c, edges...))
			}
		}
		if r.IntN(4) == 0 {
			for _, bm := range l.added {
				bm.RunOptimize()
			}
		}
		requireRoundTrip(t, l, fmt.Sprintf("seed %d (%d edges)", seed, m))
	}
}

func TestReadLabelsTruncated(t *testing.T) {
	data := serialize(t, smallLabels())
	for n := range len(data) {
		var err error
		require.NotPanics(t, func() { _, err = ReadLabels(bytes.NewReader(data[:n])) }, "prefix %d", n)
		require.Error(t, err, "prefix of %d of %d bytes", n, len(data))
		require.True(t, strings.HasPrefix(err.Error(), "mask: "), "%v", err)
	}
	_, err := ReadLabels(bytes.NewReader(data[:10]))
	require.ErrorContains(t, err, "truncated")
	_, err = ReadLabels(bytes.NewReader(data[:len(data)-1]))
	require.ErrorContains(t, err, "checksum")
}

func TestReadLabelsSingleByteCorruption(t *testing.T) {
	for _, data := range [][]byte{serialize(t, smallLabels()), serialize(t, goldenLabels())} {
		stride := 1
		if len(data) > 4096 && testing.Short() {
			stride = 7
		}
		for i := 0; i < len(data); i += stride {
			for _, x := range []byte{0x01, 0x80, 0xFF} {
				bad := bytes.Clone(data)
				bad[i] ^= x
				var err error
				require.NotPanics(t, func() { _, err = ReadLabels(bytes.NewReader(bad)) })
				require.Error(t, err, "byte %d ^ %#x", i, x)
			}
		}
	}
}

// The version-1 golden file (written before labels required channels)
// reads as the same labels, requiring nothing.
func TestLabelsGoldenV1(t *testing.T) {
	want, err := os.ReadFile("testdata/labels-v1.golden")
	require.NoError(t, err)
	require.Equal(t, "APPRLBL1", string(want[:8]))
	l, err := ReadLabels(bytes.NewReader(want))
	require.NoError(t, err)
	requireEqualLabels(t, goldenLabelsV1(), l, "golden v1")
	for _, c := range l.Channels() {
		require.Nil(t, l.Required(c))
	}
}

func TestReadLabelsBadMagic(t *testing.T) {
	data := serialize(t, smallLabels())
	for _, magic := range []string{"APPRLBL3", "APPRLBL0", "XPPRLBL1", "\x00\x00\x00\x00\x00\x00\x00\x00", "apprlbl1"} {
		bad := append([]byte(magic), data[8:]...)
		_, err := ReadLabels(bytes.NewReader(bad))
		require.Error(t, err)
		require.Contains(t, err.Error(), "magic")
		require.Contains(t, err.Error(), "APPRLBL1")
		// Even with a checksum that matches, the magic is refused.
		_, err = ReadLabels(bytes.NewReader(withCRC(bad[:len(bad)-4])))
		require.ErrorContains(t, err, "magic")
	}
	_, err := ReadLabels(bytes.NewReader(nil))
	require.ErrorContains(t, err, "0 bytes")
}

// withCRC appends the CRC-32C trailer to body.
func withCRC(body []byte) []byte {
	sum := crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli))
	return binary.LittleEndian.AppendUint32(bytes.Clone(body), sum)
}

// rawChannel is one channel of a hand-built file; lengths of -1 are the
// real lengths.
type rawChannel struct {
	name           string
	nameLen        int64
	added, deleted []byte
	addLen, delLen int64
}

func bitmapBytes(t testing.TB, ids ...uint32) []byte {
	b, err := roaring.BitmapOf(ids...).ToBytes()
	require.NoError(t, err)
	return b
}

// handBuilt serialises channels by hand, with the header's numEdges and
// count, and a valid checksum.
func handBuilt(numEdges uint64, count uint32, chans []rawChannel, trailer []byte) []byte {
	b := []byte("APPRLBL1")
	b = binary.LittleEndian.AppendUint64(b, numEdges)
	b = binary.LittleEndian.AppendUint32(b, count)
	for _, c := range chans {
		nl := uint32(len(c.name))
		if c.nameLen >= 0 {
			nl = uint32(c.nameLen)
		}
		b = binary.LittleEndian.AppendUint32(b, nl)
		b = append(b, c.name...)
		al := uint64(len(c.added))
		if c.addLen >= 0 {
			al = uint64(c.addLen)
		}
		b = binary.LittleEndian.AppendUint64(b, al)
		b = append(b, c.added...)
		dl := uint64(len(c.deleted))
		if c.delLen >= 0 {
			dl = uint64(c.delLen)
		}
		b = binary.LittleEndian.AppendUint64(b, dl)
		b = append(b, c.deleted...)
	}
	b = append(b, trailer...)
	return withCRC(b)
}

func TestReadLabelsHostileButChecksummed(t *testing.T) {
	empty := bitmapBytes(t)
	ch := func(name string, added, deleted []byte) rawChannel {
		return rawChannel{name: name, nameLen: -1, added: added, deleted: deleted, addLen: -1, delLen: -1}
	}
	// A valid hand-built file parses: the helper is right.
	ok := handBuilt(10, 2, []rawChannel{ch("a", bitmapBytes(t, 1, 9), empty), ch("b", empty, bitmapBytes(t, 0))}, nil)
	l, err := ReadLabels(bytes.NewReader(ok))
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 9}, ids(l.Added("a")))
	require.Equal(t, []uint32{0}, ids(l.Deleted("b")))
	require.Nil(t, l.Added("b"), "an empty bitmap is read as absent")

	garbage := []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3}
	longBitmap := append(bitmapBytes(t, 1), 0, 0, 0)
	huge := rawChannel{name: "a", nameLen: 1 << 31, addLen: -1, delLen: -1}
	hugeBitmap := ch("a", nil, nil)
	hugeBitmap.addLen = 1<<63 - 1
	// One channel whose file ends after its added bitmap.
	missingDeleted := []byte("APPRLBL1")
	missingDeleted = binary.LittleEndian.AppendUint64(missingDeleted, 10)
	missingDeleted = binary.LittleEndian.AppendUint32(missingDeleted, 1)
	missingDeleted = binary.LittleEndian.AppendUint32(missingDeleted, 1)
	missingDeleted = append(missingDeleted, 'a')
	missingDeleted = binary.LittleEndian.AppendUint64(missingDeleted, uint64(len(empty)))
	missingDeleted = withCRC(append(missingDeleted, empty...))
	cases := []struct {
		name string
		data []byte
		want []string
	}{
		{"edge count too large", handBuilt(1<<32+1, 0, nil, nil), []string{"edge count 4294967297 exceeds 2^32"}},
		{"channels out of order", handBuilt(10, 2, []rawChannel{ch("b", bitmapBytes(t, 1), empty), ch("a", bitmapBytes(t, 2), empty)}, nil), []string{`channel 1: name "a"`, "out of order"}},
		{"duplicate channel", handBuilt(10, 2, []rawChannel{ch("a", bitmapBytes(t, 1), empty), ch("a", bitmapBytes(t, 2), empty)}, nil), []string{"out of order"}},
		{"empty channel name", handBuilt(10, 1, []rawChannel{ch("", bitmapBytes(t, 1), empty)}, nil), []string{"channel 0", "empty"}},
		{"edge id out of range", handBuilt(10, 1, []rawChannel{ch("a", bitmapBytes(t, 3, 10), empty)}, nil), []string{`channel "a"`, "added", "edge 10 out of range (10 edges)"}},
		{"deleted out of range", handBuilt(10, 1, []rawChannel{ch("a", empty, bitmapBytes(t, 1<<20))}, nil), []string{`channel "a"`, "deleted", "out of range"}},
		{"ids with zero edges", handBuilt(0, 1, []rawChannel{ch("a", bitmapBytes(t, 0), empty)}, nil), []string{"edge 0 out of range (0 edges)"}},
		{"garbage bitmap", handBuilt(10, 1, []rawChannel{ch("a", garbage, empty)}, nil), []string{`channel "a"`, "malformed bitmap"}},
		{"bitmap with slack", handBuilt(10, 1, []rawChannel{ch("a", longBitmap, empty)}, nil), []string{"bitmap used", "of its"}},
		{"trailing bytes", handBuilt(10, 1, []rawChannel{ch("a", bitmapBytes(t, 1), empty)}, []byte{0, 0, 0}), []string{"3 unexpected bytes"}},
		{"more channels than present", handBuilt(10, 3, []rawChannel{ch("a", bitmapBytes(t, 1), empty)}, nil), []string{"channel name length", "channel 1"}},
		{"huge channel count", handBuilt(10, 1<<32-1, nil, nil), []string{"channel name length"}},
		{"huge name length", handBuilt(10, 1, []rawChannel{huge}, nil), []string{"channel name needs 2147483648 bytes"}},
		{"huge bitmap length", handBuilt(10, 1, []rawChannel{hugeBitmap}, nil), []string{"added bitmap needs", `channel "a"`}},
		{"missing deleted bitmap", missingDeleted, []string{"deleted length", `channel "a"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = ReadLabels(bytes.NewReader(tc.data)) })
			require.Error(t, err)
			t.Log(err)
			require.True(t, strings.HasPrefix(err.Error(), "mask: labels: "), "%v", err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		return w.after, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteToError(t *testing.T) {
	n, err := smallLabels().WriteTo(&failingWriter{after: 5})
	require.Error(t, err)
	require.Equal(t, int64(5), n)
	require.Contains(t, err.Error(), "mask: write labels")
	require.Contains(t, err.Error(), "disk full")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("io broke") }

func TestReadLabelsReaderError(t *testing.T) {
	_, err := ReadLabels(failingReader{})
	require.ErrorContains(t, err, "mask: read labels: io broke")
}

// FuzzReadLabels: ReadLabels never panics, and whatever it accepts is valid
// labels that survive a round trip. Random bytes almost never carry a right
// CRC, so each input is also tried with its checksum repaired, which lets
// the fuzzer reach the parser and roaring's decoder.
func FuzzReadLabels(f *testing.F) {
	f.Add(serialize(f, smallLabels()))
	f.Add(serialize(f, NewLabels(0)))
	f.Add([]byte("APPRLBL1"))
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzReadLabels.zip
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		if len(data) >= 4 {
			check(t, withCRC(data[:len(data)-4]))
		}
	})
}

func check(t *testing.T, data []byte) {
	l, err := ReadLabels(bytes.NewReader(data))
	if err != nil {
		if l != nil {
			t.Fatalf("labels returned with error %v", err)
		}
		if !strings.HasPrefix(err.Error(), "mask: ") {
			t.Fatalf("error without package prefix: %v", err)
		}
		return
	}
	for _, c := range l.Channels() {
		if c == "" {
			t.Fatal("empty channel name accepted")
		}
		for _, bm := range []*roaring.Bitmap{l.Added(c), l.Deleted(c)} {
			if bm != nil && !bm.IsEmpty() && int64(bm.Maximum()) >= int64(l.NumEdges()) {
				t.Fatalf("channel %q: edge %d out of range (%d edges)", c, bm.Maximum(), l.NumEdges())
			}
		}
	}
	var buf bytes.Buffer
	if _, err := l.WriteTo(&buf); err != nil {
		t.Fatalf("re-serialise: %v", err)
	}
	back, err := ReadLabels(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("re-read: %v", err)
	}
	// Compare with Equals, not ToArray: a few run containers can hold
	// billions of ids.
	if back.NumEdges() != l.NumEdges() || !slices.Equal(back.Channels(), l.Channels()) {
		t.Fatalf("round trip: %d edges %q, want %d edges %q", back.NumEdges(), back.Channels(), l.NumEdges(), l.Channels())
	}
	orEmpty := func(bm *roaring.Bitmap) *roaring.Bitmap {
		if bm == nil {
			return roaring.New()
		}
		return bm
	}
	for _, c := range l.Channels() {
		if !orEmpty(l.Added(c)).Equals(orEmpty(back.Added(c))) || !orEmpty(l.Deleted(c)).Equals(orEmpty(back.Deleted(c))) {
			t.Fatalf("round trip: channel %q changed", c)
		}
	}
}
