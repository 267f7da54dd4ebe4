package replica

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/internal/natstest"
)

// publishLines publishes write event lines as their channel's user and
// returns the lines in stream order.
func publishLines(t testing.TB, ctx context.Context, urls string, lines [][]byte, idPrefix string) {
	t.Helper()
	pubs := map[string]*Publisher{}
	for i, line := range lines {
		ev, err := live.Parse(line, i+1)
		require.NoError(t, err)
		ch := ev.Write.Channel
		if pubs[ch] == nil {
			pubs[ch], err = NewPublisher(connect(t, urls, ch), memory)
			require.NoError(t, err)
		}
		payload, err := live.Payload(line)
		require.NoError(t, err)
		_, err = pubs[ch].Publish(ctx, ch, payload, fmt.Sprintf("%s-%d", idPrefix, i))
		require.NoError(t, err)
	}
}

// mixedLines interleaves the three writers' batches.
func mixedLines(seed uint64, perWriter, opsPer int) [][]byte {
	var byWriter [][][]byte
	for w, ch := range []string{"default", "peer", "mallory"} {
		byWriter = append(byWriter, batchLines(rand.New(rand.NewPCG(seed, uint64(w))), ch, perWriter, opsPer))
	}
	var out [][]byte
	for i := range perWriter {
		for w := range byWriter {
			out = append(out, byWriter[w][i])
		}
	}
	return out
}

func referenceOf(t testing.TB, lines [][]byte) *reference {
	ref := newReference(t, true)
	for _, line := range lines {
		ref.apply(t, line)
	}
	return ref
}

// A principal publishing on another channel's subject is refused by the
// server, the client reports it naming the subject, and nothing of it is in
// the stream or in any follower; a batch whose payload names a channel is
// applied by no follower; a writer cannot use the JetStream API (no purge,
// no stream info).
func TestPermissions(t *testing.T) {
	c := natstest.Start(t, 1, users())
	js := jetStream(t, connect(t, c.URLs(), "admin"))
	ensureStream(t, js, 1)
	ctx := timeout(t, time.Minute)

	mallory := connect(t, c.URLs(), "mallory")
	p, err := NewPublisher(mallory, memory)
	require.NoError(t, err)
	own, err := p.Publish(ctx, "mallory", []byte(`{"ops": [{"op": "edge", "src": "m1", "dst": "m2"}]}`), "m-1")
	require.NoError(t, err)
	require.Equal(t, uint64(1), own.Seq)

	_, err = p.Publish(ctx, "default", []byte(`{"ops": [{"op": "edge", "src": "forged-a", "dst": "forged-b"}]}`), "m-2")
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, subjectOf(memory, "default"), refused.Subject)
	require.ErrorIs(t, err, nats.ErrPermissionViolation)
	require.ErrorContains(t, err, `subject "authppr.mem.w.default"`)

	// The payload cannot claim a channel either.
	claimed, err := p.Publish(ctx, "mallory", []byte(`{"channel": "default", "ops": [{"op": "edge", "src": "claimed-a", "dst": "claimed-b"}]}`), "m-3")
	require.NoError(t, err)

	// No JetStream API for a writer.
	mjs := jetStream(t, mallory)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = mjs.Stream(short, streamName(memory))
	cancel()
	require.Error(t, err, "a writer reads no stream info")
	short, cancel = context.WithTimeout(ctx, 2*time.Second)
	_, err = mallory.RequestWithContext(short, "$JS.API.STREAM.PURGE."+streamName(memory), nil)
	cancel()
	require.Error(t, err, "a writer purges nothing")

	s, err := js.Stream(ctx, streamName(memory))
	require.NoError(t, err)
	require.Equal(t, uint64(2), s.CachedInfo().State.Msgs, "the refused publish never entered the stream")

	var log strings.Builder
	f, err := Open(ctx, js, memory, Options{Dir: t.TempDir(), Directed: true, Log: &log})
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.CatchUp(ctx, claimed.Seq))
	v := f.Store().Current()
	require.Equal(t, uint64(1), v.Batches())
	for _, name := range []string{"forged-a", "forged-b", "claimed-a", "claimed-b"} {
		_, ok := v.ID(name)
		require.False(t, ok, "%s is in the follower", name)
	}
	require.Equal(t, []string{"mallory"}, v.Channels())
	require.Contains(t, log.String(), fmt.Sprintf(`sequence %d: batch on authppr.mem.w.mallory refused`, claimed.Seq))
	require.Contains(t, log.String(), `names a "channel"`)
}

// A follower from a published snapshot plus the stream's tail equals one
// that applied the whole stream; the retention rule purges the stream up to
// the oldest kept snapshot, and a follower left below it is told so
// (ErrBehind) rather than skipping batches.
func TestSnapshotStart(t *testing.T) {
	c := natstest.Start(t, 1, users())
	js := jetStream(t, connect(t, c.URLs(), "admin"))
	ensureStream(t, js, 1)
	ctx := timeout(t, time.Minute)
	lines := mixedLines(11, 30, 5)
	publishLines(t, ctx, c.URLs(), lines[:60], "a")

	behind := t.TempDir()
	fb := openFollower(t, js, behind)
	require.NoError(t, fb.applyThrough(ctx, 10))
	require.NoError(t, fb.Close())

	fa := openFollower(t, js, t.TempDir())
	require.NoError(t, fa.CatchUp(ctx, 60))
	first, err := fa.PublishSnapshot(ctx, Retention{Keep: 1, Purge: true})
	require.NoError(t, err)
	require.Equal(t, fa.Store().Current().Position(), first.Position)
	require.Positive(t, first.Size)
	s, err := js.Stream(ctx, streamName(memory))
	require.NoError(t, err)
	require.Equal(t, first.Position+1, s.CachedInfo().State.FirstSeq, "purged up to the snapshot, no further")

	publishLines(t, ctx, c.URLs(), lines[60:], "b")
	fn := openFollower(t, js, t.TempDir())
	require.NotNil(t, fn.started())
	require.Equal(t, first.Position, fn.started().Position)
	require.NoError(t, fn.CatchUp(ctx, uint64(len(lines))))
	require.NoError(t, fa.CatchUp(ctx, uint64(len(lines))))
	ref := referenceOf(t, lines)
	requireSameStore(t, ref.st.Current(), fn.Store().Current())
	requireSameStore(t, ref.st.Current(), fa.Store().Current())
	require.Equal(t, ref.answers(t, uint64(len(lines))), answerAll(t, answersOf(t, fn)))

	// The follower left at sequence 10 (its store at the last batch it
	// applied, refused ones after it not recorded) cannot catch up from the
	// stream.
	fb = openFollower(t, js, behind)
	require.LessOrEqual(t, fb.lastSeq(), uint64(10))
	err = fb.CatchUp(ctx, 0)
	require.ErrorIs(t, err, ErrBehind)
	require.ErrorContains(t, err, fmt.Sprintf("needs sequence %d", fb.lastSeq()+1))

	// A newer snapshot replaces the older (keep 1).
	second, err := fa.PublishSnapshot(ctx, Retention{Keep: 1})
	require.NoError(t, err)
	require.Greater(t, second.Position, first.Position)
	_, list, err := snapshots(ctx, js, memory)
	require.NoError(t, err)
	require.Equal(t, []SnapshotInfo{second}, list)
}

const childEnv = "AUTHPPR_REPLICA_CHILD"

// TestFollowerChild is the follower process TestKilledFollower kills; it
// does nothing in a normal run.
func TestFollowerChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("the child process of TestKilledFollower")
	}
	urls, dir, _ := strings.Cut(spec, " ")
	nc, err := nats.Connect(urls, nats.UserInfo("admin", password))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	js := jetStream(t, nc)
	f, err := Open(context.Background(), js, memory, Options{Dir: dir, Directed: true,
		CompactAt: 500}) // compactions run while it is killed too
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	go func() {
		if err := f.Follow(context.Background()); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
	}()
	for last := uint64(0); ; time.Sleep(200 * time.Microsecond) {
		if s := f.lastSeq(); s != last {
			fmt.Println(s)
			last = s
		}
	}
}

// A follower process killed with SIGKILL while it applies the stream
// resumes from what its disk holds: after two kills and a restart it holds
// every batch once, in order, as a follower never killed does.
func TestKilledFollower(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in the child")
	}
	c := natstest.Start(t, 1, users())
	js := jetStream(t, connect(t, c.URLs(), "admin"))
	ensureStream(t, js, 1)
	ctx := timeout(t, 2*time.Minute)
	perWriter := 100
	if *long {
		perWriter = 2000
	}
	lines := mixedLines(21, perWriter, 20)
	publishLines(t, ctx, c.URLs(), lines, "k")
	total := uint64(len(lines))
	dir := t.TempDir()

	for _, killAt := range []uint64{total / 3, 2 * total / 3} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFollowerChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), childEnv+"="+c.URLs()+" "+dir)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(out)
		var seen uint64
		for sc.Scan() {
			text := sc.Text()
			require.False(t, strings.HasPrefix(text, "error"), text)
			if n, err := strconv.ParseUint(text, 10, 64); err == nil {
				seen = n
			}
			if seen >= killAt {
				break
			}
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		err = cmd.Wait()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "the child was killed: %v", err)
		require.Less(t, seen, total, "killed before it finished")
		t.Logf("killed the follower at sequence %d or later (of %d)", seen, total)
	}

	f := openFollower(t, js, dir)
	require.Positive(t, f.lastSeq())
	require.Less(t, f.lastSeq(), total)
	require.NoError(t, f.CatchUp(ctx, total))
	ref := referenceOf(t, lines)
	requireSameStore(t, ref.st.Current(), f.Store().Current())
	require.Equal(t, ref.answers(t, total), answerAll(t, answersOf(t, f)))
}
