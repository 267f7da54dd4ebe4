package replica_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
	"github.com/authppr/authppr/replica"
)

// A memory "m" on a NATS server (docs/scale-out.md has its configuration):
// the writer alice may publish on her channel's subject only; a reader
// follows the stream into its own store and reads its own writes. The
// example needs a server, so it is compiled, not run.
func Example() {
	ctx := context.Background()

	// The reader: JetStream API rights. The first one creates the stream.
	rc, err := nats.Connect("nats://127.0.0.1:4222", nats.UserInfo("reader", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	js, err := jetstream.New(rc)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := replica.EnsureStream(ctx, js, "m", 1); err != nil {
		log.Fatal(err)
	}
	var opt replica.Options
	opt.Dir = "/var/lib/authppr/m" // created, or installed from the newest snapshot, or resumed
	f, err := replica.Open(ctx, js, "m", opt)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	following, stop := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() { followed <- f.Follow(following) }() // nil once stopped

	// The writer alice: publish on authppr.m.w.alice and receive on
	// _INBOX.>, nothing else. A batch is its ops as JSON, with no channel:
	// the subject names it.
	wc, err := nats.Connect("nats://127.0.0.1:4222", nats.UserInfo("alice", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	defer wc.Close()
	p, err := replica.NewPublisher(wc, "m")
	if err != nil {
		log.Fatal(err)
	}
	ack, err := p.Publish(ctx, "alice", []byte(`{"ops": [{"op": "edge", "src": "q", "dst": "p1", "weight": 2}, {"op": "edge", "src": "q", "dst": "p2"}]}`), "alice-batch-1")
	var refused *replica.RefusedError
	if errors.As(err, &refused) {
		log.Fatalf("alice may not publish on %s", refused.Subject)
	} else if err != nil {
		log.Fatal(err)
	}

	// Read your writes: wait until the follower has passed the batch, then
	// select on its store's newest version under the guard.
	if err := f.WaitFor(ctx, ack.Seq); err != nil {
		log.Fatal(err)
	}
	v := f.Store().Current()
	q, _ := v.ID("q")
	p1, _ := v.ID("p1")
	p2, _ := v.ID("p2")
	guard := f.Store().NewGuard(mask.Trust("alice"), replay.Options{})
	d, err := guard.Select(v, replay.Query{Seeds: []ppr.Seed{{Node: q, Weight: 1}}, K: 1, Candidates: []uint32{p1, p2}, Damping: 0.85})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("divergent:", d.Divergent, "selected:", v.Name(d.Selected[0].Node))

	// Publish a snapshot for new followers; keep two, purge the stream
	// below the older one.
	info, err := f.PublishSnapshot(ctx, replica.Retention{Keep: 2, Purge: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("snapshot", info.Name, "holds sequence", info.Position)

	stop()
	switch err := <-followed; {
	case errors.Is(err, replica.ErrBehind):
		// The retention rule purged this follower's next batch: open a
		// follower on an empty directory, which starts from the newest
		// snapshot.
		log.Printf("%v: start again in an empty directory", err)
	case err != nil:
		log.Fatal(err)
	}
}
