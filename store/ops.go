package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// kind is the kind of a structural write (see the constructors below).
type kind uint8

const (
	addNode kind = iota + 1
	addEdgeOp
	deleteEdgeOp
	mergeOp
	addEdgeByID
	addInferred
	deleteBetween
)

func (k kind) String() string {
	switch k {
	case addNode:
		return "add-node"
	case addEdgeOp:
		return "add-edge"
	case deleteEdgeOp:
		return "delete-edge"
	case mergeOp:
		return "merge"
	case addEdgeByID:
		return "add-edge-by-id"
	case addInferred:
		return "add-inferred"
	case deleteBetween:
		return "delete-between"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Op is one structural write. It carries no channel: a Writer applies it as
// the channel the writer was made for.
//
// Build ops with the constructors (Edge, EdgeByID, Node, Delete,
// DeleteEdges, Inferred, MergeInto); their fields are the store's.
type Op struct {
	kind     kind
	src, dst string  // node names (addNode: src; mergeOp: src merged into dst)
	weight   float64 // addEdgeOp, addEdgeByID, addInferred
	edge     uint32  // deleteEdgeOp

	srcID, dstID uint32   // addEdgeByID
	from         []uint32 // addInferred: the source edges

	channel string // set by Writer.Apply (and by the log's replay)
}

// Edge returns the write that adds an edge src -> dst of the given weight,
// creating either node by name when it is new (source first).
func Edge(src, dst string, weight float64) Op {
	return Op{kind: addEdgeOp, src: src, dst: dst, weight: weight}
}

// EdgeByID returns the write that adds an edge between existing nodes by
// id: the fast path for writers that keep ids, with no name lookup.
func EdgeByID(src, dst uint32, weight float64) Op {
	return Op{kind: addEdgeByID, srcID: src, dstID: dst, weight: weight}
}

// Node returns the write that creates the node named name (a no-op when it
// exists).
func Node(name string) Op { return Op{kind: addNode, src: name} }

// Delete returns the write that labels edge edge deleted by the writer's
// channel (a view that does not trust the channel keeps it).
func Delete(edge uint32) Op { return Op{kind: deleteEdgeOp, edge: edge} }

// DeleteEdges returns the write that deletes every edge from src to dst
// live in the native view when it applies (both orientations on an
// undirected store; none is not an error).
func DeleteEdges(src, dst string) Op { return Op{kind: deleteBetween, src: src, dst: dst} }

// Inferred returns the write that adds an edge src -> dst derived from the
// edges from (a synonym or inferred link a memory system computed from
// them): it depends on every channel they depend on (min-inheritance), so
// an authenticated view that distrusts any of them masks it.
func Inferred(src, dst string, weight float64, from ...uint32) Op {
	return Op{kind: addInferred, src: src, dst: dst, weight: weight, from: from}
}

// MergeInto returns the write that merges node from into node into: every
// edge of from live in the native view is rewired onto into (see the
// package doc's Merges).
func MergeInto(from, into string) Op { return Op{kind: mergeOp, src: from, dst: into} }

// encodeBatch appends the wal record of a batch:
//
//	uint32 count, then per op: uint8 kind, string channel, and
//	  addNode: string name; addEdgeOp: string src, string dst, float64 weight;
//	  deleteEdgeOp: uint32 edge; mergeOp: string from, string into;
//	  deleteBetween: string src, string dst;
//	  addEdgeByID: uint32 src, uint32 dst, float64 weight;
//	  addInferred: string src, string dst, float64 weight, uint32 count,
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
		dst = append(dst, byte(op.kind))
		str(op.channel)
		switch op.kind {
		case addNode:
			str(op.src)
		case addEdgeOp:
			str(op.src)
			str(op.dst)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(op.weight))
		case deleteEdgeOp:
			dst = binary.LittleEndian.AppendUint32(dst, op.edge)
		case mergeOp, deleteBetween:
			str(op.src)
			str(op.dst)
		case addEdgeByID:
			dst = binary.LittleEndian.AppendUint32(dst, op.srcID)
			dst = binary.LittleEndian.AppendUint32(dst, op.dstID)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(op.weight))
		case addInferred:
			str(op.src)
			str(op.dst)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(op.weight))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(op.from)))
			for _, e := range op.from {
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

// decodeBatch parses a record written by encodeBatch. It is one linear pass
// over the record, a case per kind, each checking its fields' bounds as it
// reads them: kept whole so that every offset is read in one place.
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
		op := Op{kind: kind(p[0])}
		p = p[1:]
		if op.channel, ok = str(); !ok {
			return nil, fail("truncated channel")
		}
		switch op.kind {
		case addNode:
			op.src, ok = str()
		case addEdgeOp:
			op.src, ok = str()
			if ok {
				op.dst, ok = str()
			}
			if ok {
				op.weight, ok = f64()
			}
		case deleteEdgeOp:
			op.edge, ok = u32()
		case mergeOp, deleteBetween:
			op.src, ok = str()
			if ok {
				op.dst, ok = str()
			}
		case addEdgeByID:
			op.srcID, ok = u32()
			if ok {
				op.dstID, ok = u32()
			}
			if ok {
				op.weight, ok = f64()
			}
		case addInferred:
			op.src, ok = str()
			if ok {
				op.dst, ok = str()
			}
			if ok {
				op.weight, ok = f64()
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
				op.from = append(op.from, e)
			}
		default:
			return nil, fail(fmt.Sprintf("unknown kind %d", op.kind))
		}
		if !ok {
			return nil, fail("truncated " + op.kind.String())
		}
		ops = append(ops, op)
	}
	if len(p) != 0 {
		return nil, fail("trailing bytes")
	}
	return ops, nil
}
