package snapshot

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	maxSection = 19 // secRank, the last section id

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
)

var sectionNames = [...]string{
	secNames: "names", secEdgeSrc: "edge-src", secEdgeDst: "edge-dst", secEdgeWeight: "edge-weight",
	secEdgeChannel: "edge-channel", secChannels: "channels", secEdgeRelation: "edge-relation",
	secRelations: "relations", secOutOffsets: "out-offsets", secOutNbr: "out-nbr",
	secOutWeight: "out-weight", secOutEdge: "out-edge", secInOffsets: "in-offsets",
	secInNbr: "in-nbr", secInWeight: "in-weight", secInEdge: "in-edge",
	secOutWeightSum: "out-weight-sum", secLabels: "labels", secRank: "rank",
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

// Save writes g and labels to path atomically: a temporary file in the same
// directory, fsynced, renamed over path, and the directory fsynced.
func Save(path string, g *csr.Graph, labels *mask.Labels) error {
	if err := hostOK(); err != nil {
		return err
	}
	if labels.NumEdges() != g.NumEdges() {
		return fmt.Errorf("snapshot: labels cover %d edges, graph has %d", labels.NumEdges(), g.NumEdges())
	}
	p := csrHooks.Parts(g)
	if err := checkLabels(p.EdgeChannel, p.Channels, labels); err != nil {
		return fmt.Errorf("snapshot: labels: %w", err)
	}
	// The weights go as float32 when the graph stores every weight array
	// so (Build does, when every weight is exactly a float32), else as
	// float64.
	f32 := p.EdgeWeight.Float32s() != nil && p.Out.Weight.Float32s() != nil && (!p.Directed || p.In.Weight.Float32s() != nil)
	var lab bytes.Buffer
	if _, err := labels.WriteTo(&lab); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	type section struct {
		id   uint32
		data []byte
	}
	secs := []section{
		{secNames, stringsBlock(p.Names, false)},
		{secEdgeSrc, bytesOf(p.EdgeSrc)},
		{secEdgeDst, bytesOf(p.EdgeDst)},
		{secEdgeWeight, weightBytes(p.EdgeWeight, f32)},
		{secEdgeChannel, bytesOf(p.EdgeChannel)},
		{secChannels, stringsBlock(p.Channels, true)},
	}
	flags := uint32(0)
	if f32 {
		flags |= flagFloat32
	}
	if p.Directed {
		flags |= flagDirected
	}
	if p.EdgeRelation != nil {
		flags |= flagRelations
		secs = append(secs, section{secEdgeRelation, bytesOf(p.EdgeRelation)}, section{secRelations, stringsBlock(p.Relations, true)})
	}
	secs = append(secs,
		section{secOutOffsets, bytesOf(p.Out.Offsets)}, section{secOutNbr, bytesOf(p.Out.Nbr)},
		section{secOutWeight, weightBytes(p.Out.Weight, f32)}, section{secOutEdge, bytesOf(p.Out.Edge)})
	if p.Directed {
		secs = append(secs,
			section{secInOffsets, bytesOf(p.In.Offsets)}, section{secInNbr, bytesOf(p.In.Nbr)},
			section{secInWeight, weightBytes(p.In.Weight, f32)}, section{secInEdge, bytesOf(p.In.Edge)})
	}
	secs = append(secs, section{secOutWeightSum, bytesOf(p.OutWeight)}, section{secLabels, lab.Bytes()})
	if p.Rank != nil { // a reordered graph: ties break by rank (csr.Graph.Ranks)
		secs = append(secs, section{secRank, bytesOf(p.Rank)})
	}

	head := make([]byte, headerSize+entrySize*len(secs))
	copy(head, magic)
	le := binary.LittleEndian
	le.PutUint32(head[8:], version)
	le.PutUint32(head[12:], flags)
	le.PutUint64(head[16:], uint64(g.NumNodes()))
	le.PutUint64(head[24:], uint64(g.NumEdges()))
	le.PutUint64(head[32:], uint64(g.NumArcs()))
	le.PutUint32(head[40:], uint32(len(secs)))
	off := uint64(len(head))
	for i, s := range secs {
		off = (off + 7) &^ 7
		e := head[headerSize+entrySize*i:]
		le.PutUint32(e[0:], s.id)
		le.PutUint64(e[8:], off)
		le.PutUint64(e[16:], uint64(len(s.data)))
		le.PutUint32(e[24:], crc32.Checksum(s.data, castagnoli))
		off += uint64(len(s.data))
	}
	le.PutUint32(head[44:], crc32.Checksum(head, castagnoli))

	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	w := bufio.NewWriterSize(tmp, 1<<20)
	written := uint64(0)
	write := func(b []byte) error {
		n, err := w.Write(b)
		written += uint64(n)
		return err
	}
	werr := write(head)
	for _, s := range secs {
		if werr != nil {
			break
		}
		if pad := ((written + 7) &^ 7) - written; pad > 0 {
			werr = write(make([]byte, pad))
		}
		if werr == nil {
			werr = write(s.data)
		}
	}
	if werr == nil {
		werr = w.Flush()
	}
	if werr == nil {
		werr = tmp.Chmod(0o644) // CreateTemp makes 0600; a snapshot is data, not a secret
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("snapshot: write %s: %w", tmp.Name(), werr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("snapshot: sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("snapshot: sync directory %s: %w", dir, err)
	}
	return nil
}

// Snapshot is a loaded file: its graph's numeric arrays are views of the
// file's mapping, which the graph holds (see the package doc's Memory
// section); its names and labels are Go memory.
type Snapshot struct {
	Graph  *csr.Graph
	Labels *mask.Labels
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

// parse checks data and builds the snapshot on it, its graph holding
// owner. The fused pass (parseWith fused) decides; when it rejects, the
// plain pass (every checksum first, then the graph) names the fault, as
// it always has.
func parse(path string, data []byte, owner any) (*Snapshot, error) {
	s, err := parseWith(path, data, owner, true)
	if err == nil {
		return s, nil
	}
	if _, err = parseWith(path, data, owner, false); err == nil {
		return nil, fmt.Errorf("snapshot: %s: the fused checks reject what the plain checks accept (a bug)", path)
	}
	return nil, err
}

// parseWith checks data and builds the snapshot on it. Plain (fused
// false), it checksums every section, then checks the graph. Fused, it
// checksums the edge and arc sections (nearly the whole file) in the
// blocks the checked assembly (csrhook.Hooks.Assemble) reads, while they
// are in cache, so the file is
// read from memory once rather than twice; the other sections first. Both
// accept the same files; on a bad file the fused pass may stop at a
// different fault, so parse reports the plain pass's.
func parseWith(path string, data []byte, owner any, fused bool) (*Snapshot, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("snapshot: %s: %s", path, fmt.Sprintf(format, a...))
	}
	if len(data) < headerSize {
		return nil, fail("%d bytes, shorter than the %d-byte header (truncated?)", len(data), headerSize)
	}
	if string(data[:8]) != magic {
		return nil, fail("bad magic %q, want %q (not a snapshot file)", data[:8], magic)
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != version {
		return nil, fail("format version %d, this build reads version %d", v, version)
	}
	flags := le.Uint32(data[12:])
	n, m, arcs := le.Uint64(data[16:]), le.Uint64(data[24:]), le.Uint64(data[32:])
	count := uint64(le.Uint32(data[40:]))
	if count == 0 || count > maxSection || uint64(len(data)) < headerSize+entrySize*count {
		return nil, fail("header: %d sections, or the section table is truncated", count)
	}
	head := append([]byte(nil), data[:headerSize+entrySize*count]...)
	stored := le.Uint32(head[44:])
	le.PutUint32(head[44:], 0)
	if got := crc32.Checksum(head, castagnoli); got != stored {
		return nil, fail("header: checksum mismatch (computed %08x, stored %08x): corrupted", got, stored)
	}
	if flags&^(flagDirected|flagRelations|flagFloat32) != 0 {
		return nil, fail("header: unknown flags %#x", flags)
	}
	if n == 0 || n >= math.MaxUint32 || m > math.MaxUint32 || arcs > 2*math.MaxUint32 {
		return nil, fail("header: %d nodes, %d edges, %d arcs: out of range", n, m, arcs)
	}
	directed := flags&flagDirected != 0
	var fs *fusedSums
	if fused {
		fs = newFusedSums(directed, flags&flagRelations != 0, flags&flagFloat32 != 0, m, arcs)
	}
	secs := make(map[uint32][]byte, count)
	type span struct{ off, end uint64 }
	var spans []span
	// The table is checked entry by entry; the checksums of the entries
	// before the first bad one are computed together (sectionSums), and
	// the first fault in table order is reported, as a loop doing both per
	// entry would.
	var tableErr error
	var bodies [][]byte
	var sums []uint32
	var bodyNames []string
	for i := range count {
		e := data[headerSize+entrySize*i:]
		id, off, length, sum := le.Uint32(e[0:]), le.Uint64(e[8:]), le.Uint64(e[16:]), le.Uint32(e[24:])
		if id == 0 || id > maxSection {
			tableErr = fail("section table entry %d: unknown section id %d", i, id)
			break
		}
		name := sectionNames[id]
		if _, dup := secs[id]; dup {
			tableErr = fail("section %s appears twice", name)
			break
		}
		if off%8 != 0 || off < headerSize+entrySize*count {
			tableErr = fail("section %s: offset %d misaligned or inside the header", name, off)
			break
		}
		if off > uint64(len(data)) || length > uint64(len(data))-off {
			tableErr = fail("section %s: bytes %d..%d past the end of the %d-byte file (truncated)", name, off, off+length, len(data))
			break
		}
		b := data[off : off+length]
		secs[id] = b
		spans = append(spans, span{off, off + length})
		if fs.take(id, b, sum) {
			continue // checksummed during the checked assembly
		}
		bodies = append(bodies, b)
		sums = append(sums, sum)
		bodyNames = append(bodyNames, name)
	}
	for i, got := range sectionSums(bodies) {
		if got != sums[i] {
			return nil, fail("section %s: checksum mismatch (computed %08x, stored %08x): corrupted", bodyNames[i], got, sums[i])
		}
	}
	if tableErr != nil {
		return nil, tableErr
	}
	// Every byte outside the header and the sections is zero padding to the
	// next 8-byte boundary, so no byte of the file goes unchecked.
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	pos := uint64(headerSize + entrySize*count)
	for _, sp := range spans {
		if sp.off < pos || sp.off != (pos+7)&^7 {
			return nil, fail("sections overlap or leave a gap at byte %d", pos)
		}
		for _, c := range data[pos:sp.off] {
			if c != 0 {
				return nil, fail("padding before byte %d is not zero: corrupted", sp.off)
			}
		}
		pos = sp.end
	}
	if pos != uint64(len(data)) {
		return nil, fail("%d bytes after the last section", uint64(len(data))-pos)
	}
	want := func(id uint32, size uint64) ([]byte, error) {
		b, ok := secs[id]
		if !ok {
			return nil, fail("section %s missing", sectionNames[id])
		}
		if size != 0 && uint64(len(b)) != size {
			return nil, fail("section %s: %d bytes, want %d", sectionNames[id], len(b), size)
		}
		return b, nil
	}
	// The numeric arrays below are views of data; the graph holds owner
	// so that data stays mapped while they are reachable.
	p := csrhook.Parts[csr.Adjacency, csr.Weights]{Directed: directed, Owner: owner}
	var err error
	var b []byte
	if b, err = want(secNames, 0); err != nil {
		return nil, err
	}
	if p.Names, err = decodeStrings(b, n, false); err != nil {
		return nil, fail("section names: %v", err)
	}
	u32 := func(id uint32, count uint64) ([]uint32, error) {
		b, err := want(id, 4*count)
		if err != nil {
			return nil, err
		}
		return viewAs[uint32](b), nil
	}
	f64 := func(id uint32, count uint64) ([]float64, error) {
		b, err := want(id, 8*count)
		if err != nil {
			return nil, err
		}
		return viewAs[float64](b), nil
	}
	// weights reads a weight section in the file's storage.
	weights := func(id uint32, count uint64) (csr.Weights, error) {
		if flags&flagFloat32 == 0 {
			w, err := f64(id, count)
			return csrHooks.Float64Weights(w), err
		}
		b, err := want(id, 4*count)
		if err != nil {
			return csr.Weights{}, err
		}
		return csrHooks.Float32Weights(viewAs[float32](b)), nil
	}
	ints := func(id uint32, count uint64) ([]int, error) {
		b, err := want(id, 8*count)
		if err != nil {
			return nil, err
		}
		return viewAs[int](b), nil
	}
	if p.EdgeSrc, err = u32(secEdgeSrc, m); err != nil {
		return nil, err
	}
	if p.EdgeDst, err = u32(secEdgeDst, m); err != nil {
		return nil, err
	}
	if p.EdgeWeight, err = weights(secEdgeWeight, m); err != nil {
		return nil, err
	}
	if p.EdgeChannel, err = u32(secEdgeChannel, m); err != nil {
		return nil, err
	}
	if b, err = want(secChannels, 0); err != nil {
		return nil, err
	}
	if p.Channels, err = decodeStrings(b, 0, true); err != nil {
		return nil, fail("section channels: %v", err)
	}
	if flags&flagRelations != 0 {
		if p.EdgeRelation, err = u32(secEdgeRelation, m); err != nil {
			return nil, err
		}
		if b, err = want(secRelations, 0); err != nil {
			return nil, err
		}
		if p.Relations, err = decodeStrings(b, 0, true); err != nil {
			return nil, fail("section relations: %v", err)
		}
	}
	adj := func(offs, nbr, wt, edge uint32) (csr.Adjacency, error) {
		var a csr.Adjacency
		var err error
		if a.Offsets, err = ints(offs, n+1); err != nil {
			return a, err
		}
		if a.Nbr, err = u32(nbr, arcs); err != nil {
			return a, err
		}
		if a.Weight, err = weights(wt, arcs); err != nil {
			return a, err
		}
		a.Edge, err = u32(edge, arcs)
		return a, err
	}
	if p.Out, err = adj(secOutOffsets, secOutNbr, secOutWeight, secOutEdge); err != nil {
		return nil, err
	}
	if directed {
		if p.In, err = adj(secInOffsets, secInNbr, secInWeight, secInEdge); err != nil {
			return nil, err
		}
	}
	if p.OutWeight, err = f64(secOutWeightSum, n); err != nil {
		return nil, err
	}
	if _, ok := secs[secRank]; ok {
		if p.Rank, err = u32(secRank, n); err != nil {
			return nil, err
		}
	}
	var visit csrhook.VisitFunc
	if fs != nil {
		visit = fs.visit
	}
	g, err := csrHooks.Assemble(p, visit)
	if err != nil {
		return nil, fail("graph does not hold together: %v", err)
	}
	if fs != nil {
		if name, got, stored, ok := fs.check(); !ok {
			return nil, fail("section %s: checksum mismatch (computed %08x, stored %08x): corrupted", name, got, stored)
		}
	}
	if b, err = want(secLabels, 0); err != nil {
		return nil, err
	}
	labels, err := mask.ReadLabels(bytes.NewReader(b)) // Go memory: ReadLabels shares none with b
	if err != nil {
		return nil, fail("section labels: %v", err)
	}
	if labels.NumEdges() != g.NumEdges() {
		return nil, fail("section labels: cover %d edges, the graph has %d", labels.NumEdges(), g.NumEdges())
	}
	if err := checkLabels(p.EdgeChannel, g.Channels(), labels); err != nil {
		return nil, fail("section labels: %v", err)
	}
	return &Snapshot{Graph: g, Labels: labels}, nil
}

// viewAs reinterprets a section's bytes (8-byte aligned, length checked by
// the caller) as a slice of T without copying: a view of the mapping, so
// only arrays of a graph that holds the mapping's owner are made with it
// (the package doc's Memory section).
func viewAs[T uint32 | int | float64 | float32](b []byte) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b) == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
}

// decodeStrings reads a strings block; with withCount the count is stored
// first, otherwise it must be want. The strings are Go memory, slices of
// one copy of the block's bytes, never views of b (a mapping): names,
// channels and relations end up in results, maps and other graphs, which
// no owner can follow.
func decodeStrings(b []byte, want uint64, withCount bool) ([]string, error) {
	le := binary.LittleEndian
	count := want
	if withCount {
		if len(b) < 8 {
			return nil, io.ErrUnexpectedEOF
		}
		count, b = le.Uint64(b), b[8:]
	}
	if count > uint64(len(b))/8 || uint64(len(b)) < 8*(count+1) {
		return nil, fmt.Errorf("%d strings do not fit in %d bytes", count, len(b))
	}
	offs, blob := b[:8*(count+1)], b[8*(count+1):]
	text := string(blob)
	out := make([]string, count)
	prev := le.Uint64(offs)
	if prev != 0 {
		return nil, fmt.Errorf("first offset %d, want 0", prev)
	}
	for i := range count {
		next := le.Uint64(offs[8*(i+1):])
		if next < prev || next > uint64(len(blob)) {
			return nil, fmt.Errorf("string %d: offsets %d..%d outside the %d name bytes", i, prev, next, len(blob))
		}
		out[i] = text[prev:next]
		prev = next
	}
	if prev != uint64(len(blob)) {
		return nil, fmt.Errorf("%d name bytes unaccounted for", uint64(len(blob))-prev)
	}
	return out, nil
}
