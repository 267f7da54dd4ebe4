//go:build cgo

package main

// Go wrappers that call the exported functions the way a C caller does:
// arguments copied into C memory, the call made through cgo (Go -> C -> the
// export), results copied back. Test files cannot use cgo, so the tests in
// cabi_test.go call these. They are small and unexported; they cost the
// shared library nothing at run time.

/*
#include <stdlib.h>
#include <string.h>
#include "authppr.h"
*/
import "C"

import (
	"math"
	"unsafe"
)

var nan = math.NaN()

// cErr is one call's outcome as a C caller sees it.
type cErr struct {
	status int
	msg    string
}

// cBuf is C memory holding a copy of a Go slice (nil slice: NULL).
type cBuf struct{ p unsafe.Pointer }

func toC[T any](s []T) cBuf {
	if s == nil {
		return cBuf{}
	}
	var zero T
	size := C.size_t(len(s)) * C.size_t(unsafe.Sizeof(zero))
	p := C.malloc(max(size, 1))
	if len(s) > 0 {
		C.memcpy(p, unsafe.Pointer(&s[0]), size)
	}
	return cBuf{p}
}

func (b cBuf) free() {
	if b.p != nil {
		C.free(b.p)
	}
}

// fromC copies n values of C memory back into Go.
func fromC[T any](b cBuf, n int) []T {
	out := make([]T, n)
	copy(out, unsafe.Slice((*T)(b.p), n))
	return out
}

// cStrings returns a C array of C strings (NULL for a nil slice) and its
// release function.
func cStrings(names []string) (**C.char, func()) {
	if names == nil {
		return nil, func() {}
	}
	arr := (**C.char)(C.malloc(C.size_t(max(len(names), 1)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	ps := unsafe.Slice(arr, max(len(names), 1))
	for i, s := range names {
		ps[i] = C.CString(s)
	}
	return arr, func() {
		for i := range names {
			C.free(unsafe.Pointer(ps[i]))
		}
		C.free(unsafe.Pointer(arr))
	}
}

// errCap is the error buffer the wrappers pass; tests of truncation pass
// their own.
const errCap = 1024

func withErrBuf(capacity int, f func(*C.char, C.int64_t) C.int) cErr {
	var buf *C.char
	if capacity > 0 {
		buf = (*C.char)(C.malloc(C.size_t(capacity)))
		defer C.free(unsafe.Pointer(buf))
		C.memset(unsafe.Pointer(buf), 'x', C.size_t(capacity))
	}
	st := f(buf, C.int64_t(capacity))
	e := cErr{status: int(st)}
	if buf != nil {
		e.msg = C.GoString(buf)
	}
	return e
}

// cGraphCreate calls authppr_graph_create. idxBytes picks the id type the
// ids are passed in (4 or 8: signed, -4 or -8: unsigned, each converted as
// Go converts); weights and chanOf may be nil. The memory limit is the
// default.
func cGraphCreate(n int64, ids []int64, idxBytes int, weights []float64, directed bool, chanOf []int32, names []string) (uint64, cErr) {
	return cGraphCreateLimited(n, ids, idxBytes, weights, directed, chanOf, names, 0)
}

// cGraphCreateLimited is cGraphCreate with authppr_graph_create's
// max_memory.
func cGraphCreateLimited(n int64, ids []int64, idxBytes int, weights []float64, directed bool, chanOf []int32, names []string, maxMemory int64) (uint64, cErr) {
	return cGraphCreateFull(n, ids, idxBytes, weights, directed, chanOf, names, nil, nil, maxMemory)
}

// cGraphCreateFull is authppr_graph_create with every argument:
// requirement offsets and channels too (nil: NULL).
func cGraphCreateFull(n int64, ids []int64, idxBytes int, weights []float64, directed bool, chanOf []int32, names []string,
	reqOff []int64, reqChan []int32, maxMemory int64) (uint64, cErr) {
	var edges cBuf
	switch idxBytes {
	case 4:
		ids32 := make([]int32, len(ids))
		for i, v := range ids {
			ids32[i] = int32(v)
		}
		edges = toC(ids32)
	case -4:
		u32 := make([]uint32, len(ids))
		for i, v := range ids {
			u32[i] = uint32(v)
		}
		edges = toC(u32)
	case -8:
		u64 := make([]uint64, len(ids))
		for i, v := range ids {
			u64[i] = uint64(v)
		}
		edges = toC(u64)
	default:
		edges = toC(ids)
	}
	defer edges.free()
	w, ch, ro, rc := toC(weights), toC(chanOf), toC(reqOff), toC(reqChan)
	defer w.free()
	defer ch.free()
	defer ro.free()
	defer rc.free()
	cn, release := cStrings(names)
	defer release()
	d := C.int32_t(0)
	if directed {
		d = 1
	}
	var h C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_graph_create(C.int64_t(n), C.int64_t(len(ids)/2), edges.p, C.int32_t(idxBytes),
			(*C.double)(w.p), d, (*C.int32_t)(ch.p), cn, C.int64_t(len(names)), (*C.int64_t)(ro.p), (*C.int32_t)(rc.p),
			C.int64_t(maxMemory), &h, buf, capacity)
	})
	return uint64(h), e
}

func cGraphFree(h uint64) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_graph_free(C.uint64_t(h), buf, capacity)
	})
}

func cGraphInfo(h uint64) (n, m int64, directed bool, e cErr) {
	var cn, cm C.int64_t
	var cd C.int32_t
	e = withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_graph_info(C.uint64_t(h), &cn, &cm, &cd, buf, capacity)
	})
	return int64(cn), int64(cm), cd == 1, e
}

// cPPR calls authppr_ppr with an output of nout doubles (NaN-filled, so a
// stray or missing write shows) and an error buffer of errCapacity bytes.
func cPPR(h uint64, reset []float64, damping, tol float64, nout int, errCapacity int) ([]float64, solveStats, cErr) {
	r := toC(reset)
	defer r.free()
	out := toC(nanSlice(nout))
	defer out.free()
	var st C.authppr_solve_stats
	e := withErrBuf(errCapacity, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_ppr(C.uint64_t(h), (*C.double)(r.p), C.int64_t(len(reset)), C.double(damping), C.double(tol),
			(*C.double)(out.p), C.int64_t(nout), &st, buf, capacity)
	})
	return fromC[float64](out, nout), solveStats{int64(st.solve_ns), int64(st.sweeps), float64(st.error_bound)}, e
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = nan
	}
	return s
}

func cGuardCreate(h uint64, trust []string, maxSuspects int64) (uint64, cErr) {
	tn, release := cStrings(trust)
	defer release()
	var g C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_guard_create(C.uint64_t(h), tn, C.int64_t(len(trust)), C.int64_t(maxSuspects), &g, buf, capacity)
	})
	return uint64(g), e
}

func cGuardFree(h uint64) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_guard_free(C.uint64_t(h), buf, capacity)
	})
}

// cDecision is authppr_guard_select's output, copied into Go.
type cDecision struct {
	Native, Auth             []int64
	NativeScores, AuthScores []float64
	Suspects                 []suspect
	Outcome, Path            int
	Divergent                bool
	NativeGap, GapLo, GapHi  float64
}

func cGuardSelect(h uint64, reset []float64, k int64, candidates []int64, damping float64, capSuspects int) (cDecision, cErr) {
	return cGuardSelectChans(h, reset, k, candidates, damping, capSuspects, capSuspects)
}

// cGuardSelectChans is cGuardSelect with room for capChans suspect
// channels.
func cGuardSelectChans(h uint64, reset []float64, k int64, candidates []int64, damping float64, capSuspects, capChans int) (cDecision, cErr) {
	r, cand := toC(reset), toC(candidates)
	defer r.free()
	defer cand.free()
	kk := max(int(k), 0)
	ni, ns, ai, as := toC(make([]int64, kk)), toC(make([]float64, kk)), toC(make([]int64, kk)), toC(make([]float64, kk))
	se, ss, sd := toC(make([]int64, capSuspects)), toC(make([]int64, capSuspects)), toC(make([]int64, capSuspects))
	sm, so, sc := toC(make([]float64, capSuspects)), toC(make([]int64, capSuspects+1)), toC(make([]int32, capChans))
	for _, b := range []cBuf{ni, ns, ai, as, se, ss, sd, sc, sm, so} {
		defer b.free()
	}
	var d C.authppr_decision
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_guard_select(C.uint64_t(h), (*C.double)(r.p), C.int64_t(len(reset)), C.int64_t(k),
			(*C.int64_t)(cand.p), C.int64_t(len(candidates)), C.double(damping),
			(*C.int64_t)(ni.p), (*C.double)(ns.p), (*C.int64_t)(ai.p), (*C.double)(as.p),
			C.int64_t(capSuspects), (*C.int64_t)(se.p), (*C.int64_t)(ss.p), (*C.int64_t)(sd.p), (*C.double)(sm.p),
			(*C.int64_t)(so.p), (*C.int32_t)(sc.p), C.int64_t(capChans), &d, buf, capacity)
	})
	if e.status != 0 {
		return cDecision{}, e
	}
	out := cDecision{
		Native: fromC[int64](ni, int(d.n_native)), NativeScores: fromC[float64](ns, int(d.n_native)),
		Auth: fromC[int64](ai, int(d.n_auth)), AuthScores: fromC[float64](as, int(d.n_auth)),
		Outcome: int(d.outcome), Path: int(d.path), Divergent: d.divergent == 1,
		NativeGap: float64(d.native_gap), GapLo: float64(d.gap_lo), GapHi: float64(d.gap_hi),
	}
	edges, srcs, dsts := fromC[int64](se, int(d.n_suspects)), fromC[int64](ss, int(d.n_suspects)), fromC[int64](sd, int(d.n_suspects))
	masses, offs, chans := fromC[float64](sm, int(d.n_suspects)), fromC[int64](so, int(d.n_suspects)+1), fromC[int32](sc, capChans)
	for i := range edges {
		out.Suspects = append(out.Suspects, suspect{Edge: edges[i], Src: srcs[i], Dst: dsts[i], Channels: chans[offs[i]:offs[i+1]], Mass: masses[i]})
	}
	return out, e
}

// cTopK calls authppr_top_k with outputs of room entries (NaN- or
// -1-filled, so a missing write shows; room < k tests nothing the ABI can
// check) and returns the n written entries.
func cTopK(h uint64, reset []float64, k int64, candidates []int64, damping, tol float64, flags int32) (*topKResult, cErr) {
	r, cand := toC(reset), toC(candidates)
	defer r.free()
	defer cand.free()
	room := int(min(max(k, 1), 1<<16))
	fill := make([]int64, room)
	for i := range fill {
		fill[i] = -1
	}
	ids, scores, leads, errs := toC(fill), toC(nanSlice(room)), toC(nanSlice(room)), toC(nanSlice(room))
	for _, b := range []cBuf{ids, scores, leads, errs} {
		defer b.free()
	}
	var st C.authppr_topk_stats
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_top_k(C.uint64_t(h), (*C.double)(r.p), C.int64_t(len(reset)), C.int64_t(k),
			(*C.int64_t)(cand.p), C.int64_t(len(candidates)), C.double(damping), C.double(tol), C.int32_t(flags),
			(*C.int64_t)(ids.p), (*C.double)(scores.p), (*C.double)(leads.p), (*C.double)(errs.p), &st, buf, capacity)
	})
	if e.status != 0 {
		return nil, e
	}
	n := int(st.n)
	out := &topKResult{
		IDs: fromC[int64](ids, n), Scores: fromC[float64](scores, n), Leads: fromC[float64](leads, n),
		ScoreErrs: fromC[float64](errs, n), Certified: st.certified == 1, Ordered: st.ordered == 1,
		Gap: float64(st.gap), ProvedGap: float64(st.proved_gap), ErrorBound: float64(st.error_bound),
		CoordBound: float64(st.coord_bound), Sweeps: int64(st.sweeps), Scans: int64(st.scans), SolveNanos: int64(st.solve_ns),
	}
	// Entries past n must be untouched.
	if n < room && (fromC[int64](ids, room)[n] != -1 || !math.IsNaN(fromC[float64](scores, room)[n])) {
		return nil, cErr{status: -1, msg: "harness: authppr_top_k wrote past n"}
	}
	return out, e
}

// cTopKNullStats calls authppr_top_k with stats NULL.
func cTopKNullStats(h uint64, reset []float64) cErr {
	r := toC(reset)
	defer r.free()
	ids, scores := toC(make([]int64, 1)), toC(make([]float64, 1))
	defer ids.free()
	defer scores.free()
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_top_k(C.uint64_t(h), (*C.double)(r.p), C.int64_t(len(reset)), 1, nil, 0, 0.5, 0, 0,
			(*C.int64_t)(ids.p), (*C.double)(scores.p), nil, nil, nil, buf, capacity)
	})
}

// cVersion calls authppr_version with a buffer of capacity bytes.
func cVersion(capacity int) (string, cErr) {
	var out string
	e := withErrBuf(errCap, func(buf *C.char, errc C.int64_t) C.int {
		var vb *C.char
		if capacity > 0 {
			vb = (*C.char)(C.malloc(C.size_t(capacity)))
			defer C.free(unsafe.Pointer(vb))
		}
		st := C.authppr_version(vb, C.int64_t(capacity), buf, errc)
		if st == 0 {
			out = C.GoString(vb)
		}
		return st
	})
	return out, e
}

// cCallPanicking runs a function that panics through the recovery every
// export uses.
func cCallPanicking(p any) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return call(buf, capacity, func() error { panic(p) })
	})
}
