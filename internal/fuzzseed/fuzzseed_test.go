package fuzzseed

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecode: every type go test writes into a corpus file decodes to the
// value and type it stands for.
func TestDecode(t *testing.T) {
	t.Parallel()
	file := "go test fuzz v1\n" +
		"[]byte(\"\\x00a\\xff\")\n" +
		"string(\"h\\u00e9\")\n" +
		"bool(true)\n" +
		"bool(false)\n" +
		"byte('\\x7f')\n" +
		"byte('A')\n" +
		"uint8(200)\n" +
		"rune('é')\n" +
		"int(-3)\n" +
		"int8(-128)\n" +
		"int16(32767)\n" +
		"int32(-7)\n" +
		"int64(-9223372036854775808)\n" +
		"uint(7)\n" +
		"uint16(65535)\n" +
		"uint32(4294967295)\n" +
		"uint64(18446744073709551615)\n" +
		"float32(1.5)\n" +
		"float64(-0.25)\n" +
		"math.Float64frombits(0x7ff8000000000001)\n" +
		"math.Float32frombits(0x7fc00001)\n"
	got, err := Decode([]byte(file))
	require.NoError(t, err)
	want := []any{[]byte("\x00a\xff"), "hé", true, false, byte(0x7f), byte('A'), uint8(200), 'é', -3, int8(-128),
		int16(32767), int32(-7), int64(math.MinInt64), uint(7), uint16(65535), uint32(math.MaxUint32),
		uint64(math.MaxUint64), float32(1.5), -0.25}
	require.Equal(t, want, got[:len(want)])
	require.Equal(t, uint64(0x7ff8000000000001), math.Float64bits(got[len(want)].(float64)))
	require.Equal(t, uint32(0x7fc00001), math.Float32bits(got[len(want)+1].(float32)))
	require.Len(t, got, len(want)+2)
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, msg string }{
		{"", `first line "", want "go test fuzz v1"`},
		{"go test fuzz v2\nbool(true)\n", `first line "go test fuzz v2"`},
		{"go test fuzz v1\n", "no values"},
		{"go test fuzz v1\nbyte(256)\n", "line 2: byte: 256 out of range"},
		{"go test fuzz v1\nint8(128)\n", "line 2: int8: 128 out of range"},
		{"go test fuzz v1\nuint8(-1)\n", "line 2: uint8: -1 out of range"},
		{"go test fuzz v1\ncomplex64(1)\n", "unsupported type complex64"},
		{"go test fuzz v1\n[]int(\"x\")\n", "unsupported type"},
		{"go test fuzz v1\nbool(1)\n", "bool: want true or false"},
		{"go test fuzz v1\n[]byte(x)\n", "want a string literal"},
		{"go test fuzz v1\nos.Exit(1)\n", "unsupported call"},
		{"go test fuzz v1\nuint32(\n", "line 2"},
	} {
		_, err := Decode([]byte(c.file))
		require.ErrorContains(t, err, c.msg, "%q", c.file)
	}
}

// TestPack: packing merges loose files into the zip in name order,
// removes them, gives the same bytes for the same seeds, and refuses an
// undecodable file or a name the zip holds with other bytes, changing
// nothing.
func TestPack(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "FuzzX")
	write := func(name, body string) {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("go test fuzz v1\n"+body), 0o644))
	}
	write("b", "[]byte(\"two\")\nuint32(2)\n")
	write("a", "[]byte(\"one\")\nuint32(1)\n")
	n, err := Pack(dir)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "the loose directory goes")
	first, err := os.ReadFile(dir + ".zip")
	require.NoError(t, err)

	write("c", "[]byte(\"three\")\nuint32(3)\n")
	n, err = Pack(dir)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	seeds, err := Read(dir + ".zip")
	require.NoError(t, err)
	require.Equal(t, [][]any{{[]byte("one"), uint32(1)}, {[]byte("two"), uint32(2)}, {[]byte("three"), uint32(3)}}, seeds)

	// The same seeds packed again elsewhere give the same bytes.
	other := filepath.Join(t.TempDir(), "FuzzX")
	require.NoError(t, os.MkdirAll(other, 0o755))
	for name, body := range map[string]string{"a": "[]byte(\"one\")\nuint32(1)\n", "b": "[]byte(\"two\")\nuint32(2)\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(other, name), []byte("go test fuzz v1\n"+body), 0o644))
	}
	_, err = Pack(other)
	require.NoError(t, err)
	again, err := os.ReadFile(other + ".zip")
	require.NoError(t, err)
	require.Equal(t, first, again)

	before, err := os.ReadFile(dir + ".zip")
	require.NoError(t, err)
	write("a", "[]byte(\"changed\")\nuint32(1)\n")
	_, err = Pack(dir)
	require.ErrorContains(t, err, "already holds another seed of that name")
	require.NoError(t, os.Remove(filepath.Join(dir, "a")))
	write("d", "not a seed\n")
	_, err = Pack(dir)
	require.ErrorContains(t, err, "line 2")
	after, err := os.ReadFile(dir + ".zip")
	require.NoError(t, err)
	require.Equal(t, before, after, "a refused pack changes nothing")
	_, err = os.Stat(filepath.Join(dir, "d"))
	require.NoError(t, err, "a refused pack removes nothing")
}

// FuzzSeeds runs Add on a packed corpus of this package's own
// (testdata/fuzz/FuzzSeeds.zip: "one" 1 and "two" 2), so the helper is
// exercised as the targets use it: every packed seed reaches the target,
// and only those.
func FuzzSeeds(f *testing.F) {
	want := map[string]uint32{"one": 1, "two": 2}
	seeds, err := Read(filepath.Join("testdata", "fuzz", "FuzzSeeds.zip"))
	require.NoError(f, err)
	require.Len(f, seeds, len(want))
	Add(f)
	seen := map[string]bool{}
	f.Fuzz(func(t *testing.T, data []byte, n uint32) {
		if w, ok := want[string(data)]; ok && w == n {
			seen[string(data)] = true
			return
		}
		if !testing.Short() && len(seen) == len(want) {
			return // fuzzing past the seeds
		}
		t.Fatalf("input %q %d is not a packed seed", data, n)
	})
}
