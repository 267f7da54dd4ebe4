#!/usr/bin/python3
"""Measures authppr.hipporag per retrieval on a HippoRAG2-shaped graph
(issue 19): the patched run_ppr's overhead over the library's own solve
(what the Python side adds: the reset, the graph-content check, the
ranking), the content check alone (the guarded one: edges, weights,
channels), the guarded run_ppr against the
unguarded one, and the guard's replay time against its native solve as the
library reports them; igraph's run_ppr alongside.

    /usr/bin/python3 python/bench/bench_hipporag.py [--passages 10000] [--queries 10]

The graph follows HippoRAG2's construction (see tests/hipporag_shape.py):
entities then passages as vertices; per passage 4 triples (two edges each,
weight the count), passage-entity edges of weight 1, synonymy edges of
weight 0.8-0.95 in both directions; 5% of the passages (and their edges)
written by an untrusted writer. Each retrieval's reset: 5 linked entities
and every passage at 0.05 times a random dense score; damping 0.5.
Medians over the queries; sides interleaved.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import igraph as ig

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import authppr  # noqa: E402
import authppr.hipporag as hr  # noqa: E402


class Rag:
    pass


def build(n_pas, seed=1):
    rng = np.random.default_rng(seed)
    n_ent = 10 * n_pas
    names = ["entity-%d" % i for i in range(n_ent)] + ["chunk-%d" % i for i in range(n_pas)]
    g = ig.Graph(n=n_ent + n_pas, directed=False)
    g.vs["name"] = names
    writer = np.where(rng.random(n_pas) < 0.05, "mallory", "curated")
    edges, weights, chans = [], [], []
    ent_writers = [set() for _ in range(n_ent)]
    for p in range(n_pas):
        ents = set()
        for _ in range(4):
            s, o = (int(x) for x in rng.integers(0, n_ent, 2))
            edges += [(s, o), (o, s)]
            weights += [1.0, 1.0]
            chans += [str(writer[p])] * 2
            ents |= {s, o}
        for e in ents:
            edges.append((n_ent + p, e))
            weights.append(1.0)
            chans.append(str(writer[p]))
            ent_writers[e].add(str(writer[p]))
    for _ in range(n_pas * 2):
        a, b = (int(x) for x in rng.integers(0, n_ent, 2))
        sc = float(rng.uniform(0.8, 0.95))
        dep = tuple(sorted(ent_writers[a] | ent_writers[b])) or ("curated",)
        for pair in ((a, b), (b, a)):
            edges.append(pair)
            weights.append(sc)
            chans.append(dep[0] if len(dep) == 1 else dep)
    g.add_edges(edges)
    g.es["weight"] = weights
    g.es["channel"] = chans
    rag = Rag()
    rag.graph = g
    rag.node_name_to_vertex_idx = {nm: i for i, nm in enumerate(names)}
    rag.passage_node_idxs = list(range(n_ent, n_ent + n_pas))
    rag.run_ppr = None
    return rag, n_ent


def igraph_run_ppr(rag, reset, damping):
    scores = rag.graph.personalized_pagerank(vertices=range(rag.graph.vcount()), damping=damping, directed=False,
                                             weights="weight", reset=reset, implementation="prpack")
    doc = np.array([scores[i] for i in rag.passage_node_idxs])
    order = np.argsort(doc)[::-1]
    return order, doc[order]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=10)
    a = ap.parse_args()
    rag, n_ent = build(a.passages)
    g = rag.graph
    print("graph: %d vertices, %d edges" % (g.vcount(), g.ecount()))
    speed, guarded, light = Rag(), Rag(), Rag()
    for r in (speed, guarded, light):
        r.__dict__.update(rag.__dict__)
    hr.patch(speed)
    hr.patch(light, check="counts")
    hr.patch(guarded, trust=["curated"])
    rng = np.random.default_rng(7)
    rows = {k: [] for k in ("igraph", "speed", "solve", "check", "light", "guarded", "native_ns", "replay_ns")}
    divergent = 0
    for q in range(a.queries + 1):
        reset = np.zeros(g.vcount())
        reset[n_ent:] = rng.random(a.passages) * 0.05
        reset[rng.choice(n_ent, 5, replace=False)] = rng.uniform(0.5, 1, 5)
        t0 = time.perf_counter()
        want = igraph_run_ppr(rag, reset, 0.5)
        t1 = time.perf_counter()
        got = speed.run_ppr(reset, 0.5)
        t2 = time.perf_counter()
        solve = speed._authppr[0].graph.last_stats.solve_ns / 1e9
        guarded.run_ppr(reset, 0.5)
        t3 = time.perf_counter()
        guarded._authppr[0].refresh()  # nothing changed: the content check alone
        t4 = time.perf_counter()
        light.run_ppr(reset, 0.5)
        t5 = time.perf_counter()
        d = guarded.authppr_last_decision.decision
        if q == 0:
            continue  # the first call builds the graphs
        assert np.abs(got[1] - want[1]).max() < 1e-9
        divergent += guarded.authppr_last_decision.divergent
        for k, v in (("igraph", t1 - t0), ("speed", t2 - t1), ("solve", solve), ("guarded", t3 - t2),
                     ("check", t4 - t3), ("light", t5 - t4), ("native_ns", d.native_ns / 1e9), ("replay_ns", d.replay_ns / 1e9)):
            rows[k].append(v)
    m = {k: statistics.median(v) for k, v in rows.items()}
    print("medians over %d queries (seconds):" % a.queries, " ".join("%s %.4f" % kv for kv in m.items()))
    print("run_ppr (unguarded): igraph %.4f s, authppr %.4f s: %.1fx" % (m["igraph"], m["speed"], m["igraph"] / m["speed"]))
    print("per-call overhead over the library's solve: %.4f s (%.0f%% of the solve); the guarded content check %.4f s"
          % (m["speed"] - m["solve"], 100 * (m["speed"] - m["solve"]) / m["solve"], m["check"]))
    print("with check=\"counts\": %.4f s per call (%.1fx igraph), overhead %.0f%% of the solve"
          % (m["light"], m["igraph"] / m["light"], 100 * (m["light"] - m["solve"]) / m["solve"]))
    print("guarded run_ppr against unguarded: %.4f s vs %.4f s (+%.0f%%); the guard inside the library: native %.4f s, "
          "replay %.4f s (%.0f%% of native); divergent %d/%d"
          % (m["guarded"], m["speed"], 100 * (m["guarded"] - m["speed"]) / m["speed"], m["native_ns"], m["replay_ns"],
             100 * m["replay_ns"] / m["native_ns"], divergent, a.queries))


if __name__ == "__main__":
    main()
