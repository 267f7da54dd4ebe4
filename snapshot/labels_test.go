package snapshot

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// rewriteSection returns the snapshot file data with section id's body
// replaced: the sections laid out again in table order, every offset,
// the section's checksum and the header's checksum recomputed, so that
// only the content can be at fault.
func rewriteSection(t testing.TB, data []byte, id uint32, body []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	count := int(le.Uint32(data[40:]))
	head := bytes.Clone(data[:headerSize+entrySize*count])
	var bodies [][]byte
	found := false
	for i := range count {
		e := head[headerSize+entrySize*i:]
		b := data[le.Uint64(e[8:]) : le.Uint64(e[8:])+le.Uint64(e[16:])]
		if le.Uint32(e[0:]) == id {
			b, found = body, true
		}
		bodies = append(bodies, b)
	}
	require.True(t, found, "section %d in the file", id)
	out := head
	for i, b := range bodies {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		e := head[headerSize+entrySize*i:]
		le.PutUint64(e[8:], uint64(len(out)))
		le.PutUint64(e[16:], uint64(len(b)))
		le.PutUint32(e[24:], crc32.Checksum(b, castagnoli))
		out = append(out, b...)
	}
	copy(out, head)
	le.PutUint32(out[44:], 0)
	le.PutUint32(out[44:], crc32.Checksum(out[:len(head)], castagnoli))
	return out
}

// section returns the body of section id of a snapshot file.
func section(data []byte, id uint32) []byte {
	le := binary.LittleEndian
	for i := range int(le.Uint32(data[40:])) {
		e := data[headerSize+entrySize*i:]
		if le.Uint32(e[0:]) == id {
			return data[le.Uint64(e[8:]) : le.Uint64(e[8:])+le.Uint64(e[16:])]
		}
	}
	return nil
}

func labelBytes(t testing.TB, l *mask.Labels) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := l.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}

// recordedLabels is mask.FromGraph without its empty bitmaps, built by Add
// so that a case can add more.
func recordedLabels(t testing.TB, g *csr.Graph) *mask.Labels {
	t.Helper()
	l := mask.NewLabels(g.NumEdges())
	for e := range uint32(g.NumEdges()) {
		require.NoError(t, l.Add(g.Edge(e).Channel, e))
	}
	return l
}

// Issue 16, defect 7: files whose labels disagree with the edge-channel
// section, checksums valid, are refused by Load with an error naming the
// edge and the channels; Save refuses to write the same labels, with the
// same words. Deletions by any channel, and channels that only delete,
// are consistent.
func TestLabelsAgreeWithEdgeChannels(t *testing.T) {
	t.Parallel()
	b := csr.NewBuilder(true)
	for i, in := range []csr.Input{
		{Src: "a", Dst: "b", Weight: 1, Channel: "alice"},
		{Src: "b", Dst: "c", Weight: 1, Channel: "bob"},
		{Src: "c", Dst: "a", Weight: 1, Channel: "alice"},
		{Src: "a", Dst: "c", Weight: 1, Channel: "bob"},
	} {
		_, err := b.AddEdge(in)
		require.NoError(t, err, "edge %d", i)
	}
	g, err := b.Build()
	require.NoError(t, err)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.snap")
	consistent := recordedLabels(t, g)
	require.NoError(t, consistent.Delete("bob", 0))     // bob deletes alice's edge
	require.NoError(t, consistent.Delete("mallory", 1)) // a channel that only deletes
	require.NoError(t, Save(good, g, consistent))
	s, err := Load(good)
	require.NoError(t, err)
	require.Equal(t, []string{"alice", "bob", "mallory"}, s.Labels.Channels())
	require.NoError(t, s.Close())
	goodBytes, err := os.ReadFile(good)
	require.NoError(t, err)

	cases := []struct {
		name  string
		label func(l *mask.Labels)
		want  string
	}{
		{"an edge added by another channel too", func(l *mask.Labels) { require.NoError(t, l.Add("bob", 2)) },
			`edge 2 is added by "alice" and "bob"; the edge-channel section records "alice"`},
		{"an edge added by a channel the graph does not know", func(l *mask.Labels) { require.NoError(t, l.Add("mallory", 3)) },
			`edge 3 is added by "bob" and "mallory"; the edge-channel section records "bob"`},
		{"an edge added by another channel only", func(l *mask.Labels) {
			*l = *mask.NewLabels(g.NumEdges())
			require.NoError(t, l.Add("alice", 0, 1, 2))
			require.NoError(t, l.Add("bob", 3))
		}, `edge 1 is added by "alice"; the edge-channel section records "bob"`},
		{"an edge added by no channel", func(l *mask.Labels) {
			*l = *mask.NewLabels(g.NumEdges())
			require.NoError(t, l.Add("alice", 0, 2))
			require.NoError(t, l.Add("bob", 3))
		}, `edge 1 is added by no channel; the edge-channel section records "bob"`},
		{"no labels at all", func(l *mask.Labels) { *l = *mask.NewLabels(g.NumEdges()) },
			`edge 0 is added by no channel; the edge-channel section records "alice"`},
	}
	for _, c := range cases {
		l := recordedLabels(t, g)
		c.label(l)
		err := Save(filepath.Join(dir, "refused.snap"), g, l)
		require.ErrorContains(t, err, "snapshot: labels: "+c.want, c.name)
		_, statErr := os.Stat(filepath.Join(dir, "refused.snap"))
		require.True(t, os.IsNotExist(statErr), "%s: Save wrote the file", c.name)

		crafted := rewriteSection(t, goodBytes, secLabels, labelBytes(t, l))
		path := filepath.Join(dir, "crafted.snap")
		require.NoError(t, os.WriteFile(path, crafted, 0o644))
		_, err = Load(path)
		require.ErrorContains(t, err, path+": section labels: "+c.want, c.name)
	}

	// The other way round: the labels stay, the edge-channel section says
	// edge 1 was written by alice.
	channels := bytes.Clone(section(goodBytes, secEdgeChannel))
	require.Equal(t, uint32(1), binary.LittleEndian.Uint32(channels[4:]), "edge 1 records bob")
	binary.LittleEndian.PutUint32(channels[4:], 0)
	path := filepath.Join(dir, "crafted-channel.snap")
	require.NoError(t, os.WriteFile(path, rewriteSection(t, goodBytes, secEdgeChannel, channels), 0o644))
	_, err = Load(path)
	require.ErrorContains(t, err, `section labels: edge 1 is added by "bob"; the edge-channel section records "alice"`)

	// rewriteSection itself makes loadable files.
	require.NoError(t, os.WriteFile(path, rewriteSection(t, goodBytes, secLabels, section(goodBytes, secLabels)), 0o644))
	s, err = Load(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

// checkLabels against the plain definition, edge by edge, on random
// labels near the recorded ones: it accepts exactly when every edge's
// adders are its recorded channel alone, and otherwise names the first
// edge that is not.
func TestCheckLabelsMatchesDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 16))
	channels := []string{"a", "b", "c", "d"}
	for round := range 400 {
		nch := 1 + rng.IntN(3)
		m := rng.IntN(70)
		if round%50 == 0 {
			m = 70_000 + rng.IntN(100) // several roaring containers
		}
		edgeChannel := make([]uint32, m)
		for e := range edgeChannel {
			edgeChannel[e] = uint32(rng.IntN(nch))
		}
		// Faults: an extra adder, or a recorded label dropped.
		dropped := map[int]bool{}
		l := mask.NewLabels(m)
		for range rng.IntN(3) {
			if m == 0 {
				break
			}
			e := rng.IntN(m)
			if rng.IntN(2) == 0 {
				require.NoError(t, l.Add(channels[rng.IntN(len(channels))], uint32(e)))
			} else {
				dropped[e] = true
			}
		}
		for e, k := range edgeChannel {
			if !dropped[e] {
				require.NoError(t, l.Add(channels[k], uint32(e)))
			}
		}
		if m > 0 && rng.IntN(4) == 0 {
			require.NoError(t, l.Delete(channels[rng.IntN(len(channels))], uint32(rng.IntN(m))))
		}
		want := ""
		for e, k := range edgeChannel {
			adders := l.ChannelsOf(uint32(e))
			if len(adders) != 1 || adders[0] != channels[k] {
				if len(adders) == 0 {
					want = "is added by no channel"
				} else {
					want = "is added by " + quoteAll(adders)
				}
				want = "edge " + strconv.Itoa(e) + " " + want + "; the edge-channel section records \"" + channels[k] + "\""
				break
			}
		}
		err := checkLabels(edgeChannel, channels[:nch], l)
		if want == "" {
			require.NoError(t, err, "round %d", round)
		} else {
			require.ErrorContains(t, err, want, "round %d", round)
		}
	}
}
