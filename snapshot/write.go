package snapshot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// Save writes g and labels to path atomically: a temporary file in the same
// directory, fsynced, renamed over path, and the directory fsynced.
func Save(path string, g *csr.Graph, labels *mask.Labels) error {
	return SaveProgress(path, g, labels, Progress{})
}

// SaveProgress is Save with the progress of the store the snapshot is of
// (Snapshot.Progress when loaded).
func SaveProgress(path string, g *csr.Graph, labels *mask.Labels, progress Progress) error {
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
	flags, secs, err := sections(p, labels)
	if err != nil {
		return err
	}
	if progress != (Progress{}) {
		b := binary.LittleEndian.AppendUint64(nil, progress.Position)
		b = binary.LittleEndian.AppendUint64(b, progress.Batches)
		secs = append(secs, fileSection{secProgress, b})
	}
	head := header(flags, uint64(g.NumNodes()), uint64(g.NumEdges()), uint64(g.NumArcs()), secs)
	return writeAtomic(path, head, secs)
}

// fileSection is one section of a file to write: its id and its bytes.
type fileSection struct {
	id   uint32
	data []byte
}

// sections returns the header flags and the sections of a graph's parts
// and its labels, in the order FORMAT.md lists them (the arrays' bytes
// are views of the graph's, not copies, except weights widened to
// float64 and the encoded strings and labels).
func sections(p parts, labels *mask.Labels) (uint32, []fileSection, error) {
	// The weights go as float32 when the graph stores every weight array
	// so (Build does, when every weight is exactly a float32), else as
	// float64.
	f32 := p.EdgeWeight.Float32s() != nil && p.Out.Weight.Float32s() != nil && (!p.Directed || p.In.Weight.Float32s() != nil)
	var lab bytes.Buffer
	if _, err := labels.WriteTo(&lab); err != nil {
		return 0, nil, fmt.Errorf("snapshot: %w", err)
	}
	secs := []fileSection{
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
		secs = append(secs, fileSection{secEdgeRelation, bytesOf(p.EdgeRelation)}, fileSection{secRelations, stringsBlock(p.Relations, true)})
	}
	secs = append(secs,
		fileSection{secOutOffsets, bytesOf(p.Out.Offsets)}, fileSection{secOutNbr, bytesOf(p.Out.Nbr)},
		fileSection{secOutWeight, weightBytes(p.Out.Weight, f32)}, fileSection{secOutEdge, bytesOf(p.Out.Edge)})
	if p.Directed {
		secs = append(secs,
			fileSection{secInOffsets, bytesOf(p.In.Offsets)}, fileSection{secInNbr, bytesOf(p.In.Nbr)},
			fileSection{secInWeight, weightBytes(p.In.Weight, f32)}, fileSection{secInEdge, bytesOf(p.In.Edge)})
	}
	secs = append(secs, fileSection{secOutWeightSum, bytesOf(p.OutWeight)}, fileSection{secLabels, lab.Bytes()})
	if p.Rank != nil { // a reordered graph: ties break by rank (csr.Graph.Ranks)
		secs = append(secs, fileSection{secRank, bytesOf(p.Rank)})
	}
	return flags, secs, nil
}

// header returns the header and the section table of a file of n nodes,
// m edges and the given arcs whose sections are laid out in order, each
// at the next 8-byte boundary, with their checksums and the header's.
func header(flags uint32, n, m, arcs uint64, secs []fileSection) []byte {
	head := make([]byte, headerSize+entrySize*len(secs))
	copy(head, magic)
	le := binary.LittleEndian
	le.PutUint32(head[8:], version)
	le.PutUint32(head[12:], flags)
	le.PutUint64(head[16:], n)
	le.PutUint64(head[24:], m)
	le.PutUint64(head[32:], arcs)
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
	return head
}

// writeAtomic writes head and the sections to a temporary file beside
// path, fsyncs it, renames it over path and fsyncs the directory: a crash
// leaves the old file or the new one, never part of one.
func writeAtomic(path string, head []byte, secs []fileSection) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	werr := writeFile(tmp, head, secs)
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

// writeFile writes head, then each section at the next 8-byte boundary
// (zero padding before it), as header laid them out.
func writeFile(f *os.File, head []byte, secs []fileSection) error {
	w := bufio.NewWriterSize(f, 1<<20)
	written := uint64(0)
	write := func(b []byte) error {
		n, err := w.Write(b)
		written += uint64(n)
		return err
	}
	if err := write(head); err != nil {
		return err
	}
	for _, s := range secs {
		if pad := ((written + 7) &^ 7) - written; pad > 0 {
			if err := write(make([]byte, pad)); err != nil {
				return err
			}
		}
		if err := write(s.data); err != nil {
			return err
		}
	}
	return w.Flush()
}
