#!/usr/bin/python3
"""Measures the Python binding's targets in one run, as ratios (issue 8):

  1. binding overhead per call on a loaded 250k-node graph, as a share of
     the solve timed inside the library (SolveStats.solve_ns): list in / list
     out (the API as specified) and numpy in / numpy out (out=);
  2. building the 2.5M-arc KG graph: authppr.Graph from Python lists and from
     numpy arrays, against igraph.Graph(n, edges=list) on the same lists
     and against igraph given the same numpy arrays (weights included);
  3. hipporag_run_ppr (examples/) against the igraph run_ppr it replaces,
     per retrieval, HippoRAG2-style dense reset (5 entities + every passage),
     damping 0.5: the full ranking (run_ppr(reset)) and the certified top-k
     passages (run_ppr(reset, top_k=k), k from --ks), on the same reset
     vectors, interleaved per query; the top-k passages are checked against
     igraph's first k (a mismatch is counted only where igraph's own scores
     separate the passages by more than 1e-9).

Needs Debian's python3-igraph and numpy (for the comparison side) and the
library (python/build.sh, or AUTHPPR_LIB). Usage:

    /usr/bin/python3 python/bench/bench_binding.py [KG file] [--queries 5] [--builds 3] [--ks 5,10] [--run-ppr-only]

KG file: anchors-data/kg.edges.bin (or the .tsv; from the repository root),
made by anchors/gen_graph.py kg (see anchors/README.md). Medians over the repetitions; sides are
interleaved so machine noise hits both.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import igraph as ig

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
sys.path.insert(0, os.path.join(here, "..", "examples"))

import authppr  # noqa: E402
import hipporag_run_ppr as hr  # noqa: E402


def med(xs):
    return statistics.median(xs)


def hipporag_reset(rng, n, n_ent):
    reset = np.zeros(n)
    reset[n_ent:] = rng.random(n - n_ent) * 0.05
    reset[rng.choice(n_ent, 5, replace=False)] = 1.0
    return reset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph", nargs="?", default="anchors-data/kg.edges.bin")
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--ks", default="5,10", help="top-k sizes for the certified run_ppr")
    ap.add_argument("--run-ppr-only", action="store_true", help="skip the build and overhead measurements")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",") if k]

    n, edges_np, w_np = hr._load_kg(args.graph)
    n_ent = 200_000 if n == 250_000 else int(n * 0.8)
    m = len(edges_np)
    edges_list = list(zip(edges_np[:, 0].tolist(), edges_np[:, 1].tolist()))
    w_list = w_np.tolist()
    print("graph %s: %d nodes, %d edges (%d arcs undirected)" % (args.graph, n, m, 2 * m))

    # 1. Building, interleaved.
    t_ig, t_ig_w, t_ig_np, t_list, t_list_w, t_np, t_np_bare = [], [], [], [], [], [], []
    for _ in range(0 if args.run_ppr_only else args.builds):
        t0 = time.perf_counter()
        g_ig = ig.Graph(n=n, edges=edges_list, directed=False)
        t1 = time.perf_counter()
        g_ig.es["weight"] = w_list
        t2 = time.perf_counter()
        t_ig.append(t1 - t0)
        t_ig_w.append(t2 - t0)
        del g_ig
        # igraph given the same numpy arrays (it iterates them as sequences).
        t0 = time.perf_counter()
        g_ig = ig.Graph(n=n, edges=edges_np, directed=False)
        g_ig.es["weight"] = w_np
        t_ig_np.append(time.perf_counter() - t0)
        del g_ig
        t0 = time.perf_counter()
        g = authppr.Graph(n, edges_np, directed=False)
        t_np_bare.append(time.perf_counter() - t0)
        g.close()
        t0 = time.perf_counter()
        g = authppr.Graph(n, edges_list, directed=False)
        t_list.append(time.perf_counter() - t0)
        g.close()
        t0 = time.perf_counter()
        g = authppr.Graph(n, edges_list, weights=w_list, directed=False)
        t_list_w.append(time.perf_counter() - t0)
        g.close()
        t0 = time.perf_counter()
        g = authppr.Graph(n, edges_np, weights=w_np, directed=False)
        t_np.append(time.perf_counter() - t0)
        g.close()
    if args.run_ppr_only:
        return run_ppr_section(args, n, n_ent, edges_np, w_np, edges_list, w_list, ks)
    print("\nbuild (median of %d): igraph Graph(edges=list) %.3f s (+ weights attribute %.3f s)"
          % (args.builds, med(t_ig), med(t_ig_w)))
    print("  authppr from lists, no weights: %.3f s  ratio %.3f of igraph  (target <= 0.2)"
          % (med(t_list), med(t_list) / med(t_ig)))
    print("  authppr from lists, weights:    %.3f s  ratio %.3f of igraph with weights"
          % (med(t_list_w), med(t_list_w) / med(t_ig_w)))
    print("  authppr from numpy, weights:    %.3f s  ratio %.3f of igraph from lists (target <= 0.05)"
          % (med(t_np), med(t_np) / med(t_ig)))
    print("  authppr from numpy, no weights: %.3f s  ratio %.3f of igraph from lists"
          % (med(t_np_bare), med(t_np_bare) / med(t_ig)))
    print("  igraph from the same numpy arrays, weights: %.3f s; authppr from numpy, weights: ratio %.3f of it"
          % (med(t_ig_np), med(t_np) / med(t_ig_np)))

    # 2. Overhead on the loaded graph.
    g = authppr.Graph(n, edges_np, weights=w_np, directed=False)
    rng = np.random.default_rng(777)
    resets = [hipporag_reset(rng, n, n_ent) for _ in range(args.queries)]
    reset_lists = [r.tolist() for r in resets]
    out = np.empty(n)
    print("\nbinding overhead per call, 250k-node graph (median over %d queries):" % args.queries)
    for d in (0.5, 0.85):
        ov_list, ov_np, solve, ms_list, ms_np = [], [], [], [], []
        for r, rl in zip(resets, reset_lists):
            t0 = time.perf_counter()
            g.personalized_pagerank(rl, damping=d)
            t = time.perf_counter() - t0
            s = g.last_stats.solve_ns / 1e9
            ov_list.append((t - s) / s)
            ms_list.append(1e3 * (t - s))
            solve.append(s)
            t0 = time.perf_counter()
            g.personalized_pagerank(r, damping=d, out=out)
            t = time.perf_counter() - t0
            s = g.last_stats.solve_ns / 1e9
            ov_np.append((t - s) / s)
            ms_np.append(1e3 * (t - s))
        print("  d=%.2f: solve %.3f s (%d sweeps); overhead list in/out %.2f%% (%.1f ms), numpy in/out %.2f%% (%.1f ms)  (target <= 5%%)"
              % (d, med(solve), g.last_stats.sweeps, 100 * med(ov_list), med(ms_list), 100 * med(ov_np), med(ms_np)))

    g.close()
    run_ppr_section(args, n, n_ent, edges_np, w_np, edges_list, w_list, ks)


def run_ppr_section(args, n, n_ent, edges_np, w_np, edges_list, w_list, ks):
    """3. hipporag_run_ppr against igraph's run_ppr: full ranking and
    certified top-k, interleaved per query on the same reset vectors."""
    g = authppr.Graph(n, edges_np, weights=w_np, directed=False)
    g_ig = ig.Graph(n=n, edges=edges_list, directed=False)
    g_ig.es["weight"] = w_list
    passage_node_idxs = list(range(n_ent, n))
    runner = hr.AuthPPRRunPPR(g, passage_node_idxs)
    rng = np.random.default_rng(777)
    resets = [hipporag_reset(rng, n, n_ent) for _ in range(args.queries)]
    runner.run_ppr(resets[0], 0.5, top_k=ks[0])  # first call: the engine is made
    t_i, t_a, diffs = [], [], []
    t_k = {k: [] for k in ks}
    sweeps = {k: [] for k in ks}
    proved = {k: 0 for k in ks}
    mismatched = {k: 0 for k in ks}
    score_err = {k: 0.0 for k in ks}
    full_sweeps = []
    for r in resets:
        t0 = time.perf_counter()
        ids_i, sc_i = hr.igraph_run_ppr(g_ig, passage_node_idxs, r, 0.5)
        t1 = time.perf_counter()
        ids_a, sc_a = runner.run_ppr(r, 0.5)
        t2 = time.perf_counter()
        full_sweeps.append(g.last_stats.sweeps)
        t_i.append(t1 - t0)
        t_a.append(t2 - t1)
        diffs.append(float(np.abs(sc_a - sc_i).max()))
        for k in ks:
            t0 = time.perf_counter()
            ids_k, sc_k = runner.run_ppr(r, 0.5, top_k=k)
            t_k[k].append(time.perf_counter() - t0)
            c = runner.last_top_k
            sweeps[k].append(c.sweeps)
            proved[k] += c.certified and c.ordered
            score_err[k] = max(score_err[k], float(np.abs(sc_k - sc_i[:k]).max()))
            for i in range(k):
                sep_before = i == 0 or sc_i[i - 1] - sc_i[i] > 1e-9
                sep_after = sc_i[i] - sc_i[i + 1] > 1e-9
                if sep_before and sep_after and ids_k[i] != ids_i[i]:
                    mismatched[k] += 1
    ratio = lambda a, b: med([x / y for x, y in zip(a, b)])
    print("\nhipporag run_ppr per retrieval, %d queries (medians; ratios per query, then the median):" % args.queries)
    print("  igraph run_ppr:          %.3f s" % med(t_i))
    print("  authppr full ranking:    %.3f s  speedup %.1fx  (%d sweeps; max |score difference| %.1e)"
          % (med(t_a), ratio(t_i, t_a), med(full_sweeps), max(diffs)))
    for k in ks:
        print("  authppr certified top-%-3d %.3f s  speedup %.1fx  (target >= 10x; sweeps median %d, max %d; "
              "%d/%d proved in order; %d passages differ from igraph's top-%d; max |score - igraph's| %.1e)"
              % (k, med(t_k[k]), ratio(t_i, t_k[k]), med(sweeps[k]), max(sweeps[k]), proved[k], args.queries,
                 mismatched[k], k, score_err[k]))


if __name__ == "__main__":
    main()
