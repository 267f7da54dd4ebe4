// Package csrhook hands the other packages of this module the machinery of
// package csr that users do not call, without csr exporting it: a graph's
// raw arrays and the checked assembly of a graph from them while the caller
// visits the blocks the checks read (package snapshot's fused checksums),
// naming a graph built by id (a store's compaction), the empty graph a
// delta starts from, weight arrays over a caller's slices (a patched view's
// rows), the memory accounting of a graph and of a build, the weight
// storage the tests and the CLI compare, and the node order AutoOrder
// picks.
//
// Package csr fills the table in its init. csrhook cannot import csr (csr
// imports it), so the table is generic in csr's types: a caller gets it
// once, as
//
//	var hooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()
//
// (importing csr, as naming its types does, runs csr's init first).
package csrhook

// Lanes is the number of lanes (goroutines) of the checks Assemble runs
// with a visit.
const Lanes = 8

// BlockKind names the arrays a block visit covers (see VisitFunc).
type BlockKind int

const (
	// EdgeBlock: edges [lo, hi) of EdgeSrc, EdgeDst, EdgeWeight,
	// EdgeChannel and EdgeRelation (when present).
	EdgeBlock BlockKind = iota
	// OutArcBlock: arcs [lo, hi) of Out.Nbr, Out.Weight and Out.Edge.
	OutArcBlock
	// InArcBlock: arcs [lo, hi) of In.Nbr, In.Weight and In.Edge (directed
	// graphs only: an undirected graph's in-adjacency is its out-adjacency).
	InArcBlock
)

// VisitFunc is called by Assemble right after its checks have read a
// block of elements, while they are still in cache, so that the caller can
// make its own pass over the same bytes without a second trip to memory
// (snapshot computes its checksums this way). Lane is 0..Lanes-1: the
// goroutines of the check; calls on different lanes run concurrently,
// calls on one lane one at a time.
//
// When Assemble returns a graph, the blocks of each kind it covers tile
// all the elements: lane i's blocks, in increasing order and contiguous,
// are [s_i, s_i+1) for splits 0 = s_0 <= s_1 <= ... <= s_Lanes = end (a
// lane may have none). When it returns an error, the blocks so far may
// stop anywhere. A block holds about 8192 edges or arcs (more arcs when
// one node has more).
type VisitFunc func(lane int, kind BlockKind, lo, hi int)

// Parts are the arrays a graph is made of, for code that stores and loads
// graphs; A is csr.Adjacency and W csr.Weights. Slices returned by
// Hooks.Parts belong to the graph and must not be modified; slices given
// to Hooks.Assemble become the graph's.
type Parts[A, W any] struct {
	Directed bool
	Names    []string

	// Owner, when not nil, stands for memory the numeric arrays view
	// without the garbage collector seeing it (a snapshot's file mapping,
	// released when Owner becomes unreachable). The graph Assemble makes
	// holds it, and so does every graph made on its arrays (Named,
	// WithWeightStorage, csr.Reorder, Assemble of its Parts), so the
	// memory outlives them all; see csr's package doc, Memory. The strings
	// must be ordinary Go memory whatever Owner is.
	Owner any

	EdgeSrc, EdgeDst []uint32
	EdgeWeight       W
	EdgeChannel      []uint32 // index into Channels
	Channels         []string
	EdgeRelation     []uint32 // index into Relations; nil when the stream had none
	Relations        []string

	Out A
	In  A // ignored by Assemble for undirected graphs (In is Out)

	OutWeight []float64

	// Rank is each node's first-appearance rank when the ids were
	// reordered (csr.DegreeOrder), nil when they were not.
	Rank []uint32
}

// MemoryPart is one array of a graph and the bytes it holds.
type MemoryPart struct {
	Name  string // the array, e.g. "in.Nbr"
	Bytes int64
	// Hot marks the arrays a pull sweep (ppr.Engine.Sweep) streams every
	// time: the in-adjacency's offsets, neighbours and (unless the graph is
	// unweighted) weights.
	Hot bool
	// SharedWith names the part whose storage this one is (a build stores
	// redundant arrays once); its bytes are not counted again. Empty for a
	// part with storage of its own.
	SharedWith string
}

// Hooks are csr's functions for the other packages of the module; G is
// *csr.Graph, A csr.Adjacency and W csr.Weights. Each states its contract
// where csr defines it (the name in parentheses).
type Hooks[G, A, W any] struct {
	// Parts returns g's arrays (Graph.parts).
	Parts func(g G) Parts[A, W]
	// Assemble makes a graph of parts that came from outside (a file),
	// checking every invariant before returning it, and calls visit (when
	// not nil) for each block of the edge and arc arrays as its checks
	// read them (assembleVisit).
	Assemble func(p Parts[A, W], visit VisitFunc) (G, error)
	// Named returns a graph on g's arrays whose node i is named names[i]
	// (named).
	Named func(g G, names []string) (G, error)
	// HasRelations reports whether g's edges carry relations.
	HasRelations func(g G) bool
	// Empty returns a graph with no nodes and no edges (empty).
	Empty func(directed bool) G
	// Float64Weights and Float32Weights return weights over w, not copied.
	Float64Weights func(w []float64) W
	Float32Weights func(w []float32) W

	// MemoryParts lists g's arrays and their bytes (Graph.memoryParts).
	MemoryParts func(g G) []MemoryPart
	// FromIDsBytes estimates the peak bytes csr.FromIDs holds while it
	// builds a graph of the given nodes and edges (fromIDsBytes).
	FromIDsBytes func(nodes, edges int64) int64
	// CheckMemory returns a *csr.MemoryError (with where) when need bytes,
	// for a graph of the given nodes and edges, are over the limit of the
	// MaxMemory setting maxMemory (checkMemory).
	CheckMemory func(where string, nodes, edges, need, maxMemory int64) error
	// DefaultMaxMemory is the memory limit of a build that sets none
	// (defaultMaxMemory).
	DefaultMaxMemory func() int64

	// WithWeightStorage returns a graph on g's arrays with every weight
	// array stored as float64 when float64 is true, else as float32 when
	// every weight is exactly one (Graph.withWeightStorage); Float32 reports
	// whether g stores its weights as float32.
	WithWeightStorage func(g G, float64 bool) G
	Float32           func(g G) bool

	// Validate checks every invariant of csr's package doc on g, each fast
	// check beside its plain reference (Graph.checkAll): the oracle tests
	// hold graphs to, as every graph csr makes passes it.
	Validate func(g G) error
	// EdgeChannels returns the index into the graph's Channels of each
	// edge's channel, and OutWeights every node's out-weight W(u), both
	// g's own arrays, not to be modified (Graph.edgeChannels,
	// Graph.outWeights).
	EdgeChannels func(g G) []uint32
	OutWeights   func(g G) []float64

	// ResolveOrder returns the order a graph of the given node count is
	// built in when order is asked: order itself, or for csr.AutoOrder
	// the order it picks (NodeOrder.resolve).
	ResolveOrder func(order string, nodes int) string
}

// hooks holds csr's *Hooks[*csr.Graph, csr.Adjacency, csr.Weights].
var hooks any

// Set installs csr's hooks; csr calls it in its init, once.
func Set[G, A, W any](h *Hooks[G, A, W]) {
	if hooks != nil {
		panic("csrhook: Set called twice")
	}
	hooks = h
}

// Get returns the hooks csr installed. It panics when G, A and W are not
// the types csr installed them with: a programmer's mistake, found by any
// test of the caller.
func Get[G, A, W any]() *Hooks[G, A, W] {
	h, ok := hooks.(*Hooks[G, A, W])
	if !ok {
		panic("csrhook: Get with types csr did not install (want *csr.Graph, csr.Adjacency, csr.Weights), or before csr's init")
	}
	return h
}
