//go:build cgo

package main

/*
#include "authppr.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"

	"github.com/authppr/authppr/internal/version"
)

// Statuses as Go values.
const (
	statusOK       = C.AUTHPPR_OK
	statusInvalid  = C.AUTHPPR_EINVAL
	statusHandle   = C.AUTHPPR_EHANDLE
	statusInternal = C.AUTHPPR_EINTERNAL
	statusSpace    = C.AUTHPPR_ESPACE
)

// errHandle marks errors about handles (status 2).
type errHandle struct{ error }

// call runs f, turning its error or panic into a status code and a message
// in errbuf. Every export goes through it.
func call(errbuf *C.char, errcap C.int64_t, f func() error) (status C.int) {
	defer func() {
		if p := recover(); p != nil {
			status = statusInternal
			writeErr(errbuf, errcap, fmt.Sprintf("cabi: internal error (please report): %v\n%s", p, debug.Stack()))
		}
	}()
	err := f()
	if err == nil {
		writeErr(errbuf, errcap, "")
		return statusOK
	}
	writeErr(errbuf, errcap, err.Error())
	var h errHandle
	if errors.As(err, &h) {
		return statusHandle
	}
	var sp errSpace
	if errors.As(err, &sp) {
		return statusSpace
	}
	return statusInvalid
}

// writeErr copies msg into the caller's buffer, NUL-terminated, truncated
// to fit.
func writeErr(errbuf *C.char, errcap C.int64_t, msg string) {
	if errbuf == nil || errcap <= 0 {
		return
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(errbuf)), int(errcap))
	n := copy(buf[:len(buf)-1], msg)
	buf[n] = 0
}

// slice views C memory as a Go slice for the duration of a call; nil for a
// NULL pointer. Lengths are checked by the caller of slice.
func slice[T any](p unsafe.Pointer, n C.int64_t) []T {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*T)(p), int(n))
}

// goStrings copies n C strings from the array at p; a NULL entry is an
// error naming it as what.
func goStrings(p unsafe.Pointer, n C.int64_t, what string) ([]string, error) {
	var out []string
	for i, c := range slice[*C.char](p, n) {
		if c == nil {
			return nil, fmt.Errorf("cabi: %s %d is NULL", what, i)
		}
		out = append(out, C.GoString(c))
	}
	return out, nil
}

// length checks a C length argument.
func length(what string, n C.int64_t, p unsafe.Pointer) error {
	if n < 0 {
		return fmt.Errorf("cabi: %s length %d, want >= 0", what, n)
	}
	if p == nil && n > 0 {
		return fmt.Errorf("cabi: %s is NULL with length %d", what, n)
	}
	return nil
}

func graphOf(h C.uint64_t) (*graphState, error) {
	st, err := get[*graphState](&handles, uint64(h), "graph")
	if err != nil {
		return nil, errHandle{err}
	}
	return st, nil
}

func guardOf(h C.uint64_t) (*guardState, error) {
	gs, err := get[*guardState](&handles, uint64(h), "guard")
	if err != nil {
		return nil, errHandle{err}
	}
	return gs, nil
}

// authppr_graph_create builds a graph over nodes 0..n-1 with m edges.
// edges holds 2*m node ids as pairs (src0, dst0, src1, dst1, ...), each
// idx_bytes wide, native byte order: 4 or 8 for signed ids, -4 or -8 for
// unsigned ones (numpy's uint32, Python's array('I')). weights (m doubles)
// may be NULL: every weight is 1. channels (m int32 indices into
// channel_names, nchannels C strings) may be NULL: every edge is on the
// channel "default". reqOffsets (m+1 int64) and reqChannels
// (reqOffsets[m] int32 indices into channel_names) may be NULL: edge e
// depends, beyond its channel, on reqChannels[reqOffsets[e] ..
// reqOffsets[e+1]-1] (min-inheritance: a guard's authenticated view keeps
// it only if it trusts all of them). directed is 0 or 1. maxMemory is the memory limit of
// the build in bytes (0: half the memory available; negative: none): a
// graph whose build would need more is refused before it is allocated. On
// success *out is the handle.
//
//export authppr_graph_create
func authppr_graph_create(n C.int64_t, m C.int64_t, edges unsafe.Pointer, idxBytes C.int32_t,
	weights *C.double, directed C.int32_t, channels *C.int32_t, channelNames **C.char, nchannels C.int64_t,
	reqOffsets *C.int64_t, reqChannels *C.int32_t,
	maxMemory C.int64_t, out *C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		if out == nil {
			return errors.New("cabi: graph_create: out is NULL")
		}
		if err := length("edges", m, edges); err != nil {
			return err
		}
		if err := length("channel names", nchannels, unsafe.Pointer(channelNames)); err != nil {
			return err
		}
		var ids edgeIDs
		switch idxBytes {
		case 4:
			ids.ids32 = slice[int32](edges, 2*m)
		case 8:
			ids.ids64 = slice[int64](edges, 2*m)
		case -4:
			ids.u32 = slice[uint32](edges, 2*m)
		case -8:
			ids.u64 = slice[uint64](edges, 2*m)
		default:
			return fmt.Errorf("cabi: node ids %d bytes wide, want 4 or 8 (signed), -4 or -8 (unsigned)", idxBytes)
		}
		if directed != 0 && directed != 1 {
			return fmt.Errorf("cabi: directed = %d, want 0 or 1", directed)
		}
		names, err := goStrings(unsafe.Pointer(channelNames), nchannels, "channel name")
		if err != nil {
			return err
		}
		st, err := newGraph(int64(n), ids, slice[float64](unsafe.Pointer(weights), m), directed == 1,
			slice[int32](unsafe.Pointer(channels), m), names, int64(maxMemory))
		if err != nil {
			return err
		}
		if reqOffsets != nil {
			offs := slice[int64](unsafe.Pointer(reqOffsets), m+1)
			total := C.int64_t(offs[m])
			if err := length("required channels", total, unsafe.Pointer(reqChannels)); err != nil {
				return err
			}
			if err := st.require(offs, slice[int32](unsafe.Pointer(reqChannels), total)); err != nil {
				return err
			}
		} else if reqChannels != nil {
			return errors.New("cabi: graph_create: required channels given without their offsets")
		}
		*out = C.uint64_t(handles.put(st))
		return nil
	})
}

// authppr_version writes authppr's version (internal/version), NUL
// terminated, to buf (capacity bytes; truncated to fit).
//
//export authppr_version
func authppr_version(buf *C.char, capacity C.int64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		if buf == nil || capacity < 1 {
			return fmt.Errorf("cabi: version: buffer NULL or capacity %d, want room for at least 1 byte", capacity)
		}
		writeErr(buf, capacity, version.Version)
		return nil
	})
}

// authppr_graph_free releases a graph handle.
//
//export authppr_graph_free
func authppr_graph_free(h C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return freeHandle[*graphState](h, "graph", errbuf, errcap)
}

// authppr_graph_info reports the node and edge counts and whether the graph
// is directed; any pointer may be NULL.
//
//export authppr_graph_info
func authppr_graph_info(h C.uint64_t, n, m *C.int64_t, directed *C.int32_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		st, err := graphOf(h)
		if err != nil {
			return err
		}
		if n != nil {
			*n = C.int64_t(st.g.NumNodes())
		}
		if m != nil {
			*m = C.int64_t(st.g.NumEdges())
		}
		if directed != nil {
			*directed = 0
			if st.g.Directed() {
				*directed = 1
			}
		}
		return nil
	})
}

// authppr_ppr writes igraph's personalized_pagerank(reset=reset) to out
// (nout doubles, nout == n). tol is the L1 error bound (0: 1e-10). stats may
// be NULL.
//
//export authppr_ppr
func authppr_ppr(h C.uint64_t, reset *C.double, nreset C.int64_t, damping C.double, tol C.double,
	out *C.double, nout C.int64_t, stats *C.authppr_solve_stats, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		st, err := graphOf(h)
		if err != nil {
			return err
		}
		if err := length("reset", nreset, unsafe.Pointer(reset)); err != nil {
			return err
		}
		if err := length("out", nout, unsafe.Pointer(out)); err != nil {
			return err
		}
		s, err := st.personalizedPageRank(slice[float64](unsafe.Pointer(reset), nreset), float64(damping), float64(tol),
			slice[float64](unsafe.Pointer(out), nout))
		if err != nil {
			return err
		}
		if stats != nil {
			stats.solve_ns = C.int64_t(s.SolveNanos)
			stats.sweeps = C.int64_t(s.Sweeps)
			stats.error_bound = C.double(s.ErrorBound)
		}
		return nil
	})
}

// authppr_top_k writes the top-k of authppr_ppr's vector over the
// candidates (ncand distinct int64 node ids; NULL: every node) to ids and
// scores (room for k entries each), best first, solving only until the
// selection is proved (flags & AUTHPPR_TOPK_ORDERED: its order too) or the
// L1 error bound reaches tol (0: 1e-10). leads and errs (k entries each)
// may be NULL; stats may not (stats->n counts the entries written).
//
//export authppr_top_k
func authppr_top_k(h C.uint64_t, reset *C.double, nreset C.int64_t, k C.int64_t, candidates *C.int64_t, ncand C.int64_t,
	damping C.double, tol C.double, flags C.int32_t, ids *C.int64_t, scores *C.double, leads *C.double, errs *C.double,
	stats *C.authppr_topk_stats, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		st, err := graphOf(h)
		if err != nil {
			return err
		}
		if stats == nil {
			return errors.New("cabi: top_k: stats is NULL")
		}
		if ids == nil || scores == nil {
			return errors.New("cabi: top_k: ids or scores is NULL")
		}
		if flags&^C.AUTHPPR_TOPK_ORDERED != 0 {
			return fmt.Errorf("cabi: top_k: flags = %d, want 0 or AUTHPPR_TOPK_ORDERED (1)", flags)
		}
		if err := length("reset", nreset, unsafe.Pointer(reset)); err != nil {
			return err
		}
		if err := length("candidates", ncand, unsafe.Pointer(candidates)); err != nil {
			return err
		}
		var cand []int64
		if candidates != nil {
			cand = slice[int64](unsafe.Pointer(candidates), ncand)
		}
		r, err := st.topK(slice[float64](unsafe.Pointer(reset), nreset), int64(k), cand, float64(damping), float64(tol),
			flags&C.AUTHPPR_TOPK_ORDERED != 0)
		if err != nil {
			return err
		}
		// topK checked 1 <= k <= MaxInt32, and len(r.IDs) <= k.
		nr := C.int64_t(len(r.IDs))
		copy(slice[int64](unsafe.Pointer(ids), nr), r.IDs)
		copy(slice[float64](unsafe.Pointer(scores), nr), r.Scores)
		if leads != nil {
			copy(slice[float64](unsafe.Pointer(leads), nr), r.Leads)
		}
		if errs != nil {
			copy(slice[float64](unsafe.Pointer(errs), nr), r.ScoreErrs)
		}
		*stats = C.authppr_topk_stats{
			n: nr, gap: C.double(r.Gap), proved_gap: C.double(r.ProvedGap), error_bound: C.double(r.ErrorBound),
			coord_bound: C.double(r.CoordBound), sweeps: C.int64_t(r.Sweeps), scans: C.int64_t(r.Scans), solve_ns: C.int64_t(r.SolveNanos),
		}
		if r.Certified {
			stats.certified = 1
		}
		if r.Ordered {
			stats.ordered = 1
		}
		return nil
	})
}

// authppr_guard_create builds a guard on graph h that trusts the named
// channels (ntrust C strings; each must label some edge). max_suspects caps
// the suspect edges a decision names (0: 5).
//
//export authppr_guard_create
func authppr_guard_create(h C.uint64_t, trust **C.char, ntrust C.int64_t, maxSuspects C.int64_t,
	out *C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		if out == nil {
			return errors.New("cabi: guard_create: out is NULL")
		}
		st, err := graphOf(h)
		if err != nil {
			return err
		}
		if err := length("trust", ntrust, unsafe.Pointer(trust)); err != nil {
			return err
		}
		names, err := goStrings(unsafe.Pointer(trust), ntrust, "trusted channel")
		if err != nil {
			return err
		}
		gs, err := newGuard(st, names, int(maxSuspects))
		if err != nil {
			return err
		}
		*out = C.uint64_t(handles.put(gs))
		return nil
	})
}

// authppr_guard_free releases a guard handle.
//
//export authppr_guard_free
func authppr_guard_free(h C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return freeHandle[*guardState](h, "guard", errbuf, errcap)
}

// freeHandle drops handle h, which must name a T.
func freeHandle[T any](h C.uint64_t, kind string, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		if err := free[T](&handles, uint64(h), kind); err != nil {
			return errHandle{err}
		}
		return nil
	})
}

// authppr_guard_select runs the guard: native top-k on every edge, replay
// on the trusted edges, decision. reset is dense (nreset == n); candidates
// (ncand int64 node ids) may be NULL: every node competes. native_* and
// auth_* have room for k entries, the suspect arrays for cap_suspects
// (which must be at least the guard's max suspects); suspect i's untrusted
// channels are s_chans[s_chan_off[i] .. s_chan_off[i+1]-1] (indices into
// the graph's channel table; s_chan_off has cap_suspects+1 entries, s_chans
// cap_chans); d receives the counts and the outcome. Under the guard's policy (reject) the selection to use
// is auth when d->divergent, else native.
//
//export authppr_guard_select
func authppr_guard_select(h C.uint64_t, reset *C.double, nreset C.int64_t, k C.int64_t,
	candidates *C.int64_t, ncand C.int64_t, damping C.double,
	nativeIDs *C.int64_t, nativeScores *C.double, authIDs *C.int64_t, authScores *C.double,
	capSuspects C.int64_t, sEdge, sSrc, sDst *C.int64_t, sMass *C.double, sChanOff *C.int64_t, sChans *C.int32_t, capChans C.int64_t,
	d *C.authppr_decision, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		gs, err := guardOf(h)
		if err != nil {
			return err
		}
		if d == nil {
			return errors.New("cabi: guard_select: decision is NULL")
		}
		if err := length("reset", nreset, unsafe.Pointer(reset)); err != nil {
			return err
		}
		if err := length("candidates", ncand, unsafe.Pointer(candidates)); err != nil {
			return err
		}
		if k < 1 {
			return fmt.Errorf("cabi: k = %d, want at least 1", k)
		}
		if nativeIDs == nil || nativeScores == nil || authIDs == nil || authScores == nil {
			return errors.New("cabi: guard_select: a native or auth output array is NULL")
		}
		if most := gs.guard.Options().MaxSuspects; int64(capSuspects) < int64(most) {
			return fmt.Errorf("cabi: guard_select: room for %d suspects, the guard names up to %d", capSuspects, most)
		}
		if sEdge == nil || sSrc == nil || sDst == nil || sMass == nil || sChanOff == nil {
			return errors.New("cabi: guard_select: a suspect output array is NULL")
		}
		if err := length("suspect channels", capChans, unsafe.Pointer(sChans)); err != nil {
			return err
		}
		var cand []int64
		if candidates != nil {
			cand = slice[int64](unsafe.Pointer(candidates), ncand)
		}
		r, err := gs.sel(slice[float64](unsafe.Pointer(reset), nreset), int64(k), cand, float64(damping))
		if err != nil {
			return err
		}
		nchans := 0
		for _, s := range r.suspects {
			nchans += len(s.Channels)
		}
		if int64(nchans) > int64(capChans) {
			return fmt.Errorf("cabi: guard_select: room for %d suspect channels, the suspects name %d", capChans, nchans)
		}
		dec := r.d
		ni, ns := slice[int64](unsafe.Pointer(nativeIDs), k), slice[float64](unsafe.Pointer(nativeScores), k)
		for i, s := range dec.Native {
			ni[i], ns[i] = int64(s.Node), s.Score
		}
		ai, asc := slice[int64](unsafe.Pointer(authIDs), k), slice[float64](unsafe.Pointer(authScores), k)
		for i, s := range dec.Auth {
			ai[i], asc[i] = int64(s.Node), s.Score
		}
		se, ss, sd := slice[int64](unsafe.Pointer(sEdge), capSuspects), slice[int64](unsafe.Pointer(sSrc), capSuspects), slice[int64](unsafe.Pointer(sDst), capSuspects)
		sm, so := slice[float64](unsafe.Pointer(sMass), capSuspects), slice[int64](unsafe.Pointer(sChanOff), capSuspects+1)
		sc := slice[int32](unsafe.Pointer(sChans), capChans)
		so[0] = 0
		for i, s := range r.suspects {
			se[i], ss[i], sd[i], sm[i] = s.Edge, s.Src, s.Dst, s.Mass
			so[i+1] = so[i] + int64(copy(sc[so[i]:], s.Channels))
		}
		*d = C.authppr_decision{
			n_native: C.int64_t(len(dec.Native)), n_auth: C.int64_t(len(dec.Auth)), n_suspects: C.int64_t(len(r.suspects)),
			outcome: C.int32_t(dec.Outcome), path: C.int32_t(dec.Path),
			native_gap: C.double(dec.NativeGap), gap_lo: C.double(dec.Gap.Lo), gap_hi: C.double(dec.Gap.Hi),
			native_ns: C.int64_t(dec.NativeTime.Nanoseconds()), replay_ns: C.int64_t(dec.ReplayTime.Nanoseconds()),
		}
		if dec.Divergent {
			d.divergent = 1
		}
		return nil
	})
}
