// Package live reads and runs the event streams of a living memory: JSON
// lines of write batches (one writer's channel, its operations) and guarded
// queries, as `pprbench live` takes them and as a replicated memory's
// followers apply them. It turns events into store writes and
// replay queries and decisions into output records; the store and the
// guard do the work.
//
// # Events
//
// One JSON object a line, exactly one of:
//
//	{"write": {"channel": "peer", "ops": [OP, ...]}}
//	{"query": {"id": "q7", "seeds": {"A": 1.0, ...}, "k": 5, "candidates": ["P1", ...]}}
//
// with OP one of
//
//	{"op": "edge", "src": "A", "dst": "B", "weight": 1.0}   weight optional, default 1
//	{"op": "delete", "src": "A", "dst": "B"}                 every live edge from A to B
//	{"op": "merge", "from": "A", "into": "B"}
//
// Unknown fields, a missing or empty channel, unknown node names (where a
// write does not create them), weights outside csr's range and malformed
// lines are errors naming the line.
package live
