"""A HippoRAG2-shaped object: a knowledge graph built the way HippoRAG2
builds its graph (src/hipporag/HippoRAG.py, index()), with the attributes
and run_ppr its retrieval uses, and no model behind it: triples and
similarities are given.

How HippoRAG2 builds the graph (facts, not its code):
  - an igraph.Graph, undirected by default; vertices are entity nodes
    ("entity-" + MD5 of the phrase) then passage nodes ("chunk-" + MD5 of
    the text), each with a "name";
  - edges come from a dict of (node, node) -> weight, rebuilt on every
    index() call: every OpenIE triple (s, p, o) of a new passage adds 1 to
    (s, o) and to (o, s) (fact edges; the two directions become two edges);
    every entity of a new passage's triples sets (passage, entity) to 1.0
    (passage edges); every pair of entities whose embeddings' similarity
    reaches synonymy_edge_sim_threshold (0.8) sets (entity, neighbour) to
    the similarity, over every entity each time (synonymy edges);
    self-pairs are skipped; the weights go to the "weight" attribute;
  - ent_node_to_chunk_ids maps an entity to the passages mentioning it,
    proc_triples_to_docs str(triple) to the passages stating it;
  - passage_node_idxs lists the passage vertices in passage-store order,
    node_name_to_vertex_idx maps names to vertices;
  - a retrieval's reset vector: each linked entity gets its fact score
    divided by the number of passages mentioning it, each passage 0.05
    (passage_node_weight) times its min-max normalised dense score; run_ppr
    zeroes NaN and negative entries and calls igraph's PRPACK
    personalized_pagerank (undirected, weights "weight", damping 0.5) and
    ranks the passages by their score, best first.
"""

import numpy as np
import igraph

from authppr.hipporag import chunk_id, entity_id

PASSAGE_NODE_WEIGHT = 0.05
SYNONYMY_THRESHOLD = 0.8


class Config:
    qa_top_k = 5
    retrieval_top_k = 200
    damping = 0.5


class HippoRAG2Shaped:
    def __init__(self):
        self.graph = igraph.Graph(directed=False)
        self.global_config = Config()
        self.entities, self.passages = [], []  # phrases, texts in store order
        self.ent_node_to_chunk_ids, self.proc_triples_to_docs = {}, {}
        self.similarity = {}  # frozenset({phrase, phrase}) -> score
        self.retrieved = []

    def index(self, docs, similar=None):
        """docs: [(text, [(s, p, o), ...])]; similar: {(phrase, phrase): score}."""
        for (a, b), sc in (similar or {}).items():
            self.similarity[frozenset((a, b))] = sc
        present = set(self.graph.vs["name"]) if self.graph.vcount() else set()
        stats = {}
        for text, triples in docs:
            chunk = chunk_id(text)
            if chunk not in self.passages:
                self.passages.append(text)
            ents = set()
            for s, p, o in triples:
                s, o = s.lower(), o.lower()
                for phrase in (s, o):
                    if phrase not in self.entities:
                        self.entities.append(phrase)
                a, b = entity_id(s), entity_id(o)
                ents |= {a, b}
                if chunk not in present:
                    stats[(a, b)] = stats.get((a, b), 0.0) + 1
                    stats[(b, a)] = stats.get((b, a), 0.0) + 1
                key = str((s, p.lower(), o))
                self.proc_triples_to_docs.setdefault(key, set()).add(chunk)
            for e in ents:
                self.ent_node_to_chunk_ids.setdefault(e, set()).add(chunk)
            if chunk not in present:
                for e in ents:
                    stats[(chunk, e)] = 1.0
        for a in self.entities:
            for b in self.entities:
                sc = self.similarity.get(frozenset((a, b)), 0.0)
                if a != b and sc >= SYNONYMY_THRESHOLD:
                    stats[(entity_id(a), entity_id(b))] = sc
        new = [entity_id(e) for e in self.entities] + [chunk_id(t) for t in self.passages]
        new = [nm for nm in new if nm not in present]
        if new:
            self.graph.add_vertices(len(new), attributes={"name": new})
        names = set(self.graph.vs["name"])
        edges = [(a, b) for (a, b) in stats if a != b and a in names and b in names]
        self.graph.add_edges(edges, attributes={"weight": [stats[e] for e in edges]})
        self.prepare()

    def prepare(self):
        self.node_name_to_vertex_idx = {nm: i for i, nm in enumerate(self.graph.vs["name"])}
        self.passage_node_idxs = [self.node_name_to_vertex_idx[chunk_id(t)] for t in self.passages]
        self.entity_node_idxs = [self.node_name_to_vertex_idx[entity_id(e)] for e in self.entities]

    def reset(self, fact_scores, dense_scores):
        """The reset vector of a retrieval: {phrase: fact score} for the
        linked entities, one dense score per passage."""
        r = np.zeros(self.graph.vcount())
        for phrase, sc in fact_scores.items():
            e = entity_id(phrase.lower())
            r[self.node_name_to_vertex_idx[e]] += sc / max(len(self.ent_node_to_chunk_ids.get(e, ())), 1)
        d = np.asarray(dense_scores, dtype=np.float64)
        span = d.max() - d.min()
        d = (d - d.min()) / span if span > 0 else np.ones_like(d)
        r[self.passage_node_idxs] = d * PASSAGE_NODE_WEIGHT
        return r

    def run_ppr(self, reset_prob, damping=0.5):
        """HippoRAG2's run_ppr, behaviour for behaviour: igraph's PRPACK."""
        if damping is None:
            damping = 0.5
        reset = np.where(np.isnan(reset_prob) | (reset_prob < 0), 0, reset_prob)
        scores = self.graph.personalized_pagerank(vertices=range(len(self.node_name_to_vertex_idx)), damping=damping,
                                                  directed=False, weights="weight", reset=reset,
                                                  implementation="prpack")
        doc = np.array([scores[i] for i in self.passage_node_idxs])
        order = np.argsort(doc)[::-1]
        return order, doc[order.tolist()]

    def retrieve(self, queries, num_to_retrieve=None):
        """The slice HippoRAG2's retrieve() takes of run_ppr's ranking."""
        n = num_to_retrieve or self.global_config.retrieval_top_k
        out = []
        for fact_scores, dense in queries:
            ids, scores = self.run_ppr(self.reset(fact_scores, dense), self.global_config.damping)
            out.append((ids[:n], scores[:n]))
        return out


def corpus(seed=11, n_passages=40, n_entities=120, synonym_pairs=25):
    """A corpus of passages with OpenIE-like triples over a shared
    vocabulary, and some synonym pairs (similarity 0.8 to 0.95)."""
    rng = np.random.default_rng(seed)
    vocab = ["entity %03d" % i for i in range(n_entities)]
    docs = []
    for p in range(n_passages):
        triples = []
        for _ in range(int(rng.integers(2, 5))):
            s, o = rng.choice(n_entities, 2, replace=False)
            triples.append((vocab[s], "rel%d" % rng.integers(5), vocab[o]))
        docs.append(("passage %d" % p, triples))
    similar = {}
    for _ in range(synonym_pairs):
        a, b = rng.choice(n_entities, 2, replace=False)
        similar[(vocab[a], vocab[b])] = float(rng.uniform(0.8, 0.95))
    return docs, similar, vocab
