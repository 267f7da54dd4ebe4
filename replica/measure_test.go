package replica

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/internal/natstest"
)

var (
	measure   = flag.Bool("measure", false, "run TestMeasure: the throughput figures of docs/scale-out.md (minutes)")
	measureKG = flag.String("kg", filepath.Join(bench.AnchorsDir(), "kg.edges.bin"), "the 250k-node KG for TestMeasure's snapshot start (anchors/gen_graph.py kg)")
	kgTail    = flag.Int("kg-tail", 100000, "TestMeasure: batches published after the KG's snapshot")
)

// edgePayload is a batch of edges as a message payload.
func edgePayload(edges [][2]string) []byte {
	ops := make([]map[string]any, len(edges))
	for i, e := range edges {
		ops[i] = map[string]any{"op": "edge", "src": e[0], "dst": e[1], "weight": 1}
	}
	b, _ := json.Marshal(map[string]any{"ops": ops})
	return b
}

// publishAsync publishes payloads on subject with up to window
// acknowledgements outstanding and waits for all of them.
func publishAsync(t testing.TB, js jetstream.JetStream, subject string, payloads [][]byte) {
	t.Helper()
	var futs []jetstream.PubAckFuture
	for i, p := range payloads {
		msg := nats.NewMsg(subject)
		msg.Data = p
		f, err := js.PublishMsgAsync(msg, jetstream.WithMsgID(fmt.Sprintf("%s-%d-%d", subject, time.Now().UnixNano(), i)))
		require.NoError(t, err)
		futs = append(futs, f)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(10 * time.Minute):
		t.Fatal("async publishes not acknowledged in 10 minutes")
	}
	for _, f := range futs {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			t.Fatal(err)
		}
	}
}

// TestMeasure measures what docs/scale-out.md reports: acknowledged
// batches/s of 100 edges through a 3-server cluster (one writer waiting
// for each ack, 8 such writers, one writer pipelining), a follower's apply
// rate, and a new follower's time to serve from a snapshot of the KG plus a
// tail. go test ./replica -run TestMeasure -measure -v -timeout 60m
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("-measure runs the measurements")
	}
	t.Run("cluster", measureCluster)
	t.Run("kg", measureKGStart)
}

func measureCluster(t *testing.T) {
	c := natstest.Start(t, 3, users())
	js := jetStream(t, connect(t, c.URLs(), "admin"))
	ensureStream(t, js, 3)
	ctx := timeout(t, 30*time.Minute)
	rng := rand.New(rand.NewPCG(1, 2))
	batch := func() []byte {
		edges := make([][2]string, 100)
		for i := range edges {
			edges[i] = [2]string{fmt.Sprintf("n%d", rng.IntN(100000)), fmt.Sprintf("n%d", rng.IntN(100000))}
		}
		return edgePayload(edges)
	}
	const n = 2000
	payloads := make([][]byte, n)
	for i := range payloads {
		payloads[i] = batch()
	}
	t.Logf("batch payload: %d bytes (100 edges)", len(payloads[0]))

	p, err := NewPublisher(connect(t, c.URLs(), "default"), memory)
	require.NoError(t, err)
	start := time.Now()
	for i, pl := range payloads[:n/2] {
		_, err := p.Publish(ctx, "default", pl, fmt.Sprintf("seq-%d", i))
		require.NoError(t, err)
	}
	el := time.Since(start)
	t.Logf("one writer, waiting for each ack: %d batches in %v: %.0f batches/s (%.0f edges/s), %.2f ms per ack",
		n/2, el.Round(time.Millisecond), float64(n/2)/el.Seconds(), 100*float64(n/2)/el.Seconds(), el.Seconds()*1000/float64(n/2))

	const writers = 8
	var wg sync.WaitGroup
	start = time.Now()
	for w := range writers {
		pw, err := NewPublisher(connect(t, c.URLs(), "admin"), memory)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += writers {
				if _, err := pw.Publish(ctx, "peer", payloads[i], fmt.Sprintf("conc-%d", i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	el = time.Since(start)
	t.Logf("%d writers, each waiting for its acks: %d batches in %v: %.0f batches/s (%.0f edges/s)",
		writers, n, el.Round(time.Millisecond), float64(n)/el.Seconds(), 100*float64(n)/el.Seconds())

	pjs, err := jetstream.New(connect(t, c.URLs(), "admin"), jetstream.WithPublishAsyncMaxPending(256))
	require.NoError(t, err)
	start = time.Now()
	publishAsync(t, pjs, subjectOf(memory, "mallory"), payloads)
	el = time.Since(start)
	t.Logf("one writer pipelining (256 acks outstanding): %d batches in %v: %.0f batches/s (%.0f edges/s)",
		n, el.Round(time.Millisecond), float64(n)/el.Seconds(), 100*float64(n)/el.Seconds())

	total := uint64(n/2 + 2*n)
	f := openFollower(t, js, t.TempDir())
	start = time.Now()
	require.NoError(t, f.CatchUp(ctx, total))
	el = time.Since(start)
	t.Logf("follower (durable store, one fsync per batch) applied %d batches of 100 edges in %v: %.0f batches/s (%.0f edges/s)",
		total, el.Round(time.Millisecond), float64(total)/el.Seconds(), 100*float64(total)/el.Seconds())
}

func measureKGStart(t *testing.T) {
	if _, err := os.Stat(*measureKG); err != nil {
		t.Skipf("%s: %v (make it with anchors/gen_graph.py kg, see anchors/README.md)", *measureKG, err)
	}
	g, err := csr.ReadFile(*measureKG, csr.ReadOptions{Format: csr.FormatPPREDGE1})
	require.NoError(t, err)
	t.Logf("KG: %d nodes, %d edges", g.NumNodes(), g.NumEdges())
	c := natstest.Start(t, 1, users())
	js := jetStream(t, connect(t, c.URLs(), "admin"))
	ensureStream(t, js, 1)
	ctx := timeout(t, 50*time.Minute)

	// The KG arrives as write batches of 100 edges, as any initial graph.
	var payloads [][]byte
	var edges [][2]string
	for e := range uint32(g.NumEdges()) {
		ed := g.Edge(e)
		edges = append(edges, [2]string{g.Name(ed.Src), g.Name(ed.Dst)})
		if len(edges) == 100 || int(e) == g.NumEdges()-1 {
			payloads = append(payloads, edgePayload(edges))
			edges = edges[:0]
		}
	}
	pjs, err := jetstream.New(connect(t, c.URLs(), "admin"), jetstream.WithPublishAsyncMaxPending(256))
	require.NoError(t, err)
	start := time.Now()
	publishAsync(t, pjs, subjectOf(memory, "default"), payloads)
	t.Logf("published the KG as %d batches in %v", len(payloads), time.Since(start).Round(time.Millisecond))

	f, err := Open(ctx, js, memory, Options{Dir: t.TempDir(), Directed: false, CompactAt: 1 << 20})
	require.NoError(t, err)
	defer f.Close()
	start = time.Now()
	require.NoError(t, f.CatchUp(ctx, uint64(len(payloads))))
	el := time.Since(start)
	t.Logf("a follower applied the KG's %d batches in %v: %.0f batches/s", len(payloads), el.Round(time.Millisecond), float64(len(payloads))/el.Seconds())
	start = time.Now()
	info, err := f.PublishSnapshot(ctx, Retention{Keep: 1, Purge: true})
	require.NoError(t, err)
	t.Logf("published snapshot %s: %d bytes in %v (materialise, save, put)", info.Name, info.Size, time.Since(start).Round(time.Millisecond))

	// The tail: single-edge batches among the KG's nodes.
	rng := rand.New(rand.NewPCG(3, 4))
	tail := make([][]byte, *kgTail)
	for i := range tail {
		tail[i] = edgePayload([][2]string{{g.Name(uint32(rng.IntN(g.NumNodes()))), g.Name(uint32(rng.IntN(g.NumNodes())))}})
	}
	start = time.Now()
	publishAsync(t, pjs, subjectOf(memory, "peer"), tail)
	t.Logf("published a tail of %d single-edge batches in %v", len(tail), time.Since(start).Round(time.Millisecond))
	last := info.Position + uint64(len(tail))

	start = time.Now()
	nf, err := Open(ctx, js, memory, Options{Dir: t.TempDir(), Directed: false, CompactAt: 1 << 20})
	require.NoError(t, err)
	defer nf.Close()
	require.NotNil(t, nf.started())
	installed := time.Since(start)
	require.NoError(t, nf.CatchUp(ctx, last))
	caught := time.Since(start)
	q := &live.Query{ID: "first", K: 5, Seeds: []live.Seed{{Name: g.Name(0), Weight: 1}}}
	_, err = answersOf(t, nf)(q)
	require.NoError(t, err)
	served := time.Since(start)
	t.Logf("new follower: snapshot fetched and installed in %v, %d-batch tail applied by %v (%.0f batches/s), first guarded answer at %v",
		installed.Round(time.Millisecond), len(tail), caught.Round(time.Millisecond),
		float64(len(tail))/(caught-installed).Seconds(), served.Round(time.Millisecond))
}
