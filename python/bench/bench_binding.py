#!/usr/bin/python3
"""Measures the Python binding's targets in one run, as ratios (issues 8, 19):

  1. building the KG graph: authppr.Graph from Python lists and from numpy
     arrays, against igraph.Graph(n, edges=list) on the same lists and
     against igraph given the same numpy arrays (weights included);
  2. the binding's overhead per call on the loaded graph, against the solve
     timed inside the library: personalized_pagerank (last_stats.solve_ns)
     with lists in and out (the API as specified) and with numpy in and out
     (out=), and top_k over the passages (TopK.solve_ns), numpy reset and
     candidates;
  3. HippoRAG2's run_ppr through authppr.hipporag.patch on a
     HippoRAG2-shaped object (graph, node_name_to_vertex_idx,
     passage_node_idxs, run_ppr; the igraph run_ppr it replaces is
     HippoRAG2's body, igraph_run_ppr below), per retrieval, HippoRAG2-style
     dense reset (5 entities + every passage at 0.05), damping 0.5, on the
     same reset vectors, interleaved per query (the order rotated each
     query): igraph's run_ppr; patch(rag) (unguarded: the full ranking);
     patch(rag, trust=["curated"], top_k=k) for k in --ks (guarded: the
     certified top-k of the passages decided by the guard, then the full
     ranking), with a fraction --untrusted of the edges (1% by default,
     chosen at random) on the channel "mallory"; each under the three
     content checks of patch (check="edges", the default: igraph's own
     edge arrays; "full": get_edgelist; "counts"; on the code before
     check= existed, "full" and "counts" as check_edges=True/False);
     and Graph.top_k over the passages alone (the certified top-k without
     the ranking: authppr.hipporag has no such mode). Reported: seconds
     (medians), igraph/unguarded and guarded/unguarded (the same check) as
     ratios per query then their median (the guard's overhead from
     Python), the library's own solve, native and replay times, the
     content check alone (refresh() with nothing changed), the first call
     (the build) and the first divergent call (a trusted-edges graph built
     then), and checks: the unguarded scores against
     igraph's, the guard's native top-k against igraph's first k (a
     mismatch counted only where igraph's own scores separate the passages
     by more than 1e-9).

Needs Debian's python3-igraph and numpy (for the comparison side) and the
library (python/build.sh, or AUTHPPR_LIB). Usage:

    /usr/bin/python3 python/bench/bench_binding.py [GRAPH] [--queries 5] [--builds 3] [--ks 5,10]
        [--untrusted 0.01] [--run-ppr-only] [--passages 10000]

GRAPH: an undirected PPREDGE1 edge file (recognised by its magic, whatever
its name) or its --tsv text, as made by anchors/gen_graph.py kg (from the
repository root: `/usr/bin/python3 anchors/gen_graph.py kg --out
anchors-data/kg.ppredge`: 250k nodes, 1.24M edges; see anchors/README.md);
entities are the nodes below n_entities (from the GRAPH.json sidecar;
without one 200000 on a 250k-node graph, else 80% of the nodes), passages
the rest. Without GRAPH: a graph made in-process the way gen_graph.py kg
makes it, with --passages passages and 4 entities per passage. Medians over
the repetitions; sides are interleaved so machine noise hits both.
"""

import argparse
import inspect
import json
import os
import statistics
import sys
import time

import numpy as np
import igraph as ig

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))

import authppr  # noqa: E402
import authppr.hipporag  # noqa: E402


def med(xs):
    return statistics.median(xs)


def hipporag_reset(rng, n, n_ent):
    reset = np.zeros(n)
    reset[n_ent:] = rng.random(n - n_ent) * 0.05
    reset[rng.choice(n_ent, 5, replace=False)] = 1.0
    return reset


def load_kg(path):
    """(n, n_ent, edges (m, 2) int64, weights float64) of an undirected
    PPREDGE1 file (gen_graph.py's format, each edge stored once) or its
    --tsv text (src dst weight, a "# ... n=N ..." header)."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic == b"PPREDGE1":
            n, m, flags = (int(v) for v in np.frombuffer(f.read(24), dtype="<u8"))
            if not flags & 1:
                sys.exit("bench_binding: %s: flags %d, want an undirected graph (bit 0 set)" % (path, flags))
            src = np.frombuffer(f.read(4 * m), dtype="<u4")
            dst = np.frombuffer(f.read(4 * m), dtype="<u4")
            w = np.frombuffer(f.read(4 * m), dtype="<f4")
            if len(w) != m:
                sys.exit("bench_binding: %s: truncated: %d edges announced, %d weights read" % (path, m, len(w)))
            edges, w = np.stack([src, dst], axis=1).astype(np.int64), w.astype(np.float64)
        else:
            f.seek(0)
            header = f.readline().decode()
            if not header.startswith("#") or "n=" not in header:
                sys.exit("bench_binding: %s: neither PPREDGE1 nor a gen_graph.py --tsv file (header %r)"
                         % (path, header[:40]))
            n = int(header.split("n=")[1].split()[0])
            data = np.loadtxt(path, comments="#", ndmin=2)
            edges, w = data[:, :2].astype(np.int64), data[:, 2].astype(np.float64)
    n_ent = None
    for side in (path + ".json", os.path.splitext(path)[0] + ".json"):
        if os.path.exists(side):
            with open(side) as f:
                n_ent = json.load(f).get("n_entities")
            break
    if n_ent is None:
        n_ent = 200_000 if n == 250_000 else int(n * 0.8)
    return n, n_ent, edges, w


def synthetic_kg(n_pas, seed=20240601, gamma=2.2):
    """A HippoRAG2-like memory graph made the way gen_graph.py kg makes it
    (4 entities and 2 synonym pairs per passage): entities 0..n_ent-1 with
    power-law popularity, each passage mentions 5-20 of them (weight 1),
    as many relation edges between a passage's entities (weight 1 each),
    synonym edges of weight U[0.8, 1); parallel edges merged, weights
    summed, no self-loops. Returns (n, n_ent, edges, weights)."""
    rng = np.random.default_rng(seed)
    n_ent, n_syn = 4 * n_pas, 2 * n_pas
    cdf = np.cumsum(np.arange(1, n_ent + 1, dtype=np.float64) ** (-1.0 / (gamma - 1.0)))
    perm = rng.permutation(n_ent)

    def draw(size):
        return perm[np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), n_ent - 1)]

    k = rng.integers(5, 21, size=n_pas)
    pas_of = np.repeat(np.arange(n_pas), k)
    ent = draw(pas_of.size)
    ent[rng.choice(pas_of.size, size=n_ent, replace=False)] = rng.permutation(n_ent)
    starts = np.concatenate([[0], np.cumsum(k)[:-1]])
    off1 = (rng.random(pas_of.size) * k[pas_of]).astype(np.int64)
    off2 = (rng.random(pas_of.size) * k[pas_of]).astype(np.int64)
    s = np.concatenate([ent, ent[starts[pas_of] + off1], rng.integers(0, n_ent, size=n_syn)])
    d = np.concatenate([n_ent + pas_of, ent[starts[pas_of] + off2], draw(n_syn)])
    w = np.concatenate([np.ones(2 * pas_of.size), rng.uniform(0.8, 1.0, size=n_syn)])
    keep = s != d
    n = n_ent + n_pas
    key = np.minimum(s, d)[keep].astype(np.int64) * n + np.maximum(s, d)[keep]
    ukey, inv = np.unique(key, return_inverse=True)
    return n, n_ent, np.stack([ukey // n, ukey % n], axis=1), np.bincount(inv, weights=w[keep], minlength=ukey.size)


def main():
    ap = argparse.ArgumentParser()
GRAPH: an undirected PPREDGE1 edge file (recognised by its magic, whatever
its name) or its --tsv text, as made by anchors/gen_graph.py kg (from the
repository root: `/usr/bin/python3 anchors/gen_graph.py kg --out
anchors-data/kg.ppredge`: 250k nodes, 1.24M edges; see anchors/README.md);
entities are the nodes below n_entities (from the GRAPH.json sidecar;
without one 200000 on a 250k-node graph, else 80% of the nodes), passages
the rest. Without GRAPH: a graph made in-process the way gen_graph.py kg
makes it, with --passages passages and 4 entities per passage. Medians over
the repetitions; sides are interleaved so machine noise hits both.
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--ks", default="5,10", help="top_k of the guarded run_ppr and of Graph.top_k")
    ap.add_argument("--untrusted", type=float, default=0.01, help="fraction of edges on the untrusted channel")
    ap.add_argument("--run-ppr-only", action="store_true", help="skip the build and overhead measurements")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",") if k]
    if not ks or min(ks) < 1 or args.queries < 1 or not 0 <= args.untrusted < 1:
        ap.error("--ks wants positive integers, --queries at least 1, --untrusted in [0, 1)")

    if args.graph:
        n, n_ent, edges_np, w_np = load_kg(args.graph)
    else:
        n, n_ent, edges_np, w_np = synthetic_kg(args.passages)
        args.graph = "in-process (gen_graph.py kg's construction, %d passages)" % args.passages
    m = len(edges_np)
    edges_list = list(zip(edges_np[:, 0].tolist(), edges_np[:, 1].tolist()))
    w_list = w_np.tolist()
    print("graph %s: %d nodes (%d entities, %d passages), %d edges (%d arcs undirected)"
          % (args.graph, n, n_ent, n - n_ent, m, 2 * m))

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
    print("\nbinding overhead per call, %d-node graph (median over %d queries):" % (n, args.queries))
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
    # top_k over the passages: numpy reset and candidates in, a TopK out.
    cands = np.arange(n_ent, n, dtype=np.int64)
    for k in ks:
        ov, ms, solve, sweeps = [], [], [], []
        for r in resets:
            t0 = time.perf_counter()
            t = g.top_k(r, k, candidates=cands, damping=0.5)
            wall = time.perf_counter() - t0
            s = t.solve_ns / 1e9
            ov.append((wall - s) / s)
            ms.append(1e3 * (wall - s))
            solve.append(s)
            sweeps.append(t.sweeps)
        print("  top_k(k=%d, %d passages as candidates, d=0.50): solve %.4f s (%d sweeps); overhead %.2f%% (%.2f ms)"
              % (k, len(cands), med(solve), med(sweeps), 100 * med(ov), med(ms)))

    g.close()
    run_ppr_section(args, n, n_ent, edges_np, w_np, edges_list, w_list, ks)


class HippoRAG2Shaped:
    """What authppr.hipporag.patch needs of a HippoRAG2 instance: graph (an
    igraph.Graph with "weight" and, for the guard, "channel" edge
    attributes), node_name_to_vertex_idx, passage_node_idxs and run_ppr."""

    def __init__(self, graph, passage_node_idxs):
        self.graph = graph
        self.node_name_to_vertex_idx = {nm: i for i, nm in enumerate(graph.vs["name"])}
        self.passage_node_idxs = passage_node_idxs

    def run_ppr(self, reset_prob, damping=0.5):
        return igraph_run_ppr(self, reset_prob, damping)


def igraph_run_ppr(self, reset_prob, damping=0.5):
    """HippoRAG2's run_ppr (src/hipporag/HippoRAG.py), its body verbatim in
    behaviour: the reference."""
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


def separated(scores, i, tol=1e-9):
    """Whether igraph's score at rank i is apart from its neighbours'."""
    return (i == 0 or scores[i - 1] - scores[i] > tol) and (i == len(scores) - 1 or scores[i] - scores[i + 1] > tol)


def check_kw(check):
    """patch's keyword for a content check mode; on the code before check=
    existed (its default compared get_edgelist): "full" and "counts" as
    check_edges, "edges" absent (None)."""
    if "check" in inspect.signature(authppr.hipporag.patch).parameters:
        return {"check": check}
    return {"full": {"check_edges": True}, "counts": {"check_edges": False}}.get(check)


def run_ppr_section(args, n, n_ent, edges_np, w_np, edges_list, w_list, ks):
    """3. run_ppr through authppr.hipporag.patch against igraph's:
    unguarded and guarded, under each content check (check="edges", the
    default; "full", igraph's get_edgelist; "counts"), and Graph.top_k,
    interleaved per query on the same reset vectors."""
    g_ig = ig.Graph(n=n, edges=edges_list, directed=False)
    g_ig.vs["name"] = ["entity-%d" % i for i in range(n_ent)] + ["chunk-%d" % i for i in range(n - n_ent)]
    g_ig.es["weight"] = w_list
    rng = np.random.default_rng(778)
    untrusted = rng.random(len(w_list)) < args.untrusted
    g_ig.es["channel"] = np.where(untrusted, "mallory", "curated").tolist()
    passage_node_idxs = list(range(n_ent, n))
    rag = HippoRAG2Shaped(g_ig, passage_node_idxs)

    def patched(**kw):
        r = HippoRAG2Shaped(g_ig, passage_node_idxs)
        return authppr.hipporag.patch(r, **kw)

    sides = {}
    for check in ("edges", "full", "counts"):
        kw = check_kw(check)
        if kw is None:
            continue
        sides["unguarded, %s" % check] = patched(**kw)
        for k in ks:
            sides["guarded top_k=%d, %s" % (k, check)] = patched(trust=["curated"], top_k=k, **kw)
    base = {nm: nm.replace("guarded top_k=%s, " % nm.split("=")[1].split(",")[0], "unguarded, ")
            if nm.startswith("guarded") else None for nm in sides}
    resets = [hipporag_reset(rng, n, n_ent) for _ in range(args.queries)]
    first = {}
    for nm, r in sides.items():  # the first call builds the authppr graphs (and, guarded, the trusted one)
        t0 = time.perf_counter()
        r.run_ppr(resets[0], 0.5)
        first[nm] = time.perf_counter() - t0
    topk_graph = sides[next(iter(sides))]._authppr[0].graph
    cands = np.asarray(passage_node_idxs, dtype=np.int64)
    names = ["igraph"] + list(sides) + ["Graph.top_k k=%d" % k for k in ks]
    t = {nm: [] for nm in names}
    native_ns, replay_ns, divergent, mismatched, diffs, diffs_guarded = ({k: [] for k in ks}, {k: [] for k in ks},
                                                                         {k: 0 for k in ks}, {k: 0 for k in ks}, [], [])
    misordered = {k: 0 for k in ks}
    solve = {nm: [] for nm in sides}
    check = {nm: [] for nm in sides}
    first_divergent = {}
    for q, reset in enumerate(resets):
        out = {}
        for nm in names[q % len(names):] + names[:q % len(names)]:
            t0 = time.perf_counter()
            if nm == "igraph":
                out[nm] = rag.run_ppr(reset, 0.5)
            elif nm.startswith("Graph.top_k"):
                topk_graph.top_k(reset, int(nm.split("=")[1]), candidates=cands, damping=0.5)
            else:
                out[nm] = sides[nm].run_ppr(reset, 0.5)
            t[nm].append(time.perf_counter() - t0)
            if nm in sides:  # the library's time in the call: the ranking's solve (+ the guard's two)
                runner, d = sides[nm]._authppr[0], sides[nm].authppr_last_decision
                ranked = runner.auth_graph if d is not None and d.divergent else runner.graph
                guard_ns = d.decision.native_ns + d.decision.replay_ns if d is not None else 0
                solve[nm].append((ranked.last_stats.solve_ns + guard_ns) / 1e9)
                if d is not None and d.divergent and nm not in first_divergent:
                    first_divergent[nm] = t[nm][-1]
                # The content check alone (nothing changed: no rebuild).
                t0 = time.perf_counter()
                runner.refresh()
                check[nm].append(time.perf_counter() - t0)
            if nm.startswith("guarded") and nm.endswith(", full"):
                k = int(nm.split("=")[1].split(",")[0])
                d = sides[nm].authppr_last_decision
                native_ns[k].append(d.decision.native_ns / 1e9)
                replay_ns[k].append(d.decision.replay_ns / 1e9)
                divergent[k] += d.divergent
        ids_i, sc_i = out["igraph"]
        diffs.append(max(float(np.abs(out[nm][1] - sc_i).max()) for nm in sides if nm.startswith("unguarded")))
        for k in ks:
            d = sides["guarded top_k=%d, full" % k].authppr_last_decision
            if sc_i[k - 1] - sc_i[k] > 1e-9:  # igraph's top-k is a set apart: the guard's native one
                mismatched[k] += len(set(ids_i[:k].tolist()) - set(d.native))
            for nm in sides:
                if nm.startswith("guarded top_k=%d," % k) and not sides[nm].authppr_last_decision.divergent:
                    ids_g, sc_g = out[nm]  # the ranking returned is igraph's
                    diffs_guarded.append(float(np.abs(sc_g - sc_i).max()))
                    misordered[k] += sum(1 for i in range(k) if separated(sc_i, i) and ids_g[i] != ids_i[i])
    ratio = lambda a, b: med([x / y for x, y in zip(t[a], t[b])])
    print("\nrun_ppr through authppr.hipporag.patch, %d queries, %.1f%% of the edges untrusted (%d); medians, "
          "ratios per query then the median; check: the content check alone (refresh() with nothing changed):"
          % (args.queries, 100 * args.untrusted, int(untrusted.sum())))
    print("  igraph run_ppr (HippoRAG2's):                   %.3f s" % med(t["igraph"]))
    for nm in sides:
        line = "  %-47s %.3f s  igraph/this %.2fx" % (nm + ":", med(t[nm]), ratio("igraph", nm))
        if base[nm]:
            line += "  guarded/unguarded %.3f" % ratio(nm, base[nm])
        line += "  (in the library %.3f s, the rest %.3f s; check %.4f s; first call %.2f s%s)" % (
            med(solve[nm]), med([a - b for a, b in zip(t[nm], solve[nm])]), med(check[nm]), first[nm],
            "; first divergent call %.2f s" % first_divergent[nm] if nm in first_divergent else "")
        print(line)
    for k in ks:
        nm = "Graph.top_k k=%d" % k
        print("  %-47s %.3f s  igraph/this %.2fx" % (nm + " (no ranking):", med(t[nm]), ratio("igraph", nm)))
    print("  unguarded scores against igraph's: max |difference| %.1e; guarded (queries not divergent): %s"
          % (max(diffs), "%.1e" % max(diffs_guarded) if diffs_guarded else "none"))
    for k in ks:
        print("  guarded top_k=%d inside the library: native %.4f s, replay %.4f s (medians); divergent %d/%d; "
              "%d passages of igraph's top-%d missing from the guard's native top-%d; %d ranks of the returned "
              "top-%d differ from igraph's (not divergent, separated by 1e-9)"
              % (k, med(native_ns[k]), med(replay_ns[k]), divergent[k], args.queries, mismatched[k], k, k,
                 misordered[k], k))


if __name__ == "__main__":
    main()
