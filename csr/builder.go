package csr

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// maxIDs bounds node and edge counts so that ids fit in uint32.
const maxIDs = math.MaxUint32

// Builder collects an edge stream and produces a Graph. The zero value is not
// usable; call NewBuilder. A Builder is not safe for concurrent use.
type Builder struct {
	directed bool

	ids   map[string]uint32
	names []string

	src, dst []uint32
	weight   []float64
	channel  []uint32
	relation []uint32

	channelIDs   map[string]uint32
	channels     []string
	relationIDs  map[string]uint32
	relations    []string
	hasRelations bool

	order   NodeOrder
	storage weightStorage

	// AddEdgeByID's last channel and its index: streams repeat one
	// channel for long runs, which then cost no map lookup per edge.
	lastChannel   string
	lastChannelID uint32

	// The memory estimate (builderCost) of what was added, and the limit
	// (resolved from maxMemory on first use).
	maxMemory int64
	limit     memoryLimit
	limitSet  bool
	used      int64
}

// NewBuilder returns an empty builder for a directed or undirected graph.
func NewBuilder(directed bool) *Builder {
	return &Builder{
		directed:    directed,
		ids:         make(map[string]uint32),
		channelIDs:  make(map[string]uint32),
		relationIDs: make(map[string]uint32),
	}
}

// numNodes returns the number of nodes added so far.
func (b *Builder) numNodes() int { return len(b.names) }

// numEdges returns the number of edges added so far.
func (b *Builder) numEdges() int { return len(b.src) }

// SetMaxMemory sets the builder's memory limit in bytes: 0 (the default)
// for half the memory available (MemoryError.Default), negative for none. AddNode, AddEdge and
// AddEdgeByID refuse, with a *MemoryError, a node or edge that would take
// the estimate of the build's peak (builderCost, see memory.go) over it.
func (b *Builder) SetMaxMemory(bytes int64) {
	b.maxMemory, b.limitSet = bytes, false
}

// reserve adds bytes to the estimate, or returns a *MemoryError (counting
// nodes and edges, where says where) when they would take it over the
// limit.
func (b *Builder) reserve(bytes int64, nodes, edges int, where func() string) error {
	if !b.limitSet {
		b.limit, b.limitSet = resolveMemory(b.maxMemory), true
	}
	if b.used+bytes > b.limit.bytes {
		return &MemoryError{Where: where(), Nodes: int64(nodes), Edges: int64(edges),
			Need: b.used + bytes, Limit: b.limit.bytes, Default: b.limit.dflt}
	}
	b.used += bytes
	return nil
}

// nodeBytes and labelBytes are the estimate of one new node or channel or
// relation named s; edgeBytes that of one edge and its two arcs.
func nodeBytes(s string) int64  { return builderCost.node + builderCost.str + strCost(s) }
func labelBytes(s string) int64 { return builderCost.label + builderCost.str + strCost(s) }

var edgeBytes = builderCost.edge + 2*builderCost.arc

// AddNode returns the id of the named node, creating it if it is new. Use it
// for nodes without edges, or to fix the id order before streaming edges.
func (b *Builder) AddNode(name string) (uint32, error) {
	if name == "" {
		return 0, errors.New("csr: node name is empty")
	}
	if id, ok := b.ids[name]; ok {
		return id, nil
	}
	if len(b.names) >= maxIDs {
		return 0, fmt.Errorf("csr: more than %d nodes", maxIDs)
	}
	if err := b.reserve(nodeBytes(name), len(b.names)+1, len(b.src), func() string { return fmt.Sprintf("node %q", name) }); err != nil {
		return 0, err
	}
	return b.addNode(name), nil
}

// addNode numbers a new node. The name is copied: a reader's names are
// slices of its input lines, and a line must not stay alive for them.
func (b *Builder) addNode(name string) uint32 {
	name = strings.Clone(name)
	id := uint32(len(b.names))
	b.ids[name] = id
	b.names = append(b.names, name)
	return id
}

// Input is one edge of a stream, by node names. An empty Channel means
// DefaultChannel; an empty Relation means none.
type Input struct {
	Src, Dst string
	Weight   float64
	Channel  string
	Relation string
}

// AddEdge appends an edge and returns its id. The source is named (and so
// numbered) before the destination. The weight must be 0 or within
// [MinWeight, MaxWeight] (CheckWeight); on error nothing is added.
func (b *Builder) AddEdge(in Input) (uint32, error) {
	e := len(b.src)
	if err := CheckWeight(in.Weight); err != nil {
		return 0, fmt.Errorf("csr: edge %d (%s -> %s): %w", e, in.Src, in.Dst, err)
	}
	if in.Src == "" || in.Dst == "" {
		return 0, fmt.Errorf("csr: edge %d: empty node name", e)
	}
	if e >= maxIDs {
		return 0, fmt.Errorf("csr: more than %d edges", maxIDs)
	}
	// Check capacity and memory for new names before creating either, so
	// a failure adds nothing.
	s, srcKnown := b.ids[in.Src]
	d, dstKnown := b.ids[in.Dst]
	fresh, bytes := 0, edgeBytes
	if !srcKnown {
		fresh++
		bytes += nodeBytes(in.Src)
	}
	if !dstKnown && in.Dst != in.Src {
		fresh++
		bytes += nodeBytes(in.Dst)
	}
	if len(b.names)+fresh > maxIDs {
		return 0, fmt.Errorf("csr: edge %d: more than %d nodes", e, maxIDs)
	}
	channel := in.Channel
	if channel == "" {
		channel = DefaultChannel
	}
	if _, ok := b.channelIDs[channel]; !ok {
		bytes += labelBytes(channel)
	}
	if _, ok := b.relationIDs[in.Relation]; !ok && in.Relation != "" {
		bytes += labelBytes(in.Relation)
	}
	if err := b.reserve(bytes, len(b.names)+fresh, e+1, func() string { return fmt.Sprintf("edge %d (%s -> %s)", e, in.Src, in.Dst) }); err != nil {
		return 0, err
	}
	if !srcKnown {
		s = b.addNode(in.Src)
	}
	if !dstKnown {
		if in.Dst == in.Src {
			d = s
		} else {
			d = b.addNode(in.Dst)
		}
	}
	b.src = append(b.src, s)
	b.dst = append(b.dst, d)
	b.weight = append(b.weight, in.Weight+0) // +0 turns -0 into 0
	b.channel = append(b.channel, intern(channel, b.channelIDs, &b.channels))
	if in.Relation != "" && !b.hasRelations {
		b.hasRelations = true
		b.relation = make([]uint32, e, cap(b.src))
		b.relations = append(b.relations, "") // index 0: no relation
		b.relationIDs[""] = 0
	}
	if b.hasRelations {
		b.relation = append(b.relation, intern(in.Relation, b.relationIDs, &b.relations))
	}
	return uint32(e), nil
}

// AddEdgeByID appends an edge between nodes already added (AddNode) and
// returns its id: the fast path for inputs that number their nodes, with no
// name lookups. The weight must be 0 or within [MinWeight, MaxWeight] and
// both ids below NumNodes; on error nothing is added.
func (b *Builder) AddEdgeByID(src, dst uint32, weight float64, channel string) (uint32, error) {
	e := len(b.src)
	if err := CheckWeight(weight); err != nil {
		return 0, fmt.Errorf("csr: edge %d (%d -> %d): %w", e, src, dst, err)
	}
	if n := len(b.names); int(src) >= n || int(dst) >= n {
		return 0, fmt.Errorf("csr: edge %d: node %d -> %d out of range (%d nodes added)", e, src, dst, n)
	}
	if e >= maxIDs {
		return 0, fmt.Errorf("csr: more than %d edges", maxIDs)
	}
	if channel == "" {
		channel = DefaultChannel
	}
	bytes := edgeBytes
	if channel != b.lastChannel || len(b.channels) == 0 {
		if _, ok := b.channelIDs[channel]; !ok {
			bytes += labelBytes(channel)
		}
	}
	if err := b.reserve(bytes, len(b.names), e+1, func() string { return fmt.Sprintf("edge %d (%d -> %d)", e, src, dst) }); err != nil {
		return 0, err
	}
	if channel != b.lastChannel || len(b.channels) == 0 {
		b.lastChannel, b.lastChannelID = channel, intern(channel, b.channelIDs, &b.channels)
	}
	b.src = append(b.src, src)
	b.dst = append(b.dst, dst)
	b.weight = append(b.weight, weight+0) // +0 turns -0 into 0
	b.channel = append(b.channel, b.lastChannelID)
	if b.hasRelations {
		b.relation = append(b.relation, 0) // no relation
	}
	return uint32(e), nil
}

// intern returns s's index in list, adding s (a copy: see addNode) when
// it is new.
func intern(s string, ids map[string]uint32, list *[]string) uint32 {
	if id, ok := ids[s]; ok {
		return id
	}
	s = strings.Clone(s)
	id := uint32(len(*list))
	ids[s] = id
	*list = append(*list, s)
	return id
}

// Build returns the snapshot. The builder may not be used afterwards (the
// snapshot takes over its arrays).
func (b *Builder) Build() (*Graph, error) {
	if len(b.names) == 0 {
		return nil, errors.New("csr: graph has no nodes")
	}
	var rank []uint32
	if b.order.resolve(len(b.names)) == DegreeOrder {
		rank = b.degreeOrder()
	}
	// The edge table's weights in the storage the graph will use: float32
	// when every weight is exactly one (autoWeights), so that no array is
	// built twice.
	var weight Weights
	if b.storage == autoWeights && float32Exact(b.weight) {
		weight = weights32(narrow(b.weight))
	} else {
		weight = weights64(b.weight)
	}
	b.weight = nil
	g := &Graph{
		rank:         rank,
		directed:     b.directed,
		nodes:        len(b.names),
		names:        b.names,
		ids:          b.ids,
		edgeSrc:      b.src,
		edgeDst:      b.dst,
		edgeWeight:   weight,
		edgeChannel:  b.channel,
		edgeRelation: b.relation,
		channels:     b.channels,
		relations:    b.relations,
	}
	if g.channels == nil {
		g.channels = []string{}
	}
	n := len(b.names)
	if b.directed {
		if slices.IsSorted(b.src) {
			// Stream order is already out-adjacency order (edge lists
			// sorted by source): no scatter, and the arrays are the edge
			// table's own.
			g.out = adjacencyInStreamOrder(n, b.src, b.dst, weight)
		} else {
			g.out = buildAdjacency(n, b.src, b.dst, weight, nil, nil)
		}
		g.in = buildAdjacency(n, b.dst, b.src, weight, nil, nil)
	} else {
		// Each edge e contributes src->dst and dst->src. Arcs are placed in
		// edge order, so both arcs of a self-loop are consecutive.
		g.out = buildAdjacency(n, b.src, b.dst, weight, b.dst, b.src)
		g.in = g.out
	}
	g.outWeight = make([]float64, n)
	for u := range n {
		lo, hi := g.out.Span(uint32(u))
		g.outWeight[u] = sumWeightsAt(g.out.Weight, lo, hi)
	}
	g.shareArrays()
	*b = Builder{}
	return g, nil
}

// setWeightStorage chooses how Build stores the weights (autoWeights, the
// default, or float64Storage).
func (b *Builder) setWeightStorage(s weightStorage) { b.storage = s }

// adjacencyInStreamOrder is buildAdjacency(n, from, to, weight, nil, nil)
// for from sorted ascending: arc p is edge p, so the neighbour and weight
// arrays are to and weight themselves.
func adjacencyInStreamOrder(n int, from, to []uint32, weight Weights) Adjacency {
	offsets := make([]int, n+1)
	for _, u := range from {
		offsets[u+1]++
	}
	for u := range n {
		offsets[u+1] += offsets[u]
	}
	edge := make([]uint32, len(from))
	for e := range edge {
		edge[e] = uint32(e)
	}
	return Adjacency{Offsets: offsets, Nbr: to, Weight: weight, Edge: edge}
}

// buildAdjacency places arc from[e]->to[e] for every edge e, and when from2
// is not nil also from2[e]->to2[e], grouped by the arc's first endpoint and
// ordered by edge id within a group (a stable counting sort).
func buildAdjacency(n int, from, to []uint32, weight Weights, from2, to2 []uint32) Adjacency {
	if weight.is32() {
		a, wt := buildArcs(n, from, to, weight.f32, from2, to2)
		a.Weight = weights32(wt)
		return a
	}
	a, wt := buildArcs(n, from, to, weight.f64, from2, to2)
	a.Weight = weights64(wt)
	return a
}

// buildArcs is buildAdjacency for weights stored as W; it returns the arc
// weights beside the adjacency.
func buildArcs[W weightValue](n int, from, to []uint32, weight []W, from2, to2 []uint32) (Adjacency, []W) {
	offsets := make([]int, n+1)
	for _, u := range from {
		offsets[u+1]++
	}
	for _, u := range from2 {
		offsets[u+1]++
	}
	for u := range n {
		offsets[u+1] += offsets[u]
	}
	arcs := offsets[n]
	a := Adjacency{
		Offsets: offsets,
		Nbr:     make([]uint32, arcs),
		Edge:    make([]uint32, arcs),
	}
	wt := make([]W, arcs)
	next := make([]int, n)
	copy(next, offsets[:n])
	place := func(u, v uint32, e int) {
		p := next[u]
		next[u]++
		a.Nbr[p] = v
		wt[p] = weight[e]
		a.Edge[p] = uint32(e)
	}
	for e := range from {
		place(from[e], to[e], e)
		if from2 != nil {
			place(from2[e], to2[e], e)
		}
	}
	return a, wt
}
