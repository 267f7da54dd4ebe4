"""authppr: igraph-compatible Personalized PageRank and the integrity guard.

A binding over authppr's C ABI (the Go package cabi/), standard library only:
ctypes and array. numpy arrays (or anything exporting the buffer protocol)
are read in place when they are C-contiguous 32- or 64-bit integer ids
(signed or unsigned) or float64 values; nothing here imports numpy.

    g = authppr.Graph(n, edges, weights=None, directed=True, channels=None, max_memory=None)
    scores = g.personalized_pagerank(reset, damping=0.85)   # list of n floats
    t = g.top_k(reset, k, candidates=None, damping=0.85)     # proved top-k: t.ids, t.scores, t.certified
    guard = authppr.Guard(g, trust=["default"])
    d = guard.select(reset, k, candidates=None, damping=0.85)
    d.native, d.auth, d.divergent, d.path, d.suspects

personalized_pagerank is igraph's Graph.personalized_pagerank(reset=...,
implementation="prpack") on the same graph: the reset vector is normalised,
dangling nodes send their mass to it, parallel edges add up, an undirected
self-loop counts twice; solved to an L1 error bound of 1e-10.

Bad values (wrong lengths, node ids out of range, NaN or negative weights or
weights outside [2**-1022, 2**988], an all-zero reset, unknown trusted
channels, a graph whose build would need more memory than max_memory) raise
ValueError with the library's message; arguments of the wrong type raise
TypeError. The library is found at
$AUTHPPR_LIB or next to this file (build it with python/build.sh).
"""

import ctypes
import itertools
import os
import threading
from array import array
from collections import namedtuple

__all__ = ["Graph", "Guard", "Decision", "Suspect", "SolveStats", "TopK", "library_path"]

_OK, _EINVAL, _EHANDLE, _EINTERNAL = 0, 1, 2, 3
_PATHS = {1: "untouched", 2: "certificate", 3: "delta", 4: "full"}
_OUTCOMES = {0: "same", 1: "tie", 2: "divergent"}


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


_TOPK_ORDERED = 1


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError("authppr: shared library %s not found; build it with python/build.sh "
                          "(needs Go and a C compiler) or set AUTHPPR_LIB" % path)
    lib = ctypes.CDLL(path)
    i32, i64, u64, dbl, ptr = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_double, ctypes.c_void_p
    err = [ctypes.c_char_p, i64]
    sig = {
        "authppr_graph_create": [i64, i64, ptr, i32, ptr, i32, ptr, ptr, i64, i64, ctypes.POINTER(u64)],
        "authppr_graph_free": [u64],
        "authppr_graph_info": [u64, ctypes.POINTER(i64), ctypes.POINTER(i64), ctypes.POINTER(i32)],
        "authppr_ppr": [u64, ptr, i64, dbl, dbl, ptr, i64, ctypes.POINTER(_SolveStatsC)],
        "authppr_top_k": [u64, ptr, i64, i64, ptr, i64, dbl, dbl, i32, ptr, ptr, ptr, ptr, ctypes.POINTER(_TopKStatsC)],
        "authppr_guard_create": [u64, ptr, i64, i64, ctypes.POINTER(u64)],
        "authppr_guard_free": [u64],
        "authppr_guard_select": [u64, ptr, i64, i64, ptr, i64, dbl, ptr, ptr, ptr, ptr,
                                 i64, ptr, ptr, ptr, ptr, ptr, ctypes.POINTER(_DecisionC)],
    }
    for name, args in sig.items():
        f = getattr(lib, name)
        f.argtypes = args + err
        f.restype = ctypes.c_int
    return lib


_lib = _load()
_errbufs = threading.local()


def _errbuf():
    b = getattr(_errbufs, "buf", None)
    if b is None:
        b = _errbufs.buf = ctypes.create_string_buffer(4096)
    return b


def _check(status, buf):
    if status == _OK:
        return
    msg = buf.value.decode("utf-8", "replace")
    if status in (_EINVAL, _EHANDLE):
        raise ValueError(msg)
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
    """(index pointer, (names array, count, names)) for per-edge channel strings."""
    if not isinstance(channels, (list, tuple)):
        channels = list(channels)
    if len(channels) != m:
        raise ValueError("authppr: %d channels for %d edges" % (len(channels), m))
    table = {}
    try:
        idx = array("i", [table.setdefault(c, len(table)) for c in channels])
    except TypeError as e:  # unhashable channel
        raise TypeError("authppr: channels: %s" % e) from None
    return _from_array(idx), _names(list(table), "channel")


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


class Graph(_Handle):
    """An immutable graph over nodes 0..n-1 (isolated nodes allowed).

    edges: a sequence of (src, dst) integer pairs, or an (m, 2) buffer of
    32- or 64-bit integers, signed or unsigned (a numpy array), read in place
    when C-contiguous.
    weights: None (every weight 1) or m numbers, each 0 or within
    [2**-1022, 2**988] (so that no node's out-weight or its reciprocal can
    overflow).
    directed: False stores each edge both ways, as igraph's Graph(directed=False).
    channels: None (every edge on channel "default") or m strings naming the
    principal that wrote each edge; Guard trusts some of them.
    max_memory: the memory limit of building the graph, in bytes. None or 0
    (the default): half the memory available (MemAvailable and cgroup
    limits); a negative number: no limit. A graph whose build would need more (n
    nodes far beyond the edges, say) raises ValueError before anything is
    allocated.

    close() frees the library's graph early; a Guard built on it keeps working.
    """

    _free = "authppr_graph_free"

    def __init__(self, n, edges, weights=None, directed=True, channels=None, max_memory=None):
        n = _int64(n, "n")
        max_memory = 0 if max_memory is None else _int64(max_memory, "max_memory")
        ids, width, m = _edge_ids(edges)
        w = None
        if weights is not None:
            w, nw = _f64(weights, "weights")
            if nw != m:
                raise ValueError("authppr: %d weights for %d edges" % (nw, m))
        cidx, cnames, ncn, self.channel_names = None, None, 0, ["default"]
        if channels is not None:
            cidx, (cnames, ncn, self.channel_names) = _channels(channels, m)
        h = ctypes.c_uint64()
        _call(_lib.authppr_graph_create, n, m, ids.ptr, width, w.ptr if w else None, 1 if directed else 0,
              cidx.ptr if cidx else None, cnames, ncn, max_memory, ctypes.byref(h))
        self._h = h.value
        self.n, self.m, self.directed = n, m, bool(directed)
        self.last_stats = None

    def personalized_pagerank(self, reset, damping=0.85, out=None):
        """igraph's personalized_pagerank(reset=reset, damping=damping,
        implementation="prpack"): a list of n floats. reset has n
        non-negative entries, not all zero (normalised here). With out (a
        writable C-contiguous float64 buffer of n entries, say a numpy
        array) the scores are written there and out is returned instead."""
        r, nr = _f64(reset, "reset")
        damping = float(damping)
        stats = _SolveStatsC()
        if out is None:
            res = array("d", bytes(8 * self.n))
            _call(_lib.authppr_ppr, self._h, r.ptr, nr, damping, 0.0, res.buffer_info()[0], self.n, ctypes.byref(stats))
            self.last_stats = SolveStats(stats.solve_ns, stats.sweeps, stats.error_bound)
            return res.tolist()
        mv = _memoryview(out)
        if mv is None or mv.readonly or mv.format not in _F64_FORMATS or mv.ndim != 1 or not mv.c_contiguous:
            raise TypeError("authppr: out: want a writable C-contiguous float64 buffer")
        o = _from_memoryview(mv)
        _call(_lib.authppr_ppr, self._h, r.ptr, nr, damping, 0.0, o.ptr, len(mv), ctypes.byref(stats))
        self.last_stats = SolveStats(stats.solve_ns, stats.sweeps, stats.error_bound)
        return out

    def top_k(self, reset, k, candidates=None, damping=0.85, tol=1e-10, ordered=True):
        """The k best candidates (default: every node) of
        personalized_pagerank(reset, damping), best first, solved only until
        the selection is proved: as a set, and with ordered (the default)
        in its order too, or until the L1 error bound reaches tol. Returns
        a TopK: ids, scores and the certificate (certified, ordered, ties,
        leads, score_errors, proved_gap, ...). candidates are distinct node
        ids (a list, or an int64 numpy array read in place)."""
        r, nr = _f64(reset, "reset")
        k = _int64(k, "k")
        if k < 1:
            raise ValueError("authppr: k = %d, want at least 1" % k)
        c, nc = _candidates(candidates)
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


Suspect = namedtuple("Suspect", "edge src dst channel mass")
Suspect.__doc__ = ("An untrusted edge that carried native PPR mass: its index in the edge list, its "
                   "endpoints, the channel that wrote it and the mass.")


class Decision:
    """The guard's answer for one query.

    native: the top-k node ids on the whole graph (best first);
    auth: the top-k on the trusted edges only;
    divergent: True when untrusted edges changed the selection (beyond ties);
    selected: what to use (auth when divergent, else native);
    outcome: "same", "tie" or "divergent";
    path: how the replay decided ("untouched", "certificate", "delta", "full");
    suspects: on a divergence, the untrusted edges that carried the most native mass;
    native_scores, auth_scores, native_gap, gap (interval), native_ns, replay_ns.
    """

    __slots__ = ("native", "auth", "native_scores", "auth_scores", "divergent", "selected", "outcome", "path",
                 "suspects", "native_gap", "gap", "native_ns", "replay_ns")

    def __repr__(self):
        return ("Decision(native=%r, auth=%r, divergent=%r, outcome=%r, path=%r, suspects=%r)"
                % (self.native, self.auth, self.divergent, self.outcome, self.path, self.suspects))


class Guard(_Handle):
    """Guards top-k selections on g against edges from untrusted channels:
    every native selection is replayed on the edges of trusted channels
    (each name must label some edge of g; the default channel is "default")."""

    _free = "authppr_guard_free"

    def __init__(self, g, trust, max_suspects=5):
        if not isinstance(g, Graph):
            raise TypeError("authppr: Guard wants an authppr.Graph, got %s" % type(g).__name__)
        if isinstance(trust, str):
            raise TypeError("authppr: trust wants a list of channel names, got a string")
        names, nt, _ = _names(list(trust), "trusted channel")
        h = ctypes.c_uint64()
        _call(_lib.authppr_guard_create, g._h, names, nt, _int64(max_suspects, "max_suspects"), ctypes.byref(h))
        self._h = h.value
        self.graph, self.max_suspects = g, int(max_suspects) or 5
        self._channels = g.channel_names

    def select(self, reset, k, candidates=None, damping=0.85):
        """Native top-k over candidates (default: every node) for the reset
        vector, replayed on the trusted edges; returns a Decision."""
        r, nr = _f64(reset, "reset")
        k, damping = _int64(k, "k"), float(damping)
        if k < 1:
            raise ValueError("authppr: k = %d, want at least 1" % k)
        c, nc = _candidates(candidates)
        kk = min(k, self.graph.n)
        ni, ns, ai, asc = array("q", bytes(8 * kk)), array("d", bytes(8 * kk)), array("q", bytes(8 * kk)), array("d", bytes(8 * kk))
        ms = self.max_suspects
        se, ss, sd, sc, sm = (array("q", bytes(8 * ms)), array("q", bytes(8 * ms)), array("q", bytes(8 * ms)),
                              array("i", bytes(4 * ms)), array("d", bytes(8 * ms)))
        dc = _DecisionC()
        p = lambda a: a.buffer_info()[0]
        _call(_lib.authppr_guard_select, self._h, r.ptr, nr, kk, c.ptr if c else None, nc, damping,
              p(ni), p(ns), p(ai), p(asc), ms, p(se), p(ss), p(sd), p(sc), p(sm), ctypes.byref(dc))
        d = Decision()
        d.native, d.native_scores = ni[:dc.n_native].tolist(), ns[:dc.n_native].tolist()
        d.auth, d.auth_scores = ai[:dc.n_auth].tolist(), asc[:dc.n_auth].tolist()
        d.divergent = bool(dc.divergent)
        d.selected = d.auth if d.divergent else d.native
        d.outcome, d.path = _OUTCOMES.get(dc.outcome, str(dc.outcome)), _PATHS.get(dc.path, str(dc.path))
        d.suspects = [Suspect(se[i], ss[i], sd[i], self._channels[sc[i]], sm[i]) for i in range(dc.n_suspects)]
        d.native_gap, d.gap = dc.native_gap, (dc.gap_lo, dc.gap_hi)
        d.native_ns, d.replay_ns = dc.native_ns, dc.replay_ns
        return d
