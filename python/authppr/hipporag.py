"""HippoRAG2 on authppr: run_ppr's speed, and its retrieval guarded.

Two lines after building a HippoRAG2 instance ``rag`` (anything with its
``graph`` (an igraph.Graph with a "weight" edge attribute),
``node_name_to_vertex_idx``, ``passage_node_idxs`` and
``run_ppr(reset_prob, damping)``)::

    import authppr.hipporag
    authppr.hipporag.patch(rag)                     # speed: run_ppr on authppr
    authppr.hipporag.patch(rag, trust=["curated"])  # and guarded

patch(rag, trust=None) replaces the instance's run_ppr with one that
returns what HippoRAG2's returns: every passage, best first, as positions
in passage_node_idxs, with its PPR score (igraph's PRPACK vector to within
its tolerance, about 1e-10: the same order except between passages whose
scores are that close).

patch(rag, trust=[...]) guards it. Every edge of rag.graph must say who
wrote it in the edge attribute "channel" (a string, or a tuple of strings
for an edge derived from several writers' structure: it is trusted only if
all are; tag_writers records them for HippoRAG2's three edge kinds); an
edge without one is refused unless default_channel is given. Each
retrieval's first top_k passages (HippoRAG2's qa_top_k, 5 by default: what
reaches the reader) are what the guard decides on: the native top_k is
replayed on the trusted edges, and when untrusted structure changed it,

  - policy "reject" (the default) returns the authenticated ranking: the
    top_k the trusted edges select, then the other passages by their PPR
    score on the trusted edges;
  - policy "escalate" raises authppr.DivergenceError (its .decision);
  - policy "report" returns the native ranking.

Either way rag.authppr_last_decision holds the last call's decision:
.divergent, .path, .suspects as (source name, target name, channel) tuples
(the untrusted edges that carried the most PPR mass), .native, .auth and
.selected (passage positions), .decision (the authppr.Decision). Past
top_k the passages are ranked, never padded, but not decided by the guard:
a caller that asks for more (run_ppr(..., num_to_retrieve=N) or
rag.retrieve(..., num_to_retrieve=N) with N > top_k) gets a ValueError, and
so does patching an instance whose qa_top_k is larger than top_k.

The authppr graph is built from rag.graph on the first call and rebuilt
whenever its content changes: the edges (read from igraph's own edge
arrays, a few ms per million edges), the "weight" and "channel" attributes,
the vertex count and passage_node_idxs are compared with the last build's
on every call, so any structural change (however made: HippoRAG2's
index() and delete(), g.es.delete(), rewire, ...), an in-place
``g.es["weight"] = ...`` or ``g.es[i]["channel"] = ...``, and rag.graph
replaced are all seen (patch's check= says what each mode compares). The
graph of the trusted edges, which a divergent retrieval ranks on under
"reject", is built with the others.
"""

import hashlib
import sys
import warnings
from array import array

import numpy as np

import authppr
from authppr import _igraph

__all__ = ["patch", "unpatch", "tag_writers", "chunk_id", "entity_id", "RetrievalDecision"]


def chunk_id(text):
    """HippoRAG2's node name of a passage: "chunk-" and the MD5 of its text."""
    return "chunk-" + hashlib.md5(text.encode("utf-8")).hexdigest()


def entity_id(phrase):
    """HippoRAG2's node name of an entity phrase: "entity-" and its MD5."""
    return "entity-" + hashlib.md5(phrase.encode("utf-8")).hexdigest()


class RetrievalDecision:
    """The guard's decision on one retrieval.

    divergent: untrusted structure changed the top_k passages;
    path: how the guard decided ("untouched", "certificate", "delta", "full");
    suspects: (source name, target name, channel) of the untrusted edges
      that carried the most PPR mass (channel: the untrusted writers the
      edge depends on, joined with commas);
    native, auth: the top_k passages (positions in passage_node_idxs) on
      every edge / on the trusted edges; selected: what run_ppr returned first;
    outcome, policy, decision (the authppr.Decision, node ids).
    """

    __slots__ = ("divergent", "path", "suspects", "native", "auth", "selected", "outcome", "policy", "decision")

    def __repr__(self):
        return ("RetrievalDecision(divergent=%r, path=%r, native=%r, auth=%r, suspects=%r)"
                % (self.divergent, self.path, self.native, self.auth, self.suspects))


_CHECKS = ("edges", "full", "counts")


class _Content:
    """What a _Runner's authppr graphs were built from, kept to compare
    rag's with on every call (see patch's doc for what each check mode
    compares). Reads cost, on a 1.24M-edge graph: the edges through
    igraph's own columns a few ms (get_edgelist, the reference, a second),
    es["weight"] and es[channel] about 10 ms each (a list copy; the
    comparison is mostly identity checks)."""

    __slots__ = ("graph", "n", "m", "edges", "weights", "channels", "passages")

    def __init__(self, graph, check, channel, passages):
        self.graph, self.n, self.m = graph, graph.vcount(), graph.ecount()
        self.edges = None
        if check == "edges":
            self.edges = _igraph.snapshot(graph)
        if check == "full" or (check == "edges" and self.edges is None):
            self.edges = _igraph.edgelist(graph)
        attrs = graph.es.attributes()
        self.weights = graph.es["weight"] if "weight" in attrs else None
        self.channels = graph.es[channel] if channel is not None and channel in attrs else None
        self.passages = list(passages)

    def same(self, graph, check, channel, passages):
        """Whether graph and passages are still what this was read from."""
        if graph.vcount() != self.n or graph.ecount() != self.m:
            return False
        if check == "counts":
            if graph is not self.graph:
                return False
        elif isinstance(self.edges, bytes):
            same = _igraph.same_edges(graph, self.edges)
            if same is None:  # unreadable now: rebuild, falling back to get_edgelist
                return False
            if not same:
                return False
        elif _igraph.edgelist(graph) != self.edges:
            return False
        if list(passages) != self.passages:
            return False
        attrs = graph.es.attributes()
        if (graph.es["weight"] if "weight" in attrs else None) != self.weights:
            return False
        if channel is not None and (graph.es[channel] if channel in attrs else None) != self.channels:
            return False
        return True

    def edge_array(self):
        """The edges, get_edgelist's order and orientation, as an (m, 2)
        int64 array (or a list of pairs where igraph's columns were not
        read)."""
        edges = self.edges if self.edges is not None else _igraph.snapshot(self.graph)  # counts: not kept
        if isinstance(edges, bytes):
            return _igraph.edge_array(edges)
        return edges if edges is not None else _igraph.edgelist(self.graph)


def _trusted_edges(channels, trusted):
    """A bool per edge: whether every channel it depends on is trusted."""
    table = {}
    try:
        idx = [table.setdefault(c, len(table)) for c in channels]
    except TypeError:  # unhashable entries (lists, sets): as tuples
        channels = [tuple(c) if isinstance(c, (list, set)) else c for c in channels]
        idx = [table.setdefault(c, len(table)) for c in channels]
    verdict = np.array([c in trusted if isinstance(c, str) else set(c) <= trusted for c in table], dtype=bool)
    return verdict[np.asarray(idx, dtype=np.int64)] if idx else np.zeros(0, dtype=bool)


class _Runner:
    """One patched instance's authppr state."""

    def __init__(self, rag, trust, policy, top_k, channel, default_channel, max_suspects, check):
        self.rag, self.trust, self.policy, self.top_k = rag, trust, policy, top_k
        self.check = check
        self.channel = channel if trust is not None else None
        self.default_channel, self.max_suspects = default_channel, max_suspects
        self.content = None
        self.graph = self.guard = self.auth_graph = None
        self._warned = False

    def close(self):
        for h in (self.guard, self.graph, self.auth_graph):
            if h is not None:
                h.close()
        self.guard = self.graph = self.auth_graph = None

    def refresh(self):
        g, passages = self.rag.graph, self.rag.passage_node_idxs
        if self.graph is not None and self.content.same(g, self.check, self.channel, passages):
            if self.check != "counts":
                self.content.graph = g  # an equal graph in rag.graph's place: the old one is let go
            return
        self.close()
        try:
            self._build(g, passages)
        except BaseException:
            self.close()  # no half-built state: the next call builds again (and fails the same way)
            raise

    def _build(self, g, passages):
        self.content = c = _Content(g, self.check, self.channel, passages)
        if self.check == "edges" and not isinstance(c.edges, bytes) and not self._warned:
            self._warned = True
            warnings.warn("authppr.hipporag: igraph %s's edge arrays could not be read in place; the content "
                          "check compares get_edgelist() on every call (about a second per million edges)"
                          % getattr(sys.modules.get("igraph"), "__version__", "?"), RuntimeWarning, stacklevel=4)
        edges = c.edge_array()
        w = None
        if c.weights is not None:
            if None in c.weights:
                e = c.weights.index(None)
                raise ValueError("authppr: edge %d (%d -> %d) has no 'weight'" % ((e,) + tuple(edges[e])))
            try:
                w = array("d", c.weights)
            except TypeError:
                e = next(i for i, x in enumerate(c.weights) if not isinstance(x, (int, float)))
                raise TypeError("authppr: edge %d (%d -> %d): weight %r, want a number"
                                % ((e,) + tuple(edges[e]) + (c.weights[e],))) from None
        chans = authppr._edge_channels(g, self.channel, self.default_channel) if self.channel is not None else None
        self.graph = authppr.Graph(c.n, edges if c.m else [], weights=w, directed=False, channels=chans)
        if self.trust is not None:
            self.guard = authppr.Guard(self.graph, self.trust, max_suspects=self.max_suspects, policy="report")
            if self.policy == "reject":  # a divergence ranks on the trusted edges: ready before the first
                self.auth_graph = self._trusted(edges, w, chans)
        self.passage_idx = np.asarray(c.passages, dtype=np.int64)
        self.position = np.full(c.n, -1, dtype=np.int64)
        self.position[self.passage_idx] = np.arange(len(c.passages))
        self.scores = np.empty(c.n)

    def _trusted(self, edges, w, chans):
        keep = _trusted_edges(chans, set(self.trust))
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)[keep]
        w = np.frombuffer(w, dtype=np.float64)[keep] if w is not None else None
        return authppr.Graph(self.content.n, edges if len(edges) else [], weights=w, directed=False)

    def trusted_graph(self):
        """The graph of the trusted edges alone, on which a divergent
        retrieval's ranking past top_k is computed (built with the others
        under policy "reject", on demand otherwise)."""
        if self.auth_graph is None:
            c = self.content
            w = array("d", c.weights) if c.weights is not None else None
            chans = authppr._edge_channels(c.graph, self.channel, self.default_channel)
            self.auth_graph = self._trusted(c.edge_array(), w, chans)
        return self.auth_graph

    def run_ppr(self, reset_prob, damping=0.5, num_to_retrieve=None):
        if damping is None:
            damping = 0.5
        reset = np.asarray(reset_prob, dtype=np.float64)
        reset = np.where(np.isnan(reset) | (reset < 0), 0.0, reset)
        self.refresh()
        if self.trust is None:
            return self._ranking(self.graph, reset, damping, None)
        if num_to_retrieve is not None and num_to_retrieve > self.top_k:
            raise ValueError("authppr.hipporag: num_to_retrieve=%d passages, but the guard decides on top_k=%d: "
                             "patch with top_k=%d or retrieve at most %d" % (num_to_retrieve, self.top_k,
                                                                              num_to_retrieve, self.top_k))
        k = min(self.top_k, len(self.passage_idx))
        d = self.guard.select(reset, k, candidates=self.passage_idx, damping=damping)
        rd = self._decision(d)
        self.rag.authppr_last_decision = rd
        if d.divergent and self.policy == "escalate":
            raise authppr.DivergenceError(rd)
        use_auth = d.divergent and self.policy == "reject"
        ids, scores = self._ranking(self.trusted_graph() if use_auth else self.graph, reset, damping,
                                    rd.auth if use_auth else rd.native)
        rd.selected = ids[:k].tolist()
        return ids, scores

    def _ranking(self, graph, reset, damping, first):
        """Every passage best first (positions, scores) by graph's PPR,
        the positions first (the guard's selection) at its head."""
        scores = graph.personalized_pagerank(reset, damping=damping, out=self.scores)
        doc_scores = scores[self.passage_idx]
        order = np.argsort(doc_scores)[::-1]
        if first:
            # The guard proves the set; its order is the converged
            # vector's (a stable sort: exact ties keep the guard's order).
            head = np.asarray(first, dtype=np.int64)
            head = head[np.argsort(-doc_scores[head], kind="stable")]
            rest = order[~np.isin(order, head)]
            order = np.concatenate([head, rest])
        return order, doc_scores[order]

    def _decision(self, d):
        vs = self.rag.graph.vs
        names = "name" in vs.attributes()  # read per suspect: nothing cached, so a rename is seen
        rd = RetrievalDecision()
        rd.divergent, rd.path, rd.outcome, rd.policy, rd.decision = d.divergent, d.path, d.outcome, self.policy, d
        rd.native = [int(self.position[u]) for u in d.native]
        rd.auth = [int(self.position[u]) for u in d.auth]
        rd.selected = rd.native
        name = (lambda u: vs[u]["name"]) if names else (lambda u: u)
        rd.suspects = [(name(s.src), name(s.dst), s.channel) for s in d.suspects]
        return rd


def patch(rag, trust=None, policy="reject", top_k=5, channel="channel", default_channel=None, max_suspects=5,
          check="edges", check_edges=None):
    """Patches the HippoRAG2 instance rag (see the module doc): its
    run_ppr(reset_prob, damping=0.5) runs on authppr, guarded when trust
    (the writers to trust, a list) is given. Returns rag.

    The authppr graphs are rebuilt when what they were built from changed;
    every call compares (check, the content check):

      - "edges" (the default): every edge's endpoints in edge id order,
        read from igraph's own edge arrays (the C igraph_t's columns, a
        few ms on a million edges; the layout is checked against
        get_edgelist once per process, and where it does not match, on
        another igraph version, a RuntimeWarning says so and get_edgelist
        is compared instead); the vertex and edge counts; the "weight"
        and (guarded) channel attribute lists, by value; passage_node_idxs;
        and the graph by content, so rag.graph replaced by another object
        is seen (an equal one needs no rebuild). Any way the graph changes
        is seen: add_edges, add_vertices, delete_edges, delete_vertices
        (HippoRAG2's index() and delete()), g += / -=, es.delete(),
        rewire, simplify, calls through GraphBase, g.es["weight"] = ...,
        g.es[i]["weight"] = x, g.es[i]["channel"] = c. Not seen: a channel
        given as a list or set changed in place (assign a new value);
        vertex names are not compared (run_ppr does not use them), the
        decision's suspects read them when named.
      - "full": the same with igraph's get_edgelist for the edges (the
        reference; about a second per call on a million edges).
      - "counts": the graph object and the edge count in place of every
        edge (the vertex count, weights, channels and passages as above):
        misses a same-count edge change on the same object (a
        delete_edges then add_edges of as many, rewire); as cheap as
        "edges" where igraph's columns are read.

    check_edges (before check=): True is "full", False "counts"."""
    for attr in ("graph", "node_name_to_vertex_idx", "passage_node_idxs", "run_ppr"):
        if not hasattr(rag, attr):
            raise TypeError("authppr.hipporag: %r has no %s: want a HippoRAG2 instance after indexing "
                            "(graph, node_name_to_vertex_idx, passage_node_idxs, run_ppr)" % (type(rag).__name__, attr))
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError("authppr.hipporag: top_k=%r, want a positive integer" % (top_k,))
    authppr._policy(policy)
    if trust is not None:
        trust = authppr._trust_list(trust)
        if not trust:
            raise ValueError("authppr.hipporag: trust=[]: name the writers to trust (trust=None: unguarded)")
        qa = getattr(getattr(rag, "global_config", None), "qa_top_k", None)
        if isinstance(qa, int) and qa > top_k:
            raise ValueError("authppr.hipporag: the reader reads qa_top_k=%d passages, the guard would decide on "
                             "top_k=%d: patch with top_k=%d" % (qa, top_k, qa))
    if check_edges is not None:
        check = "full" if check_edges else "counts"
    if check not in _CHECKS:
        raise ValueError("authppr.hipporag: check=%r, want one of %s" % (check, ", ".join(map(repr, _CHECKS))))
    unpatch(rag)
    runner = _Runner(rag, trust, policy, top_k, channel, default_channel, max_suspects, check)
    original = rag.run_ppr

    def run_ppr(reset_prob, damping=0.5, num_to_retrieve=None):
        return runner.run_ppr(reset_prob, damping, num_to_retrieve)

    run_ppr.__doc__ = "HippoRAG2's run_ppr on authppr%s (authppr.hipporag)." % (", guarded" if trust else "")
    rag.run_ppr = run_ppr
    rag.authppr_last_decision = None
    rag._authppr = (runner, original)
    bound = getattr(rag, "retrieve", None)
    if trust is not None and bound is not None:

        def guarded_retrieve(*args, **kw):
            n = kw.get("num_to_retrieve", args[1] if len(args) > 1 else None)
            if n is not None and n > top_k:
                raise ValueError("authppr.hipporag: num_to_retrieve=%d passages, but the guard decides on "
                                 "top_k=%d: patch with top_k=%d or retrieve at most %d" % (n, top_k, n, top_k))
            return bound(*args, **kw)

        rag.retrieve = guarded_retrieve
        rag._authppr = (runner, original, bound)
    return rag


def unpatch(rag):
    """Undoes patch: the instance's own run_ppr (and retrieve) again."""
    state = getattr(rag, "_authppr", None)
    if not state:
        return rag
    state[0].close()
    rag.run_ppr = state[1]
    if len(state) > 2:
        rag.retrieve = state[2]
    rag._authppr = None
    return rag


def tag_writers(rag, writer_of, default=None, system=None, attribute="channel"):
    """Records in rag.graph.es[attribute] who wrote each edge of a HippoRAG2
    graph, from the writer of each passage (writer_of: a dict from passage
    node name (chunk_id(text)) or passage text to writer, or a function of
    the node name; default: the writer of passages it does not name, None
    to refuse them):

      - passage edges (passage - entity): the passage's writer;
      - fact edges (entity - entity, from OpenIE triples): the writers of
        the passages whose triples state them (rag.proc_triples_to_docs);
        an edge stated by several writers depends on all of them (its
        weight counts every statement);
      - synonymy edges (entity - entity, from embedding similarity): they
        depend on the writers of both entities (every passage that
        mentions either, rag.ent_node_to_chunk_ids): min-inheritance, so a
        synonym of an entity only an untrusted writer introduced is masked.
        system, when given, is the channel of the process that computed
        them, added in front (trust it too).

    An edge depending on several writers gets a tuple (authppr.Graph's
    channel sets: trusted only when all are). Where HippoRAG2's own records
    are missing (no proc_triples_to_docs), an entity-entity edge depends on
    the writers of both entities. Call again after every index(): it
    recomputes every edge. Returns the list it stored.
    """
    g = rag.graph
    names = g.vs["name"]
    passages = set(names[i] for i in rag.passage_node_idxs) if getattr(rag, "passage_node_idxs", None) else \
        set(nm for nm in names if isinstance(nm, str) and nm.startswith("chunk-"))
    if callable(writer_of):
        lookup = writer_of
    else:
        table = {}
        for key, w in writer_of.items():
            table[key if key in passages else chunk_id(key)] = w
        lookup = table.get

    def writer(chunk):
        w = lookup(chunk)
        if w is None:
            w = default
        if w is None:
            raise ValueError("authppr.hipporag: passage %s has no writer (writer_of does not name it; "
                             "pass default= to give unnamed passages one)" % chunk)
        return w

    ent_chunks = getattr(rag, "ent_node_to_chunk_ids", None) or {}
    ent_writers = {}

    def entity_writers(e):
        ws = ent_writers.get(e)
        if ws is None:
            ws = ent_writers[e] = frozenset(writer(c) for c in ent_chunks.get(e, ()))
        return ws

    facts = None
    triples = getattr(rag, "proc_triples_to_docs", None)
    if triples:
        import ast
        facts = {}
        for key, docs in triples.items():
            try:
                t = ast.literal_eval(key)
            except (ValueError, SyntaxError):
                continue
            if len(t) != 3:
                continue
            ws = frozenset(writer(c) for c in docs)
            for pair in ((entity_id(t[0]), entity_id(t[2])), (entity_id(t[2]), entity_id(t[0]))):
                facts[pair] = facts.get(pair, frozenset()) | ws
    out = []
    for src, dst in g.get_edgelist():
        a, b = names[src], names[dst]
        if a in passages or b in passages:
            deps, lead = {writer(a if a in passages else b)}, None
        else:
            stated = facts.get((a, b)) if facts is not None else None
            if stated:
                deps, lead = set(stated), None
            else:  # a synonymy edge (or no records): the entities' writers
                deps, lead = set(entity_writers(a) | entity_writers(b)), system
                if not deps and lead is None:
                    raise ValueError("authppr.hipporag: edge %s - %s: neither entity has a passage on record "
                                     "(ent_node_to_chunk_ids) and no system channel was given" % (a, b))
        ordered = ([lead] if lead else []) + sorted(deps - {lead})
        out.append(ordered[0] if len(ordered) == 1 else tuple(ordered))
    g.es[attribute] = out
    return out
