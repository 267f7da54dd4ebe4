// Command cabi is the C ABI of authppr: graphs, igraph-compatible
// Personalized PageRank and the integrity guard behind opaque integer
// handles, built as a shared library for other languages (the Python binding
// in python/authppr is its first user):
//
//	go build -buildmode=c-shared -o libauthppr.so ./cabi
//
// and called from C as
//
//	int32_t edges[] = {0, 1, 1, 2, 2, 0}; // (src, dst) pairs, 32-bit ids
//	uint64_t g;
//	char err[512];
//	if (authppr_graph_create(3, 3, edges, 4, NULL, 1, NULL, NULL, 0, NULL, NULL, 0, &g, err, sizeof err) != AUTHPPR_OK)
//		fprintf(stderr, "%s\n", err);
//	double reset[3] = {1, 0, 0}, pi[3];
//	authppr_ppr(g, reset, 3, 0.85, 0, pi, 3, NULL, err, sizeof err); // igraph's PRPACK vector, to 1e-10
//
// authppr.h is the public header (prototypes, status codes, the two result
// structs); the build also writes libauthppr.h, cgo's generated version of
// the same prototypes. exports.go holds the exports, core.go the library in
// plain Go on Go slices (what the tests and FuzzCore drive without cgo), and
// harness.go the cgo wrappers through which the tests call the exports as a
// C caller would.
//
// # Handles and memory
//
//   - Graphs and guards live in a handle table guarded by a mutex; C sees
//     only a uint64 handle (never 0). No Go pointer is handed to C or kept
//     past a call, and no C pointer is kept by Go: every array argument is
//     read (or written) during the call only, and the library copies what it
//     keeps.
//   - A graph is immutable once created; a guard keeps its own reference to
//     the graph's snapshot, so freeing the graph handle first is safe.
//   - Every call is safe for concurrent use on the same or different handles:
//     a graph handle keeps one engine that calls reuse (Engine.Restart, so
//     nothing graph-sized is allocated per call after the first), behind a
//     mutex that callers try without waiting; a caller that finds it busy
//     takes an engine from a pool instead. Freeing a handle while another
//     thread uses it is the caller's race to avoid, as with free(3), but it
//     cannot crash the library: a freed handle is an error.
//
// # Semantics
//
// A graph has nodes 0..n-1, exactly the caller's ids, isolated nodes
// included; edges keep their order and their ids (0..m-1), parallel edges
// are kept and summed in each row, and an undirected self-loop counts twice
// in its node's out-weight, as in igraph. authppr_ppr is igraph's
// personalized_pagerank(..., reset=r, implementation="prpack"): r is
// normalised to sum 1, dangling nodes send their mass to r, and the result
// is solved to an L1 error bound of 1e-10 (PRPACK's tolerance) unless the
// caller asks for another. authppr_top_k solves the same problem only until
// the top-k over the caller's candidates is proved (ppr.SolveTopK; with
// AUTHPPR_TOPK_ORDERED until their order is proved too,
// ppr.SolveTopK with Options.Ordered), and returns the proof: per-entry leads over the
// next entry, score bounds, the proved gap.
//
// # The living store
//
// authppr_store_open and authppr_store_create give a store handle (package
// store: a durable living graph memory, or an in-memory one);
// authppr_store_writer a writer handle, the only way to write, as one
// channel (store.Writer); authppr_writer_apply applies one batch of writes
// given as columns (a kind per write, names as one text buffer and
// offsets, ids, weights, source edges), all or none;
// authppr_store_guard_create a guard for one trust policy
// (store.NewGuard), whose authppr_store_guard_select runs a guarded
// selection on the store's current version and returns node names, the
// suspects' untrusted channels and the version with the decision. Names
// come back NUL-terminated into a caller's buffer: a buffer too small is
// status 4 (AUTHPPR_ESPACE) with the size needed, nothing written. The
// store is safe for concurrent use: writers serialise, selections read
// immutable versions.
//
// # Version
//
// authppr_version reports internal/version.Version, the version the CLI
// and the Python package report too; the Python package refuses to load a
// library of another version.
//
// # Errors
//
// Every exported function returns a status code: 0 (AUTHPPR_OK), 1 (bad
// argument: lengths, ids out of range, NaN or negative weights or weights
// outside csr's range [2^-1022, 2^988], an all-zero reset, unknown
// channels, a graph whose build would need more memory than its limit:
// authppr_graph_create's max_memory, by default half the memory
// available), 2 (unknown or freed handle, or a handle of the
// other kind), 3 (internal error: a recovered panic, which no input should
// cause), 4 (an output buffer for names too small; the call says how much
// it needs). The message goes into the caller's buffer (errbuf, errcap: the
// last two arguments of every call), NUL-terminated and truncated to fit, so
// reading it is thread-safe: there is no global "last error". Messages start
// with the package that found the problem ("csr: edge 3: node 7 -> 1 out
// of range (graph has 5 nodes, ids 0..4)", "cabi: ...", "ppr: ...").
package main
