// Package store is the living graph memory: it applies structural writes
// (add a node, add an edge, delete an edge, merge two entities, infer an
// edge), each through the writer of the channel that makes it, to a delta
// beside an immutable csr snapshot, and hands readers immutable versions
// that queries solve on without waiting for writers.
//
//	st, err := store.Open("memdir", store.Options{}) // durable; New(nil, nil, opt) in memory
//	agent, err := st.Writer("agent-7")                // the only way to write, as that channel
//	res, err := agent.Apply(store.Edge("q", "alice", 1), store.Edge("alice", "p1", 1)) // one batch
//	guard := st.NewGuard(mask.Trust("agent-7"), replay.Options{})
//	d, err := guard.Select(st.Current(), query) // a *replay.Decision on the current version
//
// (Example and ExampleGuard_Select run it; docs/store.md says what the
// store guarantees.)
//
// # Versions
//
// Store.Current returns the newest *Version; it is an atomic pointer load.
// A Version never changes: a query started on version v sees v to the end.
// Apply applies a batch of writes all-or-nothing and publishes one new
// version after the whole batch, so no reader ever sees half a batch.
// Writers serialise on a mutex; readers take no lock a writer holds.
//
// A version is (base, delta): the base is a csr.Graph with its mask.Labels,
// the delta is a prefix of append-only logs (new edges, deletions, new node
// names) that the writer keeps appending to past the prefix a version
// records, so publishing a version copies nothing. To solve, a version
// builds (once per trust policy, on first use) a patched view
// (Version.View, mask.WithDelta): the base view with the rows of the few
// nodes the delta touched replaced, every other row read from the base
// snapshot's arrays. ppr's engine solves on it as on any view: there is one
// engine, and the store is a source of rows for it. Materialising a CSR per
// version would cost O(edges) per write batch; the patched view costs
// O(n/64) words of bitsets plus the rows written since the newest earlier
// version whose view was built (it derives from that view, sharing the
// rest; the first after a compaction reads the whole delta), and a solve
// on it reads the same arcs as on the compacted graph. Compaction bounds the delta
// (Options.CompactAt starts it in the background). Name lookups of nodes
// created in the delta index the version's new names once, on the first
// lookup that needs them.
//
// Compaction shares the CPU with queries; Options.CompactNice lowers its
// thread's priority, so that queries get the CPU first and compaction takes
// longer (docs/benchmarks.md, "The living store").
//
// # Ids and labels across compaction
//
// Node ids and edge ids are dense, assigned in write order, never reused,
// and never change: compaction keeps every node and every edge, deleted or
// not, under its id (a deleted edge stays in the snapshot, labelled deleted
// by the channel that deleted it, because a view that does not trust that
// channel must still see it). Compaction therefore only moves edges from the
// delta into the CSR; edge e is the same edge (endpoints, weight, creator,
// deleters) in every version that has it, so a mask or label bitmap built on
// any version names the same edges on every later one. The ids are csr's
// uint32 ids (edges of the snapshot and of the delta share one id space),
// which bounds a store to 2^32-1 edges and nodes; Apply refuses more.
// A mask.View is tied to the csr.Graph it was built on and mask refuses
// labels whose edge count differs from the graph's, so a view cannot be
// used on another snapshot by accident.
//
// Labels: every edge is added by the channel that wrote it (its creator);
// a deletion labels the edge deleted by the deleting channel. The native view
// keeps edges deleted by nobody; an authenticated view keeps edges whose
// creator it trusts and that no trusted channel deleted (mask's rules).
//
// # Merges
//
// MergeInto(a, b) applied by channel c's writer rewires every edge incident to a that
// is live in the native view at that moment: each becomes a new edge (a
// replaced by b at each end it touched, same weight, created by c) and the
// old edge is labelled deleted by c. Node a stays (with no live edges in the
// native view); names are not aliased. A view that does not trust c masks
// the new edges and ignores c's deletions, so it sees exactly the graph
// before the merge (TestUntrustedMergeUndone).
//
// # Durability
//
// Open(dir) runs the store on disk: every batch is one wal record, fsynced
// before Apply returns. Snapshot generation K is the file snap-K (snapshot
// package format), and holds every write of the logs wal-0 .. wal-(K-1);
// compaction rotates the log (new writes go to wal-K) before it folds the
// delta, saves snap-K atomically, then removes older files. Recovery loads
// the highest snap-K and replays wal-K, wal-K+1, ... in order. A torn tail
// of the newest log (a batch whose Apply never returned) is cut off; a
// damaged last batch (whole, failing its checksum) is cut off, kept in a
// file beside the log and reported by Store.Recovery, which a caller that
// must not lose writes silently checks after Open; damage anywhere else is
// an error from Open (see the wal package).
//
// Logs written before the wal's format version 2 (version 1) open with
// every batch: Open reads an older one as it is and converts the newest
// to version 2 before the first write (a new file renamed over it: a crash
// leaves one version or the other, both readable), with the same torn-tail
// and damage rules; Store.Recovery's Version says which version each log
// was found in. Compaction removes the older ones as it removes any log.
//
// A batch applied with a position (Writer.ApplyAt: the sequence of a
// replicated stream, say) carries it in its own wal record (encodeRecord),
// and each snapshot keeps the position and the batch and write counts of
// the version it holds (the snapshot format's progress section), so a
// reopened store's Position is that of the last batch it holds, whatever a
// crash cut off: a follower resuming after it applies no batch twice and
// skips none. Install starts a store from such a snapshot file.
//
// A batch Apply reports failed is neither published nor in the store after
// a reopen. When the log cannot take a batch (a full disk, an I/O error)
// the wal cuts off what the failed write left and Apply returns its error;
// the store goes on. When cutting off fails too, the error wraps
// ErrLogFailed: the batch may be there after a reopen (as after a crash
// during the call), and the store refuses writes and compaction until it is
// closed and reopened. Compaction on a full disk fails with its error
// (snapshots are written to a temporary file and renamed), leaving the logs
// it would have folded: no acknowledged batch is lost, and a later
// compaction with room folds them.
//
// # Incremental PPR
//
// A Cache keeps solved (x, r) pairs per (seed set, damping, policy) and the
// version they are exact for. On a newer version it applies the residual
// adjustment r += d*x*(P_new - P_old) over the rows that changed (the store
// journals every node whose out-row a write touched) and pushes from the
// nodes it changed, instead of solving again; a new seed set close to a
// cached one starts from the cached x with its residual recomputed exactly.
// A Cache serves the versions of one open store (it orders them by
// Version.Batches). The journal is kept for the life of the open store: 4
// bytes per changed row per write.
//
// # Errors
//
// Bad writes are errors naming the write's index in its batch and what was
// wrong (`store: write 3: delete edge 17: no such edge (12 edges)`); the
// batch is then applied not at all. Nothing panics on user data.
package store
