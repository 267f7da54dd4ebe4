"""The living store from Python: writers by channel, guarded selections by
name, a durable store reopened, numpy in and out, and the errors."""

import os
import shutil
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import authppr  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None


def scene(st):
    """curated: q-a, q-b, a-p1 (2), b-p2; mallory: q-x (5), x-p3 (5)."""
    cur, mal = st.writer("curated"), st.writer("mallory")
    ids = cur.add_edges(["q", "q", "a", "b"], ["a", "b", "p1", "p2"], weights=[1, 1, 2, 1])
    mids = mal.add_edges(["q", "x"], ["x", "p3"], weights=[5.0, 5.0])
    return cur, mal, list(ids), list(mids)


class StoreTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="authppr-store-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_round_trip(self):
        st = authppr.Store.open(self.dir)
        cur, mal, ids, mids = scene(st)
        self.assertEqual(ids, [0, 1, 2, 3])
        self.assertEqual(mids, [4, 5])
        info = st.info()
        self.assertEqual((info["nodes"], info["edges"], info["batches"]), (7, 6, 2))
        self.assertEqual(st.channels, ["curated", "mallory"])
        d = st.select({"q": 1.0}, 1, candidates=["p1", "p2", "p3"], trust=["curated"])
        self.assertTrue(d.divergent)
        self.assertEqual((d.native, d.auth, d.selected), (["p3"], ["p1"], ["p1"]))
        self.assertEqual(d.version, 2)
        s = d.suspects[0]
        self.assertEqual((s.src, s.dst, s.channel, s.channels, s.deleted, s.edge), ("q", "x", "mallory", ("mallory",), False, 4))
        self.assertEqual(list(st.ids(["q", "p1", "nobody"]))[2], -1)
        self.assertEqual(st.names(st.ids(["p1", "q"])), ["p1", "q"])
        # Policies.
        self.assertEqual(st.select(["q"], 1, ["p1", "p2", "p3"], trust=["curated"], policy="report").selected, ["p3"])
        with self.assertRaises(authppr.DivergenceError) as cm:
            st.select(["q"], 1, ["p1", "p2", "p3"], trust=["curated"], policy="escalate")
        self.assertEqual(cm.exception.decision.native, ["p3"])
        # An untrusted deletion of a trusted edge is undone in the authenticated view.
        self.assertEqual(list(mal.delete_edges(["a"], ["p1"])), [1])
        d = st.select({"q": 1.0}, 2, candidates=["p1", "p2", "p3"], trust=["curated"])
        self.assertTrue(any(s.deleted and s.channel == "mallory" for s in d.suspects), d.suspects)
        # A merge and an inferred edge by the trusted writer.
        self.assertEqual(cur.merge("b", "a"), 2)
        e = cur.add_inferred("q", "p3", 3.0, [mids[1]])
        d = st.select({"q": 1.0}, 1, candidates=["p1", "p2", "p3"], trust=["curated"])
        self.assertTrue(any(s.edge == e and s.channels == ("mallory",) for s in d.suspects), d.suspects)
        before = (d.native, d.auth, d.divergent)
        st.close()
        with self.assertRaises(ValueError) as cm:
            cur.add_edge("q", "z")
        self.assertIn("store: closed", str(cm.exception))
        # Reopened: the same store and decision.
        st = authppr.Store.open(self.dir)
        self.assertEqual(st.info()["batches"], 5)
        d = st.select({"q": 1.0}, 1, candidates=["p1", "p2", "p3"], trust=["curated"])
        self.assertEqual((d.native, d.auth, d.divergent), before)
        st.compact()
        d = st.select({"q": 1.0}, 1, candidates=["p1", "p2", "p3"], trust=["curated"])
        self.assertEqual((d.native, d.auth, d.divergent), before)
        st.close()

    def test_create_from_graph(self):
        g = authppr.Graph(4, [(0, 1), (1, 2), (0, 3)], directed=False, channels=["t", "t", ("t", "m")],
                          names=["s", "a", "p", "r"])
        st = authppr.Store.create(os.path.join(self.dir, "new"), g)
        d = st.select({"s": 1}, 1, candidates=["p", "r"], trust=["t"])
        self.assertEqual(d.auth, ["p"])
        self.assertIn(("s", "r", "m"), [(s.src, s.dst, s.channel) for s in d.suspects])
        st.close()
        with self.assertRaises(ValueError):
            authppr.Store.create(os.path.join(self.dir, "new"), g)

    @unittest.skipIf(np is None, "numpy not installed")
    def test_numpy_in_and_out(self):
        st = authppr.Store.memory()
        w = st.writer("bulk")
        names = ["n%d" % i for i in range(1000)]
        w.add_nodes(names)
        rng = np.random.default_rng(0)
        src, dst = rng.integers(0, 1000, 5000), rng.integers(0, 1000, 5000)
        ids = w.add_edges(src, dst, weights=rng.uniform(0.5, 2, 5000))
        self.assertIsInstance(ids, np.ndarray)
        np.testing.assert_array_equal(ids, np.arange(5000))
        got = st.ids(names)
        self.assertIsInstance(got, np.ndarray)
        np.testing.assert_array_equal(got, np.arange(1000))
        d = st.select(np.array([3, 4]), 10, candidates=np.arange(100, 200), trust=["bulk"], seed_weights=np.array([1.0, 2.0]))
        self.assertFalse(d.divergent)
        self.assertEqual(len(d.native), 10)
        self.assertTrue(all(100 <= u < 200 for u in d.native_ids))

    def test_errors(self):
        st = authppr.Store.memory()
        w = st.writer("w")
        w.add_edges(["a", "b"], ["b", "c"])
        for f, prefix in [
            (lambda: st.writer(""), "store: a writer needs a channel name"),
            (lambda: w.add_edges(["a"], ["b", "c"]), "authppr: 1 sources for 2 destinations"),
            (lambda: w.add_edges([0], [7]), "store: write 0: edge 0 -> 7: no such node (3 nodes)"),
            (lambda: w.merge("zz", "a"), 'store: write 0: merge "zz" into "a": unknown node "zz"'),
            (lambda: w.add_edge("a", "b", -1), "store: write 0: edge a -> b:"),
            (lambda: w.delete_edges([9]), "store: write 0: delete edge 9: no such edge (2 edges)"),
            (lambda: st.select({"zz": 1}, 1, trust=["w"]), "authppr: seed 0: unknown node 'zz'"),
            (lambda: st.select({"a": 1}, 0, trust=["w"]), "authppr: k = 0"),
            (lambda: st.select({"a": -1}, 1, trust=["w"]), "store: replay: ppr: seed 0 (node 0): weight -1"),
            (lambda: st.select({"a": 1}, 1, candidates=[], trust=["w"]), "authppr: empty candidate list"),
            (lambda: st.select({"a": 1}, 1, candidates=[1, 1], trust=["w"]), "store: replay: candidate 1: node 1 repeated"),
            (lambda: st.select({"a": 1}, 1, trust=["w"], policy="ignore"), "authppr: policy='ignore'"),
            (lambda: st.names([5]), "cabi: id 0: node 5 out of range (store has 3 nodes)"),
        ]:
            with self.assertRaises(ValueError, msg=prefix) as cm:
                f()
            self.assertTrue(str(cm.exception).startswith(prefix), "%r vs %r" % (str(cm.exception), prefix))
        self.assertEqual(st.info()["batches"], 1)  # refused batches changed nothing
        with self.assertRaises(TypeError):
            st.select({"a": 1}, 1)  # trust is required
        with self.assertRaises(TypeError):
            st.select({"a": 1}, 1, trust="w")
        with self.assertRaises(TypeError):
            w.add_edges(["a", 1], ["b", "c"])
        with self.assertRaises(TypeError):
            st.writer(7)
        # Long names come back whole (the text buffer grows).
        long = "x" * 10000
        w.add_edge(long, "a")
        self.assertEqual(st.names(st.ids([long])), [long])
        d = st.select({long: 1}, 2, trust=["w"])
        self.assertIn(long, d.native)
        st.close()
        st.close()  # idempotent

    def test_threads(self):
        st = authppr.Store.memory()
        cur, _, _, _ = scene(st)
        errors = []

        def write(i):
            try:
                for j in range(20):
                    cur.add_edge("q", "n%d-%d" % (i, j))
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        def read():
            try:
                for _ in range(20):
                    st.select({"q": 1}, 2, ["p1", "p2", "p3"], trust=["curated"])
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        ts = [threading.Thread(target=write, args=(i,)) for i in range(3)] + [threading.Thread(target=read) for _ in range(3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(st.info()["batches"], 2 + 60)


if __name__ == "__main__":
    unittest.main()
