package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/authppr/authppr/csr"
)

// ppredgeMagic opens the binary edge lists of shared/anchors/gen_graph.py.
const ppredgeMagic = "PPREDGE1"

// ReadPPREDGE1 reads a binary edge list written by shared/anchors/gen_graph.py
// (little-endian: magic "PPREDGE1", uint64 n, m, flags (bit 0: undirected),
// uint32 src[m], uint32 dst[m], float32 weight[m]) into a snapshot whose
// node ids equal the file's ids (names are the ids in decimal), so results
// compare with the anchors id for id. Every edge gets the default channel.
// The file's weights are float32, so the graph stores them as float32
// (csr.AutoWeights); ReadPPREDGE1Storage chooses.
func ReadPPREDGE1(path string) (*csr.Graph, error) {
	return ReadPPREDGE1Storage(path, csr.AutoWeights)
}

// ReadPPREDGE1Storage is ReadPPREDGE1 with the weights stored as s asks.
func ReadPPREDGE1Storage(path string, s csr.WeightStorage) (*csr.Graph, error) {
	return ReadPPREDGE1Ordered(path, s, csr.StreamOrder)
}

// ReadPPREDGE1Ordered is ReadPPREDGE1Storage with the nodes numbered in
// order o (csr.IDEdges.Order): a degree-ordered graph is built straight
// from the file, node i still named i, without a stream-order graph first
// (R-MAT 20: no second copy of the arrays, no renumbering pass).
func ReadPPREDGE1Ordered(path string, s csr.WeightStorage, o csr.NodeOrder) (*csr.Graph, error) {
	return ReadPPREDGE1With(path, PPREDGE1Options{Storage: s, Order: o})
}

// PPREDGE1Options are the settings of ReadPPREDGE1With; the zero value is
// ReadPPREDGE1's.
type PPREDGE1Options struct {
	Storage csr.WeightStorage
	Order   csr.NodeOrder
	// MaxMemory is the memory limit of the read in bytes (0:
	// csr.DefaultMaxMemory; negative: none): a file whose header promises
	// a graph that would need more (the file's body, the arrays decoded
	// from it and csr.FromIDsBytes) is refused with a *csr.MemoryError
	// before any of it is allocated.
	MaxMemory int64
}

// ppredgeEdgeBytes is what the reader itself holds per edge beside
// FromIDs: the file's body (12 bytes) and the pairs and weights decoded
// from it (12).
const ppredgeEdgeBytes = 24

// ReadPPREDGE1With is ReadPPREDGE1 with options. Every finite
// non-negative float32 weight is within csr's weight range, so the file's
// whole range is read as is.
func ReadPPREDGE1With(path string, opt PPREDGE1Options) (*csr.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	var head [32]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, fmt.Errorf("bench: %s: header: %w (want 32 bytes)", path, err)
	}
	if string(head[:8]) != ppredgeMagic {
		return nil, fmt.Errorf("bench: %s: magic %q, want %q", path, head[:8], ppredgeMagic)
	}
	n := binary.LittleEndian.Uint64(head[8:])
	m := binary.LittleEndian.Uint64(head[16:])
	flags := binary.LittleEndian.Uint64(head[24:])
	if n == 0 || n > math.MaxUint32 || m > math.MaxUint32 {
		return nil, fmt.Errorf("bench: %s: %d nodes, %d edges: out of range", path, n, m)
	}
	if st, err := f.Stat(); err == nil && uint64(st.Size()) != 32+12*m {
		return nil, fmt.Errorf("bench: %s: %d bytes, want %d for %d edges (truncated or corrupt)", path, st.Size(), 32+12*m, m)
	}
	need := ppredgeEdgeBytes*int64(m) + csr.FromIDsBytes(int64(n), int64(m))
	if err := csr.CheckMemory("", int64(n), int64(m), need, opt.MaxMemory); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	body := make([]byte, 12*m)
	if _, err := io.ReadFull(f, body); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("bench: %s: truncated edge arrays", path)
		}
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	// The ids are the file's: csr.FromIDs builds the graph the Builder
	// would from nodes "0".."n-1" and these edges, in bulk.
	pairs := make([]uint32, 2*m)
	weights := make([]float32, m)
	src, dst, w := body[:4*m], body[4*m:8*m], body[8*m:]
	for e := range m {
		pairs[2*e] = binary.LittleEndian.Uint32(src[4*e:])
		pairs[2*e+1] = binary.LittleEndian.Uint32(dst[4*e:])
		weights[e] = math.Float32frombits(binary.LittleEndian.Uint32(w[4*e:]))
	}
	// The whole read was checked against the limit above.
	g, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: flags&1 == 0, Nodes: int(n), Pairs: pairs, Weights32: weights,
		WeightStorage: opt.Storage, Order: opt.Order, MaxMemory: -1})
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	return g, nil
}
