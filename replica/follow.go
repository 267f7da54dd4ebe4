package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/store"
)

// ErrBehind is returned by a follower whose next batch the stream no
// longer holds (purged by the retention rule): it starts again from a
// snapshot, in an empty directory.
var ErrBehind = errors.New("replica: the stream no longer holds the follower's next batch")

// Options configure a follower.
type Options struct {
	// Dir is the follower's durable store: created when absent or empty
	// (from the newest published snapshot when there is one), resumed when
	// it holds a store.
	Dir string
	// Directed is the direction of a new store's edges (a snapshot's own
	// direction wins); an existing store of the other direction is an
	// error.
	Directed bool
	// Log receives one line per batch the store refused (nil: discarded).
	Log io.Writer
	// NoSnapshot starts an empty directory from the stream's first message
	// even when a snapshot is published.
	NoSnapshot bool
	// CompactAt is the store's store.Options.CompactAt (0: never compact).
	CompactAt int
}

// Follower applies a memory's stream into a local store and answers guarded
// queries on it. Its methods are safe for concurrent use; at most one of
// CatchUp and Follow runs at a time.
type Follower struct {
	js     jetstream.JetStream
	memory string
	dir    string
	st     *store.Store
	log    io.Writer

	mu      sync.Mutex
	changed chan struct{}            // closed and replaced when seq moves
	writers map[string]*store.Writer // one per channel, made on its first batch
	seq     uint64                   // last stream sequence applied or refused
	applied uint64                   // batches applied since Open
	refused uint64                   // batches refused since Open
	from    *SnapshotInfo
}

// Open opens the follower of memory in opt.Dir. Its stream need not exist
// yet.
func Open(ctx context.Context, js jetstream.JetStream, memory string, opt Options) (*Follower, error) {
	if err := CheckName("memory", memory); err != nil {
		return nil, err
	}
	if opt.Dir == "" {
		return nil, errors.New("replica: a follower needs a directory")
	}
	f := &Follower{js: js, memory: memory, dir: opt.Dir, log: opt.Log, changed: make(chan struct{}), writers: map[string]*store.Writer{}}
	if f.log == nil {
		f.log = io.Discard
	}
	empty, err := emptyDir(opt.Dir)
	if err != nil {
		return nil, err
	}
	if empty && !opt.NoSnapshot {
		info, st, err := installNewest(ctx, js, memory, opt.Dir, store.Options{CompactAt: opt.CompactAt})
		if err != nil {
			return nil, err
		}
		f.st, f.from = st, info
	}
	if f.st == nil {
		if f.st, err = store.Open(opt.Dir, store.Options{Directed: opt.Directed, CompactAt: opt.CompactAt}); err != nil {
			return nil, fmt.Errorf("replica: memory %s: %w", memory, err)
		}
	}
	if f.from == nil && f.st.Current().Directed() != opt.Directed {
		f.st.Close()
		return nil, fmt.Errorf("replica: memory %s: the store in %s is directed=%v, want directed=%v", memory, opt.Dir, f.st.Current().Directed(), opt.Directed)
	}
	f.seq = f.st.Current().Position()
	return f, nil
}

// emptyDir reports whether dir is absent or holds nothing.
func emptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("replica: %w", err)
	}
	return len(entries) == 0, nil
}

// Close closes the follower's store.
func (f *Follower) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.Close()
}

// Store returns the follower's store (for reading versions).
func (f *Follower) Store() *store.Store { return f.st }

// lastSeq returns the last stream sequence the follower applied or
// refused: every batch up to it is in its store or was refused.
func (f *Follower) lastSeq() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seq
}

// started returns the snapshot Open installed, or nil.
func (f *Follower) started() *SnapshotInfo { return f.from }

// WaitFor blocks until the follower has passed stream sequence seq (read
// your writes: seq is the sequence a Publish acknowledged) or ctx ends.
// Something must be following meanwhile (Follow or CatchUp).
func (f *Follower) WaitFor(ctx context.Context, seq uint64) error {
	for {
		f.mu.Lock()
		at, ch := f.seq, f.changed
		f.mu.Unlock()
		if at >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("replica: memory %s: waiting for sequence %d at %d: %w", f.memory, seq, at, ctx.Err())
		}
	}
}

// Status is where a follower is.
type Status struct {
	// Seq is the last stream sequence applied or refused: the store's
	// current version holds every batch up to it that was not refused.
	Seq uint64
	// Applied and Refused count the batches since Open.
	Applied, Refused uint64
	// Snapshot is the snapshot Open installed, or nil.
	Snapshot *SnapshotInfo
}

// Status returns where the follower is. A version read from its store
// after Status returns holds at least the batches up to Status.Seq.
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Status{Seq: f.seq, Applied: f.applied, Refused: f.refused, Snapshot: f.from}
}

// apply applies or refuses the message of stream sequence seq.
func (f *Follower) apply(seq uint64, subject string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	channel, ok := channelOf(f.memory, subject)
	var err error
	if !ok {
		err = fmt.Errorf("subject %q names no channel", subject)
	} else {
		var w *live.Write
		if w, err = live.ParsePayload(data, channel); err == nil {
			err = f.applyAt(seq, w)
		}
	}
	if err != nil {
		f.refused++
		fmt.Fprintf(f.log, "replica: memory %s: sequence %d: batch on %s refused, applied not at all: %v\n", f.memory, seq, subject, err)
	} else {
		f.applied++
	}
	f.seq = seq
	close(f.changed)
	f.changed = make(chan struct{})
}

// applyAt applies w as its channel's writer, at stream position seq.
func (f *Follower) applyAt(seq uint64, w *live.Write) error {
	wr := f.writers[w.Channel]
	if wr == nil {
		var err error
		if wr, err = f.st.Writer(w.Channel); err != nil {
			return err
		}
		f.writers[w.Channel] = wr
	}
	_, err := wr.ApplyAt(seq, w.Ops...)
	return err
}

// CatchUp applies the stream until the follower has passed sequence until
// and the stream's last sequence when it is called, then returns (until 0:
// do not wait for more than the stream holds).
func (f *Follower) CatchUp(ctx context.Context, until uint64) error {
	s, err := f.stream(ctx)
	if err != nil {
		return err
	}
	target := max(until, s.CachedInfo().State.LastSeq)
	if f.lastSeq() >= target {
		return nil
	}
	return f.consume(ctx, target)
}

// applyThrough applies the stream until the follower has passed sequence
// seq and stops there: the follower then answers at exactly seq (past it
// only when seq itself is gone from the stream).
func (f *Follower) applyThrough(ctx context.Context, seq uint64) error {
	if f.lastSeq() >= seq {
		return nil
	}
	return f.consume(ctx, seq)
}

// Follow applies the stream as it grows until ctx ends (then it returns
// nil) or an error stops it.
func (f *Follower) Follow(ctx context.Context) error {
	err := f.consume(ctx, 0)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// attempt bounds one JetStream API call, and idle one wait for a message
// while the stream holds more: a request lost with a server, or a consumer
// stalled on one, is retried after it rather than waited on for good.
const (
	attempt = 5 * time.Second
	idle    = time.Second
)

// stream returns the memory's stream, its info fresh, retrying calls that
// time out until ctx ends.
func (f *Follower) stream(ctx context.Context) (jetstream.Stream, error) {
	var last error
	for {
		actx, cancel := context.WithTimeout(ctx, attempt)
		s, err := f.js.Stream(actx, streamName(f.memory))
		cancel()
		if err == nil {
			return s, nil
		}
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("replica: memory %s: %w", f.memory, err)
		}
		last = err
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, fmt.Errorf("replica: memory %s: stream %s: %w (last attempt: %v)", f.memory, streamName(f.memory), err, last)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// consume applies messages from lastSeq()+1 until lastSeq() >= target
// (target 0: until ctx ends). A consumer that fails (a server lost, a consumer gone)
// is made again from the follower's sequence; ErrBehind and the end of ctx
// stop it.
func (f *Follower) consume(ctx context.Context, target uint64) error {
	for {
		err := f.consumeOnce(ctx, target)
		if err == nil || errors.Is(err, ErrBehind) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("replica: memory %s: at sequence %d, want %d: %w (last error: %v)", f.memory, f.lastSeq(), target, ctx.Err(), err)
		}
		fmt.Fprintf(f.log, "replica: memory %s: at sequence %d: %v; consuming again\n", f.memory, f.lastSeq(), err)
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return fmt.Errorf("replica: memory %s: at sequence %d, want %d: %w", f.memory, f.lastSeq(), target, err)
		}
	}
}

func (f *Follower) consumeOnce(ctx context.Context, target uint64) error {
	s, err := f.stream(ctx)
	if err != nil {
		return err
	}
	next := f.lastSeq() + 1
	if err := checkHeld(s.CachedInfo().State, f.memory, f.dir, next); err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(ctx, attempt) // a lost request is retried, not waited on
	defer cancel()
	c, err := s.OrderedConsumer(actx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subjects(f.memory)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    next,
	})
	if err != nil {
		return fmt.Errorf("consumer from sequence %d: %w", next, err)
	}
	it, err := c.Messages()
	if err != nil {
		return fmt.Errorf("consumer from sequence %d: %w", next, err)
	}
	defer it.Stop()
	for target == 0 || f.lastSeq() < target {
		actx, cancel := context.WithTimeout(ctx, idle)
		msg, err := it.Next(jetstream.NextContext(actx))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				// Nothing for a while: fine when the stream holds nothing
				// more, a stalled consumer otherwise.
				if s, err = f.stream(ctx); err != nil {
					return err
				}
				if s.CachedInfo().State.LastSeq > f.lastSeq() {
					return fmt.Errorf("no message for %v with the stream at %d", idle, s.CachedInfo().State.LastSeq)
				}
				continue
			}
			return err
		}
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		seq := meta.Sequence.Stream
		at := f.lastSeq()
		if seq <= at {
			continue // redelivered after a consumer reset: already applied
		}
		if seq > at+1 {
			// A gap: messages removed are gone for every follower; a
			// purge past our position means we fell behind the
			// retention rule.
			if s, err = f.stream(ctx); err != nil {
				return err
			}
			if err := checkHeld(s.CachedInfo().State, f.memory, f.dir, at+1); err != nil {
				return err
			}
		}
		f.apply(seq, msg.Subject(), msg.Data())
	}
	return nil
}

// checkHeld returns ErrBehind when messages from sequence next on were
// purged: the stream's first message is past next and it once held next.
func checkHeld(st jetstream.StreamState, memory, dir string, next uint64) error {
	if st.FirstSeq > next && st.LastSeq >= next {
		return fmt.Errorf("%w: memory %s: the follower in %s needs sequence %d, the stream starts at %d", ErrBehind, memory, dir, next, st.FirstSeq)
	}
	return nil
}
