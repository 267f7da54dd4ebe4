package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Kind is the kind of a structural write.
type Kind uint8

const (
	// AddNode creates the node named Src (a no-op when it exists).
	AddNode Kind = iota + 1
	// AddEdge adds an edge Src -> Dst of the given Weight, creating
	// either node by name when it is new.
	AddEdge
	// DeleteEdge labels edge Edge deleted by the writer's channel.
	DeleteEdge
	// Merge rewires every native-live edge of node Src onto node Dst (see
	// the package doc).
	Merge
	// AddEdgeByID adds an edge between existing nodes named by id (SrcID,
	// DstID): the fast path for writers that keep ids, with no name lookup.
	AddEdgeByID
	// AddInferred adds an edge Src -> Dst derived from the edges From (a
	// synonym or inferred link a memory system computed from them): it
	// depends on every channel they depend on (min-inheritance), so an
	// authenticated view that distrusts any of them masks it.
	AddInferred
	// DeleteBetween labels deleted every edge from node Src to node Dst
	// live in the native view when it applies (both orientations on an
	// undirected store); none is not an error.
	DeleteBetween
)

func (k Kind) String() string {
	switch k {
	case AddNode:
		return "add-node"
	case AddEdge:
		return "add-edge"
	case DeleteEdge:
		return "delete-edge"
	case Merge:
		return "merge"
	case AddEdgeByID:
		return "add-edge-by-id"
	case AddInferred:
		return "add-inferred"
	case DeleteBetween:
		return "delete-between"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Op is one structural write. It carries no channel: a Writer applies it as
// the channel the writer was made for.
type Op struct {
	Kind     Kind
	Src, Dst string  // node names (AddNode: Src; Merge: Src merged into Dst)
	Weight   float64 // AddEdge, AddEdgeByID, AddInferred
	Edge     uint32  // DeleteEdge

	SrcID, DstID uint32   // AddEdgeByID
	From         []uint32 // AddInferred: the source edges

	channel string // set by Writer.Apply (and by the log's replay)
}

// Edge returns an AddEdge write.
func Edge(src, dst string, weight float64) Op {
	return Op{Kind: AddEdge, Src: src, Dst: dst, Weight: weight}
}

// EdgeByID returns an AddEdgeByID write.
func EdgeByID(src, dst uint32, weight float64) Op {
	return Op{Kind: AddEdgeByID, SrcID: src, DstID: dst, Weight: weight}
}

// Node returns an AddNode write.
func Node(name string) Op { return Op{Kind: AddNode, Src: name} }

// Delete returns a DeleteEdge write.
func Delete(edge uint32) Op { return Op{Kind: DeleteEdge, Edge: edge} }

// DeleteEdges returns a DeleteBetween write: every live edge from src to
// dst.
func DeleteEdges(src, dst string) Op { return Op{Kind: DeleteBetween, Src: src, Dst: dst} }

// Inferred returns an AddInferred write: an edge derived from the edges
// from.
func Inferred(src, dst string, weight float64, from ...uint32) Op {
	return Op{Kind: AddInferred, Src: src, Dst: dst, Weight: weight, From: from}
}

// MergeInto returns a Merge write: from is merged into into.
func MergeInto(from, into string) Op { return Op{Kind: Merge, Src: from, Dst: into} }

// encodeBatch appends the wal record of a batch:
//
//	uint32 count, then per op: uint8 kind, string channel, and
//	  AddNode: string name; AddEdge: string src, string dst, float64 weight;
//	  DeleteEdge: uint32 edge; Merge: string from, string into;
//	  DeleteBetween: string src, string dst;
//	  AddEdgeByID: uint32 src, uint32 dst, float64 weight;
//	  AddInferred: string src, string dst, float64 weight, uint32 count,
//	    count uint32 source edges
//
// with strings as uint32 length + bytes, all little-endian.
func encodeBatch(dst []byte, ops []Op) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(ops)))
	str := func(s string) {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
		dst = append(dst, s...)
	}
	for _, op := range ops {
		dst = append(dst, byte(op.Kind))
		str(op.channel)
		switch op.Kind {
		case AddNode:
			str(op.Src)
		case AddEdge:
			str(op.Src)
			str(op.Dst)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(op.Weight))
		case DeleteEdge:
			dst = binary.LittleEndian.AppendUint32(dst, op.Edge)
		case Merge, DeleteBetween:
			str(op.Src)
			str(op.Dst)
		case AddEdgeByID:
			dst = binary.LittleEndian.AppendUint32(dst, op.SrcID)
			dst = binary.LittleEndian.AppendUint32(dst, op.DstID)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(op.Weight))
		case AddInferred:
			str(op.Src)
			str(op.Dst)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(op.Weight))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(op.From)))
			for _, e := range op.From {
				dst = binary.LittleEndian.AppendUint32(dst, e)
			}
		}
	}
	return dst
}

// positioned opens the wal record of a batch applied with a position
// (Writer.ApplyAt): the uint32 0xFFFFFFFF where an unpositioned record has
// its count, then uint64 position (not 0), then the batch as encodeBatch
// writes it. No unpositioned record starts so (every op takes at least 5
// bytes, and a wal record is at most wal.MaxRecord), so records written
// before positions existed read as they always have; a reader that
// predates them refuses a positioned record ("count ... larger than the
// record") rather than read it without its position.
const positioned = math.MaxUint32

// encodeRecord appends the wal record of a batch and its position (0: none,
// an unpositioned record).
func encodeRecord(dst []byte, pos uint64, ops []Op) []byte {
	if pos != 0 {
		dst = binary.LittleEndian.AppendUint32(dst, positioned)
		dst = binary.LittleEndian.AppendUint64(dst, pos)
	}
	return encodeBatch(dst, ops)
}

// decodeRecord parses a record written by encodeRecord: the batch and its
// position (0 when the record has none).
func decodeRecord(rec []byte) ([]Op, uint64, error) {
	if len(rec) < 4 || binary.LittleEndian.Uint32(rec) != positioned {
		ops, err := decodeBatch(rec)
		return ops, 0, err
	}
	if len(rec) < 12 {
		return nil, 0, fmt.Errorf("store: batch record: truncated position at byte 4 of %d", len(rec))
	}
	pos := binary.LittleEndian.Uint64(rec[4:])
	if pos == 0 {
		return nil, 0, fmt.Errorf("store: batch record: position 0 at byte 4 of %d, want at least 1", len(rec))
	}
	ops, err := decodeBatch(rec[12:])
	if err != nil {
		return nil, 0, fmt.Errorf("%w (after the 12-byte position)", err)
	}
	return ops, pos, nil
}

// decodeBatch parses a record written by encodeBatch.
func decodeBatch(rec []byte) ([]Op, error) {
	p := rec
	fail := func(what string) error {
		return fmt.Errorf("store: batch record: %s at byte %d of %d", what, len(rec)-len(p), len(rec))
	}
	u32 := func() (uint32, bool) {
		if len(p) < 4 {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(p)
		p = p[4:]
		return v, true
	}
	f64 := func() (float64, bool) {
		if len(p) < 8 {
			return 0, false
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(p))
		p = p[8:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := u32()
		if !ok || uint64(n) > uint64(len(p)) {
			return "", false
		}
		s := string(p[:n])
		p = p[n:]
		return s, true
	}
	count, ok := u32()
	if !ok {
		return nil, fail("truncated count")
	}
	if uint64(count) > uint64(len(p))/5 { // every op takes at least 5 bytes
		return nil, fail(fmt.Sprintf("count %d larger than the record", count))
	}
	ops := make([]Op, 0, count)
	for range count {
		if len(p) < 1 {
			return nil, fail("truncated op")
		}
		op := Op{Kind: Kind(p[0])}
		p = p[1:]
		if op.channel, ok = str(); !ok {
			return nil, fail("truncated channel")
		}
		switch op.Kind {
		case AddNode:
			op.Src, ok = str()
		case AddEdge:
			op.Src, ok = str()
			if ok {
				op.Dst, ok = str()
			}
			if ok {
				op.Weight, ok = f64()
			}
		case DeleteEdge:
			op.Edge, ok = u32()
		case Merge, DeleteBetween:
			op.Src, ok = str()
			if ok {
				op.Dst, ok = str()
			}
		case AddEdgeByID:
			op.SrcID, ok = u32()
			if ok {
				op.DstID, ok = u32()
			}
			if ok {
				op.Weight, ok = f64()
			}
		case AddInferred:
			op.Src, ok = str()
			if ok {
				op.Dst, ok = str()
			}
			if ok {
				op.Weight, ok = f64()
			}
			var n uint32
			if ok {
				n, ok = u32()
			}
			if ok && uint64(n) > uint64(len(p))/4 {
				return nil, fail(fmt.Sprintf("source count %d larger than the record", n))
			}
			for j := uint32(0); ok && j < n; j++ {
				var e uint32
				e, ok = u32()
				op.From = append(op.From, e)
			}
		default:
			return nil, fail(fmt.Sprintf("unknown kind %d", op.Kind))
		}
		if !ok {
			return nil, fail("truncated " + op.Kind.String())
		}
		ops = append(ops, op)
	}
	if len(p) != 0 {
		return nil, fail("trailing bytes")
	}
	return ops, nil
}
