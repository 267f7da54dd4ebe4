package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/natstest"
)

// replicaWrites holds a query that publish skips and live answers
// mid-stream; its seeds are no later query's, so the guard's cache holds
// the same states for those in live as in a follower that never saw it
// (a recurring seed set starts from its kept state, and the path a
// decision takes depends on that state: the decision does not).
const replicaWrites = `{"write": {"channel": "default", "ops": [{"op": "edge", "src": "q", "dst": "alice"}, {"op": "edge", "src": "q", "dst": "bob"}, {"op": "edge", "src": "alice", "dst": "p1"}, {"op": "edge", "src": "bob", "dst": "p2"}, {"op": "edge", "src": "alice", "dst": "p2", "weight": 0.5}, {"op": "edge", "src": "carol", "dst": "p3"}, {"op": "edge", "src": "bob", "dst": "carol", "weight": 0.2}]}}
{"write": {"channel": "mallory", "ops": [{"op": "edge", "src": "q", "dst": "p3", "weight": 3}]}}
{"query": {"id": "ignored-by-publish", "seeds": {"alice": 1}, "k": 1}}
{"write": {"channel": "mallory", "ops": [{"op": "edge", "src": "zed", "dst": "p3", "weight": 9}, {"op": "merge", "from": "nobody", "into": "bob"}]}}
{"write": {"channel": "mallory", "ops": [{"op": "edge", "src": "ghost", "dst": "p3"}]}}
{"write": {"channel": "resolver", "ops": [{"op": "merge", "from": "ghost", "into": "bob"}]}}
`

const replicaQueries = `{"query": {"id": "attacked", "seeds": {"q": 1}, "k": 1, "candidates": ["p1", "p2", "p3"]}}
{"query": {"id": "all", "seeds": {"q": 1, "alice": 0.5}, "k": 3}}
`

// stripTimes drops the timings (and seq) of output records, keyed by id.
func stripTimes(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	recs := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		require.Contains(t, r, "native_us")
		delete(r, "native_us")
		delete(r, "guard_us")
		delete(r, "seq")
		recs[r["id"].(string)] = r
	}
	return recs
}

// publish and follow against a real server: every batch acknowledged with
// its sequence; follow's records are live's on the same events plus the
// sequence; a principal publishing on another channel's subject is refused
// (exit 1, the subject named) and changes nothing; a follower resumes its
// directory; a new follower starts from a published snapshot.
func TestPublishFollow(t *testing.T) {
	users := []natstest.User{{Name: "admin", Password: "pw"}, natstest.Writer("mallory", "pw", "authppr.m.w.mallory")}
	c := natstest.Start(t, 1, users)
	events := writeFile(t, "ev.jsonl", replicaWrites)
	queries := writeFile(t, "q.jsonl", replicaQueries)
	conn := []string{"--nats", c.URLs(), "--memory", "m", "--password", "pw"}
	follow := func(dir string, extra ...string) (int, string, string) {
		args := append([]string{"follow"}, conn...)
		args = append(args, "--user", "admin", "--dir", dir, "--undirected", "--damping", "0.5",
			"--trust", "default,resolver", "--queries", queries)
		return runCLI(append(args, extra...)...)
	}

	// follow creates the stream (nothing to wait for yet).
	code, out, errOut := follow(filepath.Join(t.TempDir(), "first"), "--until", "0")
	require.Equal(t, 1, code, errOut) // the queries name nodes no batch made yet
	require.Empty(t, out)

	code, out, errOut = runCLI(append(append([]string{"publish"}, conn...), "--user", "admin", "--events", events)...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, `{"seq":1,"channel":"default"}
{"seq":2,"channel":"mallory"}
{"seq":3,"channel":"mallory"}
{"seq":4,"channel":"mallory"}
{"seq":5,"channel":"resolver"}
`, out)

	all := writeFile(t, "all.jsonl", replicaWrites+replicaQueries)
	code, liveOut, errOut := runCLI("live", "--events", all, "--undirected", "--damping", "0.5", "--trust", "default,resolver")
	require.Equal(t, 1, code, "line 4's batch is refused by live: %s", errOut)

	dir := filepath.Join(t.TempDir(), "replica")
	code, out, errOut = follow(dir, "--until", "5")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `sequence 3: batch on authppr.m.w.mallory refused, applied not at all`)
	want := stripTimes(t, liveOut)
	require.Contains(t, want, "ignored-by-publish")
	delete(want, "ignored-by-publish") // answered mid-stream by live
	require.Equal(t, want, stripTimes(t, out))
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		require.Contains(t, line, `"seq":5`)
	}

	// mallory may publish as mallory only.
	forged := writeFile(t, "forged.jsonl", `{"write": {"channel": "default", "ops": [{"op": "edge", "src": "q", "dst": "p3", "weight": 50}]}}`+"\n")
	code, pubOut, errOut := runCLI(append(append([]string{"publish"}, conn...), "--user", "mallory", "--events", forged)...)
	require.Equal(t, 1, code)
	require.Empty(t, pubOut)
	require.Contains(t, errOut, `subject "authppr.m.w.default"`)
	require.Contains(t, errOut, "ermissions")

	// The follower resumes its directory; nothing of the refused batch is
	// anywhere; a snapshot is published.
	code, out2, errOut := follow(dir, "--until", "0", "--snapshot")
	require.Equal(t, 0, code, errOut)
	require.NotEmpty(t, out2, errOut)
	require.Equal(t, stripTimes(t, out), stripTimes(t, out2))
	require.Contains(t, errOut, "published snapshot snap-00000000000000000005")
	require.Contains(t, errOut, "0 batches applied")

	// A new follower starts from it.
	code, out3, errOut := follow(filepath.Join(t.TempDir(), "new"), "--until", "5")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "started from snapshot snap-00000000000000000005")
	require.Equal(t, stripTimes(t, out), stripTimes(t, out3))

	// Usage errors.
	code, _, errOut = runCLI("follow", "--nats", c.URLs(), "--memory", "m", "--dir", dir, "--trust", "default", "--queries", queries)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--until SEQ is required")
	code, _, errOut = runCLI("publish", "--nats", c.URLs(), "--memory", "bad.name", "--events", events)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, fmt.Sprintf("memory %q", "bad.name"))
}
