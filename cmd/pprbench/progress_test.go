package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer safe for the progress goroutine and the
// test to use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// setProgress sets the progress threshold and period for one test.
func setProgress(t *testing.T, minBytes int64, every time.Duration) {
	oldMin, oldEvery := progressMinBytes, progressEvery
	progressMinBytes, progressEvery = minBytes, every
	t.Cleanup(func() { progressMinBytes, progressEvery = oldMin, oldEvery })
}

// A --graph below the threshold loads silently; at or above it, loading
// ends with a line on stderr, for text and PPREDGE1 files alike.
func TestLoadProgress(t *testing.T) {
	graph := writeFile(t, "g.tsv", tiny)
	code, _, errOut := runCLI("solve", "--graph", graph, "--seeds", "q", "--k", "3")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut, "a small graph shows no progress")

	setProgress(t, int64(len(tiny)), time.Hour)
	code, _, errOut = runCLI("solve", "--graph", graph, "--seeds", "q", "--k", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "loading: "+graph+" read in ")
	require.Contains(t, errOut, " nodes, ")

	bin := writePPREDGE1(t, 300)
	code, _, errOut = runCLI("solve", "--graph", bin, "--format", "ppredge", "--seeds", "3", "--k", "3")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "loading: "+bin+" read in ")
	require.Contains(t, errOut, "300 nodes")

	// Snapshots map in at once: no progress.
	snap := writeFile(t, "x", "")
	code, _, errOut = runCLI("ingest", "--graph", graph, "--out", snap)
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI("solve", "--snapshot", snap, "--seeds", "q", "--k", "3")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "loading")
}

// The periodic lines say the share of the file read, the edges counted and
// the seconds so far.
func TestProgressLines(t *testing.T) {
	setProgress(t, 100, time.Millisecond)
	path := writeFile(t, "g.tsv", strings.Repeat("x", 200))
	require.Nil(t, startProgress(nil, "ingest", path, true), "no writer, no progress")
	var out lockedBuffer
	p := startProgress(&out, "ingest", path, true)
	require.NotNil(t, p)
	_, err := p.reader(strings.NewReader(strings.Repeat("y", 200))).Read(make([]byte, 50))
	require.NoError(t, err)
	p.edge()
	p.edge()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), " 25.0% of "+path+" read, 2 edges, ") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.Contains(t, out.String(), "ingest:  25.0% of "+path+" read, 2 edges, ")
	p.stop("2 edges")
	require.Contains(t, out.String(), "ingest: "+path+" read in ")
	require.True(t, strings.HasSuffix(out.String(), ": 2 edges\n"), out.String())

	setProgress(t, 201, time.Millisecond)
	require.Nil(t, startProgress(&out, "ingest", path, true), "a file below the threshold shows none")
	var nilProgress *progress
	nilProgress.edge()
	nilProgress.stop("nothing")
}
