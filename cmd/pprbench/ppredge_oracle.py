"""igraph PRPACK on a PPREDGE1 binary edge list (shared/anchors/gen_graph.py),
for 'pprbench compare --format ppredge'. shared/anchors/igraph_oracle.py
reads only text formats; this reads the binary file as
shared/anchors/igraph_ppr.py does, builds the igraph graph the same way
(timed the same way: edges and weights, not the file read), and answers a
JSON-lines query file as igraph_oracle.py does. Node names are the file's
ids in decimal, as bench.ReadPPREDGE1 names them.

Usage: python3 ppredge_oracle.py GRAPH.bin DAMPING QUERIES.jsonl
Output: one line {"build_s": S, "nodes": N, "edges": M}, then one line per
query {"id":..,"topk":[{"node":..,"score":..}],"seconds":S}.
"""
import json
import sys
import time

import igraph as ig
import numpy as np


def main():
    path, damping, qpath = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    with open(path, "rb") as f:
        if f.read(8) != b"PPREDGE1":
            sys.exit(f"{path}: not a PPREDGE1 file")
        n, m, flags = np.frombuffer(f.read(24), dtype="<u8")
        n, m, flags = int(n), int(m), int(flags)
        src = np.frombuffer(f.read(4 * m), dtype="<u4")
        dst = np.frombuffer(f.read(4 * m), dtype="<u4")
        w = np.frombuffer(f.read(4 * m), dtype="<f4")
    undirected = bool(flags & 1)
    t0 = time.perf_counter()
    edges = np.column_stack([src, dst]).astype(np.int64)
    g = ig.Graph(n=n, edges=edges, directed=not undirected)
    g.es["weight"] = w.astype(np.float64).tolist()
    build = time.perf_counter() - t0
    del edges
    print(json.dumps({"build_s": round(build, 6), "nodes": n, "edges": m}), flush=True)
    with open(qpath) as qf:
        for line in qf:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            q = json.loads(line)
            reset = np.zeros(n)
            for name, weight in q["seeds"].items():
                reset[int(name)] += weight
            t0 = time.perf_counter()
            scores = g.personalized_pagerank(vertices=None, directed=not undirected, damping=damping,
                                             reset=reset.tolist(), weights="weight", implementation="prpack")
            secs = time.perf_counter() - t0
            cand = [int(c) for c in q["candidates"]] if q.get("candidates") else range(n)
            top = sorted(cand, key=lambda i: (-scores[i], i))[: q.get("k", 10)]
            rec = {"id": q.get("id"), "topk": [{"node": str(i), "score": scores[i]} for i in top],
                   "seconds": round(secs, 6)}
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
