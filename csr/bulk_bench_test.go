package csr

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// kgIDEdges reads a PPREDGE1 file (the anchors' binary edge list: magic,
// n, m, flags as uint64, then m uint32 sources, m uint32 destinations, m
// float32 weights) as the Python binding hands it over: int64 pairs and
// float64 weights.
func kgIDEdges(b *testing.B, path string) (IDEdges[int64, int32], bool) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 32 || string(data[:8]) != "PPREDGE1" {
		return IDEdges[int64, int32]{}, false
	}
	n := int(binary.LittleEndian.Uint64(data[8:]))
	m := int(binary.LittleEndian.Uint64(data[16:]))
	body := data[32:]
	if len(body) < 12*m {
		b.Fatalf("%s: %d bytes for %d edges", path, len(body), m)
	}
	in := IDEdges[int64, int32]{Nodes: n, Pairs: make([]int64, 2*m), Weights: make([]float64, m)}
	for e := range m {
		in.Pairs[2*e] = int64(binary.LittleEndian.Uint32(body[4*e:]))
		in.Pairs[2*e+1] = int64(binary.LittleEndian.Uint32(body[4*(m+e):]))
		in.Weights[e] = float64(math.Float32frombits(binary.LittleEndian.Uint32(body[4*(2*m+e):])))
	}
	return in, true
}

// anchorsKG is the anchors' KG graph (anchors/gen_graph.py kg) in
// anchors-data/ at the repository root, or in $AUTHPPR_ANCHORS: what
// bench.AnchorsDir says, which csr's own tests cannot import.
func anchorsKG() string {
	dir := os.Getenv("AUTHPPR_ANCHORS")
	if dir == "" {
		dir = filepath.Join("..", "anchors-data")
	}
	return filepath.Join(dir, "kg.edges.bin")
}

// BenchmarkFromIDs compares the bulk constructor, serial and on two
// goroutines, with its reference (the Builder fed node by node and edge by
// edge, what the C ABI did before) on
// a 250k-node, 1.24M-edge undirected graph: the anchors' KG graph when
// anchors-data/ has it (anchorsKG), else a uniform random one of that size.
// Bytes: 12 per edge (two uint32 ids and a float32 weight on disk).
func BenchmarkFromIDs(b *testing.B) {
	in, ok := kgIDEdges(b, anchorsKG())
	if !ok {
		r := rand.New(rand.NewPCG(1, 2))
		const n, m = 250_000, 1_244_337
		in = IDEdges[int64, int32]{Nodes: n, Pairs: make([]int64, 2*m), Weights: make([]float64, m)}
		for e := range m {
			in.Pairs[2*e], in.Pairs[2*e+1] = int64(r.IntN(n)), int64(r.IntN(n))
			in.Weights[e] = r.Float64()
		}
	}
	m := len(in.Pairs) / 2
	for _, directed := range []bool{false, true} {
		in.Directed = directed
		name := "undirected"
		if directed {
			name = "directed"
		}
		for _, k := range []struct {
			name  string
			build func(IDEdges[int64, int32]) (*Graph, error)
		}{
			{"builder", fromIDsByBuilder[int64, int32]},
			{"bulk-1part", func(in IDEdges[int64, int32]) (*Graph, error) { return bulkBuild(in, 1) }},
			{"bulk-2parts", func(in IDEdges[int64, int32]) (*Graph, error) { return bulkBuild(in, 2) }},
		} {
			b.Run(name+"/"+k.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(12 * m))
				for b.Loop() {
					if _, err := k.build(in); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			})
		}
	}
}

// BenchmarkFromIDsInterleaved alternates the Builder, the serial bulk
// build and the two-goroutine one within each iteration, so that load on
// a shared machine hits all three alike, and reports each one's time as a
// ratio to the Builder's (undirected KG graph, as above).
func BenchmarkFromIDsInterleaved(b *testing.B) {
	in, ok := kgIDEdges(b, anchorsKG())
	if !ok {
		b.Skipf("no %s (make it with anchors/gen_graph.py kg, see anchors/README.md)", anchorsKG())
	}
	var t [3]time.Duration
	builds := []func(IDEdges[int64, int32]) (*Graph, error){
		fromIDsByBuilder[int64, int32],
		func(in IDEdges[int64, int32]) (*Graph, error) { return bulkBuild(in, 1) },
		func(in IDEdges[int64, int32]) (*Graph, error) { return bulkBuild(in, 2) },
	}
	for b.Loop() {
		for k, build := range builds {
			start := time.Now()
			if _, err := build(in); err != nil {
				b.Fatal(err)
			}
			t[k] += time.Since(start)
		}
	}
	b.ReportMetric(float64(t[1])/float64(t[0]), "1part/builder")
	b.ReportMetric(float64(t[2])/float64(t[0]), "2parts/builder")
	b.ReportMetric(float64(t[2])/float64(t[1]), "2parts/1part")
	b.ReportMetric(float64(t[1].Milliseconds())/float64(b.N), "1part-ms")
	b.ReportMetric(float64(t[2].Milliseconds())/float64(b.N), "2parts-ms")
}
