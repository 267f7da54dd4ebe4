package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/replica"
)

// natsFlags are the connection flags publish and follow share.
type natsFlags struct {
	urls, user, password, memory *string
	timeout                      *time.Duration
}

func (n *natsFlags) register(fs *flag.FlagSet) {
	n.urls = fs.String("nats", "", "comma-separated NATS server URLs (required)")
	n.user = fs.String("user", "", "NATS user")
	n.password = fs.String("password", "", "NATS password")
	n.memory = fs.String("memory", "", "the memory's name: letters, digits, '-', '_' (required)")
	n.timeout = fs.Duration("timeout", 2*time.Minute, "give up after this long")
}

func (n *natsFlags) check() error {
	if *n.urls == "" {
		return fmt.Errorf("%w: --nats URLS is required", errUsage)
	}
	if *n.memory == "" {
		return fmt.Errorf("%w: --memory NAME is required", errUsage)
	}
	if err := replica.CheckName("memory", *n.memory); err != nil {
		return fmt.Errorf("%w: --memory: %v", errUsage, err)
	}
	return nil
}

func (n *natsFlags) connect(name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})} // errors reach the caller
	if *n.user != "" || *n.password != "" {
		opts = append(opts, nats.UserInfo(*n.user, *n.password))
	}
	nc, err := nats.Connect(*n.urls, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", *n.urls, err)
	}
	return nc, nil
}

// runPublish publishes the write events of a `live` event file, each on its
// channel's subject, and prints {"seq": N, "channel": C} per acknowledged
// batch. The whole file is read and checked before anything is published.
func runPublish(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf natsFlags
	nf.register(fs)
	eventsPath := fs.String("events", "", "JSON-lines event file of `pprbench live`; its write batches are published in order, queries skipped (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := nf.check(); err != nil {
		return err
	}
	if *eventsPath == "" {
		return fmt.Errorf("%w: --events is required", errUsage)
	}
	data, err := os.ReadFile(*eventsPath)
	if err != nil {
		return err
	}
	type batch struct {
		line    int
		channel string
		payload []byte
	}
	var batches []batch
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(trimSpace(text)) == 0 {
			continue
		}
		ev, err := live.Parse(text, line)
		if err != nil {
			return fmt.Errorf("%s: %w (nothing published)", *eventsPath, err)
		}
		if ev.Write == nil {
			continue
		}
		if err := replica.CheckName("channel", ev.Write.Channel); err != nil {
			return fmt.Errorf("%s: line %d: %w (nothing published)", *eventsPath, line, err)
		}
		payload, err := live.Payload(text)
		if err != nil {
			return fmt.Errorf("%s: line %d: %w (nothing published)", *eventsPath, line, err)
		}
		batches = append(batches, batch{line, ev.Write.Channel, payload})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	nc, err := nf.connect("pprbench publish")
	if err != nil {
		return err
	}
	defer nc.Close()
	p, err := replica.NewPublisher(nc, *nf.memory)
	if err != nil {
		return err
	}
	// Message ids name the file's content and the line: publishing the
	// same file again within the stream's duplicate window is a retry,
	// acknowledged with the first copy's sequences and stored once.
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:12])
	ctx, cancel := context.WithTimeout(context.Background(), *nf.timeout)
	defer cancel()
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, b := range batches {
		ack, err := p.Publish(ctx, b.channel, b.payload, fmt.Sprintf("%s-%d", digest, b.line))
		if err != nil {
			return fmt.Errorf("publish: line %d: %w", b.line, err)
		}
		if err := enc.Encode(struct {
			Seq     uint64 `json:"seq"`
			Channel string `json:"channel"`
		}{ack.Seq, b.channel}); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// runFollow catches a local durable store up with a memory's stream and
// answers guarded queries on it with the records of `pprbench live` plus
// the stream sequence they reflect.
func runFollow(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf natsFlags
	nf.register(fs)
	dir := fs.String("dir", "", "the follower's local durable store: created when absent (from the newest published snapshot, if any), resumed when present (required)")
	replicas := fs.Int("replicas", 1, "stream replicas when follow creates the memory's stream (3 in a cluster)")
	undirected := fs.Bool("undirected", false, "edges are undirected (a new store; a snapshot's own direction wins)")
	damping := fs.Float64("damping", 0.85, "damping d as in igraph (teleport 1-d)")
	trust := fs.String("trust", "", "comma-separated trusted channels (required)")
	until := fs.Int64("until", -1, "catch up to at least this stream sequence, and to the stream's last when follow starts (0: do not wait for more) (required)")
	queriesPath := fs.String("queries", "", "JSON-lines query events (the `live` format's query lines; may be empty) (required)")
	outPath := fs.String("out", "", "write one JSON line per query here instead of stdout")
	snap := fs.Bool("snapshot", false, "after catching up, publish a snapshot of the store to the memory's object store")
	keep := fs.Int("keep-snapshots", 2, "with --snapshot: keep this many newest snapshots")
	purge := fs.Bool("purge", false, "with --snapshot: purge the stream up to the oldest kept snapshot (the retention rule)")
	compactAt := fs.Int("compact-at", 1<<20, "compact the local store once its delta holds this many edges (0: never)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := nf.check(); err != nil {
		return err
	}
	switch {
	case *dir == "":
		return fmt.Errorf("%w: --dir is required", errUsage)
	case *until < 0:
		return fmt.Errorf("%w: --until SEQ is required (0: do not wait)", errUsage)
	case *queriesPath == "":
		return fmt.Errorf("%w: --queries is required (an empty file is fine)", errUsage)
	case !(*damping >= 0 && *damping < 1):
		return fmt.Errorf("%w: --damping %v, want 0 <= d < 1", errUsage, *damping)
	}
	trusted := splitList(*trust)
	if len(trusted) == 0 {
		return fmt.Errorf("%w: --trust CH[,CH...] is required", errUsage)
	}
	queries, err := os.Open(*queriesPath)
	if err != nil {
		return err
	}
	defer queries.Close()
	start := time.Now()
	nc, err := nf.connect("pprbench follow")
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *nf.timeout)
	defer cancel()
	if _, err := replica.EnsureStream(ctx, js, *nf.memory, *replicas); err != nil {
		return err
	}
	f, err := replica.Open(ctx, js, *nf.memory, replica.Options{Dir: *dir, Directed: !*undirected, CompactAt: *compactAt, Log: stderr})
	if err != nil {
		return err
	}
	defer f.Close()
	runner, err := live.NewRunner(f.Store(), live.Options{Damping: *damping, Trust: trusted})
	if err != nil {
		return err
	}
	if err := f.CatchUp(ctx, uint64(*until)); err != nil {
		return err
	}
	if *snap {
		info, err := f.PublishSnapshot(ctx, replica.Retention{Keep: *keep, Purge: *purge})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "follow: published snapshot %s (sequence %d, %d bytes)\n", info.Name, info.Position, info.Size)
	}
	out, closeOut, err := createOutput(*outPath, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	bad, err := answerQueries(queries, f, runner, w, stderr)
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := closeOut(); err != nil {
		return err
	}
	printFollower(stderr, *nf.memory, f.Status())
	runner.Print(stderr, time.Since(start))
	return bad
}

// answerQueries answers the query lines of in, as runEvents does; a write
// line is an error naming it (writes go through publish).
func answerQueries(in io.Reader, f *replica.Follower, runner *live.Runner, out, stderr io.Writer) (bad, err error) {
	lines := eventLines{command: "follow", what: "query line(s)", verdict: "not answered"}
	return lines.run(in, out, stderr, func(ev live.Event) (*live.Record, error) {
		if ev.Write != nil {
			return nil, errors.New("a write in the query file: writes go through pprbench publish")
		}
		return answerAt(f, runner, ev.Query)
	})
}

// answerAt answers q on the follower's newest version; the record carries
// the sequence it reflects at least (every batch up to it applied or
// refused) beside the store's version.
func answerAt(f *replica.Follower, runner *live.Runner, q *live.Query) (*live.Record, error) {
	seq := f.Status().Seq
	rec, err := runner.Answer(q)
	if err != nil {
		return nil, err
	}
	rec.Seq = &seq
	return rec, nil
}

// printFollower writes where the follower is.
func printFollower(w io.Writer, memory string, st replica.Status) {
	fmt.Fprintf(w, "follow: memory %s at sequence %d: %d batches applied, %d refused since start", memory, st.Seq, st.Applied, st.Refused)
	if st.Snapshot != nil {
		fmt.Fprintf(w, "; started from snapshot %s (sequence %d)", st.Snapshot.Name, st.Snapshot.Position)
	}
	fmt.Fprintln(w)
}
