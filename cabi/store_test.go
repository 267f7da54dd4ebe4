//go:build cgo

package main

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// The living store through the C ABI: writes by channel, guarded
// selections by name, reopening from disk, and every bad argument an
// error.

const (
	opNodeC, opEdgeC, opEdgeByIDC, opDeleteEdgeC, opDeleteBetweenC, opMergeC, opInferredC = 1, 2, 3, 4, 5, 6, 7
)

// edgesOp is one batch of AUTHPPR_OP_EDGE writes: triples (src, dst) with
// weights.
func edgesOp(pairs [][2]string, w []float64) cOps {
	var o cOps
	for _, p := range pairs {
		o.kinds = append(o.kinds, opEdgeC)
		o.names = append(o.names, p[0], p[1])
	}
	o.weights = w
	return o
}

// memoryScene writes the store's worked example: curated edges q-a, q-b,
// a-p1 (2), b-p2, and mallory's q-x (5), x-p3 (5), which pull q's mass to p3.
func memoryScene(t *testing.T, h uint64) (curated, mallory uint64) {
	t.Helper()
	curated, e := cStoreWriter(h, "curated")
	mustOK(t, e)
	mallory, e = cStoreWriter(h, "mallory")
	mustOK(t, e)
	ids, _, b, e := cWriterApply(curated, edgesOp([][2]string{{"q", "a"}, {"q", "b"}, {"a", "p1"}, {"b", "p2"}}, []float64{1, 1, 2, 1}))
	mustOK(t, e)
	if !slices.Equal(ids, []int64{0, 1, 2, 3}) || b != 1 {
		t.Fatalf("curated batch: ids %v, version %d", ids, b)
	}
	ids, _, b, e = cWriterApply(mallory, edgesOp([][2]string{{"q", "x"}, {"x", "p3"}}, []float64{5, 5}))
	mustOK(t, e)
	if !slices.Equal(ids, []int64{4, 5}) || b != 2 {
		t.Fatalf("mallory batch: ids %v, version %d", ids, b)
	}
	return curated, mallory
}

func TestStoreThroughABI(t *testing.T) {
	before := handles.live()
	dir := t.TempDir()
	h, e := cStoreOpen(dir, false, 0)
	mustOK(t, e)
	curated, mallory := memoryScene(t, h)
	info, _, e := cStoreInfo(h, 64)
	mustOK(t, e)
	if info.Nodes != 7 || info.Edges != 6 || info.Batches != 2 || info.Directed || !slices.Equal(info.Channels, []string{"curated", "mallory"}) {
		t.Fatalf("info %+v", info)
	}
	ids, e := cStoreIDs(h, []string{"q", "p1", "p2", "p3", "nobody"})
	mustOK(t, e)
	if ids[4] != -1 || slices.Contains(ids[:4], -1) {
		t.Fatalf("ids %v", ids)
	}
	names, _, e := cStoreNames(h, ids[:4], 64)
	mustOK(t, e)
	if !slices.Equal(names, []string{"q", "p1", "p2", "p3"}) {
		t.Fatalf("names %v", names)
	}

	g, e := cStoreGuardCreate(h, []string{"curated"}, 0)
	mustOK(t, e)
	cand := ids[1:4]
	d, e := cStoreGuardSelect(g, ids[:1], nil, 1, cand, 0.85, 5, 256)
	mustOK(t, e)
	if !d.Divergent || !slices.Equal(d.Native, []string{"p3"}) || !slices.Equal(d.Auth, []string{"p1"}) || d.Version != 2 {
		t.Fatalf("decision %+v", d)
	}
	s := d.Suspects[0]
	if s.SrcName != "q" || s.DstName != "x" || !slices.Equal(s.Channels, []string{"mallory"}) || s.Deleted || s.Edge != 4 || !(s.Mass > 0) {
		t.Fatalf("suspect %+v", s)
	}
	// A text buffer too small: AUTHPPR_ESPACE, and the size needed.
	small, e := cStoreGuardSelect(g, ids[:1], nil, 1, cand, 0.85, 5, 4)
	wantErr(t, "small text", e, 4, "cabi: room for 4 bytes of names,")
	if small.Needed <= 4 {
		t.Fatalf("needed %d", small.Needed)
	}

	// mallory deletes curated's a-p1: the native view loses it, the
	// authenticated one keeps it; the suspect is a deleted trusted edge.
	_, counts, _, e := cWriterApply(mallory, cOps{kinds: []int32{opDeleteBetweenC}, names: []string{"a", "p1"}})
	mustOK(t, e)
	if counts[0] != 1 {
		t.Fatalf("delete-between deleted %d edges", counts[0])
	}
	d, e = cStoreGuardSelect(g, ids[:1], nil, 2, cand, 0.85, 5, 256)
	mustOK(t, e)
	if !d.Divergent || !slices.Equal(d.Auth, []string{"p1", "p2"}) || slices.Contains(d.Native, "p1") {
		t.Fatalf("after the deletion: %+v", d)
	}
	deleted := false
	for _, s := range d.Suspects {
		deleted = deleted || s.Deleted && s.Edge == 2 && slices.Equal(s.Channels, []string{"mallory"})
	}
	if !deleted {
		t.Fatalf("no deleted suspect: %+v", d.Suspects)
	}

	// An edge curated derives from mallory's edge 5 requires mallory.
	ids2, _, _, e := cWriterApply(curated, cOps{kinds: []int32{opInferredC}, names: []string{"q", "p3"}, weights: []float64{3},
		fromOff: []int64{0, 1}, from: []int64{5}})
	mustOK(t, e)
	d, e = cStoreGuardSelect(g, ids[:1], nil, 1, cand, 0.85, 5, 256)
	mustOK(t, e)
	found := false
	for _, s := range d.Suspects {
		found = found || s.Edge == ids2[0] && slices.Equal(s.Channels, []string{"mallory"})
	}
	if !d.Divergent || !found {
		t.Fatalf("inferred edge not masked: %+v", d)
	}

	// Reopened from disk: the same store, the same decision.
	mustOK(t, cStoreGuardFree(g))
	mustOK(t, cWriterFree(curated))
	mustOK(t, cStoreFree(h))
	_, _, _, e = cWriterApply(mallory, edgesOp([][2]string{{"q", "y"}}, nil))
	wantErr(t, "write after close", e, 1, "store: closed")
	mustOK(t, cWriterFree(mallory))
	h, e = cStoreOpen(dir, false, 0)
	mustOK(t, e)
	info2, _, e := cStoreInfo(h, 64)
	mustOK(t, e)
	if info2.Nodes != 7 || info2.Edges != 7 || info2.Batches != 4 {
		t.Fatalf("reopened: %+v", info2)
	}
	g, e = cStoreGuardCreate(h, []string{"curated"}, 0)
	mustOK(t, e)
	d2, e := cStoreGuardSelect(g, ids[:1], nil, 1, cand, 0.85, 5, 256)
	mustOK(t, e)
	if !slices.Equal(d2.Native, d.Native) || !slices.Equal(d2.Auth, d.Auth) || d2.Divergent != d.Divergent {
		t.Fatalf("reopened: %+v, before %+v", d2, d)
	}
	mustOK(t, cStoreCompact(h))
	d3, e := cStoreGuardSelect(g, ids[:1], nil, 1, cand, 0.85, 5, 256)
	mustOK(t, e)
	if !slices.Equal(d3.Native, d.Native) || !slices.Equal(d3.Auth, d.Auth) {
		t.Fatalf("compacted: %+v, before %+v", d3, d)
	}
	mustOK(t, cStoreGuardFree(g))
	mustOK(t, cStoreFree(h))
	if after := handles.live(); after != before {
		t.Fatalf("%d handles live before, %d after", before, after)
	}
}

func TestStoreErrorsThroughABI(t *testing.T) {
	h, e := cStoreOpen("", true, 0)
	mustOK(t, e)
	defer cStoreFree(h)
	_, e = cStoreOpen("", false, -1)
	wantErr(t, "compact_at", second(cStoreOpen("", false, -1)), 1, "cabi: compact_at = -1")
	_, e = cStoreWriter(h, "")
	wantErr(t, "empty channel", e, 1, "store: a writer needs a channel name")
	w, e := cStoreWriter(h, "alice")
	mustOK(t, e)
	defer cWriterFree(w)
	for _, c := range []struct {
		ops  cOps
		want string
	}{
		{cOps{kinds: []int32{9}}, "cabi: write 0: kind 9, want 1 to 7"},
		{cOps{kinds: []int32{opEdgeC}}, "cabi: write 0: kind 2 names nodes, and no names were given"},
		{cOps{kinds: []int32{opEdgeC}, names: []string{"a", "b\x00c"}}, `cabi: write 0: node name "b\x00c" holds a NUL byte at 1`},
		{cOps{kinds: []int32{opEdgeByIDC}, srcIDs: []int64{0}}, "cabi: write 0: kind 3 needs destination ids"},
		{cOps{kinds: []int32{opEdgeByIDC}, srcIDs: []int64{-1}, dstIDs: []int64{0}}, "cabi: write 0: source ids -1 out of range"},
		{cOps{kinds: []int32{opEdgeByIDC}, srcIDs: []int64{0}, dstIDs: []int64{0}}, "store: write 0: edge 0 -> 0: no such node (0 nodes)"},
		{cOps{kinds: []int32{opDeleteEdgeC}, edges: []int64{3}}, "store: write 0: delete edge 3: no such edge (0 edges)"},
		{cOps{kinds: []int32{opMergeC}, names: []string{"a", "b"}}, `store: write 0: merge "a" into "b": unknown node "a"`},
		{cOps{kinds: []int32{opEdgeC}, names: []string{"a", "b"}, weights: []float64{-1}}, "store: write 0: edge a -> b:"},
		{cOps{kinds: []int32{opEdgeC, opNodeC}, names: []string{"a", "b", "", ""}}, "store: write 1: empty node name"},
		{cOps{kinds: []int32{opInferredC}, names: []string{"a", "b"}, fromOff: []int64{0, 1}, from: []int64{-2}}, "cabi: write 0: source edge -2 out of range"},
		{cOps{kinds: []int32{opInferredC}, names: []string{"a", "b"}, fromOff: []int64{1, 1}, from: []int64{0}}, "cabi: 2 source-edge offsets for 1 writes, want 2 starting at 0"},
	} {
		_, _, _, e := cWriterApply(w, c.ops)
		wantErr(t, c.want, e, 1, c.want)
	}
	info, _, e := cStoreInfo(h, 8)
	mustOK(t, e)
	if info.Nodes != 0 || info.Batches != 0 {
		t.Fatalf("a refused batch changed the store: %+v", info)
	}
	_, _, _, e = cWriterApply(w, edgesOp([][2]string{{"a", "b"}, {"b", "c"}}, nil))
	mustOK(t, e)
	_, _, e = cStoreNames(h, []int64{0, 3}, 64)
	wantErr(t, "name out of range", e, 1, "cabi: id 1: node 3 out of range (store has 3 nodes)")
	_, needed, e := cStoreNames(h, []int64{0, 1}, 3)
	wantErr(t, "names too long", e, 4, "cabi: room for 3 bytes of names, 4 needed")
	if needed != 4 {
		t.Fatalf("needed %d", needed)
	}
	_, e = cStoreGuardCreate(h, nil, 0)
	wantErr(t, "no trust", e, 1, "cabi: store guard: no trusted channel")
	g, e := cStoreGuardCreate(h, []string{"alice"}, 0)
	mustOK(t, e)
	defer cStoreGuardFree(g)
	for _, c := range []struct {
		seeds []int64
		k     int64
		cand  []int64
		caps  int
		want  string
	}{
		{[]int64{0}, 0, nil, 5, "cabi: k = 0"},
		{nil, 1, nil, 5, "cabi: no seeds"},
		{[]int64{3}, 1, nil, 5, "cabi: seed 0: node 3 out of range (store has 3 nodes)"},
		{[]int64{0}, 1, []int64{7}, 5, "cabi: candidate 0: node 7 out of range"},
		{[]int64{0}, 1, []int64{1, 1}, 5, "store: replay: candidate 1: node 1 repeated"},
		{[]int64{0}, 1, nil, 4, "cabi: store_guard_select: room for 4 suspects, the guard names up to 5"},
	} {
		_, e := cStoreGuardSelect(g, c.seeds, nil, c.k, c.cand, 0.85, c.caps, 64)
		wantErr(t, c.want, e, 1, c.want)
	}
	_, e = cStoreGuardSelect(g, []int64{0}, []float64{-1}, 1, nil, 0.85, 5, 64)
	wantErr(t, "negative seed weight", e, 1, "store: replay: ppr: seed 0 (node 0): weight -1")
	// Handles of the wrong kind.
	_, _, _, e = cWriterApply(h, edgesOp([][2]string{{"a", "b"}}, nil))
	wantErr(t, "store as writer", e, 2, "cabi: writer handle")
	_, _, e = cStoreInfo(w, 8)
	wantErr(t, "writer as store", e, 2, "cabi: store handle")
	wantErr(t, "free twice", cStoreFree(1<<40), 2, "cabi: store handle")
}

// A store made from a graph: its names, channels and requirements.
func TestStoreCreateFromGraph(t *testing.T) {
	ids, w, _, _ := workedExample(t)
	chanOf := []int32{0, 0, 0, 0, 0, 0, 0, 0}
	gh, e := cGraphCreateFull(7, ids, 8, w, false, chanOf, []string{"default", "mallory"},
		[]int64{0, 0, 0, 0, 0, 0, 0, 0, 1}, []int32{1}, 0)
	mustOK(t, e)
	defer cGraphFree(gh)
	names := []string{"s", "a", "b", "p3", "p4", "c", "p6"}
	_, e = cStoreCreate(t.TempDir(), gh, names[:3])
	wantErr(t, "3 names", e, 1, "csr: 3 names for 7 nodes")
	_, e = cStoreCreate(t.TempDir(), gh, []string{"s", "a", "b", "p3", "p4", "c", "a"})
	wantErr(t, "repeated name", e, 1, "csr:")
	dir := t.TempDir()
	h, e := cStoreCreate(dir, gh, names)
	mustOK(t, e)
	_, e = cStoreCreate(dir, gh, names)
	wantErr(t, "existing store", e, 1, "store: create: "+dir+" already holds a store")
	g, e := cStoreGuardCreate(h, []string{"default"}, 0)
	mustOK(t, e)
	nid, e := cStoreIDs(h, []string{"s", "p3", "p4", "p6"})
	mustOK(t, e)
	d, e := cStoreGuardSelect(g, nid[:1], nil, 1, nid[1:], 0.5, 5, 256)
	mustOK(t, e)
	if !d.Divergent || !slices.Equal(d.Native, []string{"p6"}) || !slices.Equal(d.Auth, []string{"p4"}) ||
		d.Suspects[0].SrcName != "s" || d.Suspects[0].DstName != "p6" || !slices.Equal(d.Suspects[0].Channels, []string{"mallory"}) {
		t.Fatalf("decision %+v", d)
	}
	mustOK(t, cStoreGuardFree(g))
	mustOK(t, cStoreFree(h))
}

// Writers and selections from several goroutines at once: every batch
// lands, every selection succeeds on some version.
func TestStoreConcurrentThroughABI(t *testing.T) {
	h, e := cStoreOpen("", false, 0)
	mustOK(t, e)
	defer cStoreFree(h)
	curated, _ := memoryScene(t, h)
	defer cWriterFree(curated)
	g, e := cStoreGuardCreate(h, []string{"curated"}, 0)
	mustOK(t, e)
	defer cStoreGuardFree(g)
	ids, e := cStoreIDs(h, []string{"q", "p1", "p2", "p3"})
	mustOK(t, e)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if i%2 == 0 {
					_, _, _, e := cWriterApply(curated, edgesOp([][2]string{{"q", "n" + strings.Repeat("x", i*10+j)}}, nil))
					if e.status != 0 {
						errs <- e.msg
					}
					continue
				}
				if _, e := cStoreGuardSelect(g, ids[:1], nil, 2, ids[1:], 0.85, 5, 256); e.status != 0 {
					errs <- e.msg
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for m := range errs {
		t.Error(m)
	}
	info, _, e := cStoreInfo(h, 64)
	mustOK(t, e)
	if info.Batches != 2+20 {
		t.Fatalf("batches %d, want 22", info.Batches)
	}
}
