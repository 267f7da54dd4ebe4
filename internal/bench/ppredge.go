package bench

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/authppr/authppr/csr"
)

// WritePPREDGE1 writes g as a PPREDGE1 file (docs/formats.md) at path: its
// edges by node id, in edge order, weights as float32 (exact for a graph
// read from PPREDGE1 or whose weights are float32s; rounded otherwise),
// the undirected flag from g. Benchmarks use it to make inputs of
// generated graphs.
func WritePPREDGE1(path string, g *csr.Graph) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	le := binary.LittleEndian
	m := g.NumEdges()
	flags := uint64(0)
	if !g.Directed() {
		flags = 1
	}
	head := []byte("PPREDGE1")
	for _, v := range []uint64{uint64(g.NumNodes()), uint64(m), flags} {
		head = le.AppendUint64(head, v)
	}
	w.Write(head)
	var b [4]byte
	for _, field := range []func(csr.Edge) uint32{
		func(e csr.Edge) uint32 { return e.Src },
		func(e csr.Edge) uint32 { return e.Dst },
		func(e csr.Edge) uint32 { return math.Float32bits(float32(e.Weight)) },
	} {
		for e := range m {
			le.PutUint32(b[:], field(g.Edge(uint32(e))))
			w.Write(b[:])
		}
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}
