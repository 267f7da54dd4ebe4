package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

var (
	// progressMinBytes is the file size from which reading a graph shows
	// progress on standard error (ingest and every --graph); the real
	// graphs of testdata/ stay below it.
	progressMinBytes int64 = 16 << 20
	// progressEvery is how often a progress line is printed.
	progressEvery = time.Second
)

// progress prints, every progressEvery while a long read runs, a line on
// how far it is: the share of the file read through reader (when the
// caller reads it so), the edges counted with edge (when it counts them)
// and the seconds so far. A nil *progress does nothing.
type progress struct {
	w            io.Writer
	prefix, path string
	size         int64
	start        time.Time
	countEdges   bool
	counting     atomic.Bool // reader was called: the share read is known
	read, edges  atomic.Int64
	done, exited chan struct{}
}

// startProgress starts the progress lines of reading the file at path, or
// returns nil when w is nil or the file is smaller than progressMinBytes.
// prefix starts every line ("ingest", "loading"); countEdges says the
// caller calls edge for every edge read.
func startProgress(w io.Writer, prefix, path string, countEdges bool) *progress {
	if w == nil {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() < progressMinBytes {
		return nil
	}
	p := &progress{w: w, prefix: prefix, path: path, size: st.Size(), start: time.Now(), countEdges: countEdges,
		done: make(chan struct{}), exited: make(chan struct{})}
	go p.run()
	return p
}

func (p *progress) run() {
	defer close(p.exited)
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-tick.C:
			fmt.Fprintln(p.w, p.line())
		}
	}
}

// line is one progress line, as ingest has always printed it (share read,
// edges) with the seconds so far.
func (p *progress) line() string {
	s := fmt.Sprintf("%s: %s (%.0f MiB)", p.prefix, p.path, float64(p.size)/(1<<20))
	if p.counting.Load() {
		s = fmt.Sprintf("%s: %5.1f%% of %s read", p.prefix, 100*float64(p.read.Load())/float64(p.size), p.path)
	}
	if p.countEdges {
		s += fmt.Sprintf(", %d edges", p.edges.Load())
	}
	return s + fmt.Sprintf(", %.0f s", time.Since(p.start).Seconds())
}

// reader returns r counting the bytes read through it into the share read
// (r itself when p is nil). Call it before the read starts.
func (p *progress) reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	p.counting.Store(true)
	return &countingReader{r: r, n: &p.read}
}

// edge counts one edge read.
func (p *progress) edge() {
	if p != nil {
		p.edges.Add(1)
	}
}

// stop ends the progress lines and, when summary is not empty, prints a
// last one with it and the time the read took.
func (p *progress) stop(summary string) {
	if p == nil {
		return
	}
	close(p.done)
	<-p.exited
	if summary != "" {
		fmt.Fprintf(p.w, "%s: %s read in %.1f s: %s\n", p.prefix, p.path, time.Since(p.start).Seconds(), summary)
	}
}

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n.Add(int64(k))
	return k, err
}
