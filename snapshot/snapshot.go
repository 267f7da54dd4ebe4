package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
)

// csrHooks reach csr's raw arrays: a graph's parts to save, and the
// checked assembly of a loaded file's parts with a visit of the blocks its
// checks read.
var csrHooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()

const (
	magic      = "APPRSNP1"
	version    = 1
	headerSize = 64
	entrySize  = 32
	maxSection = 20 // secProgress, the last section id

	flagDirected  = 1 << 0
	flagRelations = 1 << 1
	// flagFloat32 marks the weight sections (edge-weight, out-weight,
	// in-weight) as float32: written for a graph that stores its weights
	// so (csr.Weights), loaded as such without a copy. Readers before it
	// refuse the file ("unknown flags") rather than misread it.
	flagFloat32 = 1 << 2
)

// Section ids, as FORMAT.md lists them.
const (
	secNames = iota + 1
	secEdgeSrc
	secEdgeDst
	secEdgeWeight
	secEdgeChannel
	secChannels
	secEdgeRelation
	secRelations
	secOutOffsets
	secOutNbr
	secOutWeight
	secOutEdge
	secInOffsets
	secInNbr
	secInWeight
	secInEdge
	secOutWeightSum
	secLabels
	secRank
	secProgress
)

var sectionNames = [...]string{
	secNames: "names", secEdgeSrc: "edge-src", secEdgeDst: "edge-dst", secEdgeWeight: "edge-weight",
	secEdgeChannel: "edge-channel", secChannels: "channels", secEdgeRelation: "edge-relation",
	secRelations: "relations", secOutOffsets: "out-offsets", secOutNbr: "out-nbr",
	secOutWeight: "out-weight", secOutEdge: "out-edge", secInOffsets: "in-offsets",
	secInNbr: "in-nbr", secInWeight: "in-weight", secInEdge: "in-edge",
	secOutWeightSum: "out-weight-sum", secLabels: "labels", secRank: "rank",
	secProgress: "progress",
}

// progressSize is the length of the progress section: two uint64.
const progressSize = 16

// Progress is what a living store records about the writes a snapshot
// holds (section 20, written when any field is not zero; a file without it
// reads as all zero): the position of the last batch applied with one
// (store's Writer.ApplyAt, e.g. a replicated stream's sequence; 0: none),
// and the number of batches applied since the store was created.
type Progress struct {
	Position, Batches uint64
}

// hostOK reports whether the in-memory layout of the arrays is the file's:
// little-endian, 64-bit int.
func hostOK() error {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 || strconv.IntSize != 64 {
		return errors.New("snapshot: this host is not little-endian 64-bit; snapshot files map arrays directly and need one")
	}
	return nil
}

// bytesOf views a slice's backing array as bytes (no copy).
func bytesOf[T uint32 | int | float64 | float32 | uint64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// weightBytes returns a weight array's bytes as the file stores it:
// float32 when f32 (the array is float32 then), else float64 (widened, a
// copy, when the array is float32).
func weightBytes(w csr.Weights, f32 bool) []byte {
	if f32 {
		return bytesOf(w.Float32s())
	}
	if w.Float32s() == nil {
		return bytesOf(w.Float64s())
	}
	wide := make([]float64, w.Len())
	for i, x := range w.Float32s() {
		wide[i] = float64(x)
	}
	return bytesOf(wide)
}

// stringsBlock encodes strings as uint64 offsets[len+1] and their bytes.
func stringsBlock(ss []string, withCount bool) []byte {
	var b []byte
	if withCount {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(ss)))
	}
	off := uint64(0)
	b = binary.LittleEndian.AppendUint64(b, 0)
	for _, s := range ss {
		off += uint64(len(s))
		b = binary.LittleEndian.AppendUint64(b, off)
	}
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

// Snapshot is a loaded file: its graph's numeric arrays are views of the
// file's mapping, which the graph holds (see the package doc's Memory
// section); its names and labels are Go memory.
type Snapshot struct {
	Graph    *csr.Graph
	Labels   *mask.Labels
	Progress Progress // zero when the file has no progress section
}

// Close drops the snapshot's hold on the file: Graph and Labels are nil
// afterwards. It unmaps nothing itself: the mapping goes once no graph
// viewing it is reachable (the Graph, or any graph made on its arrays),
// so a graph still in use after Close stays valid. Closing twice is
// harmless.
func (s *Snapshot) Close() error {
	s.Graph, s.Labels = nil, nil
	return nil
}

// mapping owns a loaded file's mapping: the graph built on it holds it
// (csrhook.Parts.Owner) and a cleanup unmaps the file once it is
// unreachable.
type mapping struct {
	path string
	size int
}

// Load maps path and checks it (see the package doc) before returning it.
func Load(path string) (*Snapshot, error) {
	if err := hostOK(); err != nil {
		return nil, err
	}
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	owner := &mapping{path: path, size: len(data)}
	s, err := parse(path, data, owner)
	if err != nil {
		// Nothing built on the mapping escapes a failed parse: the
		// strings and messages are copies.
		unmap()
		return nil, err
	}
	// The cleanup's argument must not reach owner (it would never run):
	// unmap holds the mapping's address only.
	runtime.AddCleanup(owner, func(unmap func() error) { unmap() }, unmap)
	return s, nil
}
