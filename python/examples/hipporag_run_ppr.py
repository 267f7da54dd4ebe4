"""A drop-in replacement for HippoRAG2's HippoRAG.run_ppr, on authppr.

HippoRAG2 (src/hipporag/HippoRAG.py) ranks passages with

    def run_ppr(self, reset_prob, damping=0.5):
        if damping is None:
            damping = 0.5
        reset_prob = np.where(np.isnan(reset_prob) | (reset_prob < 0), 0, reset_prob)
        pagerank_scores = self.graph.personalized_pagerank(
            vertices=range(len(self.node_name_to_vertex_idx)), damping=damping, directed=False,
            weights="weight", reset=reset_prob, implementation="prpack")
        doc_scores = np.array([pagerank_scores[idx] for idx in self.passage_node_idxs])
        sorted_doc_ids = np.argsort(doc_scores)[::-1]
        sorted_doc_scores = doc_scores[sorted_doc_ids.tolist()]
        return sorted_doc_ids, sorted_doc_scores

igraph_run_ppr below is that body as a function. AuthPPRRunPPR.run_ppr takes
the same inputs (a reset vector over all nodes, the damping) and returns the
same outputs (passage positions in passage_node_idxs, best first, and their
scores as numpy arrays); the scores agree with PRPACK's to 1e-10 (both solve
to about that tolerance), so the order can differ only between passages
whose scores are that close.

With top_k=K (HippoRAG's num_to_retrieve: retrieve() only reads
sorted_doc_ids[:num_to_retrieve] and their scores) run_ppr returns only K
passages, solved just until they are proved (authppr.Graph.top_k,
ordered=True). What is and is not the same as igraph's output:

  - The same: the K passage positions and their order are those of the
    exact PPR vector whenever the certificate says so (self.last_top_k:
    certified for the set, ordered for the order; ties lists the positions
    i whose order against i + 1 could not be proved at the 1e-10 tolerance).
    igraph's PRPACK scores are themselves within about 1e-10 (L1) of the
    exact vector, so a proved list is igraph's list except where igraph's
    own scores of two passages are within PRPACK's error of each other
    (igraph's np.argsort then orders such near-ties arbitrarily; authppr
    breaks exact ties by lower node id and reports them unproved).
  - Not the same: the scores are the solve's lower bounds, not converged
    values: the exact score of the i-th passage lies in [scores[i],
    scores[i] + last_top_k.score_errors[i]], which is far wider than 1e-10
    (on the KG generator's graph, top-5: bounds of 1e-7 to 2.5e-6 on scores
    of 4e-5 to 1.3e-4; the actual differences from igraph's scores were up
    to 2.1e-6 over 10 queries, 2.5e-11 for a top-200); the
    arrays hold K entries, not one per passage (pad=True appends the rest,
    unranked, with NaN scores); nothing is said about passages below K.

The swap inside HippoRAG, once the graph is final (after indexing; rebuild
after every graph change, as HippoRAG itself re-saves the graph):

    from hipporag_run_ppr import AuthPPRRunPPR
    self._authppr = AuthPPRRunPPR(self.graph, self.passage_node_idxs)
    ...
    def run_ppr(self, reset_prob, damping=0.5):
        return self._authppr.run_ppr(reset_prob, damping)

or patch_hipporag(HippoRAG) below, which does this lazily. The authppr graph
is built once (igraph's PRPACK call rebuilds its solver on every retrieval).

Run this file to compare both on the KG generator's graph:
    /usr/bin/python3 python/examples/hipporag_run_ppr.py [anchors-data/kg.edges.bin]
(from the repository root; make the graph with anchors/gen_graph.py kg, see anchors/README.md)
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import authppr  # noqa: E402


def igraph_run_ppr(graph, passage_node_idxs, reset_prob, damping=0.5):
    """HippoRAG2's run_ppr body, verbatim in behaviour: the reference."""
    if damping is None:
        damping = 0.5
    reset_prob = np.where(np.isnan(reset_prob) | (reset_prob < 0), 0, reset_prob)
    pagerank_scores = graph.personalized_pagerank(
        vertices=range(graph.vcount()), damping=damping, directed=False,
        weights="weight", reset=reset_prob, implementation="prpack")
    doc_scores = np.array([pagerank_scores[idx] for idx in passage_node_idxs])
    sorted_doc_ids = np.argsort(doc_scores)[::-1]
    sorted_doc_scores = doc_scores[sorted_doc_ids.tolist()]
    return sorted_doc_ids, sorted_doc_scores


def authppr_graph_from_igraph(graph, weights="weight"):
    """The authppr graph of an igraph graph, undirected as HippoRAG solves it
    (directed=False), with the edge attribute `weights` (None: all 1)."""
    edges = np.array(graph.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    w = None
    if weights is not None and weights in graph.es.attributes():
        w = np.asarray(graph.es[weights], dtype=np.float64)
    return authppr.Graph(graph.vcount(), edges, weights=w, directed=False)


class AuthPPRRunPPR:
    """HippoRAG2's run_ppr on authppr: build once per graph, call per retrieval."""

    def __init__(self, graph, passage_node_idxs, weights="weight"):
        self.graph = authppr_graph_from_igraph(graph, weights) if not isinstance(graph, authppr.Graph) else graph
        self.passage_node_idxs = np.ascontiguousarray(passage_node_idxs, dtype=np.int64)
        self._scores = np.empty(self.graph.n)
        # Node id -> position in passage_node_idxs, for top_k's answers.
        self._position = np.full(self.graph.n, -1, dtype=np.int64)
        self._position[self.passage_node_idxs] = np.arange(len(self.passage_node_idxs))
        self.last_top_k = None

    def run_ppr(self, reset_prob, damping=0.5, top_k=None, pad=False):
        """HippoRAG2's run_ppr. Without top_k: every passage ranked, as
        igraph's run_ppr. With top_k (HippoRAG's num_to_retrieve): only the
        top_k passages, proved (see the module doc), best first; their
        authppr.TopK certificate is kept in self.last_top_k. pad=True appends
        the other passages, unranked, in passage order with NaN scores, so
        the arrays have one entry per passage as HippoRAG2's
        graph_search_with_fact_entities asserts."""
        if damping is None:
            damping = 0.5
        reset_prob = np.asarray(reset_prob, dtype=np.float64)
        reset_prob = np.where(np.isnan(reset_prob) | (reset_prob < 0), 0, reset_prob)
        if top_k is not None:
            return self._run_top_k(reset_prob, damping, top_k, pad)
        # Scores land in a reused numpy buffer: no list of n floats per call.
        # (Not thread-safe: give each thread its own runner.)
        pagerank_scores = self.graph.personalized_pagerank(reset_prob, damping=damping, out=self._scores)
        doc_scores = pagerank_scores[self.passage_node_idxs]
        sorted_doc_ids = np.argsort(doc_scores)[::-1]
        sorted_doc_scores = doc_scores[sorted_doc_ids.tolist()]
        return sorted_doc_ids, sorted_doc_scores

    def _run_top_k(self, reset_prob, damping, top_k, pad):
        t = self.graph.top_k(reset_prob, top_k, candidates=self.passage_node_idxs, damping=damping, ordered=True)
        self.last_top_k = t
        sorted_doc_ids = self._position[np.asarray(t.ids, dtype=np.int64)]
        sorted_doc_scores = np.asarray(t.scores, dtype=np.float64)
        if pad:
            rest = np.ones(len(self.passage_node_idxs), dtype=bool)
            rest[sorted_doc_ids] = False
            sorted_doc_ids = np.concatenate([sorted_doc_ids, np.flatnonzero(rest)])
            sorted_doc_scores = np.concatenate([sorted_doc_scores, np.full(len(sorted_doc_ids) - len(t.ids), np.nan)])
        return sorted_doc_ids, sorted_doc_scores


def patch_hipporag(cls, top_k=None):
    """Replaces cls.run_ppr (HippoRAG2's class) with the authppr version,
    built on first use from self.graph and self.passage_node_idxs and rebuilt
    when the igraph graph object or its size changes. With top_k, each
    retrieval proves only the top_k passages (run_ppr(..., top_k, pad=True):
    the rest follow unranked with NaN scores); top_k must be at least the
    num_to_retrieve HippoRAG's retrieve() slices (retrieval_top_k, 200 by
    default; qa_top_k = 5 passages reach the reader)."""

    def run_ppr(self, reset_prob, damping=0.5):
        key = (id(self.graph), self.graph.vcount(), self.graph.ecount())
        runner = getattr(self, "_authppr_run_ppr", None)
        if runner is None or getattr(self, "_authppr_key", None) != key:
            runner = self._authppr_run_ppr = AuthPPRRunPPR(self.graph, self.passage_node_idxs)
            self._authppr_key = key
        if top_k is None:
            return runner.run_ppr(reset_prob, damping)
        return runner.run_ppr(reset_prob, damping, top_k=top_k, pad=True)

    cls.run_ppr = run_ppr
    return cls


def _load_kg(path):
    """The KG generator's graph (anchors/gen_graph.py): PPREDGE1
    binary or the --tsv text (src dst weight, one header comment)."""
    if path.endswith(".bin"):
        with open(path, "rb") as f:
            assert f.read(8) == b"PPREDGE1", "bad magic"
            n, m, _ = (int(v) for v in np.frombuffer(f.read(24), dtype="<u8"))
            src = np.frombuffer(f.read(4 * m), dtype="<u4")
            dst = np.frombuffer(f.read(4 * m), dtype="<u4")
            w = np.frombuffer(f.read(4 * m), dtype="<f4")
        return n, np.stack([src, dst], axis=1).astype(np.int64), w.astype(np.float64)
    with open(path) as f:
        header = f.readline()
    n = int(header.split("n=")[1].split()[0])
    data = np.loadtxt(path, comments="#")
    return n, data[:, :2].astype(np.int64), data[:, 2].astype(np.float64)


def main():
    import igraph as ig
    path = sys.argv[1] if len(sys.argv) > 1 else "anchors-data/kg.edges.bin"
    n, edges, w = _load_kg(path)
    n_ent = 200_000 if n == 250_000 else int(n * 0.8)
    graph = ig.Graph(n=n, edges=edges.tolist(), directed=False)
    graph.es["weight"] = w.tolist()
    passage_node_idxs = list(range(n_ent, n))
    runner = AuthPPRRunPPR(graph, passage_node_idxs)
    rng = np.random.default_rng(777)
    for q in range(3):
        reset = np.zeros(n)
        reset[n_ent:] = rng.random(n - n_ent) * 0.05
        reset[rng.choice(n_ent, 5, replace=False)] = 1.0
        t0 = time.perf_counter()
        ids_i, sc_i = igraph_run_ppr(graph, passage_node_idxs, reset, 0.5)
        t1 = time.perf_counter()
        ids_a, sc_a = runner.run_ppr(reset, 0.5)
        t2 = time.perf_counter()
        ids_k, sc_k = runner.run_ppr(reset, 0.5, top_k=5)
        t3 = time.perf_counter()
        c = runner.last_top_k
        print("query %d: igraph %.3f s, authppr %.3f s (%.1fx), authppr top-5 %.3f s (%.1fx, %d sweeps, certified %s, "
              "ordered %s); max |score diff| %.1e, top-5 %.1e (bound %.1e); top-5 %s / %s / %s"
              % (q, t1 - t0, t2 - t1, (t1 - t0) / (t2 - t1), t3 - t2, (t1 - t0) / (t3 - t2), c.sweeps, c.certified,
                 c.ordered, np.abs(sc_a - sc_i).max(), np.abs(sc_k - sc_i[:5]).max(), max(c.score_errors),
                 ids_i[:5].tolist(), ids_a[:5].tolist(), ids_k.tolist()))


if __name__ == "__main__":
    main()
