//go:build cgo

package main

/*
#include "authppr.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// The living store's exports (storecore.go holds the library side).

// errSpace marks an output buffer too small for the strings a call
// returns (status AUTHPPR_ESPACE); the call sets *needed first.
type errSpace struct{ error }

func storeOf(h C.uint64_t) (*storeState, error) {
	s, err := get[*storeState](&handles, uint64(h), "store")
	if err != nil {
		return nil, errHandle{err}
	}
	return s, nil
}

// putText copies text into the caller's buffer (capacity bytes) and sets
// *needed to its length; a buffer too small is an errSpace, written
// nothing.
func putText(text []byte, buf *C.char, capacity C.int64_t, needed *C.int64_t) error {
	if needed == nil {
		return errors.New("cabi: needed is NULL")
	}
	*needed = C.int64_t(len(text))
	if err := length("text buffer", capacity, unsafe.Pointer(buf)); err != nil {
		return err
	}
	if int64(len(text)) > int64(capacity) {
		return errSpace{fmt.Errorf("cabi: room for %d bytes of names, %d needed", capacity, len(text))}
	}
	copy(slice[byte](unsafe.Pointer(buf), capacity), text)
	return nil
}

// cNames reads n strings laid out in text at offsets (n+1 entries: string
// i is text[offsets[i]:offsets[i+1]]; text holds offsets[n] bytes).
func cNames(text *C.char, offsets *C.int64_t, n C.int64_t) ([]string, error) {
	if err := length("names", n, unsafe.Pointer(offsets)); err != nil {
		return nil, err
	}
	if offsets == nil {
		return []string{}, nil
	}
	offs := slice[int64](unsafe.Pointer(offsets), n+1)
	if offs[0] != 0 {
		return nil, fmt.Errorf("cabi: name offset 0 is %d, want 0", offs[0])
	}
	if err := length("name text", C.int64_t(offs[n]), unsafe.Pointer(text)); err != nil {
		return nil, err
	}
	b := slice[byte](unsafe.Pointer(text), C.int64_t(offs[n]))
	out := make([]string, n)
	for i := range out {
		if offs[i+1] < offs[i] {
			return nil, fmt.Errorf("cabi: name %d: offsets %d then %d, want non-decreasing", i, offs[i], offs[i+1])
		}
		out[i] = string(b[offs[i]:offs[i+1]])
	}
	return out, nil
}

// authppr_store_open opens the durable store in dir, creating an empty one
// (edges directed as directed says, 0 or 1) when dir holds none; dir NULL
// or "" makes an in-memory store. compact_at > 0 compacts in the
// background once the delta holds that many edges.
//
//export authppr_store_open
func authppr_store_open(dir *C.char, directed C.int32_t, compactAt C.int64_t, out *C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		if out == nil {
			return errors.New("cabi: store_open: out is NULL")
		}
		if directed != 0 && directed != 1 {
			return fmt.Errorf("cabi: directed = %d, want 0 or 1", directed)
		}
		d := ""
		if dir != nil {
			d = C.GoString(dir)
		}
		s, err := openStore(d, directed == 1, int64(compactAt))
		if err != nil {
			return err
		}
		*out = C.uint64_t(handles.put(s))
		return nil
	})
}

// authppr_store_create writes graph h (edges, weights, channels,
// requirements) as the first snapshot of a new durable store in dir (which
// must hold no store) and opens it. names (nnames strings laid out in
// name_text at name_offsets, nnames+1 entries) name the nodes; NULL
// offsets: "0", "1", ...
//
//export authppr_store_create
func authppr_store_create(dir *C.char, h C.uint64_t, nameText *C.char, nameOffsets *C.int64_t, nnames C.int64_t,
	compactAt C.int64_t, out *C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		if out == nil {
			return errors.New("cabi: store_create: out is NULL")
		}
		if dir == nil {
			return errors.New("cabi: store_create: dir is NULL")
		}
		g, err := graphOf(h)
		if err != nil {
			return err
		}
		var names []string
		if nameOffsets != nil {
			if names, err = cNames(nameText, nameOffsets, nnames); err != nil {
				return err
			}
		}
		s, err := createStore(C.GoString(dir), g, names, int64(compactAt))
		if err != nil {
			return err
		}
		*out = C.uint64_t(handles.put(s))
		return nil
	})
}

// authppr_store_free closes the store (its log; later writes fail) and
// releases the handle. Writers and guards made from it keep working on
// what it holds: their writes fail, their selections read the versions.
//
//export authppr_store_free
func authppr_store_free(h C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		if err := free[*storeState](&handles, uint64(h), "store"); err != nil {
			return errHandle{err}
		}
		return s.st.Close()
	})
}

// authppr_store_info reports on the current version; channel names (every
// channel that wrote, sorted, NUL-terminated) go to text (capacity bytes;
// *needed is their length, and a buffer too small is AUTHPPR_ESPACE).
//
//export authppr_store_info
func authppr_store_info(h C.uint64_t, info *C.authppr_store_counts, text *C.char, capacity C.int64_t, needed *C.int64_t,
	errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		if info == nil {
			return errors.New("cabi: store_info: info is NULL")
		}
		in := s.info()
		*info = C.authppr_store_counts{nodes: C.int64_t(in.Nodes), edges: C.int64_t(in.Edges), delta_edges: C.int64_t(in.DeltaEdges),
			batches: C.uint64_t(in.Batches), nchannels: C.int64_t(len(in.Channels))}
		if in.Directed {
			info.directed = 1
		}
		b, err := joinNames(in.Channels)
		if err != nil {
			return err
		}
		return putText(b, text, capacity, needed)
	})
}

// authppr_store_compact folds the delta into a new snapshot (see
// store.Compact).
//
//export authppr_store_compact
func authppr_store_compact(h C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		return s.st.Compact()
	})
}

// authppr_store_ids writes the id of each of n named nodes (laid out as in
// authppr_store_create) to ids, -1 for a name the store does not hold.
//
//export authppr_store_ids
func authppr_store_ids(h C.uint64_t, text *C.char, offsets *C.int64_t, n C.int64_t, ids *C.int64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		names, err := cNames(text, offsets, n)
		if err != nil {
			return err
		}
		if err := length("ids", n, unsafe.Pointer(ids)); err != nil {
			return err
		}
		s.ids(names, slice[int64](unsafe.Pointer(ids), n))
		return nil
	})
}

// authppr_store_names writes the names of n nodes, NUL-terminated, to text
// (capacity bytes; *needed is their length, a buffer too small
// AUTHPPR_ESPACE).
//
//export authppr_store_names
func authppr_store_names(h C.uint64_t, ids *C.int64_t, n C.int64_t, text *C.char, capacity C.int64_t, needed *C.int64_t,
	errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		if err := length("ids", n, unsafe.Pointer(ids)); err != nil {
			return err
		}
		names, err := s.names(slice[int64](unsafe.Pointer(ids), n))
		if err != nil {
			return err
		}
		b, err := joinNames(names)
		if err != nil {
			return err
		}
		return putText(b, text, capacity, needed)
	})
}

// authppr_store_writer returns a writer for channel (not empty): the only
// way to write to the store, as that channel.
//
//export authppr_store_writer
func authppr_store_writer(h C.uint64_t, channel *C.char, out *C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		if out == nil || channel == nil {
			return errors.New("cabi: store_writer: channel or out is NULL")
		}
		w, err := s.st.Writer(C.GoString(channel))
		if err != nil {
			return err
		}
		*out = C.uint64_t(handles.put(&writerState{w: w}))
		return nil
	})
}

// authppr_writer_free releases a writer handle.
//
//export authppr_writer_free
func authppr_writer_free(h C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return freeHandle[*writerState](h, "writer", errbuf, errcap)
}

// authppr_writer_apply applies nops writes as one batch, as the writer's
// channel: all of them, then one new version, or none (the error names the
// write). kinds holds AUTHPPR_OP_* per write; the other columns are read
// only for the kinds that need them and may be NULL otherwise: names
// (text, text_off: 2*nops+1 offsets, write i's src at text[text_off[2i]
// .. text_off[2i+1]-1] and dst after it), src_ids and dst_ids
// (AUTHPPR_OP_EDGE_BY_ID), weights (NULL: 1), edges
// (AUTHPPR_OP_DELETE_EDGE), from_off (nops+1) and from (the source edges
// of AUTHPPR_OP_INFERRED). out_ids (nops, may be NULL) receives each
// write's id (store.Result.IDs), out_counts (may be NULL) the edges a
// merge rewired or a delete-between deleted, *batches the new version's
// batch count (may be NULL).
//
//export authppr_writer_apply
func authppr_writer_apply(h C.uint64_t, nops C.int64_t, kinds *C.int32_t, text *C.char, textOff *C.int64_t,
	srcIDs, dstIDs *C.int64_t, weights *C.double, edges *C.int64_t, fromOff, from *C.int64_t,
	outIDs, outCounts *C.int64_t, batches *C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		w, err := get[*writerState](&handles, uint64(h), "writer")
		if err != nil {
			return errHandle{err}
		}
		if err := length("kinds", nops, unsafe.Pointer(kinds)); err != nil {
			return err
		}
		c := opColumns{
			kinds:   slice[int32](unsafe.Pointer(kinds), nops),
			srcIDs:  slice[int64](unsafe.Pointer(srcIDs), nops),
			dstIDs:  slice[int64](unsafe.Pointer(dstIDs), nops),
			weights: slice[float64](unsafe.Pointer(weights), nops),
			edges:   slice[int64](unsafe.Pointer(edges), nops),
		}
		if textOff != nil {
			c.textOff = slice[int64](unsafe.Pointer(textOff), 2*nops+1)
			total := C.int64_t(c.textOff[2*nops])
			if err := length("name text", total, unsafe.Pointer(text)); err != nil {
				return err
			}
			c.text = slice[byte](unsafe.Pointer(text), total)
		}
		if fromOff != nil {
			c.fromOff = slice[int64](unsafe.Pointer(fromOff), nops+1)
			total := C.int64_t(c.fromOff[nops])
			if err := length("source edges", total, unsafe.Pointer(from)); err != nil {
				return err
			}
			c.from = slice[int64](unsafe.Pointer(from), total)
		}
		ops, err := c.ops()
		if err != nil {
			return err
		}
		res, err := w.w.Apply(ops...)
		if err != nil {
			return err
		}
		if outIDs != nil {
			o := slice[int64](unsafe.Pointer(outIDs), nops)
			for i, id := range res.IDs {
				o[i] = int64(id)
			}
		}
		if outCounts != nil {
			o := slice[int64](unsafe.Pointer(outCounts), nops)
			for i := range o {
				o[i] = 0
				if i < len(res.Rewired) {
					o[i] = int64(res.Rewired[i])
				}
			}
		}
		if batches != nil {
			*batches = C.uint64_t(res.Version.Batches())
		}
		return nil
	})
}

// authppr_store_guard_create returns a guard on the store's versions
// trusting the named channels (ntrust > 0; they need not have written
// yet). max_suspects 0 means 5.
//
//export authppr_store_guard_create
func authppr_store_guard_create(h C.uint64_t, trust **C.char, ntrust C.int64_t, maxSuspects C.int64_t, out *C.uint64_t,
	errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		s, err := storeOf(h)
		if err != nil {
			return err
		}
		if out == nil {
			return errors.New("cabi: store_guard_create: out is NULL")
		}
		if err := length("trust", ntrust, unsafe.Pointer(trust)); err != nil {
			return err
		}
		names, err := goStrings(unsafe.Pointer(trust), ntrust, "trusted channel")
		if err != nil {
			return err
		}
		g, err := newStoreGuard(s, names, int(maxSuspects))
		if err != nil {
			return err
		}
		*out = C.uint64_t(handles.put(g))
		return nil
	})
}

// authppr_store_guard_free releases a store guard handle.
//
//export authppr_store_guard_free
func authppr_store_guard_free(h C.uint64_t, errbuf *C.char, errcap C.int64_t) C.int {
	return freeHandle[*storeGuardState](h, "store guard", errbuf, errcap)
}

// authppr_store_guard_select runs a guarded selection on the store's
// current version: seeds (nseeds ids; weights may be NULL: 1 each), k,
// candidates (NULL: every node), damping. native_* and auth_* have room
// for k entries; the suspect arrays for cap_suspects (at least the
// guard's max suspects). The names (native, then auth, then per suspect
// its source, its destination and s_nchan[i] channels) go NUL-terminated
// to text (capacity bytes; *needed is their length, a buffer too small
// AUTHPPR_ESPACE). *version receives the version's batch count.
//
//export authppr_store_guard_select
func authppr_store_guard_select(h C.uint64_t, seeds *C.int64_t, seedWeights *C.double, nseeds C.int64_t, k C.int64_t,
	candidates *C.int64_t, ncand C.int64_t, damping C.double,
	nativeIDs *C.int64_t, nativeScores *C.double, authIDs *C.int64_t, authScores *C.double,
	capSuspects C.int64_t, sEdge, sSrc, sDst *C.int64_t, sDeleted *C.int32_t, sMass *C.double, sNChan *C.int32_t,
	text *C.char, capacity C.int64_t, needed *C.int64_t, version *C.uint64_t,
	d *C.authppr_decision, errbuf *C.char, errcap C.int64_t) C.int {
	return call(errbuf, errcap, func() error {
		g, err := get[*storeGuardState](&handles, uint64(h), "store guard")
		if err != nil {
			return errHandle{err}
		}
		if d == nil || needed == nil || version == nil {
			return errors.New("cabi: store_guard_select: decision, needed or version is NULL")
		}
		if err := length("seeds", nseeds, unsafe.Pointer(seeds)); err != nil {
			return err
		}
		if err := length("candidates", ncand, unsafe.Pointer(candidates)); err != nil {
			return err
		}
		if k < 1 {
			return fmt.Errorf("cabi: k = %d, want at least 1", k)
		}
		if nativeIDs == nil || nativeScores == nil || authIDs == nil || authScores == nil {
			return errors.New("cabi: store_guard_select: a native or auth output array is NULL")
		}
		if int64(capSuspects) < int64(g.max) {
			return fmt.Errorf("cabi: store_guard_select: room for %d suspects, the guard names up to %d", capSuspects, g.max)
		}
		if sEdge == nil || sSrc == nil || sDst == nil || sDeleted == nil || sMass == nil || sNChan == nil {
			return errors.New("cabi: store_guard_select: a suspect output array is NULL")
		}
		var cand []int64
		if candidates != nil {
			cand = slice[int64](unsafe.Pointer(candidates), ncand)
		}
		r, err := g.sel(slice[int64](unsafe.Pointer(seeds), nseeds), slice[float64](unsafe.Pointer(seedWeights), nseeds),
			int64(k), cand, float64(damping))
		if err != nil {
			return err
		}
		b, err := r.text()
		if err != nil {
			return err
		}
		if err := putText(b, text, capacity, needed); err != nil {
			return err
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
		sdel, sm, sn := slice[int32](unsafe.Pointer(sDeleted), capSuspects), slice[float64](unsafe.Pointer(sMass), capSuspects), slice[int32](unsafe.Pointer(sNChan), capSuspects)
		for i, sp := range r.suspects {
			s := sp.s
			se[i], ss[i], sd[i], sm[i], sn[i] = int64(s.Edge), int64(s.Src), int64(s.Dst), s.Mass, int32(len(s.Channels))
			sdel[i] = 0
			if s.Deleted {
				sdel[i] = 1
			}
		}
		*version = C.uint64_t(r.version)
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
