#!/usr/bin/python3
"""Golden PPR vectors from igraph PRPACK for ppr/golden_test.go (see regen.sh).

Needs Debian's python3-igraph and python3-numpy (/usr/bin/python3). Graphs are
read with anchors/igraph_oracle.py's own reader and scores come from running
that oracle, so node ids and every reading convention are the anchor's.

  golden.py mixed OUT.tsv                 write the synthetic graph mixed.tsv
  golden.py cases                         list the case names
  golden.py oracle-args CASE              print the oracle's graph/view arguments, one a line
  golden.py queries CASE OUT.jsonl        write the case's queries (k = every node)
  golden.py filter CASE QUERIES ORACLE_OUT OUT.json.gz
                                          keep the coordinates the test checks

Golden file (gzipped JSON, one per case):
  {"case", "graph": "data:<file>" | "testdata:<file>", "format", "directed",
   "damping", "view": "native"|"auth", "trust": [...], "nodes", "edges",
   "full": bool,                       true when "top" is the whole vector
   "queries": [{"id", "seeds": {name: weight},
                "top": [[name, id, score], ...],   igraph's ranking prefix,
                                                   score desc then id asc
                "next": score | null,              igraph's score right after
                                                   "top" (null when "full")
                "coords": [[name, id, score], ...]}]}  other sampled coordinates
  id is the dense node id of the oracle's reader (order of first appearance);
  scores are written with repr, so they round-trip exactly.
"""
import gzip
import json
import os
import random
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))  # the repository
ANCHORS = os.path.join(ROOT, "anchors")
DATA = os.path.join(ROOT, "testdata")  # the real graphs ("data:<file>")
sys.path.insert(0, ANCHORS)
from igraph_oracle import read_graph  # noqa: E402

TOP = 100          # sampled graphs: igraph's top TOP, plus
SAMPLE = 300       # about this many other coordinates
FULL_MAX = 2000    # graphs up to this many nodes store the full vector

# name: (graph, format, undirected, damping, view, trust)
CASES = {
    "mixed-dir-native": ("testdata:mixed.tsv", "edges", False, 0.85, "native", ""),
    "mixed-dir-auth": ("testdata:mixed.tsv", "edges", False, 0.85, "auth", "sys,alice"),
    "mixed-dir-auth-sys": ("testdata:mixed.tsv", "edges", False, 0.85, "auth", "sys"),
    "mixed-und-native": ("testdata:mixed.tsv", "edges", True, 0.5, "native", ""),
    "mixed-und-auth": ("testdata:mixed.tsv", "edges", True, 0.5, "auth", "sys,alice"),
    "mixed-und-auth-sys": ("testdata:mixed.tsv", "edges", True, 0.85, "auth", "sys"),
    "email-dir": ("data:email-Eu-core.txt.gz", "edges", False, 0.85, "native", ""),
    "email-und": ("data:email-Eu-core.txt.gz", "edges", True, 0.5, "native", ""),
    "wiki-vote-dir": ("data:wiki-Vote.txt.gz", "edges", False, 0.85, "native", ""),
    "wn18rr-und": ("data:wn18rr-train.txt.gz", "triples", True, 0.5, "native", ""),
}


def graph_path(ref):
    where, name = ref.split(":", 1)
    return os.path.join(HERE if where == "testdata" else DATA, name)


def load(case):
    ref, fmt, undirected, damping, view, trust = CASES[case]
    ids, names, src, dst, w, ch = read_graph(graph_path(ref), fmt)
    keep = np.ones(len(src), dtype=bool)
    if view == "auth":
        trusted = set(t for t in trust.split(",") if t)
        keep = np.array([c in trusted for c in ch], dtype=bool)
    # Out-weight in the view, as PRPACK sees it: an undirected edge (self-loop
    # included) adds its weight at both ends.
    n = len(names)
    out = np.bincount(src[keep], weights=w[keep], minlength=n)
    if undirected:
        out = out + np.bincount(dst[keep], weights=w[keep], minlength=n)
    loop = keep & (src == dst)
    selfw = np.bincount(src[loop], weights=w[loop], minlength=n) * (2 if undirected else 1)
    return dict(ids=ids, names=names, n=n, m=len(src), out=out, selfw=selfw,
                dangling=np.flatnonzero(out == 0))


def rng_for(*parts):
    return random.Random(zlib.crc32("/".join(parts).encode()))


# ---------------------------------------------------------------- mixed.tsv

def gen_mixed(path):
    """About 150 nodes (>= 128, so PRPACK takes its SCC Gauss-Seidel path, not
    dense elimination) and a few hundred "src dst weight channel" edges with
    every case the solver must agree with igraph on."""
    r = random.Random(20240611)
    chans = ["sys"] * 10 + ["alice"] * 5 + ["bob"] * 3 + ["mallory"] * 2
    weights = [1, 1, 1, 2, 0.5, 3, 0.25, 1.7, 0.3, 10, 0.1]
    core = ["n%03d" % i for i in range(120)]
    edges = []

    def w():
        return 0 if r.random() < 0.05 else r.choice(weights)

    for u in core:                                     # backbone
        for v in r.sample(core, r.randint(2, 4)):
            if v != u:
                edges.append((u, v, w(), r.choice(chans)))
    for u in r.sample(core, 8):                        # self-loops, some untrusted
        edges.append((u, u, r.choice(weights), r.choice(chans)))
    for e in r.sample(edges, 25):                      # parallel, other channel
        edges.append((e[0], e[1], r.choice(weights), r.choice([c for c in sorted(set(chans)) if c != e[3]])))
    for e in r.sample(edges, 6):                       # parallel, same channel
        edges.append((e[0], e[1], r.choice(weights), e[3]))
    for i in range(6):                                 # sinks: dangling when directed
        for u in r.sample(core, r.randint(1, 3)):
            edges.append((u, "sink%d" % i, r.choice(weights), r.choice(chans)))
    edges += [                                          # only zero-weight edges: dangling both ways
        ("zw", "n005", 0, "sys"), ("zw", "n010", 0, "alice"), ("n020", "zw", 0, "sys")]
    edges += [("selfie", "selfie", 2, "sys"), ("n030", "selfie", 1, "sys"),    # only out-edge a self-loop
              ("loopy", "loopy", 1.5, "mallory"), ("n031", "loopy", 1, "alice")]
    for i in range(1, 4):                              # every out-edge untrusted
        u = "bobonly%d" % i
        edges.append((r.choice(core), u, r.choice(weights), r.choice(["sys", "alice"])))
        for v in r.sample(core, 3):
            edges.append((u, v, r.choice(weights), r.choice(["bob", "mallory"])))
    edges += [("malonly", "n040", 1, "mallory"), ("n041", "malonly", 2, "mallory"),  # isolated in auth
              ("7", "n001", 1, "sys"), ("007", "7", 1, "alice"), ("n002", "007", 0.5, "bob"),  # names are strings
              ("Ünïcode-ñode", "n003", 2, "alice"), ("n004", "Ünïcode-ñode", 1, "sys")]
    r.shuffle(edges)
    with open(path, "w") as f:
        f.write("# Synthetic graph for ppr golden tests: src dst weight channel.\n")
        f.write("# Generated by golden.py mixed (regen.sh); do not edit by hand.\n")
        for u, v, wt, c in edges:
            f.write("%s\t%s\t%s\t%s\n" % (u, v, format(wt, "g"), c))


# ---------------------------------------------------------------- queries

def queries(case):
    G = load(case)
    names, n, out = G["names"], G["n"], G["out"]
    r = rng_for("queries", case)
    selfw = G["selfw"]
    live = [i for i in range(n) if out[i] > selfw[i]]  # some weight to other nodes
    dangling = list(G["dangling"])
    qs = []

    def q(qid, seeds):
        qs.append({"id": qid, "seeds": {names[i]: wt for i, wt in seeds}, "k": n})

    q("one", [(r.choice(live), 1)])
    q("hub", [(int(np.argmax(out)), 1)])
    loops = [i for i in range(n) if selfw[i] > 0]
    if loops:
        # Prefer a node whose self-loops carry all its out-weight (absorbing).
        only = [i for i in loops if selfw[i] == out[i]]
        q("selfloop", [(r.choice(only or loops), 1)])
    five = r.sample(live, 5)
    q("five", list(zip(five, [5, 3, 1.5, 1, 0.1])))
    if dangling:
        dn = r.choice(dangling)
        q("dangling", [(dn, 1)])
        q("dangling-mix", [(dn, 2)] + [(u, wt) for u, wt in zip(r.sample(live, 2), [1, 0.3])])
    if case.startswith("mixed"):
        # Seeds on the nodes whose every out-edge is untrusted: native and
        # auth views differ most here.
        ids = G["ids"]
        q("untrusted", [(ids["bobonly1"], 1), (ids["bobonly2"], 0.7), (ids["malonly"], 0.2), (ids["n000"], 1)])
    if case.startswith("wn18rr"):
        # HippoRAG-style dense reset: a few hundred nodes, uneven weights.
        dense = r.sample(range(n), 300)
        q("dense", [(u, round(r.uniform(0.05, 2.0), 3)) for u in dense])
    return qs


# ---------------------------------------------------------------- filter

def entry(names, i, score):
    return [names[i], int(i), score]


def filter_case(case, qpath, opath, outpath):
    ref, fmt, undirected, damping, view, trust = CASES[case]
    G = load(case)
    ids, names, n = G["ids"], G["names"], G["n"]
    dangling = set(G["dangling"].tolist())
    full = n <= FULL_MAX
    qs = [json.loads(l) for l in open(qpath) if l.strip()]
    res = {}
    for l in open(opath):
        if l.strip():
            rec = json.loads(l)
            if "id" in rec:  # the first line is the oracle's build record
                res[rec["id"]] = rec
    out = []
    for qd in qs:
        rank = [(ids[e["node"]], e["score"]) for e in res[qd["id"]]["topk"]]
        if len(rank) != n:
            sys.exit(f"{case}/{qd['id']}: oracle returned {len(rank)} of {n} nodes (k too small?)")
        rec = {"id": qd["id"], "seeds": qd["seeds"]}
        if full:
            rec["top"] = [entry(names, i, s) for i, s in rank]
            rec["next"] = None
            rec["coords"] = []
        else:
            rec["top"] = [entry(names, i, s) for i, s in rank[:TOP]]
            rec["next"] = rank[TOP][1]
            rest = rank[TOP:]
            r = rng_for("sample", case, qd["id"])
            pick = {}

            def take(items, k):
                items = list(items)
                for i, s in (r.sample(items, k) if len(items) > k else items):
                    pick[i] = s

            seeds = set(ids[s] for s in qd["seeds"])
            take([(i, s) for i, s in rest if i in seeds], len(seeds))          # seeds outside the top
            take([(i, s) for i, s in rest if s == 0], 30)                     # zero scores
            take([(i, s) for i, s in rest if i in dangling], 30)              # dangling in the view
            take(rest[-20:], 20)                                              # the lowest
            take(sorted([(i, s) for i, s in rest if s > 0], key=lambda t: t[1])[:20], 20)  # lowest positive
            left = [(i, s) for i, s in rest if i not in pick]
            take(left, max(0, SAMPLE - len(pick)))
            rec["coords"] = [entry(names, i, pick[i]) for i in sorted(pick)]
        out.append(rec)
    doc = {"case": case, "graph": ref, "format": fmt, "directed": not undirected,
           "damping": damping, "view": view, "trust": [t for t in trust.split(",") if t],
           "nodes": n, "edges": G["m"], "full": full, "queries": out}
    # mtime=0 and a fixed layout: regenerating identical data gives identical bytes.
    with open(outpath, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write((json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode())


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "mixed":
        gen_mixed(args[0])
    elif cmd == "cases":
        print("\n".join(CASES))
    elif cmd == "oracle-args":
        ref, fmt, undirected, damping, view, trust = CASES[args[0]]
        a = ["--graph", graph_path(ref), "--format", fmt, "--damping", repr(damping), "--view", view]
        if undirected:
            a.append("--undirected")
        if trust:
            a += ["--trust", trust]
        print("\n".join(a))
    elif cmd == "queries":
        with open(args[1], "w") as f:
            for qd in queries(args[0]):
                f.write(json.dumps(qd, ensure_ascii=False) + "\n")
    elif cmd == "filter":
        filter_case(*args)
    else:
        sys.exit(f"unknown command {cmd!r}; see the docstring")


if __name__ == "__main__":
    main()
