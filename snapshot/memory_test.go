package snapshot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/crashtest"
	"github.com/authppr/authppr/mask"
)

// The package doc's Memory rule, checked where breaking it faults: a graph
// made on a loaded graph's arrays keeps the mapping after Close and after
// the loaded graph is collected; names, channels, relations and labels
// outlive the mapping; and the mapping goes once nothing views it. A fault
// kills the test binary, so the checks run in a child process.
func TestMappingLifetime(t *testing.T) {
	if dir := os.Getenv("SNAPSHOT_MEMORY_CHILD"); dir != "" {
		mappingLifetime(t, dir)
		return
	}
	crashtest.RunChild(t, "TestMappingLifetime", "SNAPSHOT_MEMORY_CHILD", t.TempDir())
}

// edgeList is every edge of g, by value: what a graph must still answer
// after the snapshot it was made from is closed.
func edgeList(g *csr.Graph) []csr.Edge {
	out := make([]csr.Edge, g.NumEdges())
	for e := range out {
		ed := g.Edge(uint32(e))
		ed.Channel, ed.Relation = strings.Clone(ed.Channel), strings.Clone(ed.Relation)
		out[e] = ed
	}
	return out
}

// deriveAndDrop loads path, makes a graph of the loaded one by derive,
// closes the snapshot and returns only the derived graph and its edges.
func deriveAndDrop(t *testing.T, path string, derive func(*csr.Graph) (*csr.Graph, error)) (*csr.Graph, []csr.Edge) {
	s, err := Load(path)
	require.NoError(t, err)
	h, err := derive(s.Graph)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Nil(t, s.Graph)
	return h, edgeList(h)
}

// loadStrings loads path and returns, by themselves, its names, channels,
// relations and labels, with copies to compare them with.
func loadStrings(t *testing.T, path string) (kept, want [][]string, labels *mask.Labels) {
	s, err := Load(path)
	require.NoError(t, err)
	g := s.Graph
	var rels []string
	for e := range g.NumEdges() {
		rels = append(rels, g.Edge(uint32(e)).Relation)
	}
	kept = [][]string{g.Names(), g.Channels(), rels}
	for _, ss := range kept {
		c := make([]string, len(ss))
		for i, x := range ss {
			c[i] = strings.Clone(x)
		}
		want = append(want, c)
	}
	labels = s.Labels
	require.NoError(t, s.Close())
	return kept, want, labels
}

func mappingLifetime(t *testing.T, dir string) {
	rng := rand.New(rand.NewPCG(16, 1))
	g, l := sampleGraph(t, rng, true, true)
	derivations := []struct {
		name   string
		derive func(*csr.Graph) (*csr.Graph, error)
	}{
		{"loaded", func(g *csr.Graph) (*csr.Graph, error) { return g, nil }},
		{"Named", func(g *csr.Graph) (*csr.Graph, error) {
			names := make([]string, g.NumNodes())
			for u := range names {
				names[u] = fmt.Sprint("renamed-", u)
			}
			return csrHooks.Named(g, names)
		}},
		{"WithWeightStorage", func(g *csr.Graph) (*csr.Graph, error) {
			require.False(t, csrHooks.WithWeightStorage(g, true) == g, "the sample's weights are float32")
			return csrHooks.WithWeightStorage(g, true), nil
		}},
		{"Reorder", func(g *csr.Graph) (*csr.Graph, error) { return csr.Reorder(g, csr.DegreeOrder) }},
		{"Assemble", func(g *csr.Graph) (*csr.Graph, error) { return csrHooks.Assemble(csrHooks.Parts(g), nil) }},
	}
	for i, d := range derivations {
		path := filepath.Join(dir, fmt.Sprintf("derived-%d.snap", i))
		require.NoError(t, Save(path, g, l))
		h, want := deriveAndDrop(t, path, d.derive)
		// Time for the cleanup of a mapping nothing held to run.
		for range 20 {
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
		}
		if mapped, known := crashtest.Mapped(path); known {
			require.True(t, mapped, "%s: the mapping went while a graph made on it is reachable", d.name)
		}
		require.NoError(t, csrHooks.Validate(h), d.name) // reads every array
		require.Equal(t, want, edgeList(h), d.name)
		runtime.KeepAlive(h)
		h = nil
		crashtest.WaitUnmapped(t, path) // and no leak once nothing views it
	}

	path := filepath.Join(dir, "strings.snap")
	require.NoError(t, Save(path, g, l))
	kept, want, labels := loadStrings(t, path)
	crashtest.WaitUnmapped(t, path)
	require.Equal(t, want, kept, "names, channels and relations after the mapping went")
	require.Equal(t, l.Channels(), labels.Channels())
	for _, c := range l.Channels() {
		for _, pair := range [][2]*roaring.Bitmap{{l.Added(c), labels.Added(c)}, {l.Deleted(c), labels.Deleted(c)}} {
			require.Equal(t, pair[0] == nil, pair[1] == nil, c)
			if pair[0] != nil {
				require.True(t, pair[0].Equals(pair[1]), "labels of %q after the mapping went", c)
			}
		}
	}
}
