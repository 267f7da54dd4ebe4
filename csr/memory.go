package csr

import (
	"fmt"
	"unsafe"
)

// MemoryPart is one array of a snapshot and the bytes it holds.
type MemoryPart struct {
	Name  string // the array, e.g. "in.Nbr"
	Bytes int64
	// Hot marks the arrays a pull sweep (ppr.Engine.Sweep) streams every
	// time: the in-adjacency's offsets, neighbours and (unless the graph is
	// unweighted) weights.
	Hot bool
	// SharedWith names the part whose storage this one is (Build stores
	// redundant arrays once, see shareArrays); its bytes are not counted
	// again. Empty for a part with storage of its own.
	SharedWith string
}

// MemoryParts lists the snapshot's arrays: per arc the out- and
// in-adjacency (uint32 neighbour, float64 or float32 weight, uint32 edge id; the
// in-adjacency is the out-adjacency for an undirected graph), per edge the
// edge table (source, destination, weight, channel, relation), per node the
// offsets, the out-weights, the names (16-byte string header plus bytes;
// none for a FromIDs graph until Names materializes them) and the ranks of a reordered graph. The name dictionary's hash table is
// not counted.
func (g *Graph) MemoryParts() []MemoryPart {
	var parts []MemoryPart
	owner := map[unsafe.Pointer]string{}
	add := func(name string, p unsafe.Pointer, bytes int64, hot bool) {
		part := MemoryPart{Name: name, Bytes: bytes, Hot: hot}
		if p != nil {
			if o, ok := owner[p]; ok {
				part.SharedWith = o
			} else {
				owner[p] = name
			}
		}
		parts = append(parts, part)
	}
	unit := g.UnitWeights()
	adj := func(dir string, a Adjacency, hot bool) {
		add(dir+".Offsets", unsafe.Pointer(unsafe.SliceData(a.Offsets)), int64(8*len(a.Offsets)), hot)
		add(dir+".Nbr", unsafe.Pointer(unsafe.SliceData(a.Nbr)), int64(4*len(a.Nbr)), hot)
		add(dir+".Weight", a.Weight.data(), a.Weight.bytes(), hot && !unit)
		add(dir+".Edge", unsafe.Pointer(unsafe.SliceData(a.Edge)), int64(4*len(a.Edge)), false)
	}
	// The in-adjacency first: it is the one sweeps read.
	adj("in", g.in, true)
	if g.directed {
		adj("out", g.out, false)
	}
	add("outWeight", unsafe.Pointer(unsafe.SliceData(g.outWeight)), int64(8*len(g.outWeight)), false)
	add("edge.Src", unsafe.Pointer(unsafe.SliceData(g.edgeSrc)), int64(4*len(g.edgeSrc)), false)
	add("edge.Dst", unsafe.Pointer(unsafe.SliceData(g.edgeDst)), int64(4*len(g.edgeDst)), false)
	add("edge.Weight", g.edgeWeight.data(), g.edgeWeight.bytes(), false)
	add("edge.Channel", unsafe.Pointer(unsafe.SliceData(g.edgeChannel)), int64(4*len(g.edgeChannel)), false)
	if g.edgeRelation != nil {
		add("edge.Relation", unsafe.Pointer(unsafe.SliceData(g.edgeRelation)), int64(4*len(g.edgeRelation)), false)
	}
	// A FromIDs graph holds no names until Names asks for them; count
	// what is held (namesMade orders the read after the write).
	names := int64(0)
	if !g.decimalNames || g.namesMade.Load() {
		for _, s := range g.names {
			names += int64(16 + len(s))
		}
	}
	add("names", nil, names, false)
	if g.rank != nil {
		add("rank", unsafe.Pointer(unsafe.SliceData(g.rank)), int64(4*len(g.rank)), false)
	}
	if g.idOfRank != nil {
		add("idOfRank", unsafe.Pointer(unsafe.SliceData(g.idOfRank)), int64(4*len(g.idOfRank)), false)
	}
	return parts
}

// MemoryBytes returns the bytes held by the snapshot's arrays, each storage
// counted once (see MemoryParts).
func (g *Graph) MemoryBytes() int64 {
	b := int64(0)
	for _, p := range g.MemoryParts() {
		if p.SharedWith == "" {
			b += p.Bytes
		}
	}
	return b
}

// HotBytes returns the bytes a pull sweep streams from the snapshot (the
// parts marked Hot).
func (g *Graph) HotBytes() int64 {
	b := int64(0)
	for _, p := range g.MemoryParts() {
		if p.Hot {
			b += p.Bytes
		}
	}
	return b
}

// UnitWeights reports whether every edge has weight 1: kernels may then
// skip reading weights (ppr's pattern kernel), and Build stores one array of
// ones for every weight array.
func (g *Graph) UnitWeights() bool { return g.unit }

// shareArrays stores once the arrays Build made that hold the same values
// (the slices must not be modified, so sharing is invisible):
//   - unit weights: every weight array is a prefix of one array of ones;
//   - a directed graph whose stream is sorted by source (out.Edge[p] = p,
//     as in edge lists sorted by (src, dst)): the edge table's destinations
//     and weights are the out-adjacency's neighbours and weights.
func (g *Graph) shareArrays() {
	m := len(g.edgeSrc)
	g.unit = g.edgeWeight.allOnes()
	if g.unit && m > 0 {
		ones := g.out.Weight // the longest weight array: 2m arcs when undirected
		g.edgeWeight = ones.Slice(0, m)
		if g.directed {
			g.in.Weight = ones.Slice(0, g.in.Weight.Len())
		}
	}
	if !g.directed {
		return
	}
	for p, e := range g.out.Edge {
		if e != uint32(p) {
			return
		}
	}
	g.edgeDst = g.out.Nbr
	g.edgeWeight = g.out.Weight
}

// String formats a part as "name: bytes".
func (p MemoryPart) String() string {
	s := fmt.Sprintf("%s: %d bytes", p.Name, p.Bytes)
	if p.SharedWith != "" {
		s += " (stored in " + p.SharedWith + ")"
	}
	return s
}
