package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/crashtest"
)

func record(i int) []byte { return []byte(fmt.Sprintf("write %d: %s", i, strings.Repeat("x", i%37))) }

func readAll(t *testing.T, path string) ([][]byte, *Log) {
	t.Helper()
	var got [][]byte
	l, err := Open(path, func(seq uint64, rec []byte) error {
		require.Equal(t, uint64(len(got)), seq)
		got = append(got, append([]byte(nil), rec...))
		return nil
	})
	require.NoError(t, err)
	return got, l
}

func TestAppendReopenReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, err := Open(path, nil)
	require.NoError(t, err)
	for i := range 100 {
		seq, err := l.Append(record(i))
		require.NoError(t, err)
		require.Equal(t, uint64(i), seq)
	}
	require.NoError(t, l.Close())
	got, l := readAll(t, path)
	require.Len(t, got, 100)
	for i, rec := range got {
		require.Equal(t, record(i), rec)
	}
	require.Zero(t, l.Recovered.TornBytes)
	seq, err := l.Append(record(100))
	require.NoError(t, err)
	require.Equal(t, uint64(100), seq, "numbering continues after replay")
	require.NoError(t, l.Close())
	_, err = l.Append(nil)
	require.ErrorContains(t, err, "closed")
}

// writeRecords appends records 0..n-1 to a new log at path and returns the
// file's bytes.
func writeRecords(t *testing.T, path string, n int) []byte {
	t.Helper()
	l, err := Open(path, nil)
	require.NoError(t, err)
	for i := range n {
		_, err := l.Append(record(i))
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	full, err := os.ReadFile(path)
	require.NoError(t, err)
	return full
}

// A crash can cut the file anywhere inside the last record: every cut is
// recovered to the records before it, the tail is reported and removed, and
// appending goes on cleanly.
func TestTornTailIsCutAndReported(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	full := writeRecords(t, path, 5)
	lastStart := recordStart(4)
	for cut := lastStart + 1; cut < len(full); cut++ {
		p := filepath.Join(dir, fmt.Sprint("cut", cut))
		require.NoError(t, os.WriteFile(p, full[:cut], 0o644))
		got, l := readAll(t, p)
		require.Len(t, got, 4, "cut at %d", cut)
		require.Equal(t, int64(cut-lastStart), l.Recovered.TornBytes)
		_, err := l.Append(record(99))
		require.NoError(t, err)
		require.NoError(t, l.Close())
		got, l = readAll(t, p)
		require.Len(t, got, 5)
		require.Equal(t, record(99), got[4])
		require.NoError(t, l.Close())
	}
	// A whole last record with garbage in its payload is not a torn write:
	// it is reported as damaged (TestDamagedLastRecordIsKeptAndReported).
	bad := append([]byte(nil), full...)
	bad[len(bad)-1] ^= 1
	p := filepath.Join(dir, "badtail")
	require.NoError(t, os.WriteFile(p, bad, 0o644))
	got, l := readAll(t, p)
	require.Len(t, got, 4)
	require.Zero(t, l.Recovered.TornBytes)
	require.NotNil(t, l.Recovered.Damaged)
	require.NoError(t, l.Close())
}

func TestCorruptionBeforeTheTailIsAnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	full := writeRecords(t, path, 5)
	full[recordStart(0)+headerSize+2] ^= 0xff // inside record 0's payload
	require.NoError(t, os.WriteFile(path, full, 0o644))
	_, err := Open(path, nil)
	require.ErrorContains(t, err, fmt.Sprintf("record 0 at byte %d: payload checksum mismatch, and a whole record follows at byte %d", recordStart(0), recordStart(1)))
}

// The crash test: a child process appends records and prints each
// acknowledged sequence number; the parent kills it with SIGKILL mid-stream
// and checks that every acknowledged record is in the log.
func TestAcknowledgedWritesSurviveKill9(t *testing.T) {
	if os.Getenv("WAL_CRASH_CHILD") != "" {
		return // the child's work happens in TestMain
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "log")
	acked := crashtest.KillAfterAcks(t, "TestAcknowledgedWritesSurviveKill9", "WAL_CRASH_CHILD", path, 300)
	got, l := readAll(t, path)
	defer l.Close()
	require.GreaterOrEqual(t, len(got), acked+1, "acknowledged %d, log holds %d", acked+1, len(got))
	for i, rec := range got {
		require.Equal(t, record(i), rec, "record %d", i)
	}
	t.Logf("child acknowledged %d records before SIGKILL; the log holds %d (torn tail %d bytes)", acked+1, len(got), l.Recovered.TornBytes)
}

func TestMain(m *testing.M) {
	if path := os.Getenv("WAL_CRASH_CHILD"); path != "" {
		l, err := Open(path, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := 0; ; i++ {
			if _, err := l.Append(record(i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Println(i) // acknowledged: Append returned after fsync
		}
	}
	os.Exit(m.Run())
}

func TestAppendBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, err := Open(path, nil)
	require.NoError(t, err)
	first, err := l.AppendBatch([][]byte{record(0), record(1), record(2)})
	require.NoError(t, err)
	require.Equal(t, uint64(0), first)
	first, err = l.AppendBatch([][]byte{record(3)})
	require.NoError(t, err)
	require.Equal(t, uint64(3), first)
	require.NoError(t, l.Close())
	got, l := readAll(t, path)
	defer l.Close()
	require.Len(t, got, 4)
	for i, rec := range got {
		require.Equal(t, record(i), rec)
	}
}
