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
	var nf natsFlags
	nf.register(fs)
	eventsPath := fs.String("events", "", "JSON-lines event file of pprbench live; its write batches are published in order, queries skipped (required)")
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
	batches, err := readBatches(*eventsPath, data)
	if err != nil {
		return err
	}
	// Message ids name the file's content and the line: publishing the
	// same file again within the stream's duplicate window is a retry,
	// acknowledged with the first copy's sequences and stored once.
	sum := sha256.Sum256(data)
	return publishBatches(&nf, batches, hex.EncodeToString(sum[:12]), stdout)
}

// writeBatch is one write event of an event file, as published.
type writeBatch struct {
	line    int
	channel string
	payload []byte
}

// readBatches reads the write batches of the event file path (its
// content data), checking every line before anything is published.
func readBatches(path string, data []byte) ([]writeBatch, error) {
	var batches []writeBatch
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(trimSpace(text)) == 0 {
			continue
		}
		ev, err := live.Parse(text, line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (nothing published)", path, err)
		}
		if ev.Write == nil {
			continue
		}
		if err := replica.CheckName("channel", ev.Write.Channel); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w (nothing published)", path, line, err)
		}
		payload, err := live.Payload(text)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w (nothing published)", path, line, err)
		}
		batches = append(batches, writeBatch{line, ev.Write.Channel, payload})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return batches, nil
}

// publishBatches publishes the batches in order, each with the message id
// digest-line, and prints each acknowledgement as it comes.
func publishBatches(nf *natsFlags, batches []writeBatch, digest string, stdout io.Writer) error {
	nc, err := nf.connect("pprbench publish")
	if err != nil {
		return err
	}
	defer nc.Close()
	p, err := replica.NewPublisher(nc, *nf.memory)
	if err != nil {
		return err
	}
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
	r, err := newFollowRun(args)
	if err != nil {
		return err
	}
	queries, err := os.Open(r.queriesPath)
	if err != nil {
		return err
	}
	defer queries.Close()
	start := time.Now()
	js, err := r.connect()
	if err != nil {
		return err
	}
	defer r.nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *r.nf.timeout)
	defer cancel()
	if err := r.open(ctx, js, stderr); err != nil {
		return err
	}
	defer r.f.Close()
	if r.runner, err = live.NewRunner(r.f.Store(), live.Options{Damping: r.damping, Trust: r.trusted}); err != nil {
		return err
	}
	if err := r.catchUp(ctx, stderr); err != nil {
		return err
	}
	bad, err := answerTo(r.outPath, stdout, func(w io.Writer) (error, error) {
		return answerQueries(queries, r.f, r.runner, w, stderr)
	})
	if err != nil {
		return err
	}
	printFollower(stderr, *r.nf.memory, r.f.Status())
	r.runner.Print(stderr, time.Since(start))
	return bad
}

// followRun is one follow run: its settings and, once open, the
// connection, the follower and the runner that answers on its store.
type followRun struct {
	nf                      natsFlags
	dir, queriesPath        string
	outPath                 string
	replicas, keep          int
	compactAt               int
	until                   int64
	damping                 float64
	trusted                 []string
	undirected, snap, purge bool

	nc     *nats.Conn
	f      *replica.Follower
	runner *live.Runner
}

// newFollowRun parses follow's flags and checks them.
func newFollowRun(args []string) (*followRun, error) {
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	r := &followRun{}
	r.nf.register(fs)
	fs.StringVar(&r.dir, "dir", "", "the follower's local durable store: created when absent (from the newest published snapshot, if any), resumed when present (required)")
	fs.IntVar(&r.replicas, "replicas", 1, "stream replicas when follow creates the memory's stream (3 in a cluster)")
	fs.BoolVar(&r.undirected, "undirected", false, "edges are undirected (a new store; a snapshot's own direction wins)")
	registerDamping(fs, &r.damping)
	trust := fs.String("trust", "", "comma-separated trusted channels (required)")
	fs.Int64Var(&r.until, "until", 0, "catch up to at least this stream sequence, and to the stream's last when follow starts (0: do not wait for more) (required)")
	fs.StringVar(&r.queriesPath, "queries", "", "JSON-lines query events (the query lines of pprbench live's event format; may be empty) (required)")
	fs.StringVar(&r.outPath, "out", "", "write one JSON line per query here instead of stdout")
	fs.BoolVar(&r.snap, "snapshot", false, "after catching up, publish a snapshot of the store to the memory's object store")
	fs.IntVar(&r.keep, "keep-snapshots", 2, "with --snapshot: keep this many newest snapshots")
	fs.BoolVar(&r.purge, "purge", false, "with --snapshot: purge the stream up to the oldest kept snapshot (the retention rule)")
	fs.IntVar(&r.compactAt, "compact-at", 1<<20, "compact the local store once its delta holds this many edges (0: never)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := r.nf.check(); err != nil {
		return nil, err
	}
	switch {
	case r.dir == "":
		return nil, fmt.Errorf("%w: --dir is required", errUsage)
	case !given(fs)["until"] || r.until < 0:
		return nil, fmt.Errorf("%w: --until SEQ is required (0: do not wait)", errUsage)
	case r.queriesPath == "":
		return nil, fmt.Errorf("%w: --queries is required (an empty file is fine)", errUsage)
	}
	if err := checkDamping(r.damping); err != nil {
		return nil, err
	}
	if r.trusted = splitList(*trust); len(r.trusted) == 0 {
		return nil, fmt.Errorf("%w: --trust CH[,CH...] is required", errUsage)
	}
	return r, nil
}

// connect connects to the servers (r.nc; the caller closes it) and
// returns the JetStream context.
func (r *followRun) connect() (jetstream.JetStream, error) {
	var err error
	if r.nc, err = r.nf.connect("pprbench follow"); err != nil {
		return nil, err
	}
	js, err := jetstream.New(r.nc)
	if err != nil {
		r.nc.Close()
		return nil, err
	}
	return js, nil
}

// open makes sure the memory's stream is there and opens the follower on
// --dir (r.f; the caller closes it).
func (r *followRun) open(ctx context.Context, js jetstream.JetStream, stderr io.Writer) error {
	if _, err := replica.EnsureStream(ctx, js, *r.nf.memory, r.replicas); err != nil {
		return err
	}
	var err error
	r.f, err = replica.Open(ctx, js, *r.nf.memory, replica.Options{Dir: r.dir, Directed: !r.undirected, CompactAt: r.compactAt, Log: stderr})
	return err
}

// catchUp catches up to --until and, with --snapshot, publishes a
// snapshot (said on stderr).
func (r *followRun) catchUp(ctx context.Context, stderr io.Writer) error {
	if err := r.f.CatchUp(ctx, uint64(r.until)); err != nil {
		return err
	}
	if !r.snap {
		return nil
	}
	info, err := r.f.PublishSnapshot(ctx, replica.Retention{Keep: r.keep, Purge: r.purge})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "follow: published snapshot %s (sequence %d, %d bytes)\n", info.Name, info.Position, info.Size)
	return nil
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
