package replica

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// duplicateWindow is how long the stream remembers message ids: a publish
// retried within it is acknowledged once.
const duplicateWindow = 2 * time.Minute

// EnsureStream returns the memory's stream, creating it with replicas
// copies (1 on a single server, 3 in a cluster) when it is absent. An
// existing stream is returned as it is (its replica count is not changed).
// It needs JetStream API rights.
func EnsureStream(ctx context.Context, js jetstream.JetStream, memory string, replicas int) (jetstream.Stream, error) {
	if err := CheckName("memory", memory); err != nil {
		return nil, err
	}
	if replicas < 1 || replicas > 5 {
		return nil, fmt.Errorf("replica: %d replicas, want 1 to 5", replicas)
	}
	s, err := js.Stream(ctx, streamName(memory))
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("replica: memory %s: stream %s: %w", memory, streamName(memory), err)
	}
	s, err = js.CreateStream(ctx, jetstream.StreamConfig{
		Name:        streamName(memory),
		Description: "authppr memory " + memory + ": write batches, one message each, on authppr." + memory + ".w.<channel>",
		Subjects:    []string{subjects(memory)},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		Duplicates:  duplicateWindow,
		DenyDelete:  true, // the retention rule purges a prefix; no message is deleted alone
	})
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // another follower made it meanwhile
		s, err = js.Stream(ctx, streamName(memory))
	}
	if err != nil {
		return nil, fmt.Errorf("replica: memory %s: create stream %s (%d replicas): %w", memory, streamName(memory), replicas, err)
	}
	return s, nil
}
