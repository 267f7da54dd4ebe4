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
    /usr/bin/python3 python/examples/hipporag_run_ppr.py [/tmp/anchors-data/kg.edges.bin]
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
        self.passage_node_idxs = np.asarray(passage_node_idxs, dtype=np.int64)
        self._scores = np.empty(self.graph.n)

    def run_ppr(self, reset_prob, damping=0.5):
        if damping is None:
            damping = 0.5
        reset_prob = np.asarray(reset_prob, dtype=np.float64)
        reset_prob = np.where(np.isnan(reset_prob) | (reset_prob < 0), 0, reset_prob)
        # Scores land in a reused numpy buffer: no list of n floats per call.
        # (Not thread-safe: give each thread its own runner.)
        pagerank_scores = self.graph.personalized_pagerank(reset_prob, damping=damping, out=self._scores)
        doc_scores = pagerank_scores[self.passage_node_idxs]
        sorted_doc_ids = np.argsort(doc_scores)[::-1]
        sorted_doc_scores = doc_scores[sorted_doc_ids.tolist()]
        return sorted_doc_ids, sorted_doc_scores


def patch_hipporag(cls):
    """Replaces cls.run_ppr (HippoRAG2's class) with the authppr version,
    built on first use from self.graph and self.passage_node_idxs and rebuilt
    when the igraph graph object or its size changes."""

    def run_ppr(self, reset_prob, damping=0.5):
        key = (id(self.graph), self.graph.vcount(), self.graph.ecount())
        runner = getattr(self, "_authppr_run_ppr", None)
        if runner is None or getattr(self, "_authppr_key", None) != key:
            runner = self._authppr_run_ppr = AuthPPRRunPPR(self.graph, self.passage_node_idxs)
            self._authppr_key = key
        return runner.run_ppr(reset_prob, damping)

    cls.run_ppr = run_ppr
    return cls


def _load_kg(path):
    """The KG generator's graph (shared/anchors/gen_graph.py): PPREDGE1
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
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/anchors-data/kg.edges.bin"
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
        print("query %d: igraph %.3f s, authppr %.3f s (%.1fx); max |score diff| %.1e; top-5 %s / %s"
              % (q, t1 - t0, t2 - t1, (t1 - t0) / (t2 - t1), np.abs(sc_a - sc_i).max(),
                 ids_i[:5].tolist(), ids_a[:5].tolist()))


if __name__ == "__main__":
    main()
