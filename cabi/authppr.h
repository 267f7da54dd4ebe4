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
	AUTHPPR_EINTERNAL = 3 /* recovered panic: a bug, please report */
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
 * indices into channel_names) may be NULL (all "default"); directed is 0
 * or 1. max_memory is the memory limit of the build in bytes (0: half the
 * memory available; negative: none): a graph whose build would need more
 * is refused (AUTHPPR_EINVAL, naming n, m, the estimate and the limit)
 * before it is allocated. */
int authppr_graph_create(int64_t n, int64_t m, void* edges, int32_t idx_bytes, double* weights, int32_t directed,
	int32_t* channels, char** channel_names, int64_t nchannels, int64_t max_memory, uint64_t* out,
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
 * suspect arrays cap_suspects (at least the guard's max_suspects). */
int authppr_guard_select(uint64_t h, double* reset, int64_t nreset, int64_t k, int64_t* candidates, int64_t ncand,
	double damping, int64_t* native_ids, double* native_scores, int64_t* auth_ids, double* auth_scores,
	int64_t cap_suspects, int64_t* s_edge, int64_t* s_src, int64_t* s_dst, int32_t* s_channel, double* s_mass,
	authppr_decision* d, char* errbuf, int64_t errcap);

#endif
