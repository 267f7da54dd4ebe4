package wal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// recordStart returns the byte offset of record i in a log of record(0),
// record(1), ...
func recordStart(i int) int {
	off := len(magic)
	for j := range i {
		off += headerSize + len(record(j))
	}
	return off
}

// A whole last record that fails its checksum (in its payload, its payload
// checksum or its length) is not a torn write: Open keeps its bytes in a
// file beside the log, cuts them off and reports them in
// Recovered.Damaged; appending goes on.
func TestDamagedLastRecordIsKeptAndReported(t *testing.T) {
	dir := t.TempDir()
	full := writeRecords(t, filepath.Join(dir, "orig"), 5)
	last := recordStart(4)
	require.Equal(t, len(full), recordStart(5))
	for _, c := range []struct {
		name string
		at   int
		bit  byte
	}{
		{"payload", last + headerSize + 3, 0x01},
		{"payload checksum", last + 5, 0x80},
		{"length, low bit", last, 0x01},
		{"length, high bit", last + 3, 0x40},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(full)
			bad[c.at] ^= c.bit
			p := filepath.Join(dir, c.name)
			require.NoError(t, os.WriteFile(p, bad, 0o644))
			got, l := readAll(t, p)
			require.Len(t, got, 4)
			require.Zero(t, l.Recovered.TornBytes)
			d := l.Recovered.Damaged
			require.NotNil(t, d, "the damaged record is reported")
			require.Equal(t, uint64(4), d.Record)
			require.Equal(t, int64(last), d.Offset)
			require.Equal(t, int64(len(full)-last), d.Bytes)
			require.NotEmpty(t, d.Reason)
			kept, err := os.ReadFile(d.KeptAt)
			require.NoError(t, err)
			require.Equal(t, bad[last:], kept, "the damaged bytes are kept")
			require.Equal(t, dir, filepath.Dir(d.KeptAt), "beside the log")
			_, err = l.Append(record(99))
			require.NoError(t, err)
			require.NoError(t, l.Close())
			got, l = readAll(t, p)
			require.Equal(t, [][]byte{record(0), record(1), record(2), record(3), record(99)}, got)
			require.Nil(t, l.Recovered.Damaged)
			require.NoError(t, l.Close())
		})
	}
}

// Damage with a whole record after it is corruption inside the log: an
// error naming the record, its offset and the record that follows, never
// records dropped as a torn tail (a length made large by damage once read
// as a record cut short and dropped every record after it).
func TestDamageBeforeTheEndIsAnError(t *testing.T) {
	dir := t.TempDir()
	full := writeRecords(t, filepath.Join(dir, "orig"), 5)
	for _, c := range []struct {
		name string
		at   int
		bit  byte
	}{
		{"length, high bit", recordStart(2) + 3, 0x40},
		{"length, low bit", recordStart(2), 0x01},
		{"payload", recordStart(2) + headerSize, 0x01},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(full)
			bad[c.at] ^= c.bit
			p := filepath.Join(dir, c.name)
			require.NoError(t, os.WriteFile(p, bad, 0o644))
			_, err := Open(p, nil)
			require.ErrorContains(t, err, fmt.Sprintf("record 2 at byte %d", recordStart(2)))
			require.ErrorContains(t, err, fmt.Sprintf("a whole record follows at byte %d", recordStart(3)))
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, bad, after, "a log Open refuses is left as it was")
		})
	}
	// Zeros inside the log (not a zero-filled tail) are corruption too.
	bad := append(append(bytes.Clone(full[:recordStart(2)]), make([]byte, 20)...), full[recordStart(2):]...)
	p := filepath.Join(dir, "zeros inside")
	require.NoError(t, os.WriteFile(p, bad, 0o644))
	_, err := Open(p, nil)
	require.ErrorContains(t, err, fmt.Sprintf("record 2 at byte %d", recordStart(2)))
}

// Zero bytes from a record boundary to the end are space a crash allocated
// and never wrote (the file's size reached the disk, its data did not): a
// torn tail, cut and reported, never records. An empty record is still a
// record.
func TestZeroFilledTailIsTorn(t *testing.T) {
	dir := t.TempDir()
	full := writeRecords(t, filepath.Join(dir, "orig"), 5)
	for _, zeros := range []int{1, 7, 8, 11, 12, 13, 100, 5000} {
		p := filepath.Join(dir, fmt.Sprint("zeros", zeros))
		require.NoError(t, os.WriteFile(p, append(bytes.Clone(full), make([]byte, zeros)...), 0o644))
		got, l := readAll(t, p)
		require.Len(t, got, 5, "%d zeros", zeros)
		require.Equal(t, int64(zeros), l.Recovered.TornBytes)
		require.Nil(t, l.Recovered.Damaged)
		require.NoError(t, l.Close())
		// A first append that left only zeros.
		require.NoError(t, os.WriteFile(p, make([]byte, zeros), 0o644))
		got, l = readAll(t, p)
		require.Empty(t, got)
		require.Equal(t, int64(zeros), l.Recovered.TornBytes)
		_, err := l.Append(record(0))
		require.NoError(t, err)
		require.NoError(t, l.Close())
		got, l = readAll(t, p)
		require.Equal(t, [][]byte{record(0)}, got)
		require.NoError(t, l.Close())
	}

	p := filepath.Join(dir, "empty records")
	l, err := Open(p, nil)
	require.NoError(t, err)
	_, err = l.AppendBatch([][]byte{nil, record(1), {}})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	got, l := readAll(t, p)
	require.Equal(t, [][]byte{nil, record(1), nil}, got) // readAll copies an empty record to nil
	require.Zero(t, l.Recovered.TornBytes)
	require.NoError(t, l.Close())
}

// Replay reads a log without changing it: damage is reported, not cut off
// or kept aside.
func TestReplayChangesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	full := writeRecords(t, p, 5)
	bad := append(bytes.Clone(full), 1, 2, 3)
	bad[recordStart(4)+headerSize] ^= 1
	require.NoError(t, os.WriteFile(p, bad, 0o644))
	n := 0
	rec, err := Replay(p, func(seq uint64, r []byte) error {
		require.Equal(t, record(n), r)
		n++
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 4, n)
	require.NotNil(t, rec.Damaged)
	require.Equal(t, int64(recordStart(4)), rec.Damaged.Offset)
	require.Empty(t, rec.Damaged.KeptAt)
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, bad, after)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing kept aside")
}

// A file that starts with neither the magic nor a whole version-1 record
// is not read as a log (a file of another kind would otherwise read as
// damage; TestV1NotALog has more); a prefix of the magic is a first append
// cut short.
func TestMagic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(p, []byte("\x09\x00\x00\x00 an older log, or not a log"), 0o644))
	_, err := Open(p, nil)
	require.ErrorContains(t, err, "byte 0")
	require.ErrorContains(t, err, "not a log")
	for n := 1; n < len(magic); n++ {
		require.NoError(t, os.WriteFile(p, []byte(magic[:n]), 0o644))
		got, l := readAll(t, p)
		require.Empty(t, got)
		require.Equal(t, int64(n), l.Recovered.TornBytes)
		require.NoError(t, l.Close())
	}
}
