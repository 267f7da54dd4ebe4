package snapshot

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A snapshot keeps the progress of the store it was taken of (section 20);
// a file without the section reads as zero progress, and a damaged
// progress section is refused.
func TestProgressRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	dir := t.TempDir()
	g, l := sampleGraph(t, rng, true, false)

	plain := filepath.Join(dir, "plain.snap")
	require.NoError(t, Save(plain, g, l))
	s, err := Load(plain)
	require.NoError(t, err)
	require.Equal(t, Progress{}, s.Progress)

	want := Progress{Position: 1<<40 + 7, Batches: 12345}
	path := filepath.Join(dir, "progress.snap")
	require.NoError(t, SaveProgress(path, g, l, want))
	s, err = Load(path)
	require.NoError(t, err)
	require.Equal(t, want, s.Progress)
	require.Equal(t, csrHooks.Parts(g), loadedParts(t, s))

	// A zero progress writes no section: the file is Save's, byte for byte.
	zero := filepath.Join(dir, "zero.snap")
	require.NoError(t, SaveProgress(zero, g, l, Progress{}))
	a, err := os.ReadFile(plain)
	require.NoError(t, err)
	b, err := os.ReadFile(zero)
	require.NoError(t, err)
	require.Equal(t, a, b)

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	for pos := range good {
		bad := aligned(good)
		bad[pos] ^= 0x5a
		_, err := parse("bad", bad, nil)
		require.Errorf(t, err, "byte %d of %d flipped", pos, len(good))
	}
}
