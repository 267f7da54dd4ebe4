"""Tests of the authppr Python binding (stdlib unittest).

Run from the repository root after python/build.sh:
    python3 -m unittest discover -s python/tests
numpy and igraph are optional: their tests skip, saying so, when absent. With
python3-igraph the binding is compared with igraph's PRPACK on random graphs.
"""

import math
import os
import random
import sys
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import authppr  # noqa: E402

try:
    import numpy as np
except ImportError:  # the binding never needs numpy
    np = None

try:
    import igraph
except ImportError:
    igraph = None


def _mem_available():
    """MemAvailable in bytes (/proc/meminfo), or 0 where unknown (the
    library's default limit is then 4 GiB)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def reference_ppr(n, edges, weights, directed, reset, damping, iters=5000):
    """Plain dense power iteration with igraph's conventions: reset
    normalised, dangling rows send their mass to the reset vector, parallel
    edges add up, an undirected edge is two arcs (a self-loop counts twice)."""
    weights = weights if weights is not None else [1.0] * len(edges)
    arcs = []
    for (u, v), w in zip(edges, weights):
        arcs.append((u, v, w))
        if not directed:
            arcs.append((v, u, w))
    out_w = [0.0] * n
    for u, _, w in arcs:
        out_w[u] += w
    total = sum(reset)
    s = [r / total for r in reset]
    x = s[:]
    for _ in range(iters):
        dangling = sum(x[u] for u in range(n) if out_w[u] == 0)
        y = [(1 - damping) * s[u] + damping * dangling * s[u] for u in range(n)]
        for u, v, w in arcs:
            if out_w[u] > 0:
                y[v] += damping * x[u] * w / out_w[u]
        if sum(abs(a - b) for a, b in zip(x, y)) < 1e-15:
            return y
        x = y
    return x


def random_case(rng, trial, max_n, density, reset_share):
    """(n, edges, weights, directed, reset, damping) for one random trial."""
    n = rng.randrange(1, max_n)
    edges, weights = random_graph(rng, n, rng.randrange(0, density * n), weighted=trial % 3 != 0)
    reset = [rng.random() if rng.random() < reset_share else 0.0 for _ in range(n)]
    reset[rng.randrange(n)] += 1.0
    return n, edges, weights, trial % 2 == 0, reset, [0.5, 0.85, 0.0, 0.95, 0.3][trial % 5]


def random_graph(rng, n, m, weighted=True):
    edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]
    weights = [rng.choice([0.0, 0.5, 1.0, 2.0, rng.random()]) for _ in range(m)] if weighted else None
    return edges, weights


class Semantics(unittest.TestCase):
    def test_parallel_edges_dangling_isolated(self):
        # 0 -> 1 twice (1 + 2) and 0 -> 2 (3): row 0 is half/half; 1 and 2 are
        # dangling (mass back to node 0), 3 is isolated.
        g = authppr.Graph(4, [(0, 1), (0, 2), (0, 1)], weights=[1, 3, 2])
        x = g.personalized_pagerank([2, 0, 0, 0], damping=0.5)
        self.assertIsInstance(x, list)
        self.assertEqual(len(x), 4)
        for got, want in zip(x, [2 / 3, 1 / 6, 1 / 6, 0]):
            self.assertAlmostEqual(got, want, delta=1e-10)
        self.assertLessEqual(g.last_stats.error_bound, 1e-10)

    def test_edgeless_graph(self):
        g = authppr.Graph(3, [])
        x = g.personalized_pagerank([1, 3, 0])
        for got, want in zip(x, [0.25, 0.75, 0]):
            self.assertAlmostEqual(got, want, delta=1e-10)

    def test_matches_reference_on_random_graphs(self):
        rng = random.Random(7)
        for trial in range(40):
            n, edges, weights, directed, reset, d = random_case(rng, trial, 30, 3, 0.3)
            x = authppr.Graph(n, edges, weights=weights, directed=directed).personalized_pagerank(reset, d)
            want = reference_ppr(n, edges, weights, directed, reset, d)
            for u in range(n):
                self.assertAlmostEqual(x[u], want[u], delta=1e-9, msg="trial %d node %d" % (trial, u))
            self.assertAlmostEqual(sum(x), 1.0, delta=1e-9)

    def test_undirected_self_loop_counts_twice(self):
        # Node 0: self-loop (weight 1, two arcs) and edge to 1 (weight 1):
        # two thirds of 0's mass stays.
        edges = [(0, 0), (0, 1)]
        x = authppr.Graph(2, edges, directed=False).personalized_pagerank([1, 0], 0.85)
        want = reference_ppr(2, edges, None, False, [1, 0], 0.85)
        self.assertAlmostEqual(x[0], want[0], delta=1e-10)

    def test_inputs_of_every_kind_agree(self):
        from array import array
        edges = [(0, 1), (1, 2), (2, 0), (2, 3)]
        base = authppr.Graph(5, edges, weights=[1, 2, 3, 4]).personalized_pagerank([1, 0, 0, 0, 1])
        flat = array("q", [0, 1, 1, 2, 2, 0, 2, 3])
        variants = [
            authppr.Graph(5, tuple(edges), weights=(1, 2, 3, 4)),
            authppr.Graph(5, iter(edges), weights=array("d", [1, 2, 3, 4])),
            authppr.Graph(5, [[u, v] for u, v in edges], weights=[1.0, 2.0, 3.0, 4.0]),
            authppr.Graph(5, memoryview(flat).cast("B").cast("q", (4, 2)), weights=[1, 2, 3, 4]),
            authppr.Graph(5, memoryview(array("I", flat)).cast("B").cast("I", (4, 2)), weights=[1, 2, 3, 4]),
            authppr.Graph(5, memoryview(array("Q", flat)).cast("B").cast("Q", (4, 2)), weights=[1, 2, 3, 4]),
            authppr.Graph(5, memoryview(array("i", flat)).cast("B").cast("i", (4, 2)), weights=[1, 2, 3, 4]),
        ]
        for g in variants:
            self.assertEqual(g.personalized_pagerank(array("d", [1, 0, 0, 0, 1])), base)
            self.assertEqual(g.personalized_pagerank((1, 0, 0, 0, 1)), base)

    def test_channels_do_not_change_ppr(self):
        edges = [(0, 1), (1, 2), (2, 0)]
        a = authppr.Graph(3, edges).personalized_pagerank([1, 0, 0])
        b = authppr.Graph(3, edges, channels=["x", "y", "x"]).personalized_pagerank([1, 0, 0])
        self.assertEqual(a, b)

    def test_threads(self):
        rng = random.Random(3)
        edges, weights = random_graph(rng, 300, 1500)
        g = authppr.Graph(300, edges, weights=weights, directed=False)
        resets = [[1.0 if u == q else 0.0 for u in range(300)] for q in range(8)]
        want = [g.personalized_pagerank(r) for r in resets]
        got = [None] * 8

        def work(i):
            for _ in range(3):
                got[i] = g.personalized_pagerank(resets[i])

        ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(got, want)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.g = authppr.Graph(3, [(0, 1), (1, 2)], channels=["a", "b"])

    def assertValueError(self, prefix, f, *args, **kw):
        with self.assertRaises(ValueError) as cm:
            f(*args, **kw)
        self.assertTrue(str(cm.exception).startswith(prefix), "%r does not start with %r" % (str(cm.exception), prefix))

    def test_graph(self):
        G = authppr.Graph
        self.assertValueError("csr: edge 1: node 1 -> 3 out of range", G, 3, [(0, 1), (1, 3)])
        self.assertValueError("csr: edge 0: node -1 -> 0 out of range", G, 3, [(-1, 0)])
        self.assertValueError("authppr: edges: node id out of range", G, 3, [(0, 2 ** 70)])
        # Past the uint32 flattening: int64 ids, the library names the edge.
        self.assertValueError("csr: edge 1: node 4294967296 -> 0 out of range", G, 3, [(0, 1), (2 ** 32, 0)])
        self.assertValueError("csr: edge 0: node 0 -> -5 out of range", G, 3, [(0, -5), (2 ** 32, 0)])
        self.assertValueError("authppr: edge 1: (1, 2, 3), want a (src, dst) pair", G, 3, [(0, 1), (1, 2, 3)])
        self.assertValueError("authppr: edge 0: (1,), want a (src, dst) pair", G, 3, [(1,), (1, 2, 3)])
        self.assertValueError("csr: edge 1 (1 -> 2): weight NaN", G, 3, [(0, 1), (1, 2)], weights=[1, math.nan])
        self.assertValueError("csr: edge 0 (0 -> 1): weight -1", G, 3, [(0, 1)], weights=[-1])
        self.assertValueError("csr: edge 0 (0 -> 1): weight +Inf", G, 3, [(0, 1)], weights=[math.inf])
        # Finite weights whose sum would overflow, and a subnormal weight
        # whose reciprocal would: refused, naming the edge (issue 16).
        self.assertValueError("csr: edge 0 (0 -> 1): weight 1e+308 above", G, 3, [(0, 1), (0, 2)], weights=[1e308, 1e308])
        self.assertValueError("csr: edge 1 (1 -> 0): weight 1e-320 below", G, 3, [(0, 1), (1, 0)], weights=[1, 1e-320])
        self.assertValueError("authppr: 1 weights for 2 edges", G, 3, [(0, 1), (1, 2)], weights=[1])
        self.assertValueError("authppr: 1 channels for 2 edges", G, 3, [(0, 1), (1, 2)], channels=["a"])
        self.assertValueError("cabi: channel name 0 is empty", G, 3, [(0, 1)], channels=[""])
        self.assertValueError("cabi: n = 0 nodes", G, 0, [])
        # Issue 16: n far beyond the edges allocated O(n) until the
        # interpreter was killed; it is refused before allocating, naming
        # n, the estimate and the limit.
        self.assertValueError("csr: a graph of 2147483648 nodes and 1 edges needs about 136.0 GiB", G, 2 ** 31, [(0, 1)],
                              max_memory=2 ** 30)
        if _mem_available() < 2 * 136 * 2 ** 30:  # the default limit is half of it
            with self.assertRaises(ValueError) as cm:
                G(2 ** 31, [(0, 1)])
            self.assertIn("csr: a graph of 2147483648 nodes and 1 edges needs about", str(cm.exception))
            self.assertIn("over the memory limit of", str(cm.exception))
        self.assertValueError("csr: a graph of 3 nodes and 2 edges needs about", G, 3, [(0, 1), (1, 2)], max_memory=100)
        self.assertEqual(G(3, [(0, 1), (1, 2)], max_memory=-1).m, 2)
        self.assertEqual(G(3, [(0, 1), (1, 2)], max_memory=1 << 20).m, 2)
        self.assertValueError("authppr: n = ", G, 2 ** 64, [])
        with self.assertRaises(TypeError):
            G(3, [(0, 1.5)])
        with self.assertRaises(TypeError):
            G(3, [(0, 1)], channels=[7])

    def test_ppr(self):
        ppr = self.g.personalized_pagerank
        self.assertValueError("cabi: reset sums to 0", ppr, [0, 0, 0])
        self.assertValueError("cabi: reset has 2 entries, graph has 3 nodes", ppr, [1, 0])
        self.assertValueError("cabi: reset has 4 entries", ppr, [1, 0, 0, 0])
        self.assertValueError("cabi: reset[1] = NaN", ppr, [1, math.nan, 0])
        self.assertValueError("cabi: reset[2] = -0.5", ppr, [1, 0, -0.5])
        self.assertValueError("ppr: damping 1", ppr, [1, 0, 0], damping=1)
        self.assertValueError("ppr: damping -0.1", ppr, [1, 0, 0], damping=-0.1)
        self.assertValueError("ppr: damping NaN", ppr, [1, 0, 0], damping=math.nan)
        with self.assertRaises(TypeError):
            ppr(["x", 0, 0])
        # A reset whose sum overflows is normalised, not refused (issue 16).
        big = ppr([1.7976931348623157e308, 1.7976931348623157e308, 0])
        self.assertEqual(big, ppr([1, 1, 0]))
        self.assertTrue(math.isfinite(self.g.last_stats.error_bound))
        self.assertLessEqual(self.g.last_stats.error_bound, 1e-10)

    def test_top_k(self):
        tk = self.g.top_k
        self.assertValueError("authppr: k = 0, want at least 1", tk, [1, 0, 0], 0)
        self.assertValueError("cabi: candidate 1: node 3 out of range", tk, [1, 0, 0], 1, candidates=[0, 3])
        self.assertValueError("cabi: candidate 2: node 1 repeats an earlier candidate", tk, [1, 0, 0], 1,
                              candidates=[1, 2, 1])
        self.assertValueError("authppr: empty candidate list", tk, [1, 0, 0], 1, candidates=[])
        self.assertValueError("authppr: candidates: node id out of range", tk, [1, 0, 0], 1, candidates=[2 ** 70])
        self.assertValueError("cabi: reset[1] = NaN", tk, [1, math.nan, 0], 1)
        self.assertValueError("cabi: reset sums to 0", tk, [0, 0, 0], 1)
        self.assertValueError("cabi: reset has 2 entries, graph has 3 nodes", tk, [1, 0], 1)
        self.assertValueError("ppr: damping 1", tk, [1, 0, 0], 1, damping=1)
        self.assertValueError("ppr: tolerance -1", tk, [1, 0, 0], 1, tol=-1)
        with self.assertRaises(TypeError):
            tk([1, 0, 0], 1, candidates=["a"])
        g = authppr.Graph(2, [(0, 1)])
        g.close()
        self.assertValueError("cabi: graph handle", g.top_k, [1, 0], 1)

    def test_closed(self):
        g = authppr.Graph(2, [(0, 1)])
        g.close()
        self.assertValueError("cabi: graph handle", g.personalized_pagerank, [1, 0])
        g.close()  # idempotent

    def test_guard(self):
        self.assertValueError("mask: trusted channel(s) c label no edge", authppr.Guard, self.g, trust=["c"])
        with self.assertRaises(TypeError):
            authppr.Guard(self.g, trust="a")
        gd = authppr.Guard(self.g, trust=["a"])
        self.assertValueError("authppr: k = 0", gd.select, [1, 0, 0], 0)
        self.assertValueError("cabi: candidate 0: node 3 out of range", gd.select, [1, 0, 0], 1, candidates=[3])
        self.assertValueError("replay: candidate 1: node 1 repeated", gd.select, [1, 0, 0], 1, candidates=[1, 1])
        self.assertValueError("authppr: empty candidate list", gd.select, [1, 0, 0], 1, candidates=[])
        self.assertValueError("cabi: reset sums to 0", gd.select, [0, 0, 0], 1)
        self.assertValueError("cabi: reset has 2 entries", gd.select, [1, 0], 1)


class TopKTests(unittest.TestCase):
    """Graph.top_k against the plain reference power iteration: a certified
    set is the reference's top-k, a proved order its order, every lead and
    score bound holds."""

    def check(self, t, ref, k, candidates, what):
        comp = list(range(len(ref))) if candidates is None else list(candidates)
        self.assertEqual(len(t.ids), min(k, len(comp)), what)
        self.assertEqual(len(t.scores), len(t.ids))
        self.assertEqual(t.leads[-1] if t.ids else None, t.proved_gap if t.ids else None)
        self.assertEqual(t.certified, t.proved_gap > 0, what)
        self.assertEqual(t.ordered, not t.ties, what)
        self.assertTrue(0 <= t.scans <= t.sweeps and t.solve_ns > 0, what)
        for i, v in enumerate(t.ids):
            self.assertGreaterEqual(ref[v], t.scores[i] - 1e-12, what)
            self.assertLessEqual(ref[v], t.scores[i] + t.score_errors[i] + 1e-12, what)
            if i + 1 < len(t.ids):
                self.assertLessEqual(t.leads[i], ref[v] - ref[t.ids[i + 1]] + 1e-12, what)
        want = sorted(comp, key=lambda u: (-ref[u], u))[:k]
        if t.certified:
            self.assertEqual(sorted(t.ids), sorted(want), what)
        if t.certified and t.ordered:
            self.assertEqual(t.ids, want, what)

    def test_matches_reference(self):
        rng = random.Random(77)
        proved = 0
        for trial in range(60):
            n, edges, weights, directed, reset, d = random_case(rng, trial, 40, 3, 0.5)
            if d == 0.95:
                d = 0.85  # the reference's 1e-15 stopping rule needs a faster contraction
            ref = reference_ppr(n, edges, weights, directed, reset, d)
            g = authppr.Graph(n, edges, weights=weights, directed=directed)
            k = rng.randrange(1, 6)
            cands = None if trial % 2 else rng.sample(range(n), rng.randrange(1, n + 1))
            for ordered in (True, False):
                t = g.top_k(reset, k, candidates=cands, damping=d, tol=1e-12, ordered=ordered)
                self.check(t, ref, k, cands, "trial %d ordered %s: %r" % (trial, ordered, t))
                proved += t.certified and t.ordered
                if ordered and not (t.certified and t.ordered):
                    self.assertLessEqual(t.error_bound, 1e-12)
        self.assertGreater(proved, 0)

    def test_exact_ties_are_reported(self):
        # A star: the leaves tie exactly; no order among them can be proved.
        g = authppr.Graph(5, [(0, 1), (0, 2), (0, 3), (0, 4)], directed=False)
        t = g.top_k([1, 0, 0, 0, 0], 3, damping=0.5)
        self.assertEqual(t.ids, [0, 1, 2])  # exact ties by lower node id
        self.assertTrue(t.certified is False and t.ordered is False)
        self.assertEqual(t.ties, [1])
        self.assertLessEqual(t.error_bound, 1e-10)
        t = g.top_k([1, 0, 0, 0, 0], 1, damping=0.5)
        self.assertTrue(t.certified and t.ordered and t.ties == [] and t.sweeps <= 3)

    @unittest.skipIf(np is None, "numpy not installed")
    def test_numpy_candidates(self):
        g = authppr.Graph(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], directed=False)
        for c in (np.array([5, 3, 1], dtype=np.int64), np.array([5, 3, 1], dtype=np.int32), [5, 3, 1], (5, 3, 1)):
            t = g.top_k(np.array([1.0, 0, 0, 0, 0, 0]), 2, candidates=c, damping=0.5)
            self.assertEqual(t.ids, [1, 3])

    def test_threads(self):
        n = 300
        edges = [(u, (u * 7 + 1) % n) for u in range(n)] + [(u, (u * 13 + 5) % n) for u in range(n)]
        g = authppr.Graph(n, edges, directed=False)
        resets = []
        for i in range(6):
            r = [0.0] * n
            r[i * 31] = 1.0
            resets.append(r)
        want = [g.top_k(r, 5, candidates=range(n // 2, n), damping=0.5) for r in resets]
        got, errors = {}, []

        def work(i):
            try:
                for _ in range(5):
                    got[i] = g.top_k(resets[i], 5, candidates=range(n // 2, n), damping=0.5)
            except Exception as e:  # pragma: no cover
                errors.append(e)
        ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(errors, [])
        for i in range(6):
            self.assertEqual((got[i].ids, got[i].scores), (want[i].ids, want[i].scores))


class GuardTests(unittest.TestCase):
    # The README's worked example by ids: q=0 alice=1 bob=2 p1=3 p2=4 carol=5 p3=6;
    # one edge q - p3 written by the untrusted channel mallory.
    EDGES = [(0, 1), (0, 2), (1, 3), (2, 4), (1, 4), (5, 6), (2, 5), (0, 6)]
    WEIGHTS = [1, 1, 1, 1, 0.5, 1, 0.2, 3]
    CHANNELS = ["default"] * 7 + ["mallory"]

    def test_divergence_names_the_edge(self):
        g = authppr.Graph(7, self.EDGES, weights=self.WEIGHTS, directed=False, channels=self.CHANNELS)
        gd = authppr.Guard(g, trust=["default"])
        d = gd.select([1, 0, 0, 0, 0, 0, 0], k=1, candidates=[3, 4, 6], damping=0.5)
        self.assertEqual(d.native, [6])
        self.assertEqual(d.auth, [4])
        self.assertTrue(d.divergent)
        self.assertEqual(d.outcome, "divergent")
        self.assertEqual(d.selected, [4])
        self.assertIn(d.path, ("untouched", "certificate", "delta", "full"))
        self.assertGreaterEqual(len(d.suspects), 1)
        s = d.suspects[0]
        self.assertEqual((s.edge, s.src, s.dst, s.channel), (7, 0, 6, "mallory"))
        self.assertGreater(s.mass, 0)
        # The native selection is the certified top-k: its scores estimate
        # the graph's PPR from below (the solve stops once the selection is
        # proved), and the selection is the exact vector's.
        x = g.personalized_pagerank([1, 0, 0, 0, 0, 0, 0], damping=0.5)
        self.assertGreater(d.native_scores[0], 0)
        self.assertLessEqual(d.native_scores[0], x[6] + 1e-12)
        self.assertEqual(d.native, [max((3, 4, 6), key=lambda u: (x[u], -u))])

    def test_trusting_everyone_changes_nothing(self):
        g = authppr.Graph(7, self.EDGES, weights=self.WEIGHTS, directed=False, channels=self.CHANNELS)
        d = authppr.Guard(g, trust=["default", "mallory"]).select([1, 0, 0, 0, 0, 0, 0], k=3, damping=0.5)
        self.assertFalse(d.divergent)
        self.assertEqual(d.native, d.auth)
        self.assertEqual(d.suspects, [])
        x = g.personalized_pagerank([1, 0, 0, 0, 0, 0, 0], damping=0.5)
        self.assertEqual(d.native, sorted(range(7), key=lambda u: (-x[u], u))[:3])

    def test_guard_outlives_graph(self):
        g = authppr.Graph(7, self.EDGES, weights=self.WEIGHTS, directed=False, channels=self.CHANNELS)
        gd = authppr.Guard(g, trust=["default"])
        g.close()
        self.assertEqual(gd.select([1, 0, 0, 0, 0, 0, 0], 1, candidates=[3, 4, 6], damping=0.5).auth, [4])

    def test_random_guard_matches_two_solves(self):
        # The authenticated top-k is the top-k of PPR on the trusted edges
        # alone (up to near-ties), and divergent means the two differ.
        rng = random.Random(11)
        for trial in range(15):
            n = rng.randrange(5, 40)
            edges, weights = random_graph(rng, n, 3 * n)
            weights = [w + 0.1 for w in weights]
            chans = ["t" if rng.random() < 0.8 else "u" for _ in edges]
            chans[0] = "t"
            directed = trial % 2 == 1
            reset = [0.0] * n
            reset[rng.randrange(n)] = 1.0
            k = rng.randrange(1, 4)
            g = authppr.Graph(n, edges, weights=weights, directed=directed, channels=chans)
            d = authppr.Guard(g, trust=["t"]).select(reset, k, damping=0.5)
            te = [(e, w) for e, w, c in zip(edges, weights, chans) if c == "t"]
            xa = authppr.Graph(n, [e for e, _ in te], weights=[w for _, w in te], directed=directed).personalized_pagerank(reset, 0.5)
            xn = g.personalized_pagerank(reset, 0.5)
            top = lambda x: sorted(range(n), key=lambda u: (-x[u], u))[:k]
            self.assertEqual(d.native, top(xn))
            kth = min(xa[u] for u in d.auth)
            best_out = max([xa[u] for u in range(n) if u not in d.auth], default=-1)
            self.assertGreaterEqual(kth, best_out - 1e-8, "trial %d" % trial)
            if d.divergent:
                self.assertGreater(max(xa[u] for u in range(n) if u not in d.native) - min(xa[u] for u in d.native), 0)


@unittest.skipIf(np is None, "numpy not installed: buffer-protocol tests skipped")
class NumpyInputs(unittest.TestCase):
    def test_arrays_in_place_and_converted(self):
        rng = np.random.default_rng(5)
        n, m = 50, 200
        e64 = rng.integers(0, n, size=(m, 2), dtype=np.int64)
        w = rng.random(m)
        reset = rng.random(n)
        want = authppr.Graph(n, e64.tolist(), weights=w.tolist(), directed=False).personalized_pagerank(reset.tolist())
        variants = [(e, w) for e in (e64, e64.astype(np.int32), e64.astype(np.uint32), e64.astype(np.uint64),
                                     e64.astype(np.uint16), np.asfortranarray(e64))]
        variants += [(e64, w.tolist()), (e64, np.repeat(w, 2)[::2])]
        for edges, weights in variants:
            g = authppr.Graph(n, edges, weights=weights, directed=False)
            self.assertEqual(g.personalized_pagerank(reset), want)
        g = authppr.Graph(n, e64, weights=w, directed=False)
        out = np.empty(n)
        self.assertIs(g.personalized_pagerank(reset, out=out), out)
        self.assertEqual(out.tolist(), want)
        # float32 weights and strided resets are converted, not misread.
        g32 = authppr.Graph(n, e64, weights=w.astype(np.float32), directed=False)
        x32 = g32.personalized_pagerank(np.repeat(reset, 2)[::2])
        ref = authppr.Graph(n, e64, weights=w.astype(np.float32).astype(np.float64), directed=False).personalized_pagerank(reset)
        self.assertEqual(x32, ref)

    def test_bad_arrays(self):
        g = authppr.Graph(3, np.array([[0, 1], [1, 2]]))
        with self.assertRaises(ValueError):
            authppr.Graph(3, np.array([0, 1, 1, 2]))  # not (m, 2)
        with self.assertRaises(ValueError):
            authppr.Graph(3, np.array([[0, 1], [1, 5]]))
        with self.assertRaisesRegex(ValueError, "csr: edge 1: node 4294967295 -> 0 out of range"):
            authppr.Graph(3, np.array([[0, 1], [2 ** 32 - 1, 0]], dtype=np.uint32))
        with self.assertRaisesRegex(ValueError, "csr: edge 0: node 18446744073709551615 -> 0 out of range"):
            authppr.Graph(3, np.array([[2 ** 64 - 1, 0]], dtype=np.uint64))
        with self.assertRaises(ValueError):
            g.personalized_pagerank(np.zeros(3))
        with self.assertRaises(TypeError):
            g.personalized_pagerank(np.ones(3), out=np.empty(3, dtype=np.float32))
        with self.assertRaises(ValueError):
            g.personalized_pagerank(np.ones(3), out=np.empty(2))
        ro = np.ones(3)
        ro.setflags(write=False)
        self.assertAlmostEqual(sum(g.personalized_pagerank(ro)), 1.0, delta=1e-10)


@unittest.skipIf(igraph is None, "python3-igraph not installed: comparison with igraph PRPACK skipped")
class AgainstIgraph(unittest.TestCase):
    """authppr.Graph.personalized_pagerank against igraph's PRPACK on the
    same random graphs (parallel edges, self-loops, zero weights, isolated
    and dangling nodes), at 1e-9 per coordinate."""

    def test_top_k_random_graphs(self):
        """Graph.top_k's proved selections are igraph's top-k, in order,
        wherever igraph's scores separate them by more than 1e-9."""
        rng = random.Random(2025)
        proved = 0
        for trial in range(60):
            n, edges, weights, directed, reset, d = random_case(rng, trial, 200, 4, 0.5)
            ig = igraph.Graph(n=n, edges=edges, directed=directed)
            if weights is not None:
                ig.es["weight"] = weights
            want = ig.personalized_pagerank(vertices=None, directed=directed, damping=d, reset=reset,
                                            weights="weight" if weights is not None else None, implementation="prpack")
            k = rng.randrange(1, 11)
            cands = None if trial % 2 else rng.sample(range(n), rng.randrange(1, n + 1))
            t = authppr.Graph(n, edges, weights=weights, directed=directed).top_k(reset, k, candidates=cands, damping=d)
            comp = list(range(n)) if cands is None else cands
            order = sorted(comp, key=lambda u: -want[u])
            what = "trial %d (n=%d, directed=%s, d=%s, k=%d): %r" % (trial, n, directed, d, k, t)
            for i, v in enumerate(t.ids):
                self.assertLessEqual(abs(want[v] - t.scores[i]), t.score_errors[i] + 1e-9, what)
            if t.certified and t.ordered:
                proved += 1
                for i, v in enumerate(t.ids):
                    sep_before = i == 0 or want[order[i - 1]] - want[order[i]] > 1e-9
                    sep_after = i + 1 >= len(order) or want[order[i]] - want[order[i + 1]] > 1e-9
                    if sep_before and sep_after:
                        self.assertEqual(v, order[i], what)
        self.assertGreater(proved, 0)

    def test_random_graphs(self):
        rng = random.Random(2024)
        for trial in range(60):
            n, edges, weights, directed, reset, d = random_case(rng, trial, 200, 4, 0.2)
            ig = igraph.Graph(n=n, edges=edges, directed=directed)
            if weights is not None:
                ig.es["weight"] = weights
            want = ig.personalized_pagerank(vertices=None, directed=directed, damping=d, reset=reset,
                                            weights="weight" if weights is not None else None, implementation="prpack")
            got = authppr.Graph(n, edges, weights=weights, directed=directed).personalized_pagerank(reset, d)
            worst = max(abs(a - b) for a, b in zip(got, want))
            self.assertLessEqual(worst, 1e-9, "trial %d (n=%d, m=%d, directed=%s, d=%s)" % (trial, n, len(edges), directed, d))


if __name__ == "__main__":
    unittest.main()
