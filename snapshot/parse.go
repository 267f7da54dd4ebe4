package snapshot

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
)

// parse checks data and builds the snapshot on it, its graph holding
// owner. The fused pass (parseWith fused) decides; when it rejects, the
// plain pass (every checksum first, then the graph) names the fault.
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
// are in cache, so the file is read from memory once rather than twice;
// the other sections first. Both accept the same files; on a bad file the
// fused pass may stop at a different fault, so parse reports the plain
// pass's.
//
// The checks run in file order, and the first fault is the error: the
// header (fileReader.header), the section table and the sections'
// checksums (table), the bytes between sections (layout), each section's
// size and encoding (parts), the graph's invariants with the fused
// checksums, and the labels.
func parseWith(path string, data []byte, owner any, fused bool) (*Snapshot, error) {
	r := &fileReader{path: path, data: data}
	if err := r.header(); err != nil {
		return nil, err
	}
	var fs *fusedSums
	if fused {
		fs = newFusedSums(r.directed(), r.flags&flagRelations != 0, r.flags&flagFloat32 != 0, r.m, r.arcs)
	}
	spans, err := r.table(fs)
	if err != nil {
		return nil, err
	}
	if err := r.layout(spans); err != nil {
		return nil, err
	}
	p, err := r.parts(owner)
	if err != nil {
		return nil, err
	}
	var visit csrhook.VisitFunc
	if fs != nil {
		visit = fs.visit
	}
	g, err := csrHooks.Assemble(p, visit)
	if err != nil {
		return nil, r.fail("graph does not hold together: %v", err)
	}
	if fs != nil {
		if name, got, stored, ok := fs.check(); !ok {
			return nil, r.fail("section %s: checksum mismatch (computed %08x, stored %08x): corrupted", name, got, stored)
		}
	}
	labels, err := r.labels(g, p.EdgeChannel)
	if err != nil {
		return nil, err
	}
	progress, err := r.progress()
	if err != nil {
		return nil, err
	}
	return &Snapshot{Graph: g, Labels: labels, Progress: progress}, nil
}

// progress reads the progress section, zero when the file has none.
func (r *fileReader) progress() (Progress, error) {
	if _, ok := r.secs[secProgress]; !ok {
		return Progress{}, nil
	}
	b, err := r.want(secProgress, progressSize)
	if err != nil {
		return Progress{}, err
	}
	le := binary.LittleEndian
	return Progress{Position: le.Uint64(b), Batches: le.Uint64(b[8:])}, nil
}

// fileReader reads one file: its path (for messages), its bytes, the
// header's fields and, once the table is read, its sections by id.
type fileReader struct {
	path              string
	data              []byte
	flags             uint32
	n, m, arcs, count uint64
	secs              map[uint32][]byte
}

// fail returns the error naming the file and what is wrong.
func (r *fileReader) fail(format string, a ...any) error {
	return fmt.Errorf("snapshot: %s: %s", r.path, fmt.Sprintf(format, a...))
}

func (r *fileReader) directed() bool { return r.flags&flagDirected != 0 }

// header checks the header: its size, magic, version, the section count
// (and that the table fits), its checksum, flags and counts.
func (r *fileReader) header() error {
	data := r.data
	if len(data) < headerSize {
		return r.fail("%d bytes, shorter than the %d-byte header (truncated?)", len(data), headerSize)
	}
	if string(data[:8]) != magic {
		return r.fail("bad magic %q, want %q (not a snapshot file)", data[:8], magic)
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != version {
		return r.fail("format version %d, this build reads version %d", v, version)
	}
	r.flags = le.Uint32(data[12:])
	r.n, r.m, r.arcs = le.Uint64(data[16:]), le.Uint64(data[24:]), le.Uint64(data[32:])
	r.count = uint64(le.Uint32(data[40:]))
	if r.count == 0 || r.count > maxSection || uint64(len(data)) < headerSize+entrySize*r.count {
		return r.fail("header: %d sections, or the section table is truncated", r.count)
	}
	head := append([]byte(nil), data[:headerSize+entrySize*r.count]...)
	stored := le.Uint32(head[44:])
	le.PutUint32(head[44:], 0)
	if got := crc32.Checksum(head, castagnoli); got != stored {
		return r.fail("header: checksum mismatch (computed %08x, stored %08x): corrupted", got, stored)
	}
	if r.flags&^(flagDirected|flagRelations|flagFloat32) != 0 {
		return r.fail("header: unknown flags %#x", r.flags)
	}
	if r.n == 0 || r.n >= math.MaxUint32 || r.m > math.MaxUint32 || r.arcs > 2*math.MaxUint32 {
		return r.fail("header: %d nodes, %d edges, %d arcs: out of range", r.n, r.m, r.arcs)
	}
	return nil
}

// span is the bytes [off, end) of one section.
type span struct{ off, end uint64 }

// table checks the section table entry by entry (a known id, once, at an
// aligned offset past the table, within the file), keeps each section's
// bytes, and checks the checksums of the sections fs does not take (all of
// them when fs is nil). The checksums of the entries before the first bad
// one are computed together (sectionSums), and the first fault in table
// order is reported, as a loop doing both per entry would. It returns the
// sections' spans.
func (r *fileReader) table(fs *fusedSums) ([]span, error) {
	data, le := r.data, binary.LittleEndian
	r.secs = make(map[uint32][]byte, r.count)
	var spans []span
	var tableErr error
	var bodies [][]byte
	var sums []uint32
	var bodyNames []string
	for i := range r.count {
		e := data[headerSize+entrySize*i:]
		id, off, length, sum := le.Uint32(e[0:]), le.Uint64(e[8:]), le.Uint64(e[16:]), le.Uint32(e[24:])
		if id == 0 || id > maxSection {
			tableErr = r.fail("section table entry %d: unknown section id %d", i, id)
			break
		}
		name := sectionNames[id]
		if _, dup := r.secs[id]; dup {
			tableErr = r.fail("section %s appears twice", name)
			break
		}
		if off%8 != 0 || off < headerSize+entrySize*r.count {
			tableErr = r.fail("section %s: offset %d misaligned or inside the header", name, off)
			break
		}
		if off > uint64(len(data)) || length > uint64(len(data))-off {
			tableErr = r.fail("section %s: bytes %d..%d past the end of the %d-byte file (truncated)", name, off, off+length, len(data))
			break
		}
		b := data[off : off+length]
		r.secs[id] = b
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
			return nil, r.fail("section %s: checksum mismatch (computed %08x, stored %08x): corrupted", bodyNames[i], got, sums[i])
		}
	}
	return spans, tableErr
}

// layout checks that every byte outside the header and the sections is
// zero padding to the next 8-byte boundary, so no byte of the file goes
// unchecked.
func (r *fileReader) layout(spans []span) error {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	pos := uint64(headerSize + entrySize*r.count)
	for _, sp := range spans {
		if sp.off < pos || sp.off != (pos+7)&^7 {
			return r.fail("sections overlap or leave a gap at byte %d", pos)
		}
		for _, c := range r.data[pos:sp.off] {
			if c != 0 {
				return r.fail("padding before byte %d is not zero: corrupted", sp.off)
			}
		}
		pos = sp.end
	}
	if pos != uint64(len(r.data)) {
		return r.fail("%d bytes after the last section", uint64(len(r.data))-pos)
	}
	return nil
}

// parts are a graph's arrays as csr assembles them.
type parts = csrhook.Parts[csr.Adjacency, csr.Weights]

// parts reads the graph's sections, in the order FORMAT.md lists them,
// each checked for presence and size and the strings decoded. The numeric
// arrays are views of the file's bytes; the graph holds owner so that they
// stay mapped while they are reachable.
func (r *fileReader) parts(owner any) (parts, error) {
	p := parts{Directed: r.directed(), Owner: owner}
	var err error
	if p.Names, err = r.strings(secNames, "names", r.n, false); err != nil {
		return p, err
	}
	if p.EdgeSrc, err = r.u32(secEdgeSrc, r.m); err != nil {
		return p, err
	}
	if p.EdgeDst, err = r.u32(secEdgeDst, r.m); err != nil {
		return p, err
	}
	if p.EdgeWeight, err = r.weights(secEdgeWeight, r.m); err != nil {
		return p, err
	}
	if p.EdgeChannel, err = r.u32(secEdgeChannel, r.m); err != nil {
		return p, err
	}
	if p.Channels, err = r.strings(secChannels, "channels", 0, true); err != nil {
		return p, err
	}
	if r.flags&flagRelations != 0 {
		if p.EdgeRelation, err = r.u32(secEdgeRelation, r.m); err != nil {
			return p, err
		}
		if p.Relations, err = r.strings(secRelations, "relations", 0, true); err != nil {
			return p, err
		}
	}
	if p.Out, err = r.adjacency(secOutOffsets, secOutNbr, secOutWeight, secOutEdge); err != nil {
		return p, err
	}
	if p.Directed {
		if p.In, err = r.adjacency(secInOffsets, secInNbr, secInWeight, secInEdge); err != nil {
			return p, err
		}
	}
	if p.OutWeight, err = r.f64(secOutWeightSum, r.n); err != nil {
		return p, err
	}
	if _, ok := r.secs[secRank]; ok {
		if p.Rank, err = r.u32(secRank, r.n); err != nil {
			return p, err
		}
	}
	return p, nil
}

// want returns section id, which must be present and, when size is not 0,
// size bytes long.
func (r *fileReader) want(id uint32, size uint64) ([]byte, error) {
	b, ok := r.secs[id]
	if !ok {
		return nil, r.fail("section %s missing", sectionNames[id])
	}
	if size != 0 && uint64(len(b)) != size {
		return nil, r.fail("section %s: %d bytes, want %d", sectionNames[id], len(b), size)
	}
	return b, nil
}

// u32, f64 and ints view a section of count elements.
func (r *fileReader) u32(id uint32, count uint64) ([]uint32, error) {
	b, err := r.want(id, 4*count)
	if err != nil {
		return nil, err
	}
	return viewAs[uint32](b), nil
}

func (r *fileReader) f64(id uint32, count uint64) ([]float64, error) {
	b, err := r.want(id, 8*count)
	if err != nil {
		return nil, err
	}
	return viewAs[float64](b), nil
}

func (r *fileReader) ints(id uint32, count uint64) ([]int, error) {
	b, err := r.want(id, 8*count)
	if err != nil {
		return nil, err
	}
	return viewAs[int](b), nil
}

// weights views a weight section of count weights in the file's storage.
func (r *fileReader) weights(id uint32, count uint64) (csr.Weights, error) {
	if r.flags&flagFloat32 == 0 {
		w, err := r.f64(id, count)
		return csrHooks.Float64Weights(w), err
	}
	b, err := r.want(id, 4*count)
	if err != nil {
		return csr.Weights{}, err
	}
	return csrHooks.Float32Weights(viewAs[float32](b)), nil
}

// adjacency views the four sections of one adjacency.
func (r *fileReader) adjacency(offs, nbr, wt, edge uint32) (csr.Adjacency, error) {
	var a csr.Adjacency
	var err error
	if a.Offsets, err = r.ints(offs, r.n+1); err != nil {
		return a, err
	}
	if a.Nbr, err = r.u32(nbr, r.arcs); err != nil {
		return a, err
	}
	if a.Weight, err = r.weights(wt, r.arcs); err != nil {
		return a, err
	}
	a.Edge, err = r.u32(edge, r.arcs)
	return a, err
}

// strings decodes a strings section (decodeStrings; name for messages).
func (r *fileReader) strings(id uint32, name string, want uint64, withCount bool) ([]string, error) {
	b, err := r.want(id, 0)
	if err != nil {
		return nil, err
	}
	ss, err := decodeStrings(b, want, withCount)
	if err != nil {
		return nil, r.fail("section %s: %v", name, err)
	}
	return ss, nil
}

// labels decodes the labels section into Go memory (mask.ReadLabels
// shares none with the section's bytes) and checks it against the graph:
// the same edges, each added by the channel its edge-channel entry names.
func (r *fileReader) labels(g *csr.Graph, edgeChannel []uint32) (*mask.Labels, error) {
	b, err := r.want(secLabels, 0)
	if err != nil {
		return nil, err
	}
	labels, err := mask.ReadLabels(bytes.NewReader(b))
	if err != nil {
		return nil, r.fail("section labels: %v", err)
	}
	if labels.NumEdges() != g.NumEdges() {
		return nil, r.fail("section labels: cover %d edges, the graph has %d", labels.NumEdges(), g.NumEdges())
	}
	if err := checkLabels(edgeChannel, g.Channels(), labels); err != nil {
		return nil, r.fail("section labels: %v", err)
	}
	return labels, nil
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
