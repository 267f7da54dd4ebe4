// Package replica runs a replicated living memory on NATS JetStream: the
// log is a JetStream stream, each principal a NATS user the broker lets
// publish on its own channel's subject only, and each reader a follower
// embedded in its own process that applies the stream in order into a
// local durable store and answers guarded selections on it.
//
//	// a reader (JetStream API rights)
//	_, err := replica.EnsureStream(ctx, js, "m", 1)
//	f, err := replica.Open(ctx, js, "m", replica.Options{Dir: dir, ...})
//	go f.Follow(ctx) // or f.CatchUp(ctx, seq)
//
//	// a writer (publish on its channel's subject only)
//	p, err := replica.NewPublisher(nc, "m")
//	ack, err := p.Publish(ctx, "alice", []byte(`{"ops": [...]}`), "msg-id")
//
//	// read your writes, then select under the guard
//	err = f.WaitFor(ctx, ack.Seq)
//	d, err := f.Store().NewGuard(trust, replay.Options{}).Select(f.Store().Current(), q)
//
//	// snapshots for new followers, and the retention rule
//	info, err := f.PublishSnapshot(ctx, replica.Retention{Keep: 2, Purge: true})
//
// A publish the broker refuses is a *RefusedError; a follower the
// retention rule left behind gets ErrBehind.
//
// # Layout
//
// A memory NAME is the stream AUTHPPR_NAME with the subjects
// authppr.NAME.w.>; a write batch of channel C is one message on
// authppr.NAME.w.C whose payload is the batch's ops and no channel,
// {"ops": [OP, ...]} with OP as in pprbench live's events (edge, delete,
// merge). Snapshots are objects of the JetStream object store
// AUTHPPR_NAME_snapshots, named snap-POSITION, each a snapshot file
// (snapshot format, its progress section naming the stream sequence it
// holds). Memory and channel names are letters, digits, '-' and '_'
// (CheckName).
//
// # Provenance
//
// A follower applies a message as the channel its subject names and never
// reads a channel from the payload (one that names a channel is refused):
// the broker's per-user publish permissions are what bind a channel to a
// principal. A publish the broker refuses never enters the stream, so no
// follower can see it; Publisher.Publish reports the server's permissions
// violation as a *RefusedError naming the subject. A writer needs no
// JetStream API rights: publishing on its subject and receiving on its
// reply inbox (_INBOX.>) is all Publish uses.
//
// # Order and exactly-once application
//
// The stream's sequence is the memory's order. A follower consumes it with
// an ordered consumer from one past the position its store holds
// (store.Writer.ApplyAt writes each batch's sequence in the batch's own wal
// record), so after a crash it resumes after the last batch its disk holds:
// none is applied twice, none skipped. A message the store refuses (an
// invalid batch) is reported and applied not at all, on every follower
// alike (validation reads only the store's state, which is the same at the
// same sequence); the follower's sequence (Record.Seq of its answers)
// passes it, its store's position does not, so after a restart it is
// refused again, not applied. Publishers give every batch a message id
// (Nats-Msg-Id): a retry within the stream's duplicate window (two
// minutes) is acknowledged with the first copy's sequence and not stored
// again.
//
// # Snapshots and retention
//
// Follower.PublishSnapshot writes the follower's current version as a
// snapshot file and puts it in the object store; Open, on an empty
// directory, installs the newest snapshot (store.Install) and replays the
// stream's tail after its position. The retention rule: keep the newest K
// snapshots (K >= 1) and purge the stream's messages up to and including
// the position of the oldest snapshot kept, never further, so every kept
// snapshot plus the stream is the whole memory. A follower whose position
// is below the first message the stream still holds cannot catch up from
// the stream (ErrBehind): it starts again from a snapshot, in an empty
// directory.
//
// # Errors
//
// Errors start with "replica:" and name the memory, subject or sequence
// at fault.
package replica
