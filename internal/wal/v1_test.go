package wal

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/faultfile"
)

var update = flag.Bool("update", false, "rewrite wal/testdata/v1.log from encodeV1(goldenV1Records())")

const goldenV1Path = "testdata/v1.log"

// encodeV1 is the version-1 writer the golden file was made with, kept as
// the reference: per record, uint32 payload length, uint32 CRC-32C of the
// payload (little-endian), payload; no magic.
func encodeV1(recs [][]byte) []byte {
	var out []byte
	for _, rec := range recs {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(rec)))
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(rec, crc32.MakeTable(crc32.Castagnoli)))
		out = append(out, rec...)
	}
	return out
}

// v1Start returns the byte offset of record i in encodeV1(recs).
func v1Start(recs [][]byte, i int) int {
	off := 0
	for _, rec := range recs[:i] {
		off += 8 + len(rec)
	}
	return off
}

// goldenV1Records is the content of testdata/v1.log; changing it changes
// the golden file. It holds an empty record (8 zero bytes) inside the log,
// a payload of zeros, every byte value and a record longer than a page.
func goldenV1Records() [][]byte {
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	return [][]byte{
		[]byte("first record"),
		{},
		every,
		{0, 0, 0, 0},
		bytes.Repeat([]byte("0123456789abcdef"), 300),
		[]byte("last record"),
	}
}

// v1Records are the records of the small version-1 logs the tests cut and
// damage: none empty, so that zero bytes are never one of them.
func v1Records(n int) [][]byte {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = record(i)
	}
	return recs
}

// collect returns a replay function that appends copies of the records to
// *got, checking their sequence numbers.
func collect(t testing.TB, got *[][]byte) func(uint64, []byte) error {
	return func(seq uint64, rec []byte) error {
		require.Equal(t, uint64(len(*got)), seq)
		*got = append(*got, append([]byte{}, rec...))
		return nil
	}
}

// writeV1 writes the version-1 log of recs (and any extra bytes) at a new
// path in dir and returns the path and the file's bytes.
func writeV1(t testing.TB, dir, name string, recs [][]byte, extra ...byte) (string, []byte) {
	t.Helper()
	data := append(encodeV1(recs), extra...)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p, data
}

// requireConverted checks that the log at path is a version-2 log holding
// exactly want, and that appending to it and reopening works.
func requireConverted(t testing.TB, path string, want [][]byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte(magic)) || len(want) == 0 && len(data) == 0, "the log is version 2: %q", data[:min(len(data), 8)])
	var got [][]byte
	rec, err := Replay(path, collect(t, &got))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, 2, rec.Version)
	require.Zero(t, rec.TornBytes)
	require.Nil(t, rec.Damaged)
	got = nil
	l, err := Open(path, collect(t, &got))
	require.NoError(t, err)
	require.Equal(t, want, got)
	_, err = l.Append([]byte("appended after conversion"))
	require.NoError(t, err)
	require.NoError(t, l.Close())
	got = nil
	l, err = Open(path, collect(t, &got))
	require.NoError(t, err)
	require.Equal(t, append(append([][]byte{}, want...), []byte("appended after conversion")), got)
	require.NoError(t, l.Close())
}

// The golden version-1 log: Replay reads it as it is; Open reads it,
// converts it to version 2 and appends after it; nothing else is left
// beside it.
func TestGoldenV1(t *testing.T) {
	want := goldenV1Records()
	if *update {
		require.NoError(t, os.WriteFile(goldenV1Path, encodeV1(want), 0o644))
	}
	golden, err := os.ReadFile(goldenV1Path)
	require.NoError(t, err)
	require.Equal(t, encodeV1(want), golden, "the generator and the committed file agree")
	require.Equal(t, "\x0c\x00\x00\x00", string(golden[:4]), "the first record's length, 12, opens the file")

	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	require.NoError(t, os.WriteFile(p, golden, 0o644))
	var got [][]byte
	rec, err := Replay(p, collect(t, &got))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, uint64(len(want)), rec.Records)
	require.Equal(t, 1, rec.Version)
	require.Zero(t, rec.TornBytes)
	require.Nil(t, rec.Damaged)
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, golden, after, "Replay changes nothing")

	got = nil
	l, err := Open(p, collect(t, &got))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, uint64(len(want)), l.Recovered.Records)
	require.Equal(t, 1, l.Recovered.Version, "Open reports the version it found")
	require.Zero(t, l.Recovered.TornBytes)
	require.Nil(t, l.Recovered.Damaged)
	seq, err := l.Append([]byte("the first version-2 record"))
	require.NoError(t, err)
	require.Equal(t, uint64(len(want)), seq, "numbering continues after the version-1 records")
	require.NoError(t, l.Close())
	requireConverted(t, p, append(want, []byte("the first version-2 record")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing is left beside the log")
}

// A version-1 log cut anywhere after its first record (a crash during an
// append) reads as the records before the cut and a torn tail; Open cuts
// the tail off in the conversion.
func TestV1TornTail(t *testing.T) {
	dir := t.TempDir()
	recs := v1Records(5)
	full := encodeV1(recs)
	for cut := v1Start(recs, 1); cut < len(full); cut++ {
		k := 0
		for k < len(recs) && v1Start(recs, k+1) <= cut {
			k++
		}
		p, data := writeV1(t, dir, fmt.Sprint("cut", cut), nil, full[:cut]...)
		var got [][]byte
		rec, err := Replay(p, collect(t, &got))
		require.NoError(t, err, "cut at %d", cut)
		require.Equal(t, recs[:k], got, "cut at %d", cut)
		require.Equal(t, int64(cut-v1Start(recs, k)), rec.TornBytes, "cut at %d", cut)
		require.Nil(t, rec.Damaged)
		after, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, data, after)

		got = nil
		l, err := Open(p, collect(t, &got))
		require.NoError(t, err, "cut at %d", cut)
		require.Equal(t, recs[:k], got)
		require.Equal(t, rec.TornBytes, l.Recovered.TornBytes)
		require.NoError(t, l.Close())
		requireConverted(t, p, recs[:k])
	}
}

// A whole last record of a version-1 log that fails its checksum (its
// payload, its checksum, a length made shorter) is damage, as in version
// 2: Replay reports it; Open keeps its bytes beside the log, reports them
// and converts the records before it.
func TestV1DamagedLastRecord(t *testing.T) {
	dir := t.TempDir()
	recs := v1Records(5)
	last := v1Start(recs, 4)
	for _, c := range []struct {
		name string
		at   int
		bit  byte
	}{
		{"payload", last + 8 + 3, 0x01},
		{"payload checksum", last + 5, 0x80},
		{"length, shorter", last, 0x01}, // record(4) is 13 bytes long: 12
		{"length, over the limit", last + 3, 0x40},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, data := writeV1(t, dir, c.name, recs)
			data[c.at] ^= c.bit
			require.NoError(t, os.WriteFile(p, data, 0o644))
			var got [][]byte
			rec, err := Replay(p, collect(t, &got))
			require.NoError(t, err)
			require.Equal(t, recs[:4], got)
			require.NotNil(t, rec.Damaged, "the damaged record is reported")
			require.Equal(t, uint64(4), rec.Damaged.Record)
			require.Equal(t, int64(last), rec.Damaged.Offset)
			require.Equal(t, int64(len(data)-last), rec.Damaged.Bytes)
			require.Empty(t, rec.Damaged.KeptAt)

			got = nil
			l, err := Open(p, collect(t, &got))
			require.NoError(t, err)
			require.Equal(t, recs[:4], got)
			d := l.Recovered.Damaged
			require.NotNil(t, d)
			require.Equal(t, rec.Damaged.Offset, d.Offset)
			require.NotEmpty(t, d.Reason)
			kept, err := os.ReadFile(d.KeptAt)
			require.NoError(t, err)
			require.Equal(t, data[last:], kept, "the damaged version-1 bytes are kept")
			require.Equal(t, dir, filepath.Dir(d.KeptAt), "beside the log")
			require.NoError(t, l.Close())
			requireConverted(t, p, recs[:4])
		})
	}
}

// Damage before the end of a version-1 log is an error naming the record
// and its byte offset, and the log is left as it was; a length made larger
// is one too when a whole record follows (version 1 cannot otherwise tell
// it from a torn tail, and would drop every record after it).
func TestV1DamageBeforeTheEnd(t *testing.T) {
	dir := t.TempDir()
	recs := v1Records(5)
	at := v1Start(recs, 2)
	for _, c := range []struct {
		name string
		at   int
		bit  byte
	}{
		{"payload", at + 8, 0x01},
		{"payload checksum", at + 4, 0x01},
		{"length, larger, inside the log", at, 0x10},   // 11 bytes: 27
		{"length, larger, past the end", at + 1, 0x10}, // 4107
		{"length, over the limit", at + 3, 0x40},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, data := writeV1(t, dir, c.name, recs)
			data[c.at] ^= c.bit
			require.NoError(t, os.WriteFile(p, data, 0o644))
			_, err := Replay(p, nil)
			require.ErrorContains(t, err, fmt.Sprintf("record 2 at byte %d", at))
			require.ErrorContains(t, err, "corrupted inside")
			_, err = Open(p, nil)
			require.ErrorContains(t, err, fmt.Sprintf("record 2 at byte %d", at))
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, data, after, "a log Open refuses is left as it was")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				require.NotContains(t, e.Name(), c.name+".", "nothing is left beside the refused log")
			}
		})
	}
}

// Damage followed by more bytes than a record holds is never one torn
// append: an error, without a search (a sparse file: 70 MB of zeros after a
// garbage header).
func TestV1DamageBeforeMoreThanARecord(t *testing.T) {
	recs := v1Records(2)
	p, _ := writeV1(t, t.TempDir(), "log", recs, []byte("garbage!")...)
	require.NoError(t, os.Truncate(p, 70<<20))
	_, err := Open(p, nil)
	require.ErrorContains(t, err, fmt.Sprintf("record 2 at byte %d: length", v1Start(recs, 2)))
	require.ErrorContains(t, err, "more than a record holds")
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, int64(70<<20), st.Size(), "the log is left as it was")
}

// Zero bytes at the end of a version-1 log may be empty records (8 zero
// bytes each) or space a crash allocated and never wrote: version 1 cannot
// tell, so a run of at least one header is damage (kept, reported), never
// records replayed or bytes dropped as torn. Fewer zeros than a header are
// a torn header.
func TestV1ZeroTail(t *testing.T) {
	dir := t.TempDir()
	recs := v1Records(3)
	for _, zeros := range []int{1, 7, 8, 9, 16, 100, 70000} {
		p, data := writeV1(t, dir, fmt.Sprint("zeros", zeros), recs, make([]byte, zeros)...)
		var got [][]byte
		l, err := Open(p, collect(t, &got))
		require.NoError(t, err, "%d zeros", zeros)
		require.Equal(t, recs, got, "%d zeros", zeros)
		if zeros < 8 {
			require.Equal(t, int64(zeros), l.Recovered.TornBytes)
			require.Nil(t, l.Recovered.Damaged)
		} else {
			d := l.Recovered.Damaged
			require.NotNil(t, d, "%d zeros", zeros)
			require.Equal(t, uint64(3), d.Record)
			require.Equal(t, int64(len(encodeV1(recs))), d.Offset)
			require.Equal(t, int64(zeros), d.Bytes)
			require.Contains(t, d.Reason, "zero")
			kept, err := os.ReadFile(d.KeptAt)
			require.NoError(t, err)
			require.Equal(t, data[d.Offset:], kept)
		}
		require.NoError(t, l.Close())
		requireConverted(t, p, recs)
	}
	// Empty records inside the log are records.
	withEmpty := [][]byte{record(0), {}, {}, record(3)}
	p, _ := writeV1(t, dir, "empty records", withEmpty)
	var got [][]byte
	l, err := Open(p, collect(t, &got))
	require.NoError(t, err)
	require.Equal(t, withEmpty, got)
	require.NoError(t, l.Close())
	requireConverted(t, p, withEmpty)
}

// A file that opens with neither the magic nor a version-1 record (whole,
// after any empty ones, or one whose header the file ends inside: see
// TestV1TornFirstAppend) is not read as a log: Open refuses it and changes
// nothing. This covers a version-1 log whose first record is damaged.
func TestV1NotALog(t *testing.T) {
	dir := t.TempDir()
	recs := v1Records(2)
	full := encodeV1(recs)
	for name, data := range map[string][]byte{
		"text":                  []byte("not a log at all, just some text"),
		"short text":            []byte("text"),
		"first record damaged":  append(append([]byte{}, full[:8]...), append([]byte{'X'}, full[9:]...)...),
		"empty, then garbage":   append(make([]byte, 16), "garbage!garbage!"...),
		"empty, then torn":      append(make([]byte, 16), full[:12]...),
		"a version-3 log":       []byte("authwal3\x00\x00\x00\x00"),
		"an older log's length": []byte("\x09\x00\x00\x00 an older log, or not a log"),
	} {
		p := filepath.Join(dir, "log")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		_, err := Open(p, nil)
		require.ErrorContains(t, err, "byte 0", name)
		require.ErrorContains(t, err, "not a log", name)
		_, err = Replay(p, nil)
		require.ErrorContains(t, err, "not a log", name)
		after, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, data, after, name)
	}
}

// A version-1 log whose first append a crash tore (the file ends inside
// its first header, or before the end its length declares) holds no
// acknowledged record, yet nothing proves it a log either: Open keeps its
// bytes aside and reports them as damage at byte 0, and the log opens
// empty. A store that crashed during the first write to a new log opens.
// When a whole record follows the first header, its length is damaged: an
// error.
func TestV1TornFirstAppend(t *testing.T) {
	dir := t.TempDir()
	recs := v1Records(2)
	full := encodeV1(recs)
	for _, cut := range []int{1, 3, 4, 7, 8, 9, v1Start(recs, 1) - 1} {
		p, data := writeV1(t, dir, fmt.Sprint("cut", cut), nil, full[:cut]...)
		rec, err := Replay(p, nil)
		require.NoError(t, err, "cut at %d", cut)
		require.Equal(t, 1, rec.Version)
		require.Zero(t, rec.Records)
		require.NotNil(t, rec.Damaged, "cut at %d", cut)
		require.Zero(t, rec.Damaged.Offset)
		require.Equal(t, int64(cut), rec.Damaged.Bytes)
		var got [][]byte
		l, err := Open(p, collect(t, &got))
		require.NoError(t, err, "cut at %d", cut)
		require.Empty(t, got)
		d := l.Recovered.Damaged
		require.NotNil(t, d)
		require.Contains(t, d.Reason, "first")
		kept, err := os.ReadFile(d.KeptAt)
		require.NoError(t, err)
		require.Equal(t, data, kept, "every byte is kept")
		require.NoError(t, l.Close())
		requireConverted(t, p, nil)
	}
	// The first length made larger, with a whole record after it.
	p, data := writeV1(t, dir, "first length damaged", recs)
	data[1] ^= 0x10
	require.NoError(t, os.WriteFile(p, data, 0o644))
	_, err := Open(p, nil)
	require.ErrorContains(t, err, "record 0 at byte 0: length")
	require.ErrorContains(t, err, fmt.Sprintf("a whole record follows at byte %d", v1Start(recs, 1)))
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, data, after)
}

// copyDir copies the regular files of dir into a new directory: what a
// crash at that moment would leave if every write had reached the disk.
func copyDir(t testing.TB, dir string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), data, 0o644))
	}
	return to
}

// A crash at any point of a conversion leaves under the log's path either
// the version-1 log as it was or the version-2 log, and either opens with
// the same records (a version-1 log is converted again, its damaged bytes
// reported and kept again). The crash images: the directory after each
// step, and after the temporary file was written but before its fsync, that
// file cut short or zero-filled (its data had not reached the disk); a
// rename not made durable by the directory's fsync is the image before it.
func TestV1ConversionCrashPoints(t *testing.T) {
	recs := v1Records(6)
	for _, damagedEnd := range []bool{false, true} {
		t.Run(fmt.Sprint("damaged end ", damagedEnd), func(t *testing.T) {
			dir := t.TempDir()
			var extra []byte
			if damagedEnd {
				extra = encodeV1([][]byte{[]byte("the damaged last record")})
				extra[12] ^= 1 // in its payload: a whole record failing its checksum
			}
			p, orig := writeV1(t, dir, "log", recs, extra...)
			type image struct{ step, dir string }
			images := []image{{"before", copyDir(t, dir)}}
			var steps []string
			l, err := openLog(p, nil, func(step string) {
				steps = append(steps, step)
				images = append(images, image{step, copyDir(t, dir)})
				if step != "written" {
					return
				}
				for _, torn := range []string{"cut short", "zero-filled", "empty"} {
					d := copyDir(t, dir)
					tmp := filepath.Join(d, "log"+convertSuffix)
					data, err := os.ReadFile(tmp)
					require.NoError(t, err)
					switch torn {
					case "cut short":
						data = data[:len(data)/2]
					case "zero-filled":
						data = make([]byte, len(data))
					case "empty":
						data = nil
					}
					require.NoError(t, os.WriteFile(tmp, data, 0o644))
					images = append(images, image{"written, " + torn, d})
				}
			})
			require.NoError(t, err)
			require.NoError(t, l.Close())
			want := []string{"written", "synced", "renamed", "synced the directory"}
			if damagedEnd {
				want = append([]string{"kept the damaged bytes"}, want...)
			}
			require.Equal(t, want, steps)

			for _, im := range images {
				lp := filepath.Join(im.dir, "log")
				data, err := os.ReadFile(lp)
				require.NoError(t, err, im.step)
				v2 := bytes.HasPrefix(data, []byte(magic))
				require.True(t, v2 || bytes.Equal(data, orig), "%s: the log is the version-1 log as it was, or a version-2 log", im.step)
				var got [][]byte
				l, err := Open(lp, collect(t, &got))
				require.NoError(t, err, im.step)
				require.Equal(t, recs, got, im.step)
				if v2 {
					require.Equal(t, 2, l.Recovered.Version, im.step)
					require.Nil(t, l.Recovered.Damaged, "%s: the damage was reported and kept before the rename", im.step)
				} else {
					require.Equal(t, 1, l.Recovered.Version, im.step)
					require.Equal(t, damagedEnd, l.Recovered.Damaged != nil, im.step)
				}
				require.NoError(t, l.Close())
				requireConverted(t, lp, recs)
				if damagedEnd {
					kept, err := filepath.Glob(filepath.Join(im.dir, "log.damaged-at-*"))
					require.NoError(t, err)
					require.NotEmpty(t, kept, "%s: the damaged bytes are kept", im.step)
					for _, k := range kept {
						data, err := os.ReadFile(k)
						require.NoError(t, err)
						require.Equal(t, extra, data, im.step)
					}
				}
				_, err = os.Stat(filepath.Join(im.dir, "log"+convertSuffix))
				require.ErrorIs(t, err, os.ErrNotExist, "%s: the temporary file is gone after a conversion", im.step)
			}
		})
	}
}

// A conversion that fails (the new file's write fails part-way or comes
// back short, its fsync fails) fails Open, leaves the version-1 log as it
// was and no temporary file; the next Open converts.
func TestV1ConversionFaults(t *testing.T) {
	enospc, eio := syscall.ENOSPC, syscall.EIO
	recs := v1Records(4)
	for _, c := range []struct {
		name string
		op   faultfile.Op
		ft   faultfile.Fault
	}{
		{"write fails part-way", faultfile.Write, faultfile.Fault{Err: enospc, Keep: 20}},
		{"write fails at once", faultfile.Write, faultfile.Fault{Err: enospc}},
		{"short write", faultfile.Write, faultfile.Fault{Keep: 9}},
		{"fsync fails", faultfile.Sync, faultfile.Fault{Err: eio}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p, orig := writeV1(t, dir, "log", recs)
			restore := faultfile.SetHook(func(path string, f *os.File) faultfile.File {
				if !strings.HasSuffix(path, convertSuffix) {
					return f
				}
				x, err := faultfile.NewFaulty(f, func(op faultfile.Op, n int) *faultfile.Fault {
					if op == c.op {
						return &c.ft
					}
					return nil
				})
				require.NoError(t, err)
				return x
			})
			_, err := Open(p, nil)
			restore()
			require.ErrorContains(t, err, "convert from format version 1 to 2")
			require.ErrorContains(t, err, "left as it was")
			if c.ft.Err != nil {
				require.ErrorIs(t, err, c.ft.Err)
			}
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, orig, after)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temporary file is left")
			var got [][]byte
			l, err := Open(p, collect(t, &got))
			require.NoError(t, err)
			require.Equal(t, recs, got)
			require.NoError(t, l.Close())
			requireConverted(t, p, recs)
		})
	}
}
