package snapshot

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

func sampleGraph(t testing.TB, rng *rand.Rand, directed, relations bool) (*csr.Graph, *mask.Labels) {
	t.Helper()
	b := csr.NewBuilder(directed)
	n := 2 + rng.IntN(40)
	for range 3 * n {
		in := csr.Input{
			Src: fmt.Sprint("node-", rng.IntN(n)), Dst: fmt.Sprint("node-", rng.IntN(n)),
			Weight: float64(rng.IntN(4)) / 2, Channel: []string{"default", "peer", "bot"}[rng.IntN(3)],
		}
		if relations {
			in.Relation = []string{"is_a", "part_of", "synonym"}[rng.IntN(3)]
		}
		_, err := b.AddEdge(in)
		require.NoError(t, err)
	}
	_, err := b.AddNode("isolated") // no edges
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	l := mask.FromGraph(g)
	require.NoError(t, l.Delete("peer", uint32(rng.IntN(g.NumEdges()))))
	return g, l
}

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(91, 92))
	dir := t.TempDir()
	for i := range 40 {
		g, l := sampleGraph(t, rng, i%2 == 0, i%3 == 0)
		if i%4 == 1 { // a reordered graph keeps its ranks (section rank)
			var err error
			g, err = csr.Reorder(g, csr.DegreeOrder)
			require.NoError(t, err)
			require.NotNil(t, g.Ranks())
		}
		path := filepath.Join(dir, "g.snap")
		require.NoError(t, Save(path, g, l))
		s, err := Load(path)
		require.NoError(t, err)
		require.Equal(t, csrHooks.Parts(g), loadedParts(t, s))
		for _, c := range l.Channels() {
			require.Equal(t, l.Added(c) == nil, s.Labels.Added(c) == nil)
			if l.Added(c) != nil {
				require.True(t, l.Added(c).Equals(s.Labels.Added(c)))
			}
			if l.Deleted(c) != nil {
				require.True(t, l.Deleted(c).Equals(s.Labels.Deleted(c)))
			}
		}
		// The loaded graph solves exactly as the original.
		seeds, err := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
		require.NoError(t, err)
		v1, err := mask.Authenticated(g, l, mask.Trust("default"))
		require.NoError(t, err)
		v2, err := mask.Authenticated(s.Graph, s.Labels, mask.Trust("default"))
		require.NoError(t, err)
		r1, err := ppr.Solve(v1, seeds, 0.85, ppr.Options{})
		require.NoError(t, err)
		r2, err := ppr.Solve(v2, seeds, 0.85, ppr.Options{})
		require.NoError(t, err)
		require.Equal(t, r1.Scores, r2.Scores)
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "closing twice is harmless")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
}

func TestRealGraphRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "wn18rr-train.txt.gz")
	g, err := csr.ReadFile(path, csr.ReadOptions{Format: csr.FormatTriples})
	require.NoError(t, err)
	l := mask.FromGraph(g)
	out := filepath.Join(t.TempDir(), "wn.snap")
	require.NoError(t, Save(out, g, l))
	s, err := Load(out)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, g.NumNodes(), s.Graph.NumNodes())
	require.Equal(t, csrHooks.Parts(g), loadedParts(t, s))
}

// aligned copies b into 8-byte aligned memory, as a mapping is.
func aligned(b []byte) []byte {
	words := make([]uint64, (len(b)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:len(b)]
	copy(out, b)
	return out
}

func savedBytes(t testing.TB, directed, relations bool) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(93, 94))
	g, l := sampleGraph(t, rng, directed, relations)
	path := filepath.Join(t.TempDir(), "s.snap")
	require.NoError(t, Save(path, g, l))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// Every prefix and every single-byte corruption is an error naming the
// problem; nothing panics.
func TestLoadRejectsTruncationAndCorruption(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		good := savedBytes(t, directed, true)
		_, err := parse("good", aligned(good), nil)
		require.NoError(t, err)
		for cut := 0; cut < len(good); cut += 1 + cut/50 {
			_, err := parse("cut", aligned(good[:cut]), nil)
			require.Errorf(t, err, "cut at %d of %d", cut, len(good))
			require.Contains(t, err.Error(), "snapshot: cut:")
		}
		for pos := range good {
			bad := aligned(good)
			bad[pos] ^= 0x5a
			_, err := parse("bad", bad, nil)
			require.Errorf(t, err, "byte %d of %d flipped", pos, len(good))
		}
	}
}

func TestLoadNamesTheProblem(t *testing.T) {
	t.Parallel()
	good := savedBytes(t, true, false)
	cases := map[string]func([]byte){
		"bad magic":           func(b []byte) { copy(b, "NOTASNAP") },
		"format version 9":    func(b []byte) { b[8] = 9 },
		"checksum mismatch":   func(b []byte) { b[len(b)-1] ^= 1 },
		"header: checksum":    func(b []byte) { b[20] ^= 1 },
		"past the end":        nil,
		"shorter than the 64": nil,
	}
	for want, mutate := range cases {
		var data []byte
		switch want {
		case "past the end":
			data = aligned(good[:len(good)-9])
		case "shorter than the 64":
			data = aligned(good[:10])
		default:
			data = aligned(good)
			mutate(data)
		}
		_, err := parse("x", data, nil)
		require.ErrorContainsf(t, err, want, "case %q", want)
	}
	// Load reports a missing file plainly.
	_, err := Load(filepath.Join(t.TempDir(), "nope.snap"))
	require.ErrorContains(t, err, "no such file")
}

func TestSaveIsAtomic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(95, 96))
	g, l := sampleGraph(t, rng, true, false)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.snap")
	require.NoError(t, Save(path, g, l))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	// Labels for another graph: Save refuses and the old file stays.
	err = Save(path, g, mask.NewLabels(g.NumEdges()+1))
	require.ErrorContains(t, err, "labels cover")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after)
	// A directory that does not exist is an error, not a partial file.
	err = Save(filepath.Join(dir, "missing", "s.snap"), g, l)
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "snapshot:"))
}

// FuzzParse feeds arbitrary bytes (and mutations of a real file) to the
// loader: it must return an error or a graph that passed validation, and
// never panic.
func FuzzParse(f *testing.F) {
	f.Add(savedBytes(f, true, true))
	f.Add(savedBytes(f, false, false))
	f.Add([]byte("APPRSNP1"))
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzParse.zip
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse("fuzz", aligned(data), nil)
		if err == nil {
			require.NoError(t, csrHooks.Validate(s.Graph))
		}
	})
}

// sectionSumsPlain is the one-loop reference for sectionSums.
func sectionSumsPlain(bodies [][]byte) []uint32 {
	sums := make([]uint32, len(bodies))
	for i, b := range bodies {
		sums[i] = crc32.Checksum(b, castagnoli)
	}
	return sums
}

// TestSectionSumsMatchPlain: the two-goroutine checksums are the one-loop
// checksums, body for body, for 0, 1, 2 and many bodies of awkward lengths.
func TestSectionSumsMatchPlain(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 0xC2C))
	for _, count := range []int{0, 1, 2, 3, 7, 19} {
		bodies := make([][]byte, count)
		for i := range bodies {
			b := make([]byte, []int{0, 1, 7, 8, 15, 16, 17, 63, 64, 65, 4096, 100003}[r.IntN(12)])
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			bodies[i] = b
		}
		require.Equal(t, sectionSumsPlain(bodies), sectionSums(bodies), "%d bodies", count)
	}
}

// TestFusedMatchesPlain: the fused pass (checksums in the checked assembly's
// blocks) and the plain pass (checksums first) accept exactly the same
// files: the good ones, and none of the single-byte corruptions or
// truncations; parse reports the plain pass's fault.
func TestFusedMatchesPlain(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{true, false} {
		for _, relations := range []bool{true, false} {
			good := savedBytes(t, directed, relations)
			_, errF := parseWith("good", aligned(good), nil, true)
			_, errP := parseWith("good", aligned(good), nil, false)
			require.NoError(t, errF)
			require.NoError(t, errP)
			for pos := range good {
				bad := aligned(good)
				bad[pos] ^= 1 << (pos % 8)
				_, errF := parseWith("bad", bad, nil, true)
				_, errP := parseWith("bad", bad, nil, false)
				where := fmt.Sprintf("directed=%v relations=%v byte %d: fused %v, plain %v", directed, relations, pos, errF, errP)
				require.Equal(t, errP == nil, errF == nil, where)
				_, err := parse("bad", bad, nil)
				require.Equal(t, fmt.Sprint(errP), fmt.Sprint(err), where)
			}
		}
	}
}

// TestWeightStorageRoundTrip: a graph whose weights are stored as float32
// is saved with flag bit 2 and float32 weight sections and loads as
// float32 (no copy); the same graph stored as float64 saves and loads as
// float64; both solve to the same bits.
func TestWeightStorageRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(93, 94))
	dir := t.TempDir()
	for i := range 8 {
		g32, l := sampleGraph(t, rng, i%2 == 0, i%3 == 0)
		require.True(t, csrHooks.Float32(g32), "sampleGraph's weights are exactly float32")
		seeds, err := ppr.NewSeeds(g32.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
		require.NoError(t, err)
		var scores [][]float64
		for _, g := range []*csr.Graph{g32, csrHooks.WithWeightStorage(g32, true)} {
			path := filepath.Join(dir, "g.snap")
			require.NoError(t, Save(path, g, l))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, csrHooks.Float32(g), binary.LittleEndian.Uint32(data[12:])&flagFloat32 != 0)
			s, err := Load(path)
			require.NoError(t, err)
			require.Equal(t, csrHooks.Float32(g), csrHooks.Float32(s.Graph))
			require.Equal(t, csrHooks.Parts(g), loadedParts(t, s))
			v, err := mask.Authenticated(s.Graph, s.Labels, mask.Trust("default"))
			require.NoError(t, err)
			r, err := ppr.Solve(v, seeds, 0.85, ppr.Options{})
			require.NoError(t, err)
			scores = append(scores, r.Scores)
			require.NoError(t, s.Close())
		}
		require.Equal(t, scores[0], scores[1], "the same bits from either storage")
	}
}

// A graph FromIDs built straight in degree order (names through the ranks)
// saves and loads with its names, ranks and arrays.
func TestDegreeOrderedFromIDsRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(93, 94))
	n := 200
	in := csr.IDEdges[uint32, uint32]{Directed: true, Nodes: n, Order: csr.DegreeOrder}
	for range 1500 {
		in.Pairs = append(in.Pairs, uint32(rng.IntN(n)), uint32(rng.IntN(n/10)))
	}
	g, err := csr.FromIDs(in)
	require.NoError(t, err)
	require.NotNil(t, g.Ranks(), "built in degree order")
	path := filepath.Join(t.TempDir(), "g.snap")
	require.NoError(t, Save(path, g, mask.FromGraph(g)))
	s, err := Load(path)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, csrHooks.Parts(g), loadedParts(t, s))
	for u := range uint32(n) {
		require.Equal(t, g.Name(u), s.Graph.Name(u))
		id, ok := s.Graph.ID(g.Name(u))
		require.True(t, ok)
		require.Equal(t, u, id)
	}
}

// loadedParts returns the arrays of a loaded snapshot's graph, checking
// that the graph holds its mapping's owner; the Owner returned is nil, as
// a built graph's is, so that the arrays compare with the saved graph's.
func loadedParts(t testing.TB, s *Snapshot) csrhook.Parts[csr.Adjacency, csr.Weights] {
	t.Helper()
	p := csrHooks.Parts(s.Graph)
	require.IsType(t, &mapping{}, p.Owner, "a loaded graph holds its mapping")
	p.Owner = nil
	return p
}
