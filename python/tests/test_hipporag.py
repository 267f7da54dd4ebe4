"""authppr.hipporag on a HippoRAG2-shaped object (hipporag_shape.py): the
speed patch against igraph's run_ppr, the guarded retrieval against an
untrusted writer's single edge, the cache after in-place changes, and the
errors. Needs numpy and Debian's python3-igraph; skipped, saying so,
without them."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import authppr  # noqa: E402

try:
    import numpy as np
    import igraph
except ImportError:
    np = igraph = None

if igraph is not None:
    import authppr.hipporag as hr
    from hipporag_shape import HippoRAG2Shaped, corpus


def separated(scores, i, tol=1e-9):
    """Whether igraph's score at rank i is apart from its neighbours'."""
    left = i == 0 or scores[i - 1] - scores[i] > tol
    right = i == len(scores) - 1 or scores[i] - scores[i + 1] > tol
    return left and right


@unittest.skipIf(igraph is None, "numpy and python3-igraph needed for the HippoRAG2 tests")
class HippoRAG(unittest.TestCase):
    def setUp(self):
        self.docs, self.similar, self.vocab = corpus()
        self.rag = HippoRAG2Shaped()
        self.rag.index(self.docs, self.similar)
        rng = np.random.default_rng(5)
        linked = [e for e in self.vocab if hr.entity_id(e) in self.rag.node_name_to_vertex_idx]
        self.queries = []
        for _ in range(6):
            seeds = {linked[i]: float(rng.uniform(0.5, 1.0)) for i in rng.choice(len(linked), 3, replace=False)}
            self.queries.append((seeds, rng.random(len(self.rag.passages))))
        # Writers: even passages "curated", odd ones "wiki"; both trusted.
        self.writers = {t: ("curated" if i % 2 == 0 else "wiki") for i, (t, _) in enumerate(self.docs)}

    def igraph_ranking(self, q):
        return HippoRAG2Shaped.run_ppr(self.rag, self.rag.reset(*q), 0.5)

    def assertSameRanking(self, got, want, what):
        ids, scores = got
        wids, wscores = want
        # HippoRAG2's types: numpy arrays, one entry per passage.
        self.assertIs(type(ids), type(wids), what)
        self.assertIs(type(scores), type(wscores), what)
        self.assertEqual(ids.shape, wids.shape, what)
        self.assertEqual(scores.shape, wscores.shape, what)
        self.assertFalse(np.isnan(scores).any(), what)
        np.testing.assert_allclose(scores, wscores, rtol=0, atol=1e-9, err_msg=what)
        for i in range(len(wids)):
            if separated(wscores, i):
                self.assertEqual(ids[i], wids[i], "%s: rank %d" % (what, i))

    def test_speed_patch_returns_igraphs_ranking(self):
        want = [self.igraph_ranking(q) for q in self.queries]
        hr.patch(self.rag)
        for i, q in enumerate(self.queries):
            self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), want[i], "query %d" % i)
        # NaN and negative entries are zeroed, as HippoRAG2 does; damping None is 0.5.
        r = self.rag.reset(*self.queries[0])
        r[0], r[1] = np.nan, -1
        self.assertSameRanking(self.rag.run_ppr(r, None), HippoRAG2Shaped.run_ppr(self.rag, r, None), "nan")
        hr.unpatch(self.rag)
        self.assertEqual(self.rag.run_ppr.__func__, HippoRAG2Shaped.run_ppr)

    def test_cache_sees_in_place_changes(self):
        """The patched run_ppr disagreed with igraph after an in-place
        g.es["weight"] = ... (the example keyed its cache on the graph
        object and its counts)."""
        hr.patch(self.rag)
        q = self.queries[0]
        self.rag.run_ppr(self.rag.reset(*q), 0.5)
        g = self.rag.graph
        rng = np.random.default_rng(1)
        g.es["weight"] = list(rng.uniform(0.1, 3.0, g.ecount()))
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), self.igraph_ranking(q), "new weights")
        g.es[0]["weight"] = 50.0
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), self.igraph_ranking(q), "one weight")
        # Same counts, other edges.
        a, b = g.es[3].tuple
        g.delete_edges([3])
        g.add_edges([(a, (b + 1) % g.vcount())], attributes={"weight": [2.0]})
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), self.igraph_ranking(q), "rewired")
        # Without the edge check, weights and counts are still seen.
        hr.patch(self.rag, check_edges=False)
        self.rag.run_ppr(self.rag.reset(*q), 0.5)
        g.es["weight"] = list(rng.uniform(0.1, 3.0, g.ecount()))
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), self.igraph_ranking(q), "weights, no edge check")
        # More documents indexed: vertices, edges, passages.
        self.rag.index([("a late passage", [("entity 001", "rel1", "entity 002")])])
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q[:1], np.random.default_rng(2).random(len(self.rag.passages))), 0.5),
                               self.igraph_ranking((q[0], np.random.default_rng(2).random(len(self.rag.passages)))), "indexed")

    def test_certified_top_k_of_passages(self):
        """The certified top-k of the passages (Graph.top_k, what the guard
        solves natively; the removed example's run_ppr(top_k=k)) is
        igraph's top-k, proved in order, its scores within their bounds of
        igraph's; the guarded run_ppr's decision names igraph's top-5."""
        g = authppr.Graph.from_igraph(self.rag.graph, directed=False)
        passages = self.rag.passage_node_idxs
        self.tag()
        hr.patch(self.rag, trust=["curated", "wiki"])
        for i, q in enumerate(self.queries):
            reset = self.rag.reset(*q)
            ids, scores = self.igraph_ranking(q)
            for k in (1, 5, 10):
                t = g.top_k(reset, k, candidates=passages, damping=0.5)
                what = "query %d, k=%d: %r" % (i, k, t)
                self.assertTrue(t.certified and t.ordered, what)
                got = [passages.index(u) for u in t.ids]
                for r in range(k):
                    if separated(scores, r):
                        self.assertEqual(got[r], ids[r], what)
                    self.assertLessEqual(t.scores[r], scores[r] + 1e-9, what)
                    self.assertLessEqual(scores[r], t.scores[r] + t.score_errors[r] + 1e-9, what)
            self.rag.run_ppr(reset, 0.5)
            d = self.rag.authppr_last_decision
            if all(separated(scores, r) for r in range(5)):
                self.assertEqual(sorted(d.native), sorted(ids[:5].tolist()), "query %d" % i)
        g.close()

    def tag(self):
        return hr.tag_writers(self.rag, self.writers)

    def test_guard_with_only_trusted_writers(self):
        self.tag()
        hr.patch(self.rag, trust=["curated", "wiki"])
        for i, q in enumerate(self.queries):
            got = self.rag.run_ppr(self.rag.reset(*q), 0.5)
            self.assertSameRanking(got, self.igraph_ranking(q), "query %d" % i)
            d = self.rag.authppr_last_decision
            self.assertFalse(d.divergent, d)
            self.assertEqual(d.suspects, [])
            self.assertEqual(list(got[0][:5]), d.selected)

    def find_flip(self):
        """A fact edge an untrusted writer can add (two edges, as HippoRAG2
        adds a triple's two directions) between a linked entity of a query
        and an entity of a passage outside its top-5 that changes the
        top-5: (query, src vertex, dst vertex)."""
        g, rag = self.rag.graph, self.rag
        for q in self.queries:
            ids, _ = self.igraph_ranking(q)
            top = set(ids[:5].tolist())
            seed = rag.node_name_to_vertex_idx[hr.entity_id(sorted(q[0], key=q[0].get)[-1])]
            for pos in ids[5:15]:
                p = rag.passage_node_idxs[pos]
                for e in g.neighbors(p):
                    if e == seed or e in rag.passage_node_idxs:
                        continue
                    g.add_edges([(seed, e), (e, seed)], attributes={"weight": [1.0, 1.0], "channel": ["mallory"] * 2})
                    flipped = set(self.igraph_ranking(q)[0][:5].tolist()) != top
                    g.delete_edges([g.ecount() - 2, g.ecount() - 1])
                    if flipped:
                        return q, seed, e
        self.fail("no single fact edge flips a top-5")

    def test_one_untrusted_edge_flips_the_top5(self):
        self.tag()
        q, s, e = self.find_flip()
        trusted = self.igraph_ranking(q)
        g = self.rag.graph
        g.add_edges([(s, e), (e, s)], attributes={"weight": [1.0, 1.0], "channel": ["mallory"] * 2})
        native = self.igraph_ranking(q)
        self.assertNotEqual(set(native[0][:5].tolist()), set(trusted[0][:5].tolist()))
        names = g.vs["name"]
        edge = {(names[s], names[e], "mallory"), (names[e], names[s], "mallory")}

        # Unguarded: the native ranking, flipped.
        hr.patch(self.rag)
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), native, "native")
        # Guarded, reject: the trusted top-5, the edge named.
        hr.patch(self.rag, trust=["curated", "wiki"])
        got = self.rag.run_ppr(self.rag.reset(*q), 0.5)
        d = self.rag.authppr_last_decision
        self.assertTrue(d.divergent)
        self.assertEqual(sorted(got[0][:5].tolist()), sorted(trusted[0][:5].tolist()))
        self.assertEqual(d.selected, got[0][:5].tolist())
        self.assertTrue(edge & set(d.suspects), d.suspects)
        self.assertIn(d.path, ("untouched", "certificate", "delta", "full"))
        self.assertEqual(len(got[0]), len(self.rag.passage_node_idxs))
        self.assertFalse(np.isnan(got[1]).any())
        self.assertEqual(sorted(got[0].tolist()), list(range(len(self.rag.passage_node_idxs))))
        # Past the top-5: the trusted edges' ranking.
        self.assertEqual(list(got[0][5:]), [i for i in trusted[0] if i not in set(got[0][:5].tolist())])
        # Report: the native ranking, the decision recorded.
        hr.patch(self.rag, trust=["curated", "wiki"], policy="report")
        got = self.rag.run_ppr(self.rag.reset(*q), 0.5)
        self.assertEqual(set(got[0][:5].tolist()), set(native[0][:5].tolist()))
        self.assertTrue(self.rag.authppr_last_decision.divergent)
        # Escalate: an error carrying the decision.
        hr.patch(self.rag, trust=["curated", "wiki"], policy="escalate")
        with self.assertRaises(authppr.DivergenceError) as cm:
            self.rag.run_ppr(self.rag.reset(*q), 0.5)
        self.assertTrue(edge & set(cm.exception.decision.suspects))
        # Trusting mallory too: the native answer, nothing refused.
        hr.patch(self.rag, trust=["curated", "wiki", "mallory"])
        self.assertSameRanking(self.rag.run_ppr(self.rag.reset(*q), 0.5), native, "all trusted")
        self.assertFalse(self.rag.authppr_last_decision.divergent)

    def test_tag_writers(self):
        chans = self.tag()
        g, names = self.rag.graph, self.rag.graph.vs["name"]
        passages = {hr.chunk_id(t): w for t, w in self.writers.items()}
        seen = set()
        for (a, b), c in zip(g.get_edgelist(), chans):
            na, nb = names[a], names[b]
            if na in passages or nb in passages:
                self.assertEqual(c, passages.get(na) or passages.get(nb))
                seen.add("passage")
            elif abs(g.es[g.get_eid(a, b)]["weight"] - round(g.es[g.get_eid(a, b)]["weight"])) > 0:
                seen.add("synonymy")  # depends on both entities' writers
                want = set()
                for ent in (na, nb):
                    want |= {passages[ch] for ch in self.rag.ent_node_to_chunk_ids[ent]}
                self.assertEqual(set((c,) if isinstance(c, str) else c), want)
            else:
                seen.add("fact")
        self.assertEqual(seen, {"passage", "synonymy", "fact"})
        # An entity only an untrusted writer introduced: its synonym edge
        # depends on that writer (min-inheritance).
        self.rag.index([("mallory's passage", [("entity 007 prime", "rel0", "entity 050")])],
                       {("entity 007", "entity 007 prime"): 0.9})
        chans = hr.tag_writers(self.rag, dict(self.writers, **{"mallory's passage": "mallory"}), system="embedder")
        a, b = self.rag.node_name_to_vertex_idx[hr.entity_id("entity 007")], \
            self.rag.node_name_to_vertex_idx[hr.entity_id("entity 007 prime")]
        c = chans[g.get_eid(a, b)]
        self.assertIsInstance(c, tuple)
        self.assertEqual(c[0], "embedder")
        self.assertIn("mallory", c)
        with self.assertRaises(ValueError) as cm:
            hr.tag_writers(self.rag, {})
        self.assertIn("has no writer", str(cm.exception))

    def test_errors(self):
        rag = self.rag
        with self.assertRaises(ValueError) as cm:
            hr.patch(rag, trust=["curated"])
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("no edge attribute 'channel'", str(cm.exception))
        hr.patch(rag, trust=["curated"], default_channel="curated")
        rag.run_ppr(rag.reset(*self.queries[0]), 0.5)  # an explicit default: every edge curated's
        self.assertFalse(rag.authppr_last_decision.divergent)
        self.tag()
        rag.graph.add_edges([(0, 1)], attributes={"weight": [1.0]})  # no channel on the new edge
        hr.patch(rag, trust=["curated", "wiki"])
        with self.assertRaises(ValueError) as cm:
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("has no 'channel'", str(cm.exception))
        rag.graph.delete_edges([rag.graph.ecount() - 1])
        # top_k smaller than what the caller retrieves: an error, not padding.
        with self.assertRaises(ValueError) as cm:
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5, num_to_retrieve=10)
        self.assertIn("num_to_retrieve=10", str(cm.exception))
        with self.assertRaises(ValueError):
            rag.retrieve([self.queries[0]], num_to_retrieve=6)
        self.assertEqual(len(rag.retrieve([self.queries[0]], num_to_retrieve=5)[0][0]), 5)
        with self.assertRaises(ValueError) as cm:
            hr.patch(rag, trust=["curated"], top_k=3)  # the reader reads qa_top_k = 5
        self.assertIn("qa_top_k=5", str(cm.exception))
        for bad in (dict(top_k=0), dict(policy="ignore"), dict(trust=[])):
            with self.assertRaises(ValueError, msg=repr(bad)):
                hr.patch(rag, **dict(dict(trust=["curated"]), **bad))
        with self.assertRaises(TypeError):
            hr.patch(object())
        with self.assertRaises(TypeError):
            hr.patch(rag, trust="curated")
        with self.assertRaises(ValueError) as cm:
            hr.patch(rag, trust=["curated", "wkii"])
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("wkii", str(cm.exception))
        rag.graph.es[2]["weight"] = None
        with self.assertRaises(ValueError) as cm:
            hr.patch(rag)
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("edge 2 (", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
