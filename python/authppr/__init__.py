"""authppr: igraph-compatible Personalized PageRank, the integrity guard and
the living store.

A binding over authppr's C ABI (the Go package cabi/), standard library only:
ctypes and array. numpy arrays (or anything exporting the buffer protocol)
are read in place when they are C-contiguous 32- or 64-bit integer ids
(signed or unsigned) or float64 values; nothing here needs numpy.

    g = authppr.Graph(n, edges, weights=None, directed=True, channels=None, max_memory=None, names=None)
    g = authppr.Graph.from_igraph(ig_graph, weights="weight", channels="channel")
    scores = g.personalized_pagerank(reset, damping=0.85)   # list of n floats
    t = g.top_k(reset, k, candidates=None, damping=0.85)     # proved top-k: t.ids, t.scores, t.certified
    guard = authppr.Guard(g, trust=["default"], policy="reject")
    d = guard.select(reset, k, candidates=None, damping=0.85)
    d.native, d.auth, d.divergent, d.selected, d.path, d.suspects

    st = authppr.Store.open(directory)                       # the living store (also create, memory)
    st.writer("agent-7").add_edges(["a", "b"], ["b", "c"], weights=[1.0, 2.0])
    d = st.select({"a": 1.0}, k=5, candidates=["p1", "p2"], trust=["curated"])

personalized_pagerank is igraph's Graph.personalized_pagerank(reset=...,
implementation="prpack") on the same graph, and takes igraph's keywords
(vertices, directed, reset, reset_vertices, weights, implementation) where
they make sense and a dict of names or ids as the reset (networkx's
personalization); solved to an L1 error bound of 1e-10.

Bad values (wrong lengths, node ids out of range, NaN or negative weights or
weights outside [2**-1022, 2**988], an all-zero reset, unknown trusted
channels, a graph whose build would need more memory than max_memory)
raise ValueError with the library's message; arguments of the wrong type
raise TypeError. The library is found at $AUTHPPR_LIB or next to this file
(pip install builds it there; so does python/build.sh), and its version
must be this package's (authppr.__version__): another is an ImportError.
"""

import ctypes
import itertools
import os
import threading
from array import array
from collections import namedtuple

from ._version import __version__

__all__ = ["Graph", "Guard", "Decision", "Suspect", "SolveStats", "TopK", "DivergenceError",
           "Store", "Writer", "StoreGuard", "StoreDecision", "library_path", "library_version", "__version__"]

_OK, _EINVAL, _EHANDLE, _EINTERNAL, _ESPACE = 0, 1, 2, 3, 4
_PATHS = {1: "untouched", 2: "certificate", 3: "delta", 4: "full"}
_OUTCOMES = {0: "same", 1: "tie", 2: "divergent"}
_POLICIES = ("reject", "escalate", "report")


def library_path():
    """The shared library this package loads."""
    return os.environ.get("AUTHPPR_LIB") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "libauthppr.so")


class _SolveStatsC(ctypes.Structure):
    _fields_ = [("solve_ns", ctypes.c_int64), ("sweeps", ctypes.c_int64), ("error_bound", ctypes.c_double)]


class _DecisionC(ctypes.Structure):
    _fields_ = [
        ("n_native", ctypes.c_int64), ("n_auth", ctypes.c_int64), ("n_suspects", ctypes.c_int64),
        ("outcome", ctypes.c_int32), ("divergent", ctypes.c_int32), ("path", ctypes.c_int32), ("_pad", ctypes.c_int32),
        ("native_gap", ctypes.c_double), ("gap_lo", ctypes.c_double), ("gap_hi", ctypes.c_double),
        ("native_ns", ctypes.c_int64), ("replay_ns", ctypes.c_int64),
    ]


class _TopKStatsC(ctypes.Structure):
    _fields_ = [
        ("n", ctypes.c_int64), ("certified", ctypes.c_int32), ("ordered", ctypes.c_int32),
        ("gap", ctypes.c_double), ("proved_gap", ctypes.c_double), ("error_bound", ctypes.c_double),
        ("coord_bound", ctypes.c_double), ("sweeps", ctypes.c_int64), ("scans", ctypes.c_int64),
        ("solve_ns", ctypes.c_int64),
    ]


class _StoreCountsC(ctypes.Structure):
    _fields_ = [
        ("nodes", ctypes.c_int64), ("edges", ctypes.c_int64), ("delta_edges", ctypes.c_int64),
        ("batches", ctypes.c_uint64), ("nchannels", ctypes.c_int64),
        ("directed", ctypes.c_int32), ("_pad", ctypes.c_int32),
    ]


_TOPK_ORDERED = 1


def _version_error(lib_version, path):
    """The ImportError for a library whose version is not the package's,
    or None when they agree. lib_version None: the library predates
    versions (it has no authppr_version)."""
    if lib_version == __version__:
        return None
    how = ("rebuild it: pip install ./python (from a checkout), python/build.sh, "
           "or point AUTHPPR_LIB at a library of version %s" % __version__)
    if lib_version is None:
        return ImportError("authppr: the shared library %s reports no version (it predates authppr %s); %s"
                           % (path, __version__, how))
    return ImportError("authppr: the shared library %s is version %s, the Python package is version %s; %s"
                       % (path, lib_version, __version__, how))


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError("authppr: shared library %s not found; install the package with pip install ./python, "
                          "or build it with python/build.sh (both need Go and a C compiler), or set AUTHPPR_LIB" % path)
    lib = ctypes.CDLL(path)
    i32, i64, u64, dbl, ptr = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_double, ctypes.c_void_p
    err = [ctypes.c_char_p, i64]
    version = None
    if hasattr(lib, "authppr_version"):
        lib.authppr_version.argtypes = [ctypes.c_char_p, i64] + err
        lib.authppr_version.restype = ctypes.c_int
        vbuf, ebuf = ctypes.create_string_buffer(64), ctypes.create_string_buffer(256)
        if lib.authppr_version(vbuf, len(vbuf), ebuf, len(ebuf)) != _OK:
            raise ImportError("authppr: %s: authppr_version failed: %s" % (path, ebuf.value.decode("utf-8", "replace")))
        version = vbuf.value.decode("utf-8", "replace")
    e = _version_error(version, path)
    if e is not None:
        raise e
    pi64, pu64, pi32 = ctypes.POINTER(i64), ctypes.POINTER(u64), ctypes.POINTER(i32)
    sig = {
        "authppr_graph_create": [i64, i64, ptr, i32, ptr, i32, ptr, ptr, i64, ptr, ptr, i64, pu64],
        "authppr_graph_free": [u64],
        "authppr_graph_info": [u64, pi64, pi64, pi32],
        "authppr_ppr": [u64, ptr, i64, dbl, dbl, ptr, i64, ctypes.POINTER(_SolveStatsC)],
        "authppr_top_k": [u64, ptr, i64, i64, ptr, i64, dbl, dbl, i32, ptr, ptr, ptr, ptr, ctypes.POINTER(_TopKStatsC)],
        "authppr_guard_create": [u64, ptr, i64, i64, pu64],
        "authppr_guard_free": [u64],
        "authppr_guard_select": [u64, ptr, i64, i64, ptr, i64, dbl, ptr, ptr, ptr, ptr,
                                 i64, ptr, ptr, ptr, ptr, ptr, ptr, i64, ctypes.POINTER(_DecisionC)],
        "authppr_store_open": [ctypes.c_char_p, i32, i64, pu64],
        "authppr_store_create": [ctypes.c_char_p, u64, ptr, ptr, i64, i64, pu64],
        "authppr_store_free": [u64],
        "authppr_store_info": [u64, ctypes.POINTER(_StoreCountsC), ptr, i64, pi64],
        "authppr_store_compact": [u64],
        "authppr_store_ids": [u64, ptr, ptr, i64, ptr],
        "authppr_store_names": [u64, ptr, i64, ptr, i64, pi64],
        "authppr_store_writer": [u64, ctypes.c_char_p, pu64],
        "authppr_writer_free": [u64],
        "authppr_writer_apply": [u64, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, pu64],
        "authppr_store_guard_create": [u64, ptr, i64, i64, pu64],
        "authppr_store_guard_free": [u64],
        "authppr_store_guard_select": [u64, ptr, ptr, i64, i64, ptr, i64, dbl, ptr, ptr, ptr, ptr,
                                       i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, pi64, pu64,
                                       ctypes.POINTER(_DecisionC)],
    }
    for name, args in sig.items():
        f = getattr(lib, name)
        f.argtypes = args + err
        f.restype = ctypes.c_int
    return lib, version


_lib, _lib_version = _load()
_errbufs = threading.local()


def library_version():
    """The loaded library's version (always authppr.__version__: import
    refuses another)."""
    return _lib_version


def _errbuf():
    b = getattr(_errbufs, "buf", None)
    if b is None:
        b = _errbufs.buf = ctypes.create_string_buffer(4096)
    return b


class _Space(Exception):
    """An output buffer for names was too small (status 4)."""


def _check(status, buf):
    if status == _OK:
        return
    msg = buf.value.decode("utf-8", "replace")
    if status in (_EINVAL, _EHANDLE):
        raise ValueError(msg)
    if status == _ESPACE:
        raise _Space(msg)
    raise RuntimeError(msg)


def _int64(x, what):
    """x as an int in the C int64 range (ctypes would wrap larger ones)."""
    v = int(x)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("authppr: %s = %d out of range" % (what, v))
    return v


def _call(fn, *args):
    buf = _errbuf()
    _check(fn(*args, buf, len(buf)), buf)


def _text_call(fn, first, *rest, size=4096):
    """Calls fn(*first, text, capacity, &needed, *rest) with a text buffer,
    again with the size the library asks for when it is too small; returns
    the strings it wrote (NUL-terminated, back to back)."""
    needed = ctypes.c_int64()
    for _ in range(3):
        text = ctypes.create_string_buffer(max(size, 1))
        try:
            _call(fn, *first, text, size, ctypes.byref(needed), *rest)
        except _Space:
            size = needed.value
            continue
        raw = text.raw[:needed.value]
        return [b.decode("utf-8", "replace") for b in raw.split(b"\0")[:-1]] if raw else []
    raise RuntimeError("authppr: names kept outgrowing their buffer (%d bytes)" % size)


# ---- reading arguments -----------------------------------------------------

# Integer buffer formats the library reads in place: the id width it is told
# is the item size, negated for unsigned ids (numpy's uint32, array('I')).
_INT_SIGNED = {"q", "l", "i", "<q", "<l", "<i", "=q", "=l", "=i"}
_INT_UNSIGNED = {"Q", "L", "I", "<Q", "<L", "<I", "=Q", "=L", "=I"}
_F64_FORMATS = ("d", "<d", "=d")


def _memoryview(obj):
    """obj's buffer, or None when obj does not export one."""
    if isinstance(obj, (list, tuple, str, bytes, bytearray, range)):
        return None
    try:
        return memoryview(obj)
    except TypeError:
        return None


class _Buf:
    """A C pointer to memory the call reads or writes, kept alive with it."""

    __slots__ = ("ptr", "keep")

    def __init__(self, ptr, keep):
        self.ptr, self.keep = ptr, keep


def _from_memoryview(mv):
    """A pointer into mv's memory (zero-copy when writable, else a copy)."""
    flat = mv.cast("B") if mv.ndim != 1 or mv.format != "B" else mv
    if flat.nbytes == 0:
        return _Buf(None, None)
    if flat.readonly:
        flat = memoryview(bytearray(flat))
    c = (ctypes.c_char * flat.nbytes).from_buffer(flat)
    return _Buf(ctypes.addressof(c), c)


def _from_array(a):
    return _Buf(a.buffer_info()[0] if len(a) else None, a)


def _f64(obj, what, n=None):
    """(pointer, length) for a float64 vector: zero-copy for C-contiguous
    float64 buffers, else converted through array('d')."""
    mv = _memoryview(obj)
    if mv is not None and mv.format in _F64_FORMATS and mv.ndim == 1 and mv.c_contiguous:
        return _from_memoryview(mv), len(mv)
    if mv is not None:
        obj = mv.tolist() if mv.ndim == 1 else obj
    try:
        a = array("d", obj)
    except TypeError as e:
        raise TypeError("authppr: %s: %s" % (what, e)) from None
    return _from_array(a), len(a)


def _edge_ids(edges):
    """(pointer, width, m) for a sequence of (src, dst) pairs."""
    mv = _memoryview(edges)
    if mv is not None:
        if mv.ndim != 2 or mv.shape[1] != 2:
            raise ValueError("authppr: edges: buffer of shape %s, want (m, 2)" % (mv.shape,))
        if mv.itemsize in (4, 8) and mv.c_contiguous:
            if mv.format in _INT_SIGNED:
                return _from_memoryview(mv), mv.itemsize, mv.shape[0]
            if mv.format in _INT_UNSIGNED:
                return _from_memoryview(mv), -mv.itemsize, mv.shape[0]
        edges = mv.tolist()
    if not isinstance(edges, (list, tuple)):
        edges = list(edges)
    m = len(edges)
    try:
        # Flattened into array('I'): CPython fills it about twice as fast as
        # array('q') or 'i' (its items go through PyLong_AsUnsignedLong, the
        # signed codes through PyArg_Parse; python/bench/flatten.py measures
        # the choices). An id that does not fit (negative, or 2^32 and up)
        # raises OverflowError and takes the int64 path, so the library's
        # message names the edge.
        try:
            flat, width = array("I", itertools.chain.from_iterable(edges)), -4
        except OverflowError:
            flat, width = array("q", itertools.chain.from_iterable(edges)), 8
        # Every edge a pair: checked after the flattening (a bad length is
        # rare; the type errors above say what was found).
        if len(flat) != 2 * m or set(map(len, edges)) != ({2} if m else set()):
            bad = next(i for i, e in enumerate(edges) if len(e) != 2)
            raise ValueError("authppr: edge %d: %r, want a (src, dst) pair" % (bad, edges[bad]))
    except OverflowError as e:
        raise ValueError("authppr: edges: node id out of range: %s" % e) from None
    except TypeError as e:
        raise TypeError("authppr: edges: want (src, dst) pairs of integers: %s" % e) from None
    return _from_array(flat), width, m


def _channels(channels, m):
    """(index pointer, (names array, count, names), requirements) for
    per-edge channels. Each entry is a channel name (the writer of the edge)
    or a non-empty tuple, list or frozenset of names: the edge depends on
    all of them (min-inheritance): its first name (the smallest, for a set)
    added it, and it requires the others; a guard keeps it only if it
    trusts every one. requirements is None when no entry names more than
    one channel, else (offsets pointer, channels pointer, most channels of
    one edge)."""
    if not isinstance(channels, (list, tuple)):
        channels = list(channels)
    if len(channels) != m:
        raise ValueError("authppr: %d channels for %d edges" % (len(channels), m))
    table = {}
    try:
        idx = [table.setdefault(c, len(table)) for c in channels]
    except TypeError:  # unhashable entries (lists, sets): as tuples
        channels = [tuple(c) if isinstance(c, (list, set)) else c for c in channels]
        try:
            idx = [table.setdefault(c, len(table)) for c in channels]
        except TypeError as e:
            raise TypeError("authppr: channels: %s" % e) from None
    if all(type(c) is str for c in table):
        return _from_array(array("i", idx)), _names(list(table), "channel"), None
    # Some edges depend on several channels: the adders first (in order of
    # first appearance, as the library numbers its channel table), then the
    # channels only required.
    sets = []
    for key in table:
        if isinstance(key, str):
            sets.append((key,))
        elif isinstance(key, (tuple, frozenset)):
            names = sorted(key) if isinstance(key, frozenset) else list(key)
            if not names:
                e = channels.index(key)
                raise ValueError("authppr: channel %d: an empty set of channels, want at least one" % e)
            for c in names:
                if not isinstance(c, str):
                    e = channels.index(key)
                    raise TypeError("authppr: channel %d: %r, want a string or a set of strings" % (e, key))
            sets.append(tuple(names))
        else:
            e = channels.index(key)
            raise TypeError("authppr: channel %d: %r, want a string or a set of strings" % (e, key))
    names = {}
    for s in sets:
        names.setdefault(s[0], len(names))
    for s in sets:
        for c in s[1:]:
            names.setdefault(c, len(names))
    adder = array("i", [names[s[0]] for s in sets])
    req = [[names[c] for c in s[1:] if c != s[0]] for s in sets]
    per_edge_adder = array("i", [adder[i] for i in idx])
    off, chans, total = array("q", [0]), array("i"), 0
    for i in idx:
        total += len(req[i])
        off.append(total)
        chans.extend(req[i])
    most = 1 + max(len(r) for r in req)
    return (_from_array(per_edge_adder), _names(list(names), "channel"),
            (_from_array(off), _from_array(chans), most))


def _names(names, what):
    enc = []
    for i, c in enumerate(names):
        if not isinstance(c, str):
            raise TypeError("authppr: %s %d: %r, want a string" % (what, i, c))
        b = c.encode("utf-8")
        if b"\0" in b:
            raise ValueError("authppr: %s %d: %r contains NUL" % (what, i, c))
        enc.append(b)
    arr = (ctypes.c_char_p * max(len(enc), 1))(*enc)
    return arr, len(enc), list(names)


def _candidates(candidates):
    """(pointer or None, count) for candidate node ids: zero-copy for a
    C-contiguous int64 buffer, else converted through array('q')."""
    if candidates is None:
        return None, 0
    mv = _memoryview(candidates)
    if mv is not None and mv.ndim == 1 and mv.format in ("q", "l", "<q", "<l", "=q", "=l") and mv.c_contiguous:
        c, nc = _from_memoryview(mv), len(mv)
    else:
        try:
            a = array("q", candidates if mv is None else mv.tolist())
        except OverflowError as e:
            raise ValueError("authppr: candidates: node id out of range: %s" % e) from None
        except TypeError as e:
            raise TypeError("authppr: candidates: want integer node ids: %s" % e) from None
        c, nc = _from_array(a), len(a)
    if nc == 0:
        raise ValueError("authppr: empty candidate list")
    return c, nc


def _text(names, what):
    """(text buffer, offsets buffer, count) for strings passed to the
    library as one buffer and n+1 offsets."""
    if isinstance(names, str):
        raise TypeError("authppr: %s: want a sequence of names, got a string" % what)
    enc = []
    for i, c in enumerate(names):
        if not isinstance(c, str):
            raise TypeError("authppr: %s %d: %r, want a string" % (what, i, c))
        enc.append(c.encode("utf-8"))
    off = array("q", [0])
    off.extend(itertools.accumulate(map(len, enc)))
    blob = b"".join(enc)
    text = ctypes.create_string_buffer(blob, max(len(blob), 1))
    return text, off, len(enc)


def _int64_out(n):
    """An int64 output buffer of n entries: a numpy array when numpy is
    installed, else array('q')."""
    try:
        import numpy
    except ImportError:
        return array("q", bytes(8 * n))
    return numpy.zeros(n, dtype=numpy.int64)


def _addr(buf):
    """The address of an array('q'/'d'/'i') or numpy array's memory."""
    if isinstance(buf, array):
        return buf.buffer_info()[0] if len(buf) else None
    return buf.ctypes.data if len(buf) else None


SolveStats = namedtuple("SolveStats", "solve_ns sweeps error_bound")
SolveStats.__doc__ = "The library's own account of one solve: its time alone (ns), sweeps, proved L1 error."


class _Handle:
    """A library handle, freed by close(), by leaving a with block or when
    collected."""

    _h = 0
    _free = None  # name of the library's free function

    def close(self):
        """Frees the library's object now (idempotent)."""
        if self._h:
            h, self._h = self._h, 0
            _call(getattr(_lib, self._free), h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if self._h and _lib is not None:
            try:
                self.close()
            except Exception:
                pass


_GIVEN = object()  # a keyword the caller did not pass


class Graph(_Handle):
    """An immutable graph over nodes 0..n-1 (isolated nodes allowed).

    edges: a sequence of (src, dst) integer pairs, or an (m, 2) buffer of
    32- or 64-bit integers, signed or unsigned (a numpy array), read in place
    when C-contiguous.
    weights: None (every weight 1) or m numbers, each 0 or within
    [2**-1022, 2**988] (so that no node's out-weight or its reciprocal can
    overflow).
    directed: False stores each edge both ways, as igraph's Graph(directed=False).
    channels: None (every edge on channel "default") or m entries naming
    the principal that wrote each edge; Guard trusts some of them. An entry
    may be a tuple (or list, or frozenset) of names: the edge depends on all
    of them (min-inheritance: a synonym edge derived from two entities
    depends on both writers), and a guard keeps it only if it trusts all.
    max_memory: the memory limit of building the graph, in bytes. None or 0
    (the default): half the memory available (MemAvailable and cgroup
    limits); a negative number: no limit. A graph whose build would need more (n
    nodes far beyond the edges, say) raises ValueError before anything is
    allocated.
    names: None or n distinct strings naming the nodes; resets, candidates
    and vertices may then name nodes (a dict {name: weight} as the reset is
    networkx's personalization).

    close() frees the library's graph early; a Guard built on it keeps working.
    """

    _free = "authppr_graph_free"

    def __init__(self, n, edges, weights=None, directed=True, channels=None, max_memory=None, names=None):
        n = _int64(n, "n")
        max_memory = 0 if max_memory is None else _int64(max_memory, "max_memory")
        ids, width, m = _edge_ids(edges)
        w = None
        if weights is not None:
            w, nw = _f64(weights, "weights")
            if nw != m:
                raise ValueError("authppr: %d weights for %d edges" % (nw, m))
        cidx, cnames, ncn, self.channel_names, req = None, None, 0, ["default"], None
        if channels is not None:
            cidx, (cnames, ncn, self.channel_names), req = _channels(channels, m)
        self._max_deps = req[2] if req else 1
        if names is not None:
            if isinstance(names, str):
                raise TypeError("authppr: names: want n strings, got a string")
            names = list(names)
            if len(names) != n:
                raise ValueError("authppr: %d names for %d nodes" % (len(names), n))
            index = {}
            for i, nm in enumerate(names):
                if not isinstance(nm, str):
                    raise TypeError("authppr: name %d: %r, want a string" % (i, nm))
                if index.setdefault(nm, i) != i:
                    raise ValueError("authppr: name %d (%r) repeats name %d" % (i, nm, index[nm]))
            self.names, self._index = names, index
        else:
            self.names, self._index = None, None
        h = ctypes.c_uint64()
        _call(_lib.authppr_graph_create, n, m, ids.ptr, width, w.ptr if w else None, 1 if directed else 0,
              cidx.ptr if cidx else None, cnames, ncn, req[0].ptr if req else None, req[1].ptr if req else None,
              max_memory, ctypes.byref(h))
        self._h = h.value
        self.n, self.m, self.directed = n, m, bool(directed)
        self.weighted, self.weights_attribute = weights is not None, None
        self.last_stats = None

    @classmethod
    def from_igraph(cls, graph, weights="weight", channels=None, default_channel=None, directed=None, max_memory=None):
        """The graph of an igraph.Graph: its edges in igraph's order (edge
        e is igraph's edge e), its vertex names (the "name" attribute) when
        it has them, the edge attribute weights names (None: unweighted; an
        attribute the graph lacks is an error) and the edge attribute
        channels names ("channel", say: strings or sets of strings per
        edge; an edge without one is an error unless default_channel is
        given). directed: None keeps the igraph graph's, False solves it as
        undirected (HippoRAG2's run_ppr does)."""
        m = graph.ecount()
        edges = graph.get_edgelist()
        w = None
        if weights is not None:
            if weights not in graph.es.attributes():
                raise ValueError("authppr: the igraph graph has no edge attribute %r (its edge attributes: %s)"
                                 % (weights, sorted(graph.es.attributes())))
            w = graph.es[weights]
            for e, x in enumerate(w):
                if x is None:
                    src, dst = edges[e]
                    raise ValueError("authppr: edge %d (%d -> %d) has no %r" % (e, src, dst, weights))
        ch = None
        if channels is not None:
            ch = _edge_channels(graph, channels, default_channel)
        names = None
        if "name" in graph.vs.attributes():
            names = graph.vs["name"]
            if any(not isinstance(x, str) for x in names) or len(set(names)) != len(names):
                names = None  # not usable as node names: nodes go by id
        g = cls(graph.vcount(), edges if m else [], weights=w, channels=ch, max_memory=max_memory, names=names,
                directed=graph.is_directed() if directed is None else directed)
        g.weights_attribute = weights
        return g

    def node_ids(self, nodes, what="node"):
        """The ids of nodes given by id or, on a graph with names, by name:
        a list of ints."""
        out = []
        for i, v in enumerate(nodes):
            if isinstance(v, str):
                if self._index is None:
                    raise TypeError("authppr: %s %d: %r: this graph has no node names (pass names= to Graph)" % (what, i, v))
                u = self._index.get(v)
                if u is None:
                    raise ValueError("authppr: %s %d: unknown node %r" % (what, i, v))
                out.append(u)
            else:
                out.append(_int64(v, "%s %d" % (what, i)))
        return out

    def _reset(self, reset, reset_vertices=None):
        """The dense reset vector of n entries for reset (n numbers, a dict
        {node: weight} by id or name, or None: uniform) or reset_vertices
        (ids or names, uniform over them; repeats count again), as igraph
        and networkx take them."""
        if reset is not None and reset_vertices is not None:
            raise ValueError("authppr: pass reset or reset_vertices, not both")
        if reset_vertices is not None:
            if isinstance(reset_vertices, (int, str)):
                reset_vertices = [reset_vertices]
            r = array("d", bytes(8 * self.n))
            for u in self.node_ids(reset_vertices, "reset vertex"):
                if not 0 <= u < self.n:
                    raise ValueError("authppr: reset vertex %d out of range (graph has %d nodes)" % (u, self.n))
                r[u] += 1
            return r
        if reset is None:
            return array("d", [1.0]) * self.n
        if isinstance(reset, dict):
            r = array("d", bytes(8 * self.n))
            keys = list(reset)
            for u, k in zip(self.node_ids(keys, "reset key"), keys):
                if not 0 <= u < self.n:
                    raise ValueError("authppr: reset key %r: node %d out of range (graph has %d nodes)" % (k, u, self.n))
                try:
                    r[u] = reset[k]
                except TypeError:
                    raise TypeError("authppr: reset[%r] = %r, want a number" % (k, reset[k])) from None
            return r
        return reset

    def _candidates(self, candidates):
        if candidates is None or self._index is None or _memoryview(candidates) is not None:
            return candidates
        candidates = list(candidates)
        if any(isinstance(c, str) for c in candidates):
            return self.node_ids(candidates, "candidate")
        return candidates

    def personalized_pagerank(self, reset=None, damping=0.85, out=None, vertices=None, directed=None,
                              reset_vertices=None, weights=_GIVEN, implementation=None, personalization=None):
        """igraph's personalized_pagerank(reset=reset, damping=damping,
        implementation="prpack"): a list of n floats. reset has n
        non-negative entries, not all zero (normalised here), or is a dict
        {node id or name: weight} (networkx's personalization=, an alias;
        nodes not in it weigh 0), or None with reset_vertices (igraph's:
        ids or names, uniform), or None alone (uniform: PageRank). With out
        (a writable C-contiguous float64 buffer of n entries, say a numpy
        array) the scores are written there and out is returned instead.

        igraph's other keywords: vertices (the ids or names whose scores to
        return, in order; a single id returns one float), directed (True,
        or None; False on a directed Graph is an error: build the Graph
        undirected), weights (the edge weights are the Graph's: a string
        naming them is accepted when the Graph was built with weights
        (from_igraph checks it names the same attribute); None is accepted
        on an unweighted Graph), implementation ("prpack", what this
        computes, or None)."""
        if personalization is not None:
            if reset is not None:
                raise ValueError("authppr: pass reset or personalization, not both")
            reset = personalization
        self._check_igraph_keywords(directed, weights, implementation)
        r, nr = _f64(self._reset(reset, reset_vertices), "reset")
        damping = float(damping)
        stats = _SolveStatsC()
        if out is None:
            res = array("d", bytes(8 * self.n))
            _call(_lib.authppr_ppr, self._h, r.ptr, nr, damping, 0.0, res.buffer_info()[0], self.n, ctypes.byref(stats))
            self.last_stats = SolveStats(stats.solve_ns, stats.sweeps, stats.error_bound)
            if vertices is None:
                return res.tolist()
            if isinstance(vertices, (int, str)):
                return res[self.node_ids([vertices], "vertex")[0]]
            return [res[u] for u in self.node_ids(vertices, "vertex")]
        if vertices is not None:
            raise ValueError("authppr: out= holds every node's score: pass vertices or out, not both")
        mv = _memoryview(out)
        if mv is None or mv.readonly or mv.format not in _F64_FORMATS or mv.ndim != 1 or not mv.c_contiguous:
            raise TypeError("authppr: out: want a writable C-contiguous float64 buffer")
        o = _from_memoryview(mv)
        _call(_lib.authppr_ppr, self._h, r.ptr, nr, damping, 0.0, o.ptr, len(mv), ctypes.byref(stats))
        self.last_stats = SolveStats(stats.solve_ns, stats.sweeps, stats.error_bound)
        return out

    def _check_igraph_keywords(self, directed, weights, implementation):
        if directed is False and self.directed:
            raise ValueError("authppr: directed=False on a directed Graph: build it with directed=False "
                             "(Graph.from_igraph(g, directed=False)) to solve it as undirected")
        if implementation not in (None, "prpack"):
            raise ValueError("authppr: implementation=%r: authppr computes what igraph's PRPACK computes; "
                             "pass implementation='prpack' or nothing" % (implementation,))
        if weights is _GIVEN:
            return
        if weights is None:
            if self.weighted:
                raise ValueError("authppr: weights=None on a Graph built with weights: its weights are fixed "
                                 "when it is built (build one without weights to solve unweighted)")
        elif isinstance(weights, str):
            if not self.weighted:
                raise ValueError("authppr: weights=%r on a Graph built without weights: pass the weights "
                                 "when building it (Graph(..., weights=...), Graph.from_igraph(g, weights=%r))"
                                 % (weights, weights))
            if self.weights_attribute is not None and weights != self.weights_attribute:
                raise ValueError("authppr: weights=%r, but this Graph was built from the attribute %r"
                                 % (weights, self.weights_attribute))
        else:
            raise ValueError("authppr: weights are fixed when the Graph is built: pass them to "
                             "authppr.Graph(..., weights=...), not to personalized_pagerank")

    def top_k(self, reset, k, candidates=None, damping=0.85, tol=1e-10, ordered=True):
        """The k best candidates (default: every node) of
        personalized_pagerank(reset, damping), best first, solved only until
        the selection is proved: as a set, and with ordered (the default)
        in its order too, or until the L1 error bound reaches tol. Returns
        a TopK: ids, scores and the certificate (certified, ordered, ties,
        leads, score_errors, proved_gap, ...). candidates are distinct node
        ids or names (a list, or an int64 numpy array read in place); reset
        as for personalized_pagerank."""
        r, nr = _f64(self._reset(reset), "reset")
        k = _int64(k, "k")
        if k < 1:
            raise ValueError("authppr: k = %d, want at least 1" % k)
        c, nc = _candidates(self._candidates(candidates))
        kk = min(k, self.n if c is None else nc)
        ids, scores, leads, errs = array("q", bytes(8 * kk)), array("d", bytes(8 * kk)), array("d", bytes(8 * kk)), array("d", bytes(8 * kk))
        st = _TopKStatsC()
        p = lambda a: a.buffer_info()[0]
        _call(_lib.authppr_top_k, self._h, r.ptr, nr, kk, c.ptr if c else None, nc, float(damping), float(tol),
              _TOPK_ORDERED if ordered else 0, p(ids), p(scores), p(leads), p(errs), ctypes.byref(st))
        n = st.n
        lead = leads[:n].tolist()
        return TopK(ids[:n].tolist(), scores[:n].tolist(), bool(st.certified), bool(st.ordered),
                    [i for i in range(n - 1) if not lead[i] > 0], lead, errs[:n].tolist(),
                    st.gap, st.proved_gap, st.error_bound, st.coord_bound, st.sweeps, st.scans, st.solve_ns)

    def __repr__(self):
        return "authppr.Graph(n=%d, m=%d, directed=%s)" % (self.n, self.m, self.directed)


def _edge_channels(graph, attribute, default):
    """The channel of each edge of an igraph graph from its edge attribute
    (None entries take default; without a default, a missing attribute or
    entry is an error naming the edge)."""
    if attribute not in graph.es.attributes():
        if default is None:
            raise ValueError("authppr: the igraph graph has no edge attribute %r: record each edge's writer there "
                             "(authppr.hipporag.tag_writers does it for HippoRAG2), or pass a default channel "
                             "explicitly" % (attribute,))
        return [default] * graph.ecount()
    ch = graph.es[attribute]
    if default is not None:
        return [default if c is None else c for c in ch]
    for e, c in enumerate(ch):
        if c is None:
            src, dst = graph.es[e].tuple
            names = graph.vs["name"] if "name" in graph.vs.attributes() else None
            where = "%r -> %r" % (names[src], names[dst]) if names else "%d -> %d" % (src, dst)
            raise ValueError("authppr: edge %d (%s) has no %r: every edge needs its writer, or pass a default "
                             "channel explicitly" % (e, where, attribute))
    return ch


TopK = namedtuple("TopK", "ids scores certified ordered ties leads score_errors gap proved_gap error_bound "
                          "coord_bound sweeps scans solve_ns")
TopK.__doc__ = """Graph.top_k's answer: the selection and its proof.

ids, scores: the selected node ids best first and their scores (the solve's
  vector: lower bounds; the exact score of ids[i] lies in
  [scores[i], scores[i] + score_errors[i]]).
certified: the ids are the exact top-k as a set (proved_gap > 0).
ordered: their order is proved too (every leads[i] > 0, i < len - 1).
ties: positions i whose order against i + 1 is not proved (a tie at the
  tolerance, when the solve ran to it); empty when ordered.
leads: leads[i] is a proved lower bound on score(ids[i]) - score(ids[i+1])
  in the exact vector; the last one is proved_gap.
gap: the last selected score minus the best unselected one (inf: none left).
proved_gap: a lower bound on that gap in the exact vector.
error_bound: proved L1 distance of the solve's vector to the exact one.
coord_bound: the per-coordinate bound factor (undirected graphs; 0 if directed).
sweeps, scans, solve_ns: the solve's passes over the nodes (full sweeps and,
  among them, scans threshold scans) and its time inside the library."""


Suspect = namedtuple("Suspect", "edge src dst channel mass channels deleted", defaults=((), False))
Suspect.__doc__ = """An untrusted edge that carried native PPR mass.

edge: its index in the edge list given to Graph (a Store's edge id);
src, dst: its endpoints (node ids for a Graph, names for a Store);
channel: the untrusted channels behind it, joined with commas;
mass: the native mass it carried;
channels: those channels, a tuple (sorted);
deleted: True when an untrusted channel deleted a trusted edge (a Store's;
  a Graph's suspects are edges the authenticated view masks)."""


class DivergenceError(Exception):
    """Raised by a guard with policy="escalate" when untrusted structure
    changed the selection; .decision is the Decision."""

    def __init__(self, decision):
        self.decision = decision
        super().__init__("authppr: untrusted structure changed the top-%d: native %r, authenticated %r; suspects %r"
                         % (len(decision.native), decision.native, decision.auth, decision.suspects))


class Decision:
    """The guard's answer for one query.

    native: the top-k node ids on the whole graph (best first);
    auth: the top-k on the trusted edges only;
    divergent: True when untrusted edges changed the selection (beyond ties);
    selected: what to use under the guard's policy: "reject" (the default)
      auth when divergent, else native; "report" native always;
      "escalate" native, and a divergence raises DivergenceError instead;
    outcome: "same", "tie" or "divergent";
    path: how the replay decided ("untouched", "certificate", "delta", "full");
    suspects: on a divergence, the untrusted edges that carried the most native mass;
    policy, native_scores, auth_scores, native_gap, gap (interval), native_ns, replay_ns.
    """

    __slots__ = ("native", "auth", "native_scores", "auth_scores", "divergent", "selected", "outcome", "path",
                 "suspects", "native_gap", "gap", "native_ns", "replay_ns", "policy")

    def __repr__(self):
        return ("%s(native=%r, auth=%r, divergent=%r, outcome=%r, path=%r, suspects=%r)"
                % (type(self).__name__, self.native, self.auth, self.divergent, self.outcome, self.path, self.suspects))


def _policy(policy):
    if policy not in _POLICIES:
        raise ValueError("authppr: policy=%r, want one of %s" % (policy, ", ".join(_POLICIES)))
    return policy


def _decide(d, dc, policy):
    """Fills the decision's common fields from the library's and applies
    the policy (escalate raises)."""
    d.divergent = bool(dc.divergent)
    d.outcome, d.path = _OUTCOMES.get(dc.outcome, str(dc.outcome)), _PATHS.get(dc.path, str(dc.path))
    d.native_gap, d.gap = dc.native_gap, (dc.gap_lo, dc.gap_hi)
    d.native_ns, d.replay_ns = dc.native_ns, dc.replay_ns
    d.policy = policy
    d.selected = d.auth if d.divergent and policy == "reject" else d.native
    if d.divergent and policy == "escalate":
        raise DivergenceError(d)
    return d


class Guard(_Handle):
    """Guards top-k selections on g against edges from untrusted channels:
    every native selection is replayed on the edges of trusted channels
    (each name must label some edge of g; the default channel is "default";
    an edge that depends on several channels is trusted only when all
    are). policy: what select hands back on a divergence (see Decision)."""

    _free = "authppr_guard_free"

    def __init__(self, g, trust, max_suspects=5, policy="reject"):
        if not isinstance(g, Graph):
            raise TypeError("authppr: Guard wants an authppr.Graph, got %s" % type(g).__name__)
        if isinstance(trust, str):
            raise TypeError("authppr: trust wants a list of channel names, got a string")
        self.policy = _policy(policy)
        names, nt, _ = _names(list(trust), "trusted channel")
        h = ctypes.c_uint64()
        _call(_lib.authppr_guard_create, g._h, names, nt, _int64(max_suspects, "max_suspects"), ctypes.byref(h))
        self._h = h.value
        self.graph, self.max_suspects = g, int(max_suspects) or 5
        self.trust = list(trust)
        self._channels = g.channel_names

    def select(self, reset, k, candidates=None, damping=0.85):
        """Native top-k over candidates (default: every node; ids or names)
        for the reset vector (as for Graph.personalized_pagerank), replayed
        on the trusted edges; returns a Decision (policy "escalate" raises
        DivergenceError on a divergence)."""
        g = self.graph
        r, nr = _f64(g._reset(reset), "reset")
        k, damping = _int64(k, "k"), float(damping)
        if k < 1:
            raise ValueError("authppr: k = %d, want at least 1" % k)
        c, nc = _candidates(g._candidates(candidates))
        kk = min(k, g.n)
        ni, ns, ai, asc = array("q", bytes(8 * kk)), array("d", bytes(8 * kk)), array("q", bytes(8 * kk)), array("d", bytes(8 * kk))
        ms = self.max_suspects
        cap_chans = ms * g._max_deps
        se, ss, sd, sm = array("q", bytes(8 * ms)), array("q", bytes(8 * ms)), array("q", bytes(8 * ms)), array("d", bytes(8 * ms))
        so, sc = array("q", bytes(8 * (ms + 1))), array("i", bytes(4 * cap_chans))
        dc = _DecisionC()
        p = lambda a: a.buffer_info()[0]
        _call(_lib.authppr_guard_select, self._h, r.ptr, nr, kk, c.ptr if c else None, nc, damping,
              p(ni), p(ns), p(ai), p(asc), ms, p(se), p(ss), p(sd), p(sm), p(so), p(sc), cap_chans, ctypes.byref(dc))
        d = Decision()
        d.native, d.native_scores = ni[:dc.n_native].tolist(), ns[:dc.n_native].tolist()
        d.auth, d.auth_scores = ai[:dc.n_auth].tolist(), asc[:dc.n_auth].tolist()
        d.suspects = []
        for i in range(dc.n_suspects):
            chans = tuple(self._channels[x] for x in sc[so[i]:so[i + 1]])
            d.suspects.append(Suspect(se[i], ss[i], sd[i], ",".join(chans), sm[i], chans, False))
        return _decide(d, dc, self.policy)


# ---- the living store ------------------------------------------------------

# Write kinds of authppr_writer_apply (authppr.h's AUTHPPR_OP_*).
_OP = {"node": 1, "edge": 2, "edge_by_id": 3, "delete_edge": 4, "delete": 5, "merge": 6, "inferred": 7}


class Store(_Handle):
    """The living graph memory (Go package store): writes go through
    writers, one per channel (store.writer("agent-7")), and are applied
    batch by batch, each all or nothing, each publishing a new version;
    guarded selections (store.select) run on the current version. Nodes
    are named by strings (ids are dense, in order of creation, never
    reused); edge ids likewise.

    Store.open(dir) opens or creates a durable store (every batch fsynced
    before it returns); Store.create(dir, graph) starts one from an
    authppr.Graph; Store.memory() keeps one in memory. close() closes it:
    later writes fail, selections of guards already made still answer.
    Bad arguments raise ValueError or TypeError as for Graph; the store is
    safe for concurrent use."""

    _free = "authppr_store_free"

    def __init__(self, _h):
        self._h = _h
        self._guards = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, directory, directed=False, compact_at=0):
        """The durable store in directory, created empty (edges directed as
        directed says) when it holds none. compact_at > 0 compacts in the
        background once that many edges wait in the delta."""
        h = ctypes.c_uint64()
        _call(_lib.authppr_store_open, os.fsencode(directory), 1 if directed else 0, _int64(compact_at, "compact_at"),
              ctypes.byref(h))
        return cls(h.value)

    @classmethod
    def memory(cls, directed=False):
        """An in-memory store (nothing on disk)."""
        h = ctypes.c_uint64()
        _call(_lib.authppr_store_open, None, 1 if directed else 0, 0, ctypes.byref(h))
        return cls(h.value)

    @classmethod
    def create(cls, directory, graph, names=None, compact_at=0):
        """A new durable store in directory (which must hold none) whose
        first snapshot is graph (an authppr.Graph: its edges, weights and
        channels, min-inheritance included), its nodes named by names (by
        default the graph's names, else "0", "1", ...)."""
        if not isinstance(graph, Graph):
            raise TypeError("authppr: Store.create wants an authppr.Graph, got %s" % type(graph).__name__)
        names = graph.names if names is None else list(names)
        text = offs = None
        n = 0
        if names is not None:
            text, offs, n = _text(names, "node name")
        h = ctypes.c_uint64()
        _call(_lib.authppr_store_create, os.fsencode(directory), graph._h, text, _addr(offs) if offs else None, n,
              _int64(compact_at, "compact_at"), ctypes.byref(h))
        return cls(h.value)

    def info(self):
        """The current version's counts: a dict with nodes, edges (deleted
        ones included), delta_edges, batches (since the store was created), directed
        and channels (every channel that wrote, sorted)."""
        c = _StoreCountsC()
        chans = _text_call(_lib.authppr_store_info, (self._h, ctypes.byref(c)), size=1024)
        return {"nodes": c.nodes, "edges": c.edges, "delta_edges": c.delta_edges, "batches": c.batches,
                "directed": bool(c.directed), "channels": chans}

    @property
    def num_nodes(self):
        return self.info()["nodes"]

    @property
    def num_edges(self):
        return self.info()["edges"]

    @property
    def channels(self):
        return self.info()["channels"]

    def compact(self):
        """Folds the delta into a new snapshot."""
        _call(_lib.authppr_store_compact, self._h)

    def ids(self, names):
        """The ids of the named nodes (an int64 numpy array, or array('q')
        without numpy), -1 for a name the store does not hold."""
        text, offs, n = _text(names, "name")
        out = _int64_out(n)
        _call(_lib.authppr_store_ids, self._h, text, _addr(offs), n, _addr(out))
        return out

    def names(self, ids):
        """The names of node ids (a list of strings)."""
        c, n = _ids64(ids, "ids")
        return _text_call(_lib.authppr_store_names, (self._h, c.ptr, n), size=max(64 * n, 256))

    def writer(self, channel):
        """The Writer for channel (a non-empty string): the only way to
        write, as that channel."""
        if not isinstance(channel, str):
            raise TypeError("authppr: writer: channel %r, want a string" % (channel,))
        if "\0" in channel:
            raise ValueError("authppr: writer: channel %r contains NUL" % (channel,))
        h = ctypes.c_uint64()
        _call(_lib.authppr_store_writer, self._h, channel.encode("utf-8"), ctypes.byref(h))
        return Writer(h.value, channel)

    def guard(self, trust, max_suspects=5, policy="reject"):
        """A StoreGuard trusting the named channels (they need not have
        written yet); its native solves warm-start from the states earlier
        selections left (store.Cache)."""
        return StoreGuard(self, trust, max_suspects, policy)

    def select(self, seeds, k, candidates=None, trust=None, damping=0.85, seed_weights=None, policy="reject",
               max_suspects=5):
        """A guarded selection on the current version: the top-k of
        candidates (names or ids; None: every node) for the seeds (a dict
        {name or id: weight}, or names or ids with seed_weights or weight 1
        each), replayed on the edges of the trusted channels (trust: a list
        of names, required). Returns a StoreDecision; the guard of each
        trust set is kept and reused (its warm starts with it)."""
        if trust is None:
            raise TypeError("authppr: Store.select needs trust=[channel names]: what the authenticated view trusts")
        key = (tuple(sorted(set(_trust_list(trust)))), int(max_suspects), policy)
        with self._lock:
            g = self._guards.get(key)
            if g is None:
                g = self._guards[key] = StoreGuard(self, trust, max_suspects, policy)
        return g.select(seeds, k, candidates, damping, seed_weights)

    def close(self):
        """Closes the store (idempotent)."""
        for g in list(self._guards.values()):
            g.close()
        self._guards.clear()
        super().close()

    def __repr__(self):
        if not self._h:
            return "authppr.Store(closed)"
        i = self.info()
        return "authppr.Store(nodes=%d, edges=%d, batches=%d)" % (i["nodes"], i["edges"], i["batches"])


def _trust_list(trust):
    if isinstance(trust, str):
        raise TypeError("authppr: trust wants a list of channel names, got a string")
    trust = list(trust)
    for i, c in enumerate(trust):
        if not isinstance(c, str):
            raise TypeError("authppr: trusted channel %d: %r, want a string" % (i, c))
    return trust


def _ids64(ids, what):
    """(pointer, count) for int64 ids: zero-copy for a C-contiguous int64
    buffer, else converted through array('q')."""
    mv = _memoryview(ids)
    if mv is not None and mv.ndim == 1 and mv.format in ("q", "l", "<q", "<l", "=q", "=l") and mv.c_contiguous:
        return _from_memoryview(mv), len(mv)
    try:
        a = array("q", ids if mv is None else mv.tolist())
    except OverflowError as e:
        raise ValueError("authppr: %s: id out of range: %s" % (what, e)) from None
    except TypeError as e:
        raise TypeError("authppr: %s: want integer ids: %s" % (what, e)) from None
    return _from_array(a), len(a)


def _is_names(xs):
    """True when xs (a non-buffer sequence) holds names, False for ids;
    a mix is a TypeError."""
    kinds = {isinstance(x, str) for x in xs}
    if len(kinds) > 1:
        raise TypeError("authppr: names and ids mixed in one list")
    return kinds == {True}


class Writer(_Handle):
    """Writes to a Store as one channel. Every method applies one batch:
    all of its writes, then one new version, or none (ValueError naming the
    write). Names create nodes where a write adds an edge; ids name nodes
    that exist. Outputs of one entry per write are int64 numpy arrays
    (array('q') without numpy)."""

    _free = "authppr_writer_free"

    def __init__(self, h, channel):
        self._h, self.channel = h, channel
        self.last_version = None

    def _apply(self, kinds, names=None, src_ids=None, dst_ids=None, weights=None, edges=None, from_off=None,
               from_edges=None):
        n = len(kinds)
        text = offs = None
        if names is not None:
            text, offs, nn = _text(names, "node name")
            if nn != 2 * n:
                raise ValueError("authppr: %d names for %d writes, want two each" % (nn, n))
        cols = []
        for col, what in ((src_ids, "source ids"), (dst_ids, "destination ids"), (edges, "edge ids")):
            if col is None:
                cols.append(None)
                continue
            c, nc = _ids64(col, what)
            if nc != n:
                raise ValueError("authppr: %d %s for %d writes" % (nc, what, n))
            cols.append(c)
        w = None
        if weights is not None:
            w, nw = _f64(weights, "weights")
            if nw != n:
                raise ValueError("authppr: %d weights for %d writes" % (nw, n))
        out_ids, out_counts, batches = _int64_out(n), _int64_out(n), ctypes.c_uint64()
        k = array("i", kinds)
        _call(_lib.authppr_writer_apply, self._h, n, _addr(k), text, _addr(offs) if offs else None,
              cols[0].ptr if cols[0] else None, cols[1].ptr if cols[1] else None, w.ptr if w else None,
              cols[2].ptr if cols[2] else None, _addr(from_off) if from_off else None,
              _addr(from_edges) if from_edges else None, _addr(out_ids), _addr(out_counts), ctypes.byref(batches))
        self.last_version = batches.value
        return out_ids, out_counts

    def add_edges(self, src, dst, weights=None):
        """Adds the edges src[i] -> dst[i] (names, creating new nodes, or
        ids of existing nodes: numpy int arrays are read in place) with
        weights (None: 1 each); returns their edge ids."""
        if _memoryview(src) is None:
            src = list(src)
        if _memoryview(dst) is None:
            dst = list(dst)
        n = len(src)
        if len(dst) != n:
            raise ValueError("authppr: %d sources for %d destinations" % (n, len(dst)))
        by_name = _memoryview(src) is None and _is_names(src)
        if by_name:
            if _memoryview(dst) is not None or (dst and not _is_names(dst)):
                raise TypeError("authppr: add_edges: sources are names, destinations are not")
            names = [x for pair in zip(src, dst) for x in pair]
            return self._apply([_OP["edge"]] * n, names=names, weights=weights)[0]
        return self._apply([_OP["edge_by_id"]] * n, src_ids=src, dst_ids=dst, weights=weights)[0]

    def add_edge(self, src, dst, weight=1.0):
        """Adds one edge (see add_edges); returns its id."""
        return int(self.add_edges([src], [dst], [weight])[0])

    def add_nodes(self, names):
        """Adds the named nodes (a name that exists is left as it is);
        returns their ids."""
        names = list(names)
        return self._apply([_OP["node"]] * len(names), names=[x for nm in names for x in (nm, "")])[0]

    def delete_edges(self, src, dst=None):
        """Deletes, as this writer's channel, every live edge src[i] ->
        dst[i] (names; both orientations on an undirected store); with dst
        None, src holds edge ids. Returns the number of edges each write
        deleted."""
        if dst is None:
            ids, n = _ids64(src, "edge ids")
            return self._apply([_OP["delete_edge"]] * n, edges=src)[1] if n else _int64_out(0)
        src, dst = list(src), list(dst)
        if len(src) != len(dst):
            raise ValueError("authppr: %d sources for %d destinations" % (len(src), len(dst)))
        names = [x for pair in zip(src, dst) for x in pair]
        return self._apply([_OP["delete"]] * len(src), names=names)[1]

    def merge(self, source, into):
        """Merges node source into node into (names; or two lists of them,
        one batch): every live edge of source is rewired onto into, as this
        writer's channel. Returns the edges rewired (an int for one merge)."""
        if isinstance(source, str):
            return int(self.merge([source], [into])[0])
        source, into = list(source), list(into)
        if len(source) != len(into):
            raise ValueError("authppr: %d sources for %d targets" % (len(source), len(into)))
        names = [x for pair in zip(source, into) for x in pair]
        return self._apply([_OP["merge"]] * len(source), names=names)[1]

    def add_inferred(self, src, dst, weight, sources):
        """Adds an edge src -> dst (names) derived from the edges sources
        (edge ids): it depends on every channel they depend on
        (min-inheritance), so a guard that distrusts any of them masks it.
        Returns its id."""
        frm = array("q", sources)
        off = array("q", [0, len(frm)])
        ids, _ = self._apply([_OP["inferred"]], names=[src, dst], weights=[weight], from_off=off, from_edges=frm)
        return int(ids[0])

    def __repr__(self):
        return "authppr.Writer(%r)" % (self.channel,)


class StoreDecision(Decision):
    """A Decision on a Store's version: native, auth and selected are node
    names (native_ids, auth_ids their ids), suspects name their ends;
    version is the version's batch count."""

    __slots__ = ("native_ids", "auth_ids", "version")


class StoreGuard(_Handle):
    """Guarded selections on a Store's versions for one trust policy."""

    _free = "authppr_store_guard_free"

    def __init__(self, store, trust, max_suspects=5, policy="reject"):
        if not isinstance(store, Store):
            raise TypeError("authppr: StoreGuard wants an authppr.Store, got %s" % type(store).__name__)
        self.policy = _policy(policy)
        self.trust = _trust_list(trust)
        names, nt, _ = _names(self.trust, "trusted channel")
        h = ctypes.c_uint64()
        _call(_lib.authppr_store_guard_create, store._h, names, nt, _int64(max_suspects, "max_suspects"), ctypes.byref(h))
        self._h, self.store, self.max_suspects = h.value, store, int(max_suspects) or 5

    def _node_ids(self, nodes, what):
        if _memoryview(nodes) is not None:
            return nodes
        nodes = list(nodes)
        if not _is_names(nodes):
            return nodes
        ids = self.store.ids(nodes)
        for i, u in enumerate(ids):
            if u < 0:
                raise ValueError("authppr: %s %d: unknown node %r" % (what, i, nodes[i]))
        return ids

    def select(self, seeds, k, candidates=None, damping=0.85, seed_weights=None):
        """See Store.select."""
        if isinstance(seeds, dict):
            if seed_weights is not None:
                raise ValueError("authppr: seeds as a dict carry their weights: pass no seed_weights")
            seed_weights = list(seeds.values())
            seeds = list(seeds)
        elif isinstance(seeds, (str, int)):
            seeds = [seeds]
        s, ns = _ids64(self._node_ids(seeds, "seed"), "seeds")
        w = None
        if seed_weights is not None:
            w, nw = _f64(seed_weights, "seed weights")
            if nw != ns:
                raise ValueError("authppr: %d seed weights for %d seeds" % (nw, ns))
        c, nc = None, 0
        if candidates is not None:
            c, nc = _ids64(self._node_ids(candidates, "candidate"), "candidates")
            if nc == 0:
                raise ValueError("authppr: empty candidate list")
        k, damping = _int64(k, "k"), float(damping)
        if k < 1:
            raise ValueError("authppr: k = %d, want at least 1" % k)
        kk = k if c is None else min(k, nc)
        ni, ns_, ai, asc = array("q", bytes(8 * kk)), array("d", bytes(8 * kk)), array("q", bytes(8 * kk)), array("d", bytes(8 * kk))
        ms = self.max_suspects
        se, ss, sd, sm = array("q", bytes(8 * ms)), array("q", bytes(8 * ms)), array("q", bytes(8 * ms)), array("d", bytes(8 * ms))
        sdel, snc = array("i", bytes(4 * ms)), array("i", bytes(4 * ms))
        dc, version = _DecisionC(), ctypes.c_uint64()
        p = lambda a: a.buffer_info()[0]
        strs = _text_call(_lib.authppr_store_guard_select,
                          (self._h, s.ptr, w.ptr if w else None, ns, kk, c.ptr if c else None, nc, damping,
                           p(ni), p(ns_), p(ai), p(asc), ms, p(se), p(ss), p(sd), p(sdel), p(sm), p(snc)),
                          ctypes.byref(version), ctypes.byref(dc), size=max(4096, 128 * kk))
        d = StoreDecision()
        nn, na = dc.n_native, dc.n_auth
        d.native, d.auth, rest = strs[:nn], strs[nn:nn + na], strs[nn + na:]
        d.native_ids, d.native_scores = ni[:nn].tolist(), ns_[:nn].tolist()
        d.auth_ids, d.auth_scores = ai[:na].tolist(), asc[:na].tolist()
        d.version = version.value
        d.suspects = []
        for i in range(dc.n_suspects):
            chans = tuple(rest[2:2 + snc[i]])
            d.suspects.append(Suspect(se[i], rest[0], rest[1], ",".join(chans), sm[i], chans, bool(sdel[i])))
            rest = rest[2 + snc[i]:]
        return _decide(d, dc, self.policy)
