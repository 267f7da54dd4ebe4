"""igraph's edge list read in place: the fast path beside get_edgelist.

python-igraph 0.10 exports edges only as Python objects (get_edgelist,
get_adjlist, es iteration, pickling: a tuple or more per edge), which on a
graph of a million edges takes a second. Its Graph._raw_pointer() gives the
address of the C igraph_t, whose first members are (igraph 0.10,
include/igraph_datatype.h):

    igraph_integer_t n;            /* int64: the vertex count */
    igraph_bool_t directed;        /* padded to 8 bytes */
    igraph_vector_int_t from, to;  /* {int64 *stor_begin, *stor_end, *end} */
    ...

from[e] and to[e] are edge e's endpoints, in edge id order; on an
undirected graph from[e] >= to[e] and get_edgelist()[e] is (to[e], from[e]).

That layout is igraph's internals, not its API, so it is used only after
readable() has checked it in this process against get_edgelist on small
directed and undirected graphs; and every read checks the vertex count and
both columns' lengths against vcount() and ecount() before touching the
columns. Any mismatch gives None, and callers fall back to get_edgelist
(the reference: edgelist()).

Reads and comparisons hold the GIL from start to end (memoryview copies and
comparisons do not release it; numpy's would), and python-igraph changes a
graph only while holding it, so no other thread can move the columns
during a read.
"""

import ctypes

_layout_ok = None  # readable()'s verdict, once per process


def _columns(graph):
    """(first, second, m): graph's edge columns as memoryviews of native
    int64 over igraph's own memory (get_edgelist's orientation), valid until
    the graph next changes; None when the header does not match vcount()
    and ecount()."""
    raw = getattr(graph, "_raw_pointer", None)
    if raw is None:
        return None
    m, n = graph.ecount(), graph.vcount()
    h = (ctypes.c_int64 * 8).from_address(raw())
    if h[0] != n:
        return None
    cols = []
    for begin, cap, end in ((h[2], h[3], h[4]), (h[5], h[6], h[7])):
        if begin <= 0 or begin % 8 or end - begin != 8 * m or cap < end:
            return None
        cols.append(memoryview((ctypes.c_int64 * m).from_address(begin)).cast("B").cast("q") if m else
                    memoryview(b"").cast("q"))
    frm, to = cols
    return (frm, to, m) if graph.is_directed() else (to, frm, m)


def readable():
    """Whether igraph's edge columns can be read in this process: the
    layout above, checked once against get_edgelist."""
    global _layout_ok
    if _layout_ok is None:
        _layout_ok = False
        try:
            import igraph
        except ImportError:
            return False
        edges = [(0, 1), (3, 2), (4, 4), (1, 3), (2, 0), (4, 1), (0, 4)]
        ok = True
        for directed in (False, True):
            g = igraph.Graph(n=5, edges=edges[:5], directed=directed)
            g.add_edges(edges[5:])  # columns that grew
            g.delete_edges([1])
            c = _columns(g)
            ok = ok and c is not None and list(zip(c[0].tolist(), c[1].tolist())) == g.get_edgelist()
        _layout_ok = ok
    return _layout_ok


def snapshot(graph):
    """graph's edges as bytes (the first column then the second, int64), to
    compare with same_edges later; None when not readable."""
    if not readable():
        return None
    c = _columns(graph)
    if c is None:
        return None
    return c[0].tobytes() + c[1].tobytes()


def same_edges(graph, snap):
    """Whether graph's edges (every endpoint, in edge id order) are those
    snapshot recorded; None when they cannot be read."""
    c = _columns(graph)
    if c is None:
        return None
    first, second, m = c
    if len(snap) != 16 * m:
        return False
    kept = memoryview(snap).cast("q")
    return first == kept[:m] and second == kept[m:]


def edge_array(snap):
    """The (m, 2) int64 numpy array of a snapshot: get_edgelist as an array."""
    import numpy as np

    cols = np.frombuffer(snap, dtype=np.int64)
    m = len(cols) // 2
    return np.stack((cols[:m], cols[m:]), axis=1)


def edgelist(graph):
    """The reference: get_edgelist, a list of (src, dst) tuples."""
    return graph.get_edgelist()
