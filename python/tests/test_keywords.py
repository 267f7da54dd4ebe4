"""igraph's and networkx's keywords on authppr.Graph (issue 19): what
makes sense is accepted and means what it means there, the rest is a clear
error."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import authppr  # noqa: E402

try:
    import igraph
except ImportError:
    igraph = None

EDGES = [(0, 1), (1, 2), (2, 0), (2, 3)]
NAMES = ["a", "b", "c", "d"]


class Keywords(unittest.TestCase):
    def setUp(self):
        self.g = authppr.Graph(4, EDGES, weights=[1, 2, 3, 4], directed=False, names=NAMES)
        self.base = self.g.personalized_pagerank([1, 0, 0, 2])

    def test_resets(self):
        g, base = self.g, self.base
        self.assertEqual(g.personalized_pagerank(reset={"a": 1, "d": 2}), base)
        self.assertEqual(g.personalized_pagerank(reset={0: 1, 3: 2}), base)
        self.assertEqual(g.personalized_pagerank(personalization={"a": 1, "d": 2}), base)
        self.assertEqual(g.personalized_pagerank(reset_vertices=["a", "d", "d"]), base)
        self.assertEqual(g.personalized_pagerank(reset_vertices=[0, 3, 3]), base)
        uniform = g.personalized_pagerank([1, 1, 1, 1])
        self.assertEqual(g.personalized_pagerank(), uniform)
        self.assertEqual(g.personalized_pagerank([1, 0, 0, 2], vertices=["d", "a"]), [base[3], base[0]])
        self.assertEqual(g.personalized_pagerank([1, 0, 0, 2], vertices=2), base[2])
        ok = g.personalized_pagerank([1, 0, 0, 2], directed=True, weights="weight", implementation="prpack")
        self.assertEqual(ok, base)
        self.assertEqual(g.top_k({"a": 1, "d": 2}, 2, candidates=["b", "c"]).ids,
                         sorted([1, 2], key=lambda u: -base[u]))

    def test_errors(self):
        g = self.g
        for kw, msg in [
            (dict(reset=[1, 0, 0, 0], reset_vertices=[0]), "pass reset or reset_vertices, not both"),
            (dict(reset={"zz": 1}), "unknown node 'zz'"),
            (dict(reset={9: 1}), "node 9 out of range"),
            (dict(reset_vertices=[7]), "reset vertex 7 out of range"),
            (dict(reset=[1, 0, 0, 0], weights=None), "weights=None on a Graph built with weights"),
            (dict(reset=[1, 0, 0, 0], weights=[1, 2, 3, 4]), "weights are fixed when the Graph is built"),
            (dict(reset=[1, 0, 0, 0], implementation="arpack"), "implementation='arpack'"),
        ]:
            with self.assertRaises(ValueError, msg=repr(kw)) as cm:
                g.personalized_pagerank(**kw)
            self.assertIn(msg, str(cm.exception))
        d = authppr.Graph(4, EDGES)
        with self.assertRaises(ValueError) as cm:
            d.personalized_pagerank([1, 0, 0, 0], directed=False)
        self.assertIn("directed=False on a directed Graph", str(cm.exception))
        with self.assertRaises(ValueError):
            d.personalized_pagerank([1, 0, 0, 0], weights="weight")  # built without weights
        with self.assertRaises(TypeError):
            d.personalized_pagerank({"a": 1})  # no names
        with self.assertRaises(ValueError):
            authppr.Graph(2, [(0, 1)], names=["x", "x"])
        with self.assertRaises(ValueError):
            authppr.Graph(2, [(0, 1)], names=["x"])

    @unittest.skipIf(igraph is None, "python3-igraph not installed")
    def test_from_igraph(self):
        ig = igraph.Graph(n=4, edges=EDGES, directed=False)
        ig.vs["name"] = NAMES
        ig.es["weight"] = [1, 2, 3, 4]
        kw = dict(vertices=None, directed=False, damping=0.5, reset=[1, 0, 0, 2], weights="weight", implementation="prpack")
        want = ig.personalized_pagerank(**kw)
        g = authppr.Graph.from_igraph(ig)
        got = g.personalized_pagerank(**kw)
        for a, b in zip(got, want):
            self.assertAlmostEqual(a, b, delta=1e-9)
        self.assertEqual(g.names, NAMES)
        with self.assertRaises(ValueError):
            g.personalized_pagerank([1, 0, 0, 2], weights="w2")
        with self.assertRaises(ValueError) as cm:
            authppr.Graph.from_igraph(ig, channels="channel")
        self.assertIn("no edge attribute 'channel'", str(cm.exception))
        ig.es["channel"] = ["t", "t", ("t", "m"), "t"]
        gd = authppr.Guard(authppr.Graph.from_igraph(ig, channels="channel"), trust=["t"])
        self.assertEqual(gd.graph.channel_names, ["t", "m"])


if __name__ == "__main__":
    unittest.main()
