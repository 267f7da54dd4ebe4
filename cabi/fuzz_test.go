package main

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/internal/reference"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// FuzzCore feeds arbitrary, often invalid, arguments to the library's plain
// Go layer (what every export calls): nothing may panic, every rejection is
// an error, and an accepted graph is the graph csr.Builder's by-name path
// (the reference) makes of the same edges, with the same PPR.
//
//	go test ./cabi -run=NONE -fuzz=FuzzCore -parallel=1 -fuzzminimizetime=5s
func FuzzCore(f *testing.F) {
	f.Add([]byte{3, 0, 1, 1, 2, 2, 0, 10, 20, 30, 1, 2})
	f.Add([]byte{1})
	f.Add([]byte{5, 0, 4, 4, 4, 1, 9, 0, 0, 0, 255, 3, 1, 1, 0, 0, 0})
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzCore.zip
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := int64(data[0]%12) - 1 // -1..10: 0 and -1 are errors
		flags := data[1]
		data = data[2:]
		m := len(data) / 4
		ids := make([]int64, 2*m)
		w := make([]float64, m)
		chanOf := make([]int32, m)
		for e := range m {
			b := data[4*e : 4*e+4]
			ids[2*e], ids[2*e+1] = int64(b[0]%12)-1, int64(b[1]%12)-1 // some out of range
			switch b[2] % 8 {
			case 0:
				w[e] = math.NaN()
			case 1:
				w[e] = -1
			default:
				w[e] = float64(b[2]%8) / 2
			}
			chanOf[e] = int32(b[3] % 3) // 2 is out of range with two names
		}
		directed := flags&1 == 1
		names := []string{"t", "u"}
		st, err := newGraph(n, edgeIDs{ids64: ids}, w, directed, chanOf, names, 0)
		if err != nil {
			return
		}
		// Reference: the same edges by name through csr.Builder.
		b := csr.NewBuilder(directed)
		for u := range n {
			b.AddNode(strconv.FormatInt(u, 10))
		}
		for e := range m {
			if _, err := b.AddEdge(csr.Input{Src: strconv.FormatInt(ids[2*e], 10), Dst: strconv.FormatInt(ids[2*e+1], 10),
				Weight: w[e], Channel: names[chanOf[e]]}); err != nil {
				t.Fatalf("reference rejects edge %d: %v", e, err)
			}
		}
		ref, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if ref.NumNodes() != st.g.NumNodes() || ref.NumEdges() != st.g.NumEdges() {
			t.Fatalf("%d/%d nodes/edges, reference %d/%d", st.g.NumNodes(), st.g.NumEdges(), ref.NumNodes(), ref.NumEdges())
		}
		for e := range m {
			if st.g.Edge(uint32(e)) != ref.Edge(uint32(e)) {
				t.Fatalf("edge %d: %+v, reference %+v", e, st.g.Edge(uint32(e)), ref.Edge(uint32(e)))
			}
		}
		reset := make([]float64, n)
		for u := range reset {
			reset[u] = float64((int(flags) >> (u % 8)) & 1)
		}
		d := float64(flags>>4) / 16
		out := make([]float64, n)
		_, err = st.personalizedPageRank(reset, d, 1e-12, out)
		seeds, serr := denseSeeds(reset)
		if (err != nil) != (serr != nil) {
			t.Fatalf("ppr error %v, seeds error %v", err, serr)
		}
		if err != nil {
			return
		}
		want, _ := reference.PowerIteration(mask.Full(ref), seeds.Nodes, seeds.Weights, d, 1e-13, 100000)
		for u := range out {
			if !(math.Abs(out[u]-want[u]) <= 1e-10) {
				t.Fatalf("node %d: %v, reference %v", u, out[u], want[u])
			}
		}
		// The certified top-k: a certified set is the reference's top-k
		// whenever the reference separates it by more than its error.
		k := int64(flags%4) + 1
		tk, err := st.topK(reset, k, nil, d, 1e-12, flags&2 != 0)
		if err != nil {
			t.Fatalf("top_k on a reset the solve accepted: %v", err)
		}
		top := ppr.TopK(want, int(k)+1, nil, nil)
		if tk.Certified && len(top) > int(k) && top[k-1].Score-top[k].Score > 1e-9 {
			for i, s := range top[:k] {
				if !slices.Contains(tk.IDs, int64(s.Node)) {
					t.Fatalf("certified top-%d %v misses the reference's %d-th node %d", k, tk.IDs, i, s.Node)
				}
			}
		}
		gs, err := newGuard(st, names[:1+int(flags>>3&1)], 0)
		if err != nil {
			return // "t" or "u" may label no edge
		}
		cand := []int64{int64(flags) % (n + 1), 0}
		if _, err := gs.sel(reset, int64(flags%4), cand, d); err != nil {
			return
		}
	})
}
