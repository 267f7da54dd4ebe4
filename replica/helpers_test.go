package replica

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/internal/natstest"
	"github.com/authppr/authppr/store"
)

var long = flag.Bool("long", false, "run the replication tests at full size (thousands of batches, more kills)")

const (
	memory   = "mem"
	password = "pw"
)

var trusted = []string{"default", "peer"}

// users: an admin (JetStream API rights, the followers') and one writer per
// channel, each allowed to publish on its own subject only.
func users() []natstest.User {
	us := []natstest.User{{Name: "admin", Password: password}}
	for _, c := range []string{"default", "peer", "mallory"} {
		us = append(us, natstest.Writer(c, password, subjectOf(memory, c)))
	}
	return us
}

func connect(t testing.TB, urls, user string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(urls, nats.UserInfo(user, password), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.Name("test "+user))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

func jetStream(t testing.TB, nc *nats.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// ensureStream creates the stream, retrying while the cluster elects its
// meta leader.
func ensureStream(t testing.TB, js jetstream.JetStream, replicas int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, 2*time.Second)
		_, err := EnsureStream(attempt, js, memory, replicas)
		cancelAttempt()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("stream: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// batchLines returns n write events of channel as event lines: edges among
// a small pool of names (so writers touch each other's nodes), deletions,
// a merge now and then, and now and then a batch the store refuses (a merge
// of a node no one made).
func batchLines(rng *rand.Rand, channel string, n, opsPer int) [][]byte {
	var lines [][]byte
	name := func() string {
		if rng.IntN(4) == 0 {
			return fmt.Sprintf("p%d", rng.IntN(6))
		}
		return fmt.Sprintf("n%d", rng.IntN(30))
	}
	for i := range n {
		var ops []map[string]any
		for range opsPer {
			switch r := rng.IntN(20); {
			case r < 16:
				ops = append(ops, map[string]any{"op": "edge", "src": name(), "dst": name(), "weight": float64(1+rng.IntN(4)) / 2})
			case r < 19:
				ops = append(ops, map[string]any{"op": "delete", "src": name(), "dst": name()})
			default:
				ops = append(ops, map[string]any{"op": "merge", "from": name(), "into": name()})
			}
		}
		if i%17 == 5 {
			ops = append(ops, map[string]any{"op": "merge", "from": "nobody-" + channel, "into": "n1"})
		}
		b, _ := json.Marshal(map[string]any{"write": map[string]any{"channel": channel, "ops": ops}})
		lines = append(lines, b)
	}
	return lines
}

func queries() []*live.Query {
	var qs []*live.Query
	for i := range 4 {
		qs = append(qs, &live.Query{ID: fmt.Sprintf("q%d", i), K: 2,
			Seeds:      []live.Seed{{Name: fmt.Sprintf("n%d", i), Weight: 1}},
			Candidates: []string{"p0", "p1", "p2", "p3", "p4", "p5"}})
	}
	return qs
}

// answer is a record without its timings, or the query's error.
type answer struct {
	Rec *live.Record
	Err string
}

func answerAll(t testing.TB, ask func(*live.Query) (*live.Record, error)) []answer {
	t.Helper()
	var out []answer
	for _, q := range queries() {
		rec, err := ask(q)
		if err != nil {
			out = append(out, answer{Err: err.Error()})
			continue
		}
		rec.NativeUS, rec.GuardUS = 0, 0
		out = append(out, answer{Rec: rec})
	}
	return out
}

// reference is `pprbench live` on the same events: a live.Runner on an
// in-memory store applying the acknowledged batches in stream order.
type reference struct {
	st  *store.Store
	run *live.Runner
}

func newReference(t testing.TB, directed bool) *reference {
	t.Helper()
	st, err := store.New(nil, nil, store.Options{Directed: directed})
	require.NoError(t, err)
	run, err := live.NewRunner(st, live.Options{Damping: 0.85, Trust: trusted})
	require.NoError(t, err)
	return &reference{st: st, run: run}
}

func (r *reference) apply(t testing.TB, line []byte) {
	t.Helper()
	ev, err := live.Parse(line, 1)
	require.NoError(t, err)
	r.run.Apply(ev.Write) // a refused batch is applied not at all, as by the followers
}

// answers answers the queries as answersOf does a follower's: with a new
// runner, whose cache starts cold, so that the two compute the same states
// (a cache warmed at earlier checkpoints reaches them by another history,
// equal within the tolerance but not to the last bit, which picks among
// tied passages).
func (r *reference) answers(t testing.TB, seq uint64) []answer {
	run, err := live.NewRunner(r.st, live.Options{Damping: 0.85, Trust: trusted})
	require.NoError(t, err)
	return answerAll(t, func(q *live.Query) (*live.Record, error) {
		rec, err := run.Answer(q)
		if rec != nil {
			rec.Seq = &seq
		}
		return rec, err
	})
}

// requireSameStore checks that two versions hold the same nodes and edges,
// id for id (so the same batches, applied in the same order, once).
func requireSameStore(t testing.TB, want, got *store.Version) {
	t.Helper()
	require.Equal(t, want.Batches(), got.Batches(), "batches")
	require.Equal(t, want.NumNodes(), got.NumNodes(), "nodes")
	require.Equal(t, want.NumEdges(), got.NumEdges(), "edges")
	for u := range uint32(want.NumNodes()) {
		require.Equal(t, want.Name(u), got.Name(u), "node %d", u)
	}
	for e := range uint32(want.NumEdges()) {
		require.Equal(t, want.Edge(e), got.Edge(e), "edge %d", e)
	}
}

// answersOf answers queries on f's store as pprbench follow does: a
// live.Runner on it, each record carrying the follower's sequence.
func answersOf(t testing.TB, f *Follower) func(*live.Query) (*live.Record, error) {
	t.Helper()
	run, err := live.NewRunner(f.Store(), live.Options{Damping: 0.85, Trust: trusted})
	require.NoError(t, err)
	return func(q *live.Query) (*live.Record, error) {
		seq := f.Status().Seq
		rec, err := run.Answer(q)
		if rec != nil {
			rec.Seq = &seq
		}
		return rec, err
	}
}

func openFollower(t testing.TB, js jetstream.JetStream, dir string) *Follower {
	t.Helper()
	f, err := Open(context.Background(), js, memory, Options{Dir: dir, Directed: true})
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
