package csr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// PPREDGE1 (docs/formats.md): a 32-byte header, magic "PPREDGE1" then
// little-endian uint64 n (nodes), m (edges) and flags (bit 0: undirected),
// then uint32 src[m], uint32 dst[m] and float32 weight[m].
const (
	ppredgeMagic  = "PPREDGE1"
	ppredgeHeader = 32
	// ppredgeEdgeBytes is what the reader itself holds per edge beside
	// FromIDs: the file's body (12 bytes) and the pairs and weights
	// decoded from it (12).
	ppredgeEdgeBytes = 24
)

// readPPREDGE1 reads a PPREDGE1 input into the graph whose node ids are
// the file's (node i named strconv.Itoa(i), so results compare with the
// anchors id for id), every edge on DefaultChannel; size is the input's
// length in bytes when known (a file), else -1. The weights are float32, so
// the graph stores them so unless opt asks for float64; every finite
// non-negative float32 lies within [MinWeight, MaxWeight] (MaxFloat32 <
// 2^988, the smallest float32 subnormal > 2^-1022), so the format's whole
// range is read as is. Before reading the body it checks the header's
// counts against opt.MaxMemory (the body, the arrays decoded from it and
// FromIDs' build).
func readPPREDGE1(r io.Reader, name string, size int64, opt ReadOptions) (*Graph, error) {
	fail := func(err error, format string, a ...any) error {
		return &ParseError{File: name, Msg: fmt.Sprintf(format, a...), Err: err}
	}
	var head [ppredgeHeader]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, fail(err, "header: %v (want %d bytes)", err, ppredgeHeader)
	}
	if string(head[:8]) != ppredgeMagic {
		return nil, fail(nil, "magic %q, want %q", head[:8], ppredgeMagic)
	}
	n := binary.LittleEndian.Uint64(head[8:])
	m := binary.LittleEndian.Uint64(head[16:])
	flags := binary.LittleEndian.Uint64(head[24:])
	if n == 0 || n > math.MaxUint32 || m > math.MaxUint32 {
		return nil, fail(nil, "%d nodes, %d edges: out of range", n, m)
	}
	if want := ppredgeHeader + 12*m; size >= 0 && uint64(size) != want {
		return nil, fail(nil, "%d bytes, want %d for %d edges (truncated or corrupt)", size, want, m)
	}
	need := ppredgeEdgeBytes*int64(m) + fromIDsBytes(int64(n), int64(m))
	if err := checkMemory("", int64(n), int64(m), need, opt.MaxMemory); err != nil {
		return nil, fail(err, "%s", strings.TrimPrefix(err.Error(), "csr: "))
	}
	body := make([]byte, 12*m)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fail(err, "truncated edge arrays")
		}
		return nil, fail(err, "%v", err)
	}
	if size < 0 {
		// No length to check up front: the input must end here.
		var extra [1]byte
		if k, _ := io.ReadFull(r, extra[:]); k > 0 {
			return nil, fail(nil, "bytes after the %d edges' arrays (want %d bytes in all)", m, ppredgeHeader+12*m)
		}
	}
	// The ids are the file's: FromIDs builds the graph the Builder would
	// from nodes "0".."n-1" and these edges, in bulk.
	pairs := make([]uint32, 2*m)
	weights := make([]float32, m)
	src, dst, w := body[:4*m], body[4*m:8*m], body[8*m:]
	for e := range m {
		pairs[2*e] = binary.LittleEndian.Uint32(src[4*e:])
		pairs[2*e+1] = binary.LittleEndian.Uint32(dst[4*e:])
		weights[e] = math.Float32frombits(binary.LittleEndian.Uint32(w[4*e:]))
	}
	// The whole read was checked against the limit above.
	g, err := FromIDs(IDEdges[uint32, uint32]{Directed: flags&1 == 0, Nodes: int(n), Pairs: pairs, Weights32: weights,
		Float64Weights: opt.Float64Weights, Order: opt.Order, MaxMemory: -1})
	if err != nil {
		return nil, fail(err, "%s", strings.TrimPrefix(err.Error(), "csr: "))
	}
	return g, nil
}
