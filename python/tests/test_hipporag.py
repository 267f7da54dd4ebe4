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
    from authppr import _igraph as ig_edges
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

    def fresh(self):
        """A new HippoRAG2-shaped instance with setUp's documents, tagged."""
        rag = HippoRAG2Shaped()
        rag.index(self.docs, self.similar)
        hr.tag_writers(rag, self.writers)
        return rag

    def query(self, rag):
        """Query 0 on rag: its dense scores resized to rag's passages."""
        return self.queries[0][0], np.resize(self.queries[0][1], len(rag.passages))

    def assertSeen(self, mutate, what, checks=("edges", "full"), prepare=None):
        """mutate(rag) between two retrievals changes igraph's ranking
        (so a stale cache would be caught); the patched run_ppr, unguarded
        and guarded (every writer trusted: nothing refused, igraph's
        ranking), follows it under each content check. prepare(rag), when
        given, runs first."""
        for check in checks:
            for trust in (None, ["curated", "wiki"]):
                with self.subTest(what=what, check=check, trust=trust):
                    rag = self.fresh()
                    if prepare is not None:
                        prepare(rag)
                    hr.patch(rag, trust=trust, check=check)
                    before = HippoRAG2Shaped.run_ppr(rag, rag.reset(*self.query(rag)), 0.5)
                    self.assertSameRanking(rag.run_ppr(rag.reset(*self.query(rag)), 0.5), before, "%s: before" % what)
                    mutate(rag)
                    after = HippoRAG2Shaped.run_ppr(rag, rag.reset(*self.query(rag)), 0.5)
                    self.assertTrue(len(after[1]) != len(before[1]) or np.abs(after[1] - before[1]).max() > 1e-6,
                                    "%s: igraph's ranking did not change: the case proves nothing" % what)
                    self.assertSameRanking(rag.run_ppr(rag.reset(*self.query(rag)), 0.5), after, what)
                    if trust is not None:
                        self.assertFalse(rag.authppr_last_decision.divergent)

    def seed(self, rag):
        q = self.queries[0][0]
        return rag.node_name_to_vertex_idx[hr.entity_id(sorted(q, key=q.get)[-1])]

    def test_cache_sees_same_count_edge_changes(self):
        """Edge changes that keep the vertex and edge counts, the weight
        and channel lists and every degree: a check of counts, weights and
        channels alone, or of the degree sequence, serves them stale."""
        ends = {}

        def prepare(rag):
            # (seed, x) and (y, e) at the end, weight 3; the swap makes
            # them (seed, e) and (y, x): e an entity of a passage outside
            # igraph's top-5, x and y entities apart from both.
            g, seed, passages = rag.graph, self.seed(rag), set(rag.passage_node_idxs)
            ids, _ = HippoRAG2Shaped.run_ppr(rag, rag.reset(*self.query(rag)), 0.5)
            e = next(v for pos in ids[5:] for v in g.neighbors(rag.passage_node_idxs[pos])
                     if v != seed and v not in passages and not g.are_connected(seed, v))
            x, y = [v for v in rag.entity_node_idxs if v not in (seed, e) and not g.are_connected(seed, v)
                    and not g.are_connected(e, v)][:2]
            g.add_edges([(seed, x), (y, e)], attributes={"weight": [3.0, 3.0], "channel": ["curated"] * 2})
            ends.update(seed=seed, e=e, x=x, y=y)

        def swap(delete):
            def mutate(rag):
                g, m = rag.graph, rag.graph.ecount()
                delete(g, [m - 2, m - 1])
                g.add_edges([(ends["seed"], ends["e"]), (ends["y"], ends["x"])],
                            attributes={"weight": [3.0, 3.0], "channel": ["curated"] * 2})
                self.assertEqual(g.ecount(), m)
            return mutate

        self.assertSeen(swap(lambda g, ids: g.delete_edges(ids)), "delete_edges + add_edges, same counts",
                        prepare=prepare)
        self.assertSeen(swap(lambda g, ids: g.es[ids].delete()), "es[...].delete() + add_edges", prepare=prepare)
        self.assertSeen(swap(lambda g, ids: igraph.GraphBase.delete_edges(g, ids)), "GraphBase.delete_edges",
                        prepare=prepare)
        self.assertSeen(self.rewire, "rewire")

    @staticmethod
    def rewire(rag):
        """Degree-preserving, in place; igraph drops the rewired edges'
        attributes: the same lists again."""
        g = rag.graph
        w, c = g.es["weight"], g.es["channel"]
        g.rewire(n=50)
        g.es["weight"], g.es["channel"] = w, c

    def test_cache_sees_attribute_changes(self):
        rng = np.random.default_rng(3)
        self.assertSeen(lambda rag: rag.graph.es.__setitem__("weight", list(rng.uniform(0.1, 3.0, rag.graph.ecount()))),
                        'g.es["weight"] = a new list', checks=("edges", "full", "counts"))

        def one_weight(rag):
            rag.graph.es[rag.graph.incident(self.seed(rag))[0]]["weight"] = 40.0
        self.assertSeen(one_weight, 'g.es[i]["weight"] = x', checks=("edges", "full", "counts"))

    def test_cache_sees_hipporag2s_own_changes(self):
        """index() (add_vertices, add_edges) and delete() (delete_vertices
        by name, then prepare_retrieval_objects' new indices)."""

        def index(rag):
            rag.index([("a late passage", [("entity 001", "rel1", "entity 002"),
                                           ("entity 002", "rel2", "entity 003")])])
            hr.tag_writers(rag, dict(self.writers, **{"a late passage": "curated"}))

        def delete(rag):
            ids, _ = HippoRAG2Shaped.run_ppr(rag, rag.reset(*self.query(rag)), 0.5)
            gone = rag.passages[int(ids[0])]
            rag.graph.delete_vertices([hr.chunk_id(gone)])
            rag.passages.remove(gone)
            rag.prepare()
        self.assertSeen(index, "index()", checks=("edges", "full", "counts"))
        self.assertSeen(delete, "delete()", checks=("edges", "full", "counts"))

    def test_cache_sees_graph_replaced(self):
        def replace(rag):
            g = rag.graph.copy()
            g.es[0]["weight"] = 0.01
            g.add_edges([(self.seed(rag), rag.passage_node_idxs[-1])],
                        attributes={"weight": [2.0], "channel": ["curated"]})
            g.delete_edges([1])  # the same counts
            rag.graph = g
        self.assertSeen(replace, "rag.graph replaced", checks=("edges", "full", "counts"))

    def test_cache_sees_channel_change_and_names(self):
        """A channel changed on the edges that flip a top-5 (trusted, then
        an untrusted writer's): the guard sees it on the next call; a
        renamed vertex is named so in the suspects."""
        self.tag()
        q, s, e = self.find_flip()
        g = self.rag.graph
        trusted = self.igraph_ranking(q)
        for check in ("edges", "full"):
            with self.subTest(check=check):
                g.add_edges([(s, e), (e, s)], attributes={"weight": [1.0, 1.0], "channel": ["curated"] * 2})
                hr.patch(self.rag, trust=["curated", "wiki"], check=check)
                native = self.rag.run_ppr(self.rag.reset(*q), 0.5)
                self.assertFalse(self.rag.authppr_last_decision.divergent)
                self.assertNotEqual(set(native[0][:5].tolist()), set(trusted[0][:5].tolist()))
                m = g.ecount()
                g.es[m - 2]["channel"] = "mallory"
                g.es[m - 1]["channel"] = "mallory"
                got = self.rag.run_ppr(self.rag.reset(*q), 0.5)
                d = self.rag.authppr_last_decision
                self.assertTrue(d.divergent, d)
                self.assertEqual(sorted(got[0][:5].tolist()), sorted(trusted[0][:5].tolist()))
                names = g.vs["name"]
                self.assertTrue({(names[s], names[e], "mallory"), (names[e], names[s], "mallory")} & set(d.suspects))
                old = names[s]
                g.vs[s]["name"] = "renamed " + old
                self.rag.run_ppr(self.rag.reset(*q), 0.5)
                sus = self.rag.authppr_last_decision.suspects
                self.assertTrue(any("renamed " + old in (a, b) for a, b, _ in sus), sus)
                self.assertFalse(any(old in (a, b) for a, b, _ in sus), sus)
                g.vs[s]["name"] = old
                g.delete_edges([m - 2, m - 1])

    def test_default_check_reads_igraphs_edge_arrays(self):
        """The default check reads no Python edge list (get_edgelist: a
        second per million edges) on any call, the first build included;
        check="full" reads it on every call. The trusted edges' graph a
        divergence ranks on (policy reject) is built with the others."""
        self.assertTrue(ig_edges.readable() or not igraph.__version__.startswith("0.10."),
                        "igraph %s's edge arrays not readable" % igraph.__version__)
        self.tag()
        for check, trust, calls in (("edges", None, 0), ("edges", ["curated"], 0), ("full", None, 3),
                                    ("full", ["curated"], 3)):
            with self.subTest(check=check, trust=trust):
                g = self.rag.graph
                n = [0]
                real = igraph.Graph.get_edgelist

                def counted(*a):
                    n[0] += 1
                    return real(g, *a)
                g.get_edgelist = counted
                try:
                    hr.patch(self.rag, trust=trust, check=check)
                    for q in self.queries[:3]:
                        self.rag.run_ppr(self.rag.reset(*q), 0.5)
                finally:
                    del g.get_edgelist
                self.assertEqual(n[0], calls)
                runner = self.rag._authppr[0]
                if trust is not None:
                    self.assertIsNotNone(runner.auth_graph)
        with self.assertRaises(ValueError) as cm:
            hr.patch(self.rag, check="degrees")
        self.assertIn("check='degrees'", str(cm.exception))

    def test_edge_reader(self):
        """authppr._igraph reads igraph's edge columns as get_edgelist
        gives them (orientation and order), after every kind of change, on
        directed and undirected graphs; same_edges tells a snapshot from
        any change of an endpoint, and from an equal graph says equal."""
        if not ig_edges.readable():
            self.skipTest("igraph %s's edge arrays are not readable" % igraph.__version__)
        rng = np.random.default_rng(9)
        for directed in (False, True):
            g = igraph.Graph(n=30, edges=rng.integers(0, 30, size=(80, 2)).tolist(), directed=directed)
            steps = [("add_edges", lambda: g.add_edges([(1, 2), (29, 0)])),
                     ("+=", lambda: g.__iadd__((5, 7))),
                     ("add_vertices", lambda: g.add_vertices(3)),
                     ("delete_edges", lambda: g.delete_edges([0, 5])),
                     ("es.select().delete()", lambda: g.es.select(_source=3).delete()),
                     ("GraphBase.delete_edges", lambda: igraph.GraphBase.delete_edges(g, [2])),
                     ("delete_vertices", lambda: g.delete_vertices([4])),
                     ("rewire", lambda: g.rewire(n=20)),
                     ("contract_vertices", lambda: g.contract_vertices(list(range(g.vcount() - 1)) + [0])),
                     ("simplify", lambda: g.simplify())]
            for what, step in steps:
                with self.subTest(directed=directed, step=what):
                    snap = ig_edges.snapshot(g)
                    self.assertTrue(ig_edges.same_edges(g, snap))
                    self.assertTrue(ig_edges.same_edges(g.copy(), snap))
                    before = g.get_edgelist()
                    step()
                    got = ig_edges.edge_array(ig_edges.snapshot(g))
                    self.assertEqual(list(map(tuple, got.tolist())), g.get_edgelist())
                    self.assertEqual(ig_edges.same_edges(g, snap), g.get_edgelist() == before)
        self.assertIsNone(ig_edges.snapshot(object()))  # not an igraph graph

    def test_unreadable_edges_fall_back_to_get_edgelist(self):
        """Where igraph's columns cannot be read (another igraph's
        layout), the default check says so once and compares get_edgelist:
        still never stale."""
        saved = ig_edges._layout_ok
        ig_edges._layout_ok = False
        try:
            with self.assertWarns(RuntimeWarning) as cm:
                self.assertSeen(self.rewire, "rewire, unreadable columns", checks=("edges",))
            self.assertIn("get_edgelist", str(cm.warning))
        finally:
            ig_edges._layout_ok = saved

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
        with self.assertRaises(ValueError) as cm:  # again: no half-built state left by the failure
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("wkii", str(cm.exception))
        rag.graph.es[2]["weight"] = None
        with self.assertRaises(ValueError) as cm:
            hr.patch(rag)
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("edge 2 (", str(cm.exception))
        rag.graph.es[2]["weight"] = "heavy"
        with self.assertRaises(TypeError) as cm:
            rag.run_ppr(rag.reset(*self.queries[0]), 0.5)
        self.assertIn("edge 2 (", str(cm.exception))
        self.assertIn("'heavy'", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
