package csr

import (
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// gzipBomb streams gzip-compressed "a b" lines, as many as are read,
// through a pipe (never more than a few pipe buffers ahead): the issue's
// 2 MB file of 2 GB of lines, without the file. It returns the reader and
// a counter of the uncompressed bytes written; closing the reader stops
// the writer.
func gzipBomb(t *testing.T, line string) (io.ReadCloser, *atomic.Int64) {
	t.Helper()
	pr, pw := io.Pipe()
	var written atomic.Int64
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
		chunk := []byte(strings.Repeat(line, 4096))
		for {
			if _, err := zw.Write(chunk); err != nil {
				return
			}
			written.Add(int64(len(chunk)))
		}
	}()
	t.Cleanup(func() { pr.Close() })
	return pr, &written
}

// TestReadStopsAtMemoryLimit is issue 16's memory exhaustion: a gzip bomb
// of valid lines drove a read to all the machine's memory. The reader now
// stops at the line whose edge would take the build's estimate over the
// limit, naming it, having read about the limit's worth of edges.
func TestReadStopsAtMemoryLimit(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	for _, directed := range []bool{true, false} {
		r, written := gzipBomb(t, "a b\n")
		_, err := Read(r, "bomb.gz", ReadOptions{Directed: directed, MaxMemory: limit})
		var pe *ParseError
		require.ErrorAs(t, err, &pe)
		var me *MemoryError
		require.ErrorAs(t, err, &me)
		require.Equal(t, int64(limit), me.Limit)
		require.False(t, me.Default)
		require.Greater(t, me.Need, int64(limit))
		require.Equal(t, int64(2), me.Nodes)
		// Every edge costs edgeBytes: the limit's worth of them were read.
		wantLine := int((limit-2*nodeBytes("a")-labelBytes(DefaultChannel))/edgeBytes) + 1
		require.Equal(t, wantLine, pe.Line)
		require.Equal(t, int64(wantLine), me.Edges)
		require.ErrorContains(t, err, fmt.Sprintf("csr: bomb.gz:%d: edge %d (a -> b): a graph of 2 nodes and %d edges needs about", wantLine, wantLine-1, wantLine))
		require.ErrorContains(t, err, "over the memory limit of 1.0 MiB (1048576 bytes; the limit set)")
		require.Less(t, written.Load(), int64(8<<20), "the input was read as far as the limit, no further")
	}
}

// TestReadMemoryLimitCountsNames: new node names (each a line's worth of
// bytes, which the builder copies out of the line) count at their size.
func TestReadMemoryLimitCountsNames(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	long := strings.Repeat("x", 1000)
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "%s%d %s%d\n", long, i, long, i+1)
	}
	_, err := Read(strings.NewReader(sb.String()), "names.txt", ReadOptions{Directed: true, MaxMemory: limit})
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	// Each line adds one new node (about 1.2 KB): about 850 lines fit.
	require.Less(t, me.Edges, int64(1000))
	require.Greater(t, me.Edges, int64(700))
	g, err := Read(strings.NewReader(sb.String()), "names.txt", ReadOptions{Directed: true, MaxMemory: -1})
	require.NoError(t, err)
	require.Equal(t, 2001, g.NumNodes())
}

// TestBuilderMemoryLimit: each of AddNode, AddEdge and AddEdgeByID refuses
// what would cross the limit, adds nothing then, and goes on accepting
// what fits; a negative limit is none.
func TestBuilderMemoryLimit(t *testing.T) {
	t.Parallel()
	limit := 10*edgeBytes + 3*nodeBytes("n0") + labelBytes(DefaultChannel)
	b := NewBuilder(true)
	b.SetMaxMemory(limit)
	for i := range 3 {
		_, err := b.AddNode(fmt.Sprintf("n%d", i))
		require.NoError(t, err)
	}
	for range 10 {
		_, err := b.AddEdgeByID(0, 1, 1, "")
		require.NoError(t, err)
	}
	_, err := b.AddEdgeByID(1, 2, 1, "")
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	require.ErrorContains(t, err, "csr: edge 10 (1 -> 2): a graph of 3 nodes and 11 edges")
	_, err = b.AddEdge(Input{Src: "n0", Dst: "n1", Weight: 1})
	require.ErrorContains(t, err, "csr: edge 10 (n0 -> n1): a graph of 3 nodes and 11 edges")
	_, err = b.AddNode("n3")
	require.ErrorContains(t, err, `csr: node "n3": a graph of 4 nodes and 10 edges`)
	require.Equal(t, 3, b.numNodes())
	require.Equal(t, 10, b.numEdges())
	b.SetMaxMemory(-1)
	_, err = b.AddEdge(Input{Src: "n0", Dst: "n9", Weight: 1, Channel: "c", Relation: "r"})
	require.NoError(t, err)
	g, err := b.Build()
	require.NoError(t, err)
	require.NoError(t, g.checkAll())
	require.Equal(t, 11, g.NumEdges())
}

// TestFromIDsRefusesNodesBeyondMemory is issue 16's Python case
// (Graph(2**31, [(0, 1)]) allocated O(n) until the process was killed):
// the node count is refused from the counts alone, before anything
// graph-sized is allocated, naming n, the estimate and the limit.
func TestFromIDsRefusesNodesBeyondMemory(t *testing.T) {
	const n = 1 << 31
	need := fromIDsBytes(n, 1)
	in := IDEdges[int64, int32]{Nodes: n, Pairs: []int64{0, 1}, MaxMemory: 1 << 30}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := FromIDs(in)
	runtime.ReadMemStats(&after)
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	require.Equal(t, MemoryError{Nodes: n, Edges: 1, Need: need, Limit: 1 << 30}, *me)
	require.EqualError(t, err, fmt.Sprintf("csr: a graph of 2147483648 nodes and 1 edges needs about 136.0 GiB (%d bytes) to build, over the memory limit of 1.0 GiB (1073741824 bytes; the limit set)", need))
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "nothing graph-sized allocated")
	// The default limit refuses it too on any machine with less than
	// twice the estimate available.
	if defaultMaxMemory() < need {
		in.MaxMemory = 0
		in.Order = DegreeOrder
		_, err = FromIDs(in)
		require.ErrorAs(t, err, &me)
		require.True(t, me.Default)
		require.ErrorContains(t, err, "the default: half the memory available")
	}
	// Shape errors come first.
	in.Nodes = 0
	_, err = FromIDs(in)
	require.EqualError(t, err, "csr: graph has no nodes")
}

// TestMemoryEstimateCoversBuild measures both builds against their
// estimates. FromIDs allocates every array at its final size, so the
// bytes it allocates (the collector off) bound its peak; the Builder's
// peak is at most what it holds after reading (measured after a
// collection) plus everything Build allocates.
func TestMemoryEstimateCoversBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds graphs of a few hundred thousand edges")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	r := rand.New(rand.NewPCG(16, 4))
	for _, shape := range []struct{ n, m int }{{20_000, 160_000}, {120_000, 24_000}, {80_000, 80_000}} {
		for _, directed := range []bool{true, false} {
			for _, order := range []NodeOrder{StreamOrder, DegreeOrder} {
				where := fmt.Sprintf("n %d, m %d, directed %v, %v", shape.n, shape.m, directed, order)
				pairs := make([]uint32, 2*shape.m)
				w := make([]float64, shape.m)
				ch := make([]uint32, shape.m)
				for e := range shape.m {
					// Skewed degrees (a degree order has buckets to fill)
					// and weights no float32 holds (both copies).
					pairs[2*e], pairs[2*e+1] = uint32(r.IntN(1+r.IntN(shape.n))), uint32(r.IntN(shape.n))
					w[e] = r.Float64()
					ch[e] = uint32(r.IntN(3))
				}
				in := IDEdges[uint32, uint32]{Directed: directed, Nodes: shape.n, Pairs: pairs, Weights: w,
					ChannelOf: ch, ChannelNames: []string{"a", "b", "c"}, Order: order}
				runtime.GC()
				debug.SetGCPercent(-1)
				var s0, s1 runtime.MemStats
				runtime.ReadMemStats(&s0)
				g, err := FromIDs(in)
				runtime.ReadMemStats(&s1)
				debug.SetGCPercent(100)
				require.NoError(t, err)
				alloc := int64(s1.TotalAlloc - s0.TotalAlloc)
				est := fromIDsBytes(int64(shape.n), int64(shape.m))
				require.LessOrEqual(t, alloc, est, "FromIDs, %s", where)
				require.LessOrEqual(t, g.MemoryBytes(), est, "FromIDs, %s", where)
				t.Logf("FromIDs, %s: allocated %d, estimate %d (%.2fx)", where, alloc, est, float64(est)/float64(alloc))

				// The same graph through the Builder, by name, as a reader
				// feeds it: names that are slices of line strings.
				var text strings.Builder
				for e := range shape.m {
					fmt.Fprintf(&text, "node%d node%d %v %s\n", pairs[2*e], pairs[2*e+1], w[e], in.ChannelNames[ch[e]])
				}
				lines := text.String()
				runtime.GC()
				var h0, h1, h2 runtime.MemStats
				runtime.ReadMemStats(&h0)
				b := NewBuilder(directed)
				b.setNodeOrder(order)
				var strBytes int64
				require.NoError(t, Stream(strings.NewReader(lines), "g.txt", FormatEdges, func(in Input, _ int) error {
					_, err := b.AddEdge(in)
					return err
				}))
				for _, name := range b.names {
					strBytes += strCost(name)
				}
				runtime.GC()
				runtime.ReadMemStats(&h1)
				runtime.KeepAlive(lines) // live at h0 too
				debug.SetGCPercent(-1)
				nodes, used := b.numNodes(), b.used
				h, err := b.Build()
				runtime.ReadMemStats(&h2)
				debug.SetGCPercent(100)
				require.NoError(t, err)
				peak := int64(h1.HeapAlloc-h0.HeapAlloc) + int64(h2.TotalAlloc-h1.TotalAlloc)
				est = builderCost.bytes(int64(nodes), int64(shape.m), 3, strBytes+strCost("a")+strCost("b")+strCost("c"))
				require.LessOrEqual(t, peak, est, "Builder, %s", where)
				require.Equal(t, est, used, "the builder's running estimate is the formula's")
				t.Logf("Builder, %s: peak at most %d, estimate %d (%.2fx)", where, peak, est, float64(est)/float64(peak))
				runtime.KeepAlive(g)
				runtime.KeepAlive(h)
			}
		}
	}
}

// TestAvailableMemory reads MemAvailable and cgroup v1 and v2 limits from
// a file system laid out as Linux's, taking the least, with each cgroup's
// inactive file cache counted as available.
func TestAvailableMemory(t *testing.T) {
	t.Parallel()
	meminfo := "MemTotal:       24683548 kB\nMemFree:  100 kB\nMemAvailable:   1000000 kB\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
		ok    bool
	}{
		{"nothing", nil, 0, false},
		{"meminfo only", map[string]string{"proc/meminfo": meminfo}, 1000000 * 1024, true},
		{"v2, no limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/box\n",
			"sys/fs/cgroup/box/memory.max": "max\n", "sys/fs/cgroup/box/memory.current": "5000\n"}, 1000000 * 1024, true},
		{"v2 limit, cache reclaimable", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/box\n",
			"sys/fs/cgroup/box/memory.max": "100000000\n", "sys/fs/cgroup/box/memory.current": "70000000\n",
			"sys/fs/cgroup/box/memory.stat": "anon 123\ninactive_file 20000000\nactive_file 5\n"}, 50000000, true},
		{"v2 parent's limit is less", map[string]string{"proc/self/cgroup": "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "900\n", "sys/fs/cgroup/a/b/memory.current": "100\n",
			"sys/fs/cgroup/a/memory.max": "500\n", "sys/fs/cgroup/a/memory.current": "300\n"}, 200, true},
		{"v2 namespaced: the path is hidden, the mount is the cgroup", map[string]string{"proc/self/cgroup": "0::/elsewhere\n",
			"sys/fs/cgroup/memory.max": "4096\n", "sys/fs/cgroup/memory.current": "1024\n"}, 3072, true},
		{"v1", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "5:cpu,cpuacct:/x\n4:memory:/box/c1\n0::/\n",
			"sys/fs/cgroup/memory/box/c1/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/box/memory.limit_in_bytes":    "80000\n", "sys/fs/cgroup/memory/box/memory.usage_in_bytes": "30000\n",
			"sys/fs/cgroup/memory/box/memory.stat": "cache 5\ntotal_inactive_file 10000\n"}, 60000, true},
		{"over the limit", map[string]string{"proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "100\n", "sys/fs/cgroup/memory.current": "300\n"}, 0, true},
	} {
		fsys := fstest.MapFS{}
		for name, data := range c.files {
			fsys[name] = &fstest.MapFile{Data: []byte(data)}
		}
		got, ok := availableMemory(fsys)
		require.Equal(t, c.ok, ok, c.name)
		if ok {
			require.Equal(t, c.want, got, c.name)
		}
	}
	if runtime.GOOS == "linux" {
		require.Positive(t, defaultMaxMemory())
	}
	require.Equal(t, defaultMaxMemory(), memoryLimitOf(0))
	require.Equal(t, int64(123), memoryLimitOf(123))
	require.Equal(t, int64(1<<63-1), memoryLimitOf(-1))
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for b, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 1 << 30: "1.0 GiB", 1<<63 - 1: "8.0 EiB"} {
		require.Equal(t, want, formatBytes(b))
	}
}
