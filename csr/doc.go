// Package csr builds immutable graph snapshots: dense node ids with a name
// dictionary, out- and in-adjacency in compressed sparse row form, and a
// stable id for every edge so that provenance masks can name edges.
//
//	g, err := csr.ReadFile("memory.txt", csr.ReadOptions{}) // src dst [weight [channel]], undirected
//	q, ok := g.ID("q")                                      // dense node ids, by first appearance
//	e := g.Edge(2)                                          // stable edge ids: e.Src, e.Dst, e.Weight, e.Channel
//	out := g.Out()                                          // CSR rows: offsets, neighbours, weights, edge ids
//
// (ExampleReadFile runs it.)
//
// A graph comes from a reader (ReadFile, Read: the text formats and the
// binary PPREDGE1, docs/formats.md), a Builder (nodes and edges by name or
// by id, one at a time) or FromIDs (a whole graph given by integer ids, in
// bulk). Graph's accessors give the adjacencies (Out, In: offsets,
// neighbours, Weights, edge ids), the edges, the names and channels.
//
// # Invariants
//
//   - Node ids are dense, 0..NumNodes()-1, in order of first appearance in the
//     edge stream (source before destination), the same order as
//     anchors/igraph_oracle.py, so ties broken by node id agree.
//     A graph built in DegreeOrder (ReadOptions.Order, IDEdges.Order,
//     Reorder) numbers them by descending degree instead, for cache
//     locality; Ranks then gives each node's first-appearance rank, and
//     ties break by rank (ppr.TopK with the graph's Ranks) so that no result changes by name.
//   - Edge ids are dense, 0..NumEdges()-1, in stream order, and never change.
//     Edges are never merged: parallel edges (even from the same channel) are
//     separate edges, each maskable on its own.
//   - A directed edge u->v is one arc, in u's out-list and v's in-list. An
//     undirected edge {u,v} is one edge stored as two arcs u->v and v->u, both
//     carrying the same edge id, so masking the edge removes both; for an
//     undirected graph the in-adjacency is the out-adjacency (same slices).
//   - Within each node's list arcs are ordered by edge id (an undirected
//     self-loop gives two consecutive arcs). Every sum over a node's arcs in
//     this package and in the kernels runs in that order.
//   - Self-loops are kept, as igraph keeps them: a directed self-loop u->u is
//     one arc; an undirected self-loop is two arcs u->u, so it counts twice in
//     W(u), exactly as igraph's PRPACK counts it.
//   - Weights are 0 or within [MinWeight, MaxWeight] = [2^-1022, 2^988]
//     (CheckWeight; readers and builders refuse others, naming the edge):
//     every out-weight, in every view, is then a normal float64 with a
//     normal reciprocal (weights.go has the proof). A zero-weight edge
//     exists (it can be masked, it has an id) but carries no mass; a node
//     whose out-weight is zero is dangling.
//   - Weight arrays (per arc and per edge: Weights) are stored as float32
//     when every weight of the graph is exactly a float32 (float64(float32(w))
//     == w, as for PPREDGE1 inputs, small integers and unit weights), else
//     as float64: a weight is never rounded. A sweep then streams 8.5 bytes
//     per arc instead of 12.5. Readers see float64 (Weights.At); widening is
//     exact, so every result is the bits float64 storage gives (ppr's
//     TestFloat32StorageSameBits). ReadOptions.Float64Weights and
//     IDEdges.Float64Weights ask for float64. The out-weights W(u) are
//     float64 either way.
//
// # Memory
//
// A graph's numeric arrays may view memory the garbage collector does not
// see: the arrays a snapshot file's load assembles a graph of are the
// file's mapping (package snapshot, through internal/csrhook). Such a
// graph holds the mapping's owner (csrhook.Parts.Owner), and so does every
// graph made on its arrays (Reorder; named, withWeightStorage and assemble
// of its parts), so the mapping lives while any of them is reachable. A
// slice from a graph's accessors (Out, In, Ranks, a Weights'
// Float32s or Float64s) is therefore valid while a graph holding it (or a
// mask.View or store.Version that holds that graph) is reachable: code
// that keeps such a slice past its last use of every holder keeps one
// alive (runtime.KeepAlive). Strings (names, channels, relations) are
// always ordinary Go memory and can be kept freely. MemoryBytes is the
// bytes the arrays hold, each storage counted once.
//
// # Errors
//
// Bad input is an error, never a panic: readers return *ParseError naming
// the file, the line (of a text input) and what was expected; the builder
// and FromIDs name the edge. A graph whose build would need more memory
// than its limit (ReadOptions.MaxMemory, IDEdges.MaxMemory,
// Builder.SetMaxMemory: by default half the memory available) is a
// *MemoryError, found before the memory is allocated: from the counts in
// FromIDs and a PPREDGE1 header, as the input arrives in the Builder and
// the text readers (memory.go derives the estimate). Accessors that take a
// node or edge id trust their argument (ids come from this package);
// every graph is checked when it is made (builders, FromIDs, readers) or
// loaded (the assembly of a snapshot file), before such trust is given.
//
// The full check (checkAll) and the assembly of a loaded snapshot (assemble)
// run every check with fast forms beside their plain references (tested to
// agree, fault for fault): the edges and the arcs on visitLanes goroutines,
// each array read once and in order; the arcs matched to the edges by
// comparing the multisets of (tail, head, weight, edge id) tuples through
// sums of a keyed hash drawn at random per check, not by a random read of
// the edge table per arc (a corrupt adjacency passes with probability at
// most 2^-63 per check, see arcsMatch); and in assemble the names checked
// distinct by a hash table, the name dictionary then being built on the
// first ID call (under a sync.Once, so concurrent readers are safe). When a
// fast check rejects, the plain one names the fault. assembleVisit lets a
// caller make its own pass over the edge and arc arrays in the blocks the
// checks read (snapshot checksums them so).
//
// # Graphs given by integer ids
//
// FromIDs builds, in bulk, the graph the Builder makes from nodes named
// "0".."n-1" and edges added by id (the C ABI's, the Python binding's and
// PPREDGE1's input): the names are never stored unless Names asks for them
// (ID parses a canonical decimal name), each edge is checked in the one
// pass that copies and counts it, errors name the first bad edge as the
// Builder's would, and one counting sort per adjacency places the arcs. A
// differential test holds it equal to the Builder, array for array.
//
// # Machinery
//
// What other packages of this module need and users do not call (a
// graph's raw arrays and their checked assembly, memory accounting, the
// weight storage knob, the order AutoOrder picks) is unexported and handed
// to them through internal/csrhook (hooks.go).
package csr
