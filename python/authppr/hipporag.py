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
whenever its content changes: the edges, the "weight" and "channel"
attributes and the vertex count are compared with the last build's on
every call (an in-place ``g.es["weight"] = ...`` is seen), as are
passage_node_idxs.
"""

import hashlib

import numpy as np

import authppr

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


def _content(graph, channel, check_edges=True):
    """What the authppr graph is built from, compared by value on every
    call: vertex count, edges (or, without check_edges, their count),
    weights and channels."""
    attrs = graph.es.attributes()
    return (graph.vcount(), graph.get_edgelist() if check_edges else (id(graph), graph.ecount()),
            graph.es["weight"] if "weight" in attrs else None,
            graph.es[channel] if channel is not None and channel in attrs else None)


class _Runner:
    """One patched instance's authppr state."""

    def __init__(self, rag, trust, policy, top_k, channel, default_channel, max_suspects, check_edges):
        self.rag, self.trust, self.policy, self.top_k = rag, trust, policy, top_k
        self.check_edges = check_edges
        self.channel = channel if trust is not None else None
        self.default_channel, self.max_suspects = default_channel, max_suspects
        self.content = self.passages = None
        self.graph = self.guard = self.auth_graph = None

    def refresh(self):
        g = self.rag.graph
        content = _content(g, self.channel, self.check_edges)
        passages = list(self.rag.passage_node_idxs)
        if self.graph is not None and content == self.content and passages == self.passages:
            return
        for h in (self.guard, self.graph, self.auth_graph):
            if h is not None:
                h.close()
        self.guard = self.auth_graph = None
        weights = "weight" if content[2] is not None else None
        self.graph = authppr.Graph.from_igraph(g, weights=weights, directed=False, channels=self.channel,
                                               default_channel=self.default_channel)
        if self.trust is not None:
            self.guard = authppr.Guard(self.graph, self.trust, max_suspects=self.max_suspects, policy="report")
        self.content, self.passages = content, passages
        self.passage_idx = np.asarray(passages, dtype=np.int64)
        self.position = np.full(g.vcount(), -1, dtype=np.int64)
        self.position[self.passage_idx] = np.arange(len(passages))
        self.scores = np.empty(g.vcount())

    def trusted_graph(self):
        """The graph of the trusted edges alone (for the ranking past
        top_k when the authenticated selection is returned)."""
        if self.auth_graph is None:
            g = self.rag.graph
            trusted = set(self.trust)
            chans = self.graph_channels()
            keep = [e for e, c in enumerate(chans) if (c in trusted if isinstance(c, str) else set(c) <= trusted)]
            edges = g.get_edgelist()
            w = g.es["weight"] if self.content[2] is not None else None
            self.auth_graph = authppr.Graph(g.vcount(), [edges[e] for e in keep] or [],
                                            weights=[w[e] for e in keep] if w is not None else None, directed=False)
        return self.auth_graph

    def graph_channels(self):
        return authppr._edge_channels(self.rag.graph, self.channel, self.default_channel)

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
        names = self.rag.graph.vs["name"] if "name" in self.rag.graph.vs.attributes() else None
        rd = RetrievalDecision()
        rd.divergent, rd.path, rd.outcome, rd.policy, rd.decision = d.divergent, d.path, d.outcome, self.policy, d
        rd.native = [int(self.position[u]) for u in d.native]
        rd.auth = [int(self.position[u]) for u in d.auth]
        rd.selected = rd.native
        name = (lambda u: names[u]) if names else (lambda u: u)
        rd.suspects = [(name(s.src), name(s.dst), s.channel) for s in d.suspects]
        return rd


def patch(rag, trust=None, policy="reject", top_k=5, channel="channel", default_channel=None, max_suspects=5,
          check_edges=True):
    """Patches the HippoRAG2 instance rag (see the module doc): its
    run_ppr(reset_prob, damping=0.5) runs on authppr, guarded when trust
    (the writers to trust, a list) is given. Returns rag.

    check_edges=False compares only the edge count (with the graph object,
    the vertex count, weights and channels) instead of every edge on each
    call: igraph's get_edgelist is most of the check's cost (about 0.1 s
    per 200k edges), and HippoRAG2 itself only appends edges and deletes
    vertices; a caller that replaces edges in place, keeping their count,
    must then patch again."""
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
    unpatch(rag)
    runner = _Runner(rag, trust, policy, top_k, channel, default_channel, max_suspects, check_edges)
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
    runner = state[0]
    for h in (runner.guard, runner.graph, runner.auth_graph):
        if h is not None:
            h.close()
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
