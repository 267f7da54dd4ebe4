package mask

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/RoaringBitmap/roaring/v2"
)

// labelsMagic opens a serialised Labels; the digit is the format version.
// Version 1 had no required bitmaps; ReadLabels reads it as labels that
// require nothing.
const (
	labelsMagic   = "APPRLBL2"
	labelsMagicV1 = "APPRLBL1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo serialises the labels:
//
//	magic     8 bytes  "APPRLBL2"
//	numEdges  uint64
//	channels  uint32   count, then per channel in sorted order:
//	  nameLen uint32, name bytes (UTF-8),
//	  addedLen uint64, added bitmap (roaring portable format),
//	  deletedLen uint64, deleted bitmap (roaring portable format),
//	  requiredLen uint64, required bitmap (roaring portable format)
//	crc       uint32   CRC-32C (Castagnoli) of every byte before it
//
// All integers little-endian. An absent bitmap is written as an empty one.
// Version 1 ("APPRLBL1") is the same without the required bitmaps.
func (l *Labels) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	buf.WriteString(labelsMagic)
	buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(l.numEdges)))
	channels := l.Channels()
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(channels))))
	for _, c := range channels {
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(c))))
		buf.WriteString(c)
		for _, bm := range []*roaring.Bitmap{l.added[c], l.deleted[c], l.requires[c]} {
			if bm == nil {
				bm = roaring.New()
			}
			b, err := bm.ToBytes()
			if err != nil {
				return 0, fmt.Errorf("mask: serialise channel %q: %w", c, err)
			}
			buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
			buf.Write(b)
		}
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(buf.Bytes(), castagnoli)))
	n, err := w.Write(buf.Bytes())
	if err != nil {
		return int64(n), fmt.Errorf("mask: write labels: %w", err)
	}
	return int64(n), nil
}

// ReadLabels parses labels written by WriteTo, in this version or the
// first (which required nothing). The checksum, every length and
// every bitmap (roaring's Validate, and ids below numEdges) are checked
// before the labels are returned; a bad input is an error saying which part
// failed. The labels share no memory with what r read (bitmaps and names
// are copies), so its bytes may be a file mapping that goes afterwards.
func ReadLabels(r io.Reader) (*Labels, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("mask: read labels: %w", err)
	}
	const fixed = len(labelsMagic) + 8 + 4 + 4
	if len(data) < fixed {
		return nil, fmt.Errorf("mask: labels: %d bytes, shorter than the %d-byte minimum (truncated?)", len(data), fixed)
	}
	magic := string(data[:len(labelsMagic)])
	if magic != labelsMagic && magic != labelsMagicV1 {
		return nil, fmt.Errorf("mask: labels: bad magic %q, want %q (or version 1, %q)", magic, labelsMagic, labelsMagicV1)
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(tail); got != want {
		return nil, fmt.Errorf("mask: labels: checksum mismatch (computed %08x, stored %08x): truncated or corrupted", got, want)
	}
	p := parser{data: body, off: len(labelsMagic)}
	numEdges := p.u64("edge count")
	count := p.u32("channel count")
	if p.err != nil {
		return nil, p.err
	}
	if numEdges > 1<<32 {
		return nil, fmt.Errorf("mask: labels: edge count %d exceeds 2^32", numEdges)
	}
	l := NewLabels(int(numEdges))
	prev := ""
	for i := range count {
		name := string(p.bytes(uint64(p.u32("channel name length")), "channel name"))
		if p.err != nil {
			return nil, fmt.Errorf("%w (channel %d)", p.err, i)
		}
		if name == "" || (i > 0 && name <= prev) {
			return nil, fmt.Errorf("mask: labels: channel %d: name %q empty or out of order", i, name)
		}
		prev = name
		parts := []struct {
			what string
			set  map[string]*roaring.Bitmap
		}{{"added", l.added}, {"deleted", l.deleted}, {"required", l.requires}}
		if magic == labelsMagicV1 {
			parts = parts[:2]
		}
		for _, part := range parts {
			raw := p.bytes(p.u64(part.what+" length"), part.what+" bitmap")
			if p.err != nil {
				return nil, fmt.Errorf("%w (channel %q)", p.err, name)
			}
			bm, err := decodeBitmap(raw, numEdges)
			if err != nil {
				return nil, fmt.Errorf("mask: labels: channel %q: %s edges: %w", name, part.what, err)
			}
			if !bm.IsEmpty() {
				part.set[name] = bm
			}
		}
	}
	if p.off != len(body) {
		return nil, fmt.Errorf("mask: labels: %d unexpected bytes after the last channel", len(body)-p.off)
	}
	return l, nil
}

// decodeBitmap reads one portable roaring bitmap that must span raw exactly
// and hold ids below numEdges. roaring may panic on hostile bytes that pass
// the checksum; that is turned into an error here.
func decodeBitmap(raw []byte, numEdges uint64) (bm *roaring.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("malformed bitmap: %v", r)
		}
	}()
	bm = roaring.New()
	n, err := bm.ReadFrom(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("malformed bitmap: %w", err)
	}
	if n != int64(len(raw)) {
		return nil, fmt.Errorf("bitmap used %d of its %d bytes", n, len(raw))
	}
	if err := bm.Validate(); err != nil {
		return nil, fmt.Errorf("invalid bitmap: %w", err)
	}
	if !bm.IsEmpty() && uint64(bm.Maximum()) >= numEdges {
		return nil, fmt.Errorf("edge %d out of range (%d edges)", bm.Maximum(), numEdges)
	}
	return bm, nil
}

// parser reads little-endian fields, remembering the first failure.
type parser struct {
	data []byte
	off  int
	err  error
}

func (p *parser) bytes(n uint64, what string) []byte {
	if p.err != nil {
		return nil
	}
	if n > uint64(len(p.data)-p.off) {
		p.err = fmt.Errorf("mask: labels: %s needs %d bytes at offset %d, %d left", what, n, p.off, len(p.data)-p.off)
		return nil
	}
	b := p.data[p.off : p.off+int(n)]
	p.off += int(n)
	return b
}

func (p *parser) u32(what string) uint32 {
	b := p.bytes(4, what)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (p *parser) u64(what string) uint64 {
	b := p.bytes(8, what)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}
