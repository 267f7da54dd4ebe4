//go:build cgo

package main

// The store's exports called as a C caller calls them (see harness.go).

/*
#include <stdlib.h>
#include "authppr.h"
*/
import "C"

import (
	"bytes"
	"unsafe"
)

// cText lays out strings as one text buffer and offsets (nil names: NULL
// offsets).
func cText(names []string) (text, offs cBuf) {
	if names == nil {
		return cBuf{}, cBuf{}
	}
	var b []byte
	off := []int64{0}
	for _, s := range names {
		b = append(b, s...)
		off = append(off, int64(len(b)))
	}
	return toC(append(b, 0)), toC(off)
}

// splitText reads NUL-terminated strings back.
func splitText(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b[:len(b)-1], []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

func cStoreOpen(dir string, directed bool, compactAt int64) (uint64, cErr) {
	var cd *C.char
	if dir != "" {
		cd = C.CString(dir)
		defer C.free(unsafe.Pointer(cd))
	}
	d := C.int32_t(0)
	if directed {
		d = 1
	}
	var h C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_open(cd, d, C.int64_t(compactAt), &h, buf, capacity)
	})
	return uint64(h), e
}

func cStoreCreate(dir string, g uint64, names []string) (uint64, cErr) {
	cd := C.CString(dir)
	defer C.free(unsafe.Pointer(cd))
	text, offs := cText(names)
	defer text.free()
	defer offs.free()
	var h C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_create(cd, C.uint64_t(g), (*C.char)(text.p), (*C.int64_t)(offs.p), C.int64_t(len(names)), 0, &h, buf, capacity)
	})
	return uint64(h), e
}

func cStoreFree(h uint64) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_free(C.uint64_t(h), buf, capacity)
	})
}

func cStoreCompact(h uint64) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_compact(C.uint64_t(h), buf, capacity)
	})
}

// cStoreInfo calls authppr_store_info with a text buffer of capText bytes.
func cStoreInfo(h uint64, capText int) (storeInfo, int64, cErr) {
	var info C.authppr_store_counts
	text := toC(make([]byte, max(capText, 1)))
	defer text.free()
	var needed C.int64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_info(C.uint64_t(h), &info, (*C.char)(text.p), C.int64_t(capText), &needed, buf, capacity)
	})
	out := storeInfo{Nodes: int64(info.nodes), Edges: int64(info.edges), DeltaEdges: int64(info.delta_edges),
		Batches: uint64(info.batches), Directed: info.directed == 1}
	if e.status == 0 {
		out.Channels = splitText(fromC[byte](text, int(needed)))
	}
	return out, int64(needed), e
}

func cStoreIDs(h uint64, names []string) ([]int64, cErr) {
	text, offs := cText(names)
	defer text.free()
	defer offs.free()
	ids := toC(make([]int64, max(len(names), 1)))
	defer ids.free()
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_ids(C.uint64_t(h), (*C.char)(text.p), (*C.int64_t)(offs.p), C.int64_t(len(names)), (*C.int64_t)(ids.p), buf, capacity)
	})
	return fromC[int64](ids, len(names)), e
}

func cStoreNames(h uint64, ids []int64, capText int) ([]string, int64, cErr) {
	in := toC(ids)
	defer in.free()
	text := toC(make([]byte, max(capText, 1)))
	defer text.free()
	var needed C.int64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_names(C.uint64_t(h), (*C.int64_t)(in.p), C.int64_t(len(ids)), (*C.char)(text.p), C.int64_t(capText), &needed, buf, capacity)
	})
	if e.status != 0 {
		return nil, int64(needed), e
	}
	return splitText(fromC[byte](text, int(needed))), int64(needed), e
}

func cStoreWriter(h uint64, channel string) (uint64, cErr) {
	cc := C.CString(channel)
	defer C.free(unsafe.Pointer(cc))
	var w C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_writer(C.uint64_t(h), cc, &w, buf, capacity)
	})
	return uint64(w), e
}

func cWriterFree(w uint64) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_writer_free(C.uint64_t(w), buf, capacity)
	})
}

// cOps is a batch in columns, as a C caller lays it out (nil: NULL).
type cOps struct {
	kinds          []int32
	names          []string // 2 per write (src, dst); nil: no names
	srcIDs, dstIDs []int64
	weights        []float64
	edges          []int64
	fromOff, from  []int64
}

// cWriterApply calls authppr_writer_apply; it returns the ids, counts
// and the new version's batch count.
func cWriterApply(w uint64, ops cOps) (ids, counts []int64, batches uint64, e cErr) {
	n := len(ops.kinds)
	kinds := toC(ops.kinds)
	text, offs := cText(ops.names)
	si, di, wt, ed, fo, fr := toC(ops.srcIDs), toC(ops.dstIDs), toC(ops.weights), toC(ops.edges), toC(ops.fromOff), toC(ops.from)
	oi, oc := toC(make([]int64, max(n, 1))), toC(make([]int64, max(n, 1)))
	for _, b := range []cBuf{kinds, text, offs, si, di, wt, ed, fo, fr, oi, oc} {
		defer b.free()
	}
	var cb C.uint64_t
	e = withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_writer_apply(C.uint64_t(w), C.int64_t(n), (*C.int32_t)(kinds.p), (*C.char)(text.p), (*C.int64_t)(offs.p),
			(*C.int64_t)(si.p), (*C.int64_t)(di.p), (*C.double)(wt.p), (*C.int64_t)(ed.p), (*C.int64_t)(fo.p), (*C.int64_t)(fr.p),
			(*C.int64_t)(oi.p), (*C.int64_t)(oc.p), &cb, buf, capacity)
	})
	return fromC[int64](oi, n), fromC[int64](oc, n), uint64(cb), e
}

func cStoreGuardCreate(h uint64, trust []string, maxSuspects int64) (uint64, cErr) {
	tn, release := cStrings(trust)
	defer release()
	var g C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_guard_create(C.uint64_t(h), tn, C.int64_t(len(trust)), C.int64_t(maxSuspects), &g, buf, capacity)
	})
	return uint64(g), e
}

func cStoreGuardFree(g uint64) cErr {
	return withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_guard_free(C.uint64_t(g), buf, capacity)
	})
}

// cStoreDecision is authppr_store_guard_select's output, copied into Go.
type cStoreDecision struct {
	Native, Auth             []string
	NativeIDs, AuthIDs       []int64
	NativeScores, AuthScores []float64
	Suspects                 []cStoreSuspect
	Divergent                bool
	Outcome, Path            int
	Version                  uint64
	Needed                   int64
}

type cStoreSuspect struct {
	Edge, Src, Dst   int64
	SrcName, DstName string
	Channels         []string
	Deleted          bool
	Mass             float64
}

func cStoreGuardSelect(g uint64, seeds []int64, weights []float64, k int64, candidates []int64, damping float64, capSuspects, capText int) (cStoreDecision, cErr) {
	sd, sw, cand := toC(seeds), toC(weights), toC(candidates)
	kk := max(int(k), 1)
	ni, ns, ai, as := toC(make([]int64, kk)), toC(make([]float64, kk)), toC(make([]int64, kk)), toC(make([]float64, kk))
	cs := max(capSuspects, 1)
	se, ss, sdst := toC(make([]int64, cs)), toC(make([]int64, cs)), toC(make([]int64, cs))
	sdel, sm, snc := toC(make([]int32, cs)), toC(make([]float64, cs)), toC(make([]int32, cs))
	text := toC(make([]byte, max(capText, 1)))
	for _, b := range []cBuf{sd, sw, cand, ni, ns, ai, as, se, ss, sdst, sdel, sm, snc, text} {
		defer b.free()
	}
	var d C.authppr_decision
	var needed C.int64_t
	var version C.uint64_t
	e := withErrBuf(errCap, func(buf *C.char, capacity C.int64_t) C.int {
		return C.authppr_store_guard_select(C.uint64_t(g), (*C.int64_t)(sd.p), (*C.double)(sw.p), C.int64_t(len(seeds)), C.int64_t(k),
			(*C.int64_t)(cand.p), C.int64_t(len(candidates)), C.double(damping),
			(*C.int64_t)(ni.p), (*C.double)(ns.p), (*C.int64_t)(ai.p), (*C.double)(as.p),
			C.int64_t(capSuspects), (*C.int64_t)(se.p), (*C.int64_t)(ss.p), (*C.int64_t)(sdst.p), (*C.int32_t)(sdel.p), (*C.double)(sm.p),
			(*C.int32_t)(snc.p), (*C.char)(text.p), C.int64_t(capText), &needed, &version, &d, buf, capacity)
	})
	out := cStoreDecision{Needed: int64(needed)}
	if e.status != 0 {
		return out, e
	}
	strs := splitText(fromC[byte](text, int(needed)))
	nn, na, nsus := int(d.n_native), int(d.n_auth), int(d.n_suspects)
	out.Native, out.Auth, strs = strs[:nn], strs[nn:nn+na], strs[nn+na:]
	out.NativeIDs, out.NativeScores = fromC[int64](ni, nn), fromC[float64](ns, nn)
	out.AuthIDs, out.AuthScores = fromC[int64](ai, na), fromC[float64](as, na)
	edges, srcs, dsts := fromC[int64](se, nsus), fromC[int64](ss, nsus), fromC[int64](sdst, nsus)
	dels, masses, nchan := fromC[int32](sdel, nsus), fromC[float64](sm, nsus), fromC[int32](snc, nsus)
	for i := range nsus {
		s := cStoreSuspect{Edge: edges[i], Src: srcs[i], Dst: dsts[i], Deleted: dels[i] == 1, Mass: masses[i],
			SrcName: strs[0], DstName: strs[1], Channels: strs[2 : 2+nchan[i]]}
		strs = strs[2+nchan[i]:]
		out.Suspects = append(out.Suspects, s)
	}
	out.Divergent, out.Outcome, out.Path, out.Version = d.divergent == 1, int(d.outcome), int(d.path), uint64(version)
	return out, e
}
