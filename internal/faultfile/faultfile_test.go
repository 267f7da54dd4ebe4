package faultfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFaulty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("durable"), 0o644))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	boom := errors.New("boom")
	var next *Fault
	x, err := NewFaulty(f, func(op Op, n int) *Fault { ft := next; next = nil; return ft })
	require.NoError(t, err)

	next = &Fault{Err: boom, Keep: 3}
	n, err := x.WriteAt([]byte("+abcdef"), 7)
	require.ErrorIs(t, err, boom)
	require.Equal(t, 3, n)
	next = &Fault{Keep: 2} // a short write without an error
	n, err = x.WriteAt([]byte("xyz"), 10)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	next = &Fault{Err: boom}
	require.ErrorIs(t, x.Sync(), boom)
	next = &Fault{Err: boom}
	require.ErrorIs(t, x.Truncate(0), boom)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "durable+abxy", string(got), "the failed truncation did nothing")

	for _, c := range []struct {
		crash Crash
		keep  int
		want  string
	}{
		{LoseUnsynced, 0, "durable"},
		{KeepAll, 0, "durable+abxy"},
		{KeepPart, 2, "durable+a"},
		{KeepPart, 99, "durable+abxy"},
		{ZeroFill, 0, "durable\x00\x00\x00\x00\x00"},
	} {
		require.NoError(t, os.WriteFile(path, []byte("durable+abxy"), 0o644))
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		x := &Faulty{f: f, durable: []byte("durable")}
		require.NoError(t, x.Crash(c.crash, c.keep))
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, c.want, string(got), "crash %d keep %d", c.crash, c.keep)
		_, err = x.WriteAt([]byte("x"), 0)
		require.ErrorIs(t, err, ErrCrashed)
	}
}

func TestHook(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	require.NoError(t, err)
	defer f.Close()
	require.Same(t, f, Wrap("p", f))
	var x *Faulty
	restore := SetHook(func(path string, f *os.File) File {
		x, _ = NewFaulty(f, nil)
		return x
	})
	got := Wrap("p", f)
	require.NotNil(t, x)
	require.Same(t, x, got)
	restore()
	require.Same(t, f, Wrap("p", f))
}
