package csr

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/authppr/authppr/internal/csrhook"
)

// memoryPart is one array of a graph and the bytes it holds.
type memoryPart = csrhook.MemoryPart

// memoryParts lists the graph's arrays, as MemoryBytes counts them: per
// arc the out- and in-adjacency (uint32 neighbour, float64 or float32
// weight, uint32 edge id), per edge the edge table, per node the offsets,
// the out-weights, the names and the ranks of a reordered graph. The
// in-adjacency comes first: its offsets, neighbours and (unless the graph
// is unweighted) weights are the arrays a pull sweep streams (Hot).
func (g *Graph) memoryParts() []memoryPart {
	var parts []memoryPart
	owner := map[unsafe.Pointer]string{}
	add := func(name string, p unsafe.Pointer, bytes int64, hot bool) {
		part := memoryPart{Name: name, Bytes: bytes, Hot: hot}
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
		add(dir+".Offsets", unsafe.Pointer(unsafe.SliceData(a.Offsets)), int64(offsetBytes*len(a.Offsets)), hot)
		add(dir+".Nbr", unsafe.Pointer(unsafe.SliceData(a.Nbr)), int64(idBytes*len(a.Nbr)), hot)
		add(dir+".Weight", a.Weight.data(), a.Weight.bytes(), hot && !unit)
		add(dir+".Edge", unsafe.Pointer(unsafe.SliceData(a.Edge)), int64(idBytes*len(a.Edge)), false)
	}
	// The in-adjacency first: it is the one sweeps read.
	adj("in", g.in, true)
	if g.directed {
		adj("out", g.out, false)
	}
	add("outWeight", unsafe.Pointer(unsafe.SliceData(g.outWeight)), int64(weightBytes*len(g.outWeight)), false)
	add("edge.Src", unsafe.Pointer(unsafe.SliceData(g.edgeSrc)), int64(idBytes*len(g.edgeSrc)), false)
	add("edge.Dst", unsafe.Pointer(unsafe.SliceData(g.edgeDst)), int64(idBytes*len(g.edgeDst)), false)
	add("edge.Weight", g.edgeWeight.data(), g.edgeWeight.bytes(), false)
	add("edge.Channel", unsafe.Pointer(unsafe.SliceData(g.edgeChannel)), int64(idBytes*len(g.edgeChannel)), false)
	if g.edgeRelation != nil {
		add("edge.Relation", unsafe.Pointer(unsafe.SliceData(g.edgeRelation)), int64(idBytes*len(g.edgeRelation)), false)
	}
	// A FromIDs graph holds no names until Names asks for them; count
	// what is held (namesMade orders the read after the write).
	names := int64(0)
	if !g.decimalNames || g.namesMade.Load() {
		for _, s := range g.names {
			names += int64(stringBytes + len(s))
		}
	}
	add("names", nil, names, false)
	if g.rank != nil {
		add("rank", unsafe.Pointer(unsafe.SliceData(g.rank)), int64(idBytes*len(g.rank)), false)
	}
	if g.idOfRank != nil {
		add("idOfRank", unsafe.Pointer(unsafe.SliceData(g.idOfRank)), int64(idBytes*len(g.idOfRank)), false)
	}
	return parts
}

// MemoryBytes returns the bytes held by the graph's arrays, each storage
// counted once (a build stores redundant arrays once): per arc the out-
// and in-adjacency (neighbour, weight, edge id; an undirected graph's
// in-adjacency is its out-adjacency), per edge the edge table (source,
// destination, weight, channel, relation), per node the offsets, the
// out-weights, the names (a 16-byte string header plus the bytes; none for
// a FromIDs graph until Names makes them) and the ranks of a reordered
// graph. The name dictionary's hash table is not counted.
func (g *Graph) MemoryBytes() int64 {
	b := int64(0)
	for _, p := range g.memoryParts() {
		if p.SharedWith == "" {
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

// # Memory limits
//
// A build refuses, with a *MemoryError, a graph whose estimated peak
// memory would cross its limit, before allocating it: FromIDs (and so
// PPREDGE1 files, the C ABI and Python) checks once from the node and edge
// counts it is given, the Builder (and so the text readers) as every node,
// edge and name arrives, so a gzip bomb stops after the limit's worth of
// input, not after the machine's. The limit (MaxMemory settings) is 0 for
// defaultMaxMemory, negative for none, else bytes.
//
// The estimate is a sum of bytes per node, per edge and per arc (a graph
// has 2 arcs per edge, directed or not: out and in, or both directions of
// one adjacency) and per string, taken from the arrays each build
// allocates, at their element sizes (the same sizes memoryParts counts the
// finished graph's arrays at: idBytes, offsetBytes, weightBytes,
// stringBytes). Per arc, both builds: a neighbour and an edge id (idBytes
// each) and a weight (weightBytes, float64 at worst): 16 bytes.
//
// FromIDs (bulkCost), which allocates every array once at its final size:
//   - per edge 40: source, destination and channel (idBytes each), the
//     weights copied as float32 and, when some weight is not one, again as
//     float64 (12), the renumbered pairs of a degree-ordered build (8) and
//     its counting sort's buckets (at most one per two edges of degree: 8);
//   - per node 68: the offsets of two adjacencies and W (8 each), each
//     part's two degree counts (4 parts at most, 4 bytes each: 32) and a
//     degree order's degrees, new ids and ranks (4 each).
//
// The Builder (builderCost), whose arrays grow by append (capacity at most
// 1.25 times the length past 256 elements; a regrowth holds the old array
// too, 2.25 times for an instant, but only the arrays of one edge regrow at
// once, and less than Build adds later):
//   - per edge 48: source, destination, channel, relation (idBytes each)
//     and a float64 weight, at 1.25 times (30), the float32 copy Build
//     narrows them to (4), a degree order's buckets (8), rounded up;
//   - per node 160: the name slice (stringBytes at 1.25 times: 20), the
//     name dictionary's entry (a 16-byte key and a 4-byte id in a Swiss
//     table of 8-slot groups with a control byte each, at least 7/16
//     full between growths: at most 57), offsets and W as for FromIDs
//     (24), Build's cursors (8), a degree order's new ids, degrees, ranks
//     and renamed slice (28), rounded up;
//   - per string (node, channel or relation name) its bytes and an
//     eighth, plus 16 (strCost: the allocator's size classes round up by
//     at most an eighth, tiny strings share 16-byte blocks); names are
//     copied out of the input lines (AddNode clones them), so a name
//     holds its own bytes, not its line's;
//   - per channel or relation 200: its slice entry and dictionary entry
//     as a node's, and the provenance labels (mask.FromGraph) a loader
//     builds from the channels: a roaring bitmap per channel.
//
// A test holds both estimates above what the builds allocate
// (TestMemoryEstimateCoversBuild). The Go collector lets the heap grow to
// about twice the live bytes between collections (GOGC=100), which is why
// the default limit is half the memory available, not all of it.

// Element sizes of the arrays memoryParts counts and the estimates use.
const (
	idBytes     = 4  // a node id, edge id, channel or relation index (uint32)
	offsetBytes = 8  // an adjacency offset (int)
	weightBytes = 8  // a float64 weight or out-weight (float32: 4)
	stringBytes = 16 // a string header
)

// buildCost is the peak bytes of one kind of build per element.
type buildCost struct {
	node, edge, arc, str, label int64
}

var (
	bulkCost = buildCost{
		node: 2*offsetBytes + weightBytes + 4*2*idBytes + 3*idBytes, // 68
		edge: 3*idBytes + 4 + weightBytes + 2*idBytes + 2*idBytes,   // 40
		arc:  2*idBytes + weightBytes,                               // 16
	}
	builderCost = buildCost{node: 160, edge: 48, arc: 2*idBytes + weightBytes, str: 16, label: 200}
)

// bytes estimates the peak of a build of nodes, edges (2 arcs each),
// labels (channels and relations) and their strings (one per node and
// label, strBytes the sum of their strCost), saturating at
// math.MaxInt64.
func (c buildCost) bytes(nodes, edges, labels, strBytes int64) int64 {
	total := strBytes
	for _, t := range [][2]int64{{nodes, c.node + c.str}, {edges, c.edge + 2*c.arc}, {labels, c.label + c.str}} {
		if t[0] > 0 && t[1] > (math.MaxInt64-total)/t[0] {
			return math.MaxInt64
		}
		total += t[0] * t[1]
	}
	return total
}

// strCost is a string's bytes as the estimate counts them: its length
// and an eighth (the 16 of its header and rounding are in buildCost.str).
func strCost(s string) int64 { return int64(len(s)) + int64(len(s))/8 }

// fromIDsBytes estimates the peak bytes FromIDs holds while it builds a
// graph of the given nodes and edges (the caller's arrays not counted).
func fromIDsBytes(nodes, edges int64) int64 { return bulkCost.bytes(nodes, edges, 0, 0) }

// MemoryError reports a graph whose build would need more memory than its
// limit allows; nothing graph-sized was allocated for it.
type MemoryError struct {
	Where        string // the edge or input place, or empty
	Nodes, Edges int64  // the graph (so far, for a streamed input)
	Need, Limit  int64  // estimated peak bytes of the build, and the limit
	// Default: Limit is the default, half the memory available to the
	// process when the build began (on Linux the least of MemAvailable and
	// every enclosing cgroup's limit less its working set; 4 GiB where
	// that cannot be read): the Go collector lets the heap grow to about
	// twice the live bytes, so a build within half stays within what is
	// available.
	Default bool
}

func (e *MemoryError) Error() string {
	where := ""
	if e.Where != "" {
		where = e.Where + ": "
	}
	how := "the limit set"
	if e.Default {
		how = "the default: half the memory available; set a larger limit to build it anyway"
	}
	return fmt.Sprintf("csr: %sa graph of %d nodes and %d edges needs about %s (%d bytes) to build, over the memory limit of %s (%d bytes; %s)",
		where, e.Nodes, e.Edges, formatBytes(e.Need), e.Need, formatBytes(e.Limit), e.Limit, how)
}

// memoryLimit is a resolved limit: bytes, and whether it is the default.
type memoryLimit struct {
	bytes int64
	dflt  bool
}

// resolveMemory resolves a MaxMemory setting (0: defaultMaxMemory;
// negative: none).
func resolveMemory(maxMemory int64) memoryLimit {
	switch {
	case maxMemory < 0:
		return memoryLimit{bytes: math.MaxInt64}
	case maxMemory == 0:
		return memoryLimit{bytes: defaultMaxMemory(), dflt: true}
	}
	return memoryLimit{bytes: maxMemory}
}

// check returns a *MemoryError when need is over the limit.
func (l memoryLimit) check(where string, nodes, edges, need int64) error {
	if need <= l.bytes {
		return nil
	}
	return &MemoryError{Where: where, Nodes: nodes, Edges: edges, Need: need, Limit: l.bytes, Default: l.dflt}
}

// memoryLimitOf returns the bytes a MaxMemory setting allows: maxMemory when
// positive, defaultMaxMemory() when 0, math.MaxInt64 (no limit) when
// negative.
func memoryLimitOf(maxMemory int64) int64 { return resolveMemory(maxMemory).bytes }

// checkMemory returns a *MemoryError (with Where) when need bytes, for a
// graph of the given nodes and edges, are over the MaxMemory setting's
// limit: for readers that hold arrays of their own beside FromIDs' (a
// PPREDGE1 file's body), or that copy a graph (a reorder).
func checkMemory(where string, nodes, edges, need, maxMemory int64) error {
	return resolveMemory(maxMemory).check(where, nodes, edges, need)
}

// formatBytes formats b in binary units ("1.5 GiB").
func formatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, i := float64(b)/unit, 0
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[i])
}
