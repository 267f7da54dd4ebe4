package replica

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Publisher publishes write batches of a memory, each as one message
// acknowledged by the stream. Safe for concurrent use.
type Publisher struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	memory string

	mu      sync.Mutex
	waiters map[string][]chan error // subject -> publishes waiting for its ack
}

// Ack is a stream's acknowledgement of a batch.
type Ack struct {
	Seq       uint64 // the batch's stream sequence
	Duplicate bool   // the message id was seen before: Seq is the first copy's
}

// RefusedError is a publish the server refused: the connection's user may
// not publish on Subject. Nothing of the batch entered the stream.
type RefusedError struct {
	Subject string
	Err     error // the server's permissions violation
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("replica: the server refused publishing on subject %q: %v", e.Subject, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// attemptTimeout bounds one attempt of Publish; an attempt that times out
// (a server lost, a leader being elected) is retried with the same message
// id until the context ends.
const attemptTimeout = 2 * time.Second

var violationSubject = regexp.MustCompile(`Publish to "([^"]+)"`)

// NewPublisher returns a publisher of memory's batches on nc. It installs
// an error handler on nc (calling the one nc had) to see the server's
// permissions violations, which the server reports apart from the publish.
func NewPublisher(nc *nats.Conn, memory string) (*Publisher, error) {
	if err := CheckName("memory", memory); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	p := &Publisher{nc: nc, js: js, memory: memory, waiters: map[string][]chan error{}}
	prev := nc.ErrorHandler()
	nc.SetErrorHandler(func(c *nats.Conn, s *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrPermissionViolation) {
			if m := violationSubject.FindStringSubmatch(err.Error()); m != nil {
				p.refuse(m[1], err)
			}
		}
		if prev != nil {
			prev(c, s, err)
		}
	})
	return p, nil
}

// refuse fails every publish waiting on subject.
func (p *Publisher) refuse(subject string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range p.waiters[subject] {
		select {
		case ch <- err:
		default:
		}
	}
}

func (p *Publisher) watch(subject string) (chan error, func()) {
	ch := make(chan error, 1)
	p.mu.Lock()
	p.waiters[subject] = append(p.waiters[subject], ch)
	p.mu.Unlock()
	return ch, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		ws := p.waiters[subject]
		for i, w := range ws {
			if w == ch {
				ws = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		if len(ws) == 0 {
			delete(p.waiters, subject)
		} else {
			p.waiters[subject] = ws
		}
	}
}

// Publish publishes one batch of channel (payload as live.Payload makes it)
// with message id id, and returns the stream's acknowledgement, given once
// the stream's quorum holds the batch. Attempts that time out or find no
// stream leader are retried with the same id until ctx ends, so the batch
// is stored once. A refusal by the server is a *RefusedError, returned at
// once.
func (p *Publisher) Publish(ctx context.Context, channel string, payload []byte, id string) (Ack, error) {
	if err := CheckName("channel", channel); err != nil {
		return Ack{}, err
	}
	if id == "" {
		return Ack{}, errors.New("replica: publish: empty message id")
	}
	subject := subjectOf(p.memory, channel)
	refused, done := p.watch(subject)
	defer done()
	var last error
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return Ack{}, fmt.Errorf("replica: publish on %s (message id %s): %w (last attempt: %v)", subject, id, ctx.Err(), last)
			case err := <-refused:
				return Ack{}, &RefusedError{Subject: subject, Err: err}
			case <-time.After(min(time.Duration(attempt)*100*time.Millisecond, time.Second)):
			}
		}
		msg := nats.NewMsg(subject)
		msg.Data = payload
		fut, err := p.js.PublishMsgAsync(msg, jetstream.WithMsgID(id))
		if err != nil {
			last = err
			continue
		}
		timer := time.NewTimer(attemptTimeout)
		select {
		case ack := <-fut.Ok():
			timer.Stop()
			return Ack{Seq: ack.Sequence, Duplicate: ack.Duplicate}, nil
		case err := <-fut.Err():
			last = err
			var apiErr *jetstream.APIError
			if errors.As(err, &apiErr) && !errors.Is(err, nats.ErrNoResponders) && apiErr.Code != 503 {
				timer.Stop()
				return Ack{}, fmt.Errorf("replica: publish on %s (message id %s): %w", subject, id, err)
			}
		case err := <-refused:
			timer.Stop()
			return Ack{}, &RefusedError{Subject: subject, Err: err}
		case <-timer.C:
			last = errors.New("no acknowledgement within " + attemptTimeout.String())
		case <-ctx.Done():
			timer.Stop()
			return Ack{}, fmt.Errorf("replica: publish on %s (message id %s): %w", subject, id, ctx.Err())
		}
	}
}
