package replica

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/internal/natstest"
)

type acked struct {
	seq  uint64
	line []byte
}

// A 3-server cluster, stream replicas 3: writers of two trusted channels
// and an untrusted one publish while two followers apply and answer
// guarded queries; the stream's leader is stopped mid-stream and started
// again later. Every acknowledged batch is in both followers, in stream
// order, once; both give identical decisions at the same sequence, equal
// to `pprbench live` (a live.Runner) on the same events in the same order.
func TestClusterReplication(t *testing.T) {
	perWriter := 60
	if *long {
		perWriter = 1000
	}
	c := natstest.Start(t, 3, users())
	admin := connect(t, c.URLs(), "admin")
	js := jetStream(t, admin)
	ensureStream(t, js, 3)
	ctx := timeout(t, 2*time.Minute)

	channels := []string{"default", "peer", "mallory"}
	var (
		mu    sync.Mutex
		acks  []acked
		count atomic.Int64
		wg    sync.WaitGroup
		errs  = make(chan error, len(channels))
	)
	for w, ch := range channels {
		lines := batchLines(rand.New(rand.NewPCG(uint64(w), 7)), ch, perWriter, 5)
		p, err := NewPublisher(connect(t, c.URLs(), ch), memory)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, line := range lines {
				payload, err := live.Payload(line)
				if err != nil {
					errs <- err
					return
				}
				ack, err := p.Publish(ctx, ch, payload, fmt.Sprintf("%s-%d", ch, i))
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				acks = append(acks, acked{ack.Seq, line})
				mu.Unlock()
				count.Add(1)
				time.Sleep(2 * time.Millisecond) // let the followers interleave
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	f1 := openFollower(t, jetStream(t, connect(t, c.URLs(), "admin")), t.TempDir())
	f2 := openFollower(t, jetStream(t, connect(t, c.URLs(), "admin")), t.TempDir())
	total := int64(perWriter * len(channels))
	// The stream's leader is stopped a third of the way in and started
	// again two thirds of the way in, while writers and followers go on.
	var restarted atomic.Bool
	chaos := make(chan struct{})
	go func() {
		defer close(chaos)
		for count.Load() < total/3 {
			time.Sleep(time.Millisecond)
		}
		stopped, err := streamLeader(ctx, js)
		if err != nil {
			t.Error(err)
			return
		}
		c.Stop(stopped)
		t.Logf("stopped server %d (the stream leader) after %d acknowledged batches", stopped+1, count.Load())
		for count.Load() < 2*total/3 {
			time.Sleep(time.Millisecond)
		}
		c.Restart(stopped)
		restarted.Store(true)
		t.Logf("restarted server %d after %d acknowledged batches", stopped+1, count.Load())
	}()
	checkpoints := map[uint64][]answer{}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		case err := <-errs:
			t.Fatal(err)
		case <-time.After(20 * time.Millisecond):
		}
		mu.Lock()
		var s uint64
		if len(acks) > 0 {
			s = acks[len(acks)-1].seq
		}
		mu.Unlock()
		if s == 0 || checkpoints[s] != nil {
			continue
		}
		require.NoError(t, f1.applyThrough(ctx, s))
		require.NoError(t, f2.applyThrough(ctx, s))
		require.Equal(t, s, f1.lastSeq())
		require.Equal(t, s, f2.lastSeq())
		a1, a2 := answerAll(t, answersOf(t, f1)), answerAll(t, answersOf(t, f2))
		require.Equal(t, a1, a2, "the followers disagree at sequence %d", s)
		checkpoints[s] = a1
	}
	<-chaos
	require.True(t, restarted.Load(), "the leader was stopped and restarted mid-stream")
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}

	// Every batch acknowledged once (retries acknowledged as duplicates of
	// the same sequence), and the stream holds nothing else.
	slices.SortFunc(acks, func(a, b acked) int { return int(a.seq) - int(b.seq) })
	acks = slices.CompactFunc(acks, func(a, b acked) bool { return a.seq == b.seq })
	require.Len(t, acks, int(total), "one sequence per batch")
	last := acks[len(acks)-1].seq
	require.Equal(t, uint64(total), last, "the stream's sequences are the batches'")
	s, err := js.Stream(ctx, streamName(memory))
	require.NoError(t, err)
	require.Equal(t, uint64(total), s.CachedInfo().State.Msgs)

	require.NoError(t, f1.applyThrough(ctx, last))
	require.NoError(t, f2.applyThrough(ctx, last))
	ref := newReference(t, true)
	refused := 0
	for _, a := range acks {
		before := ref.st.Current().Batches()
		ref.apply(t, a.line)
		if ref.st.Current().Batches() == before {
			refused++
		}
		if want := checkpoints[a.seq]; want != nil {
			require.Equal(t, ref.answers(t, a.seq), want, "decisions at sequence %d differ from pprbench live's", a.seq)
		}
	}
	require.Positive(t, refused, "the events include batches the store refuses")
	require.Equal(t, ref.answers(t, last), answerAll(t, answersOf(t, f1)))
	require.Equal(t, ref.answers(t, last), answerAll(t, answersOf(t, f2)))
	requireSameStore(t, ref.st.Current(), f1.Store().Current())
	requireSameStore(t, ref.st.Current(), f2.Store().Current())
	divergent := 0
	for _, as := range checkpoints {
		for _, a := range as {
			if a.Rec != nil && a.Rec.Divergent {
				divergent++
			}
		}
	}
	t.Logf("%d batches (%d refused by the store), %d checkpoints, %d divergent decisions", total, refused, len(checkpoints), divergent)
}

// streamLeader returns the index of the server leading the stream.
func streamLeader(ctx context.Context, js jetstream.JetStream) (int, error) {
	s, err := js.Stream(ctx, streamName(memory))
	if err != nil {
		return 0, err
	}
	info := s.CachedInfo()
	if info.Cluster == nil {
		return 0, fmt.Errorf("stream %s: no cluster info", streamName(memory))
	}
	var i int
	if _, err := fmt.Sscanf(info.Cluster.Leader, "s%d", &i); err != nil {
		return 0, fmt.Errorf("leader %q: %v", info.Cluster.Leader, err)
	}
	return i - 1, nil
}
