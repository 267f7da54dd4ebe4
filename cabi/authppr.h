/* authppr.h: the C ABI of authppr (package cabi; see doc.go).
 *
 * Build: go build -buildmode=c-shared -o libauthppr.so ./cabi
 *
 * Every function returns a status (AUTHPPR_OK or an error code) and writes
 * a NUL-terminated message to errbuf (errcap bytes; "" on success; errbuf
 * may be NULL). Handles are opaque, never 0. Arrays are read or written
 * during the call only.
 */
#ifndef AUTHPPR_H
#define AUTHPPR_H

#include <stdint.h>

enum {
	AUTHPPR_OK = 0,
	AUTHPPR_EINVAL = 1,   /* bad argument */
	AUTHPPR_EHANDLE = 2,  /* unknown, freed or wrong-kind handle */
	AUTHPPR_EINTERNAL = 3, /* recovered panic: a bug, please report */
	AUTHPPR_ESPACE = 4     /* an output buffer for names is too small: *needed says how many bytes */
};

/* Filled by authppr_ppr when the caller passes a non-NULL pointer. */
typedef struct {
	int64_t solve_ns;    /* the solve alone, timed inside the library */
	int64_t sweeps;
	double  error_bound; /* proved L1 distance to the exact vector */
} authppr_solve_stats;

/* Filled by authppr_guard_select. */
typedef struct {
	int64_t n_native;   /* entries written to native_ids/native_scores (<= k) */
	int64_t n_auth;     /* entries written to auth_ids/auth_scores (<= k) */
	int64_t n_suspects; /* entries written to the suspect arrays */
	int32_t outcome;    /* 0 same, 1 tie, 2 divergent */
	int32_t divergent;  /* outcome == 2 */
	int32_t path;       /* 1 untouched, 2 certificate, 3 delta, 4 full */
	int32_t pad_;
	double  native_gap; /* k-th native score minus the best unselected one */
	double  gap_lo, gap_hi; /* proved interval holding the authenticated gap */
	int64_t native_ns, replay_ns;
} authppr_decision;

/* Filled by authppr_top_k. */
typedef struct {
	int64_t n;           /* entries written to ids, scores, leads, errs: min(k, competitors) */
	int32_t certified;   /* the n ids are the exact top-n as a set: proved_gap > 0 */
	int32_t ordered;     /* their order is proved too: leads[0..n-2] > 0 */
	double  gap;         /* n-th score minus the best unselected one (+Inf: none left) */
	double  proved_gap;  /* lower bound on that gap in the exact vector */
	double  error_bound; /* proved L1 distance of the solve's vector to the exact one */
	double  coord_bound; /* per-coordinate bound factor (undirected graphs; 0 if directed) */
	int64_t sweeps;      /* passes over the nodes: full sweeps and threshold scans */
	int64_t scans;       /* of which threshold scans (undirected graphs) */
	int64_t solve_ns;    /* the solve alone, timed inside the library */
} authppr_topk_stats;

/* Flags of authppr_top_k. */
enum {
	AUTHPPR_TOPK_ORDERED = 1 /* also prove the order within the top-k */
};

/* A graph over nodes 0..n-1 with m edges: edges holds 2*m ids as pairs
 * (src0, dst0, src1, dst1, ...), idx_bytes wide (4 or 8: int32_t or int64_t;
 * -4 or -8: uint32_t or uint64_t); weights (m) may be
 * NULL (all 1), else each is 0 or within [2^-1022, 2^988]; channels (m
 * indices into channel_names) may be NULL (all "default"); req_offsets
 * (m+1, starting at 0, non-decreasing) and req_channels (req_offsets[m]
 * indices into channel_names) may be NULL: edge e also depends on
 * req_channels[req_offsets[e] .. req_offsets[e+1]-1] (min-inheritance: a
 * guard keeps it only if it trusts them all); directed is 0 or 1. max_memory is the memory limit of the build in bytes (0: half the
 * memory available; negative: none): a graph whose build would need more
 * is refused (AUTHPPR_EINVAL, naming n, m, the estimate and the limit)
 * before it is allocated. */
int authppr_graph_create(int64_t n, int64_t m, void* edges, int32_t idx_bytes, double* weights, int32_t directed,
	int32_t* channels, char** channel_names, int64_t nchannels, int64_t* req_offsets, int32_t* req_channels,
	int64_t max_memory, uint64_t* out,
	char* errbuf, int64_t errcap);
int authppr_graph_free(uint64_t h, char* errbuf, int64_t errcap);
int authppr_graph_info(uint64_t h, int64_t* n, int64_t* m, int32_t* directed, char* errbuf, int64_t errcap);

/* igraph's personalized_pagerank(reset=reset, implementation="prpack"):
 * nreset == nout == n; tol is the L1 error bound (0: 1e-10); stats may be NULL. */
int authppr_ppr(uint64_t h, double* reset, int64_t nreset, double damping, double tol, double* out, int64_t nout,
	authppr_solve_stats* stats, char* errbuf, int64_t errcap);

/* The top-k of igraph's personalized_pagerank(reset=reset) over the
 * candidates (ncand distinct node ids; NULL: every node), best first, solved
 * only until the selection is proved (with AUTHPPR_TOPK_ORDERED: its order
 * too) or the L1 error bound reaches tol (0: 1e-10), whichever is first.
 * ids and scores have room for k entries; leads and errs (may be NULL) too:
 * leads[i] is a proved lower bound on pi(ids[i]) - pi(ids[i+1]), the last
 * one on the gap to the best unselected candidate (> 0: proved; <= 0: a tie
 * at this tolerance); the exact pi(ids[i]) lies in [scores[i],
 * scores[i] + errs[i]]. stats is required (stats->n says how many entries
 * were written). */
int authppr_top_k(uint64_t h, double* reset, int64_t nreset, int64_t k, int64_t* candidates, int64_t ncand,
	double damping, double tol, int32_t flags, int64_t* ids, double* scores, double* leads, double* errs,
	authppr_topk_stats* stats, char* errbuf, int64_t errcap);

/* A guard trusting the named channels (each must label some edge);
 * max_suspects 0 means 5. */
int authppr_guard_create(uint64_t h, char** trust, int64_t ntrust, int64_t max_suspects, uint64_t* out,
	char* errbuf, int64_t errcap);
int authppr_guard_free(uint64_t h, char* errbuf, int64_t errcap);

/* Native top-k for a dense reset (candidates may be NULL: every node),
 * replayed on the trusted edges. native_* and auth_* hold k entries, the
 * suspect arrays cap_suspects (at least the guard's max_suspects),
 * s_chan_off cap_suspects+1: suspect i's untrusted channels are
 * s_chans[s_chan_off[i] .. s_chan_off[i+1]-1], indices into the graph's
 * channel names (s_chans holds cap_chans). */
int authppr_guard_select(uint64_t h, double* reset, int64_t nreset, int64_t k, int64_t* candidates, int64_t ncand,
	double damping, int64_t* native_ids, double* native_scores, int64_t* auth_ids, double* auth_scores,
	int64_t cap_suspects, int64_t* s_edge, int64_t* s_src, int64_t* s_dst, double* s_mass,
	int64_t* s_chan_off, int32_t* s_chans, int64_t cap_chans,
	authppr_decision* d, char* errbuf, int64_t errcap);

/* authppr's version ("MAJOR.MINOR.PATCH"), NUL-terminated, into buf
 * (capacity bytes, truncated to fit). */
int authppr_version(char* buf, int64_t capacity, char* errbuf, int64_t errcap);

/* ---- The living store (package store) ----
 *
 * Strings go in as one text buffer and offsets (n strings: n+1 int64
 * offsets, string i at text[off[i] .. off[i+1]-1]) and come out
 * NUL-terminated, back to back, into a caller's buffer: *needed receives
 * their length, and a buffer too small is AUTHPPR_ESPACE with nothing
 * written (call again with *needed bytes). Node names hold no NUL byte and
 * are not empty. */

typedef struct {
	int64_t  nodes, edges, delta_edges; /* edges counts deleted ones: ids run 0..edges-1 */
	uint64_t batches;                   /* since the store was created */
	int64_t  nchannels;                 /* channels that wrote: their names go to the text buffer */
	int32_t  directed;
	int32_t  pad_;
} authppr_store_counts;

/* Write kinds of authppr_writer_apply. */
enum {
	AUTHPPR_OP_NODE = 1,           /* add node src (a no-op when it exists) */
	AUTHPPR_OP_EDGE = 2,           /* add edge src -> dst of weights[i], creating either node by name */
	AUTHPPR_OP_EDGE_BY_ID = 3,     /* add edge src_ids[i] -> dst_ids[i] between existing nodes */
	AUTHPPR_OP_DELETE_EDGE = 4,    /* delete edge edges[i] (as the writer's channel) */
	AUTHPPR_OP_DELETE_BETWEEN = 5, /* delete every live edge src -> dst */
	AUTHPPR_OP_MERGE = 6,          /* merge node src into node dst */
	AUTHPPR_OP_INFERRED = 7        /* add edge src -> dst derived from from[from_off[i] .. from_off[i+1]-1] */
};

/* Opens the durable store in dir (dir NULL or "": an in-memory store),
 * creating an empty one with edges directed as directed says when dir
 * holds none. compact_at > 0 compacts in the background once the delta
 * holds that many edges. */
int authppr_store_open(char* dir, int32_t directed, int64_t compact_at, uint64_t* out, char* errbuf, int64_t errcap);
/* A new durable store in dir whose first snapshot is graph g (edges,
 * weights, channels, requirements); nnames node names (NULL offsets:
 * "0", "1", ...). */
int authppr_store_create(char* dir, uint64_t g, char* name_text, int64_t* name_offsets, int64_t nnames,
	int64_t compact_at, uint64_t* out, char* errbuf, int64_t errcap);
/* Closes the store's log and releases the handle; its writers' writes
 * fail from then on, its guards still select. */
int authppr_store_free(uint64_t h, char* errbuf, int64_t errcap);
/* The current version's counts; the channels' names go to text. */
int authppr_store_info(uint64_t h, authppr_store_counts* info, char* text, int64_t capacity, int64_t* needed,
	char* errbuf, int64_t errcap);
int authppr_store_compact(uint64_t h, char* errbuf, int64_t errcap);
/* ids[i] = the id of name i, -1 when the store has no such node. */
int authppr_store_ids(uint64_t h, char* text, int64_t* offsets, int64_t n, int64_t* ids,
	char* errbuf, int64_t errcap);
/* The names of n node ids. */
int authppr_store_names(uint64_t h, int64_t* ids, int64_t n, char* text, int64_t capacity, int64_t* needed,
	char* errbuf, int64_t errcap);

/* A writer for channel: the only way to write, as that channel. */
int authppr_store_writer(uint64_t h, char* channel, uint64_t* out, char* errbuf, int64_t errcap);
int authppr_writer_free(uint64_t w, char* errbuf, int64_t errcap);
/* nops writes as one batch (all or none; the error names the write).
 * Columns a write's kind does not read may be NULL: text/text_off (names:
 * 2*nops+1 offsets, write i's src then dst), src_ids/dst_ids, weights
 * (NULL: 1), edges, from_off (nops+1)/from. out_ids (nops; may be NULL):
 * each write's node or edge id (a merge's first new edge, a
 * delete-between's first deleted edge); out_counts (may be NULL): edges a
 * merge rewired or a delete-between deleted; *batches: the new version. */
int authppr_writer_apply(uint64_t w, int64_t nops, int32_t* kinds, char* text, int64_t* text_off,
	int64_t* src_ids, int64_t* dst_ids, double* weights, int64_t* edges,
	int64_t* from_off, int64_t* from, int64_t* out_ids, int64_t* out_counts, uint64_t* batches,
	char* errbuf, int64_t errcap);

/* A guard on the store's versions trusting ntrust (> 0) channels, which
 * need not have written yet; max_suspects 0 means 5. */
int authppr_store_guard_create(uint64_t h, char** trust, int64_t ntrust, int64_t max_suspects, uint64_t* out,
	char* errbuf, int64_t errcap);
int authppr_store_guard_free(uint64_t g, char* errbuf, int64_t errcap);
/* A guarded selection on the current version: nseeds seed ids (weights
 * may be NULL: 1 each), k, candidates (NULL: every node). native_* and
 * auth_* hold k entries, the suspect arrays cap_suspects (at least the
 * guard's max_suspects; s_deleted: 1 when an untrusted channel deleted a
 * trusted edge). text receives the names: native, auth, then per suspect
 * its source, destination and s_nchan[i] untrusted channels; *version the
 * version's batch count. */
int authppr_store_guard_select(uint64_t g, int64_t* seeds, double* seed_weights, int64_t nseeds, int64_t k,
	int64_t* candidates, int64_t ncand, double damping,
	int64_t* native_ids, double* native_scores, int64_t* auth_ids, double* auth_scores,
	int64_t cap_suspects, int64_t* s_edge, int64_t* s_src, int64_t* s_dst, int32_t* s_deleted, double* s_mass,
	int32_t* s_nchan, char* text, int64_t capacity, int64_t* needed, uint64_t* version,
	authppr_decision* d, char* errbuf, int64_t errcap);

#endif
