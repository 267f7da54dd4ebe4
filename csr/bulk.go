package csr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Index is an integer type that node ids and channel indices may come in:
// FromIDs reads the caller's arrays in place, whatever their width.
type Index interface {
	~int32 | ~int64 | ~uint32 | ~uint64
}

// IDEdges is a graph over nodes 0..Nodes-1 given by integer ids: the input
// of FromIDs. Node i is named strconv.Itoa(i).
type IDEdges[T, C Index] struct {
	Directed bool
	Nodes    int
	// Pairs holds 2*m node ids: edge e runs from Pairs[2e] to Pairs[2e+1].
	Pairs []T
	// Weights holds m finite non-negative weights, or is nil: every
	// weight is 1.
	Weights []float64
	// ChannelOf holds m indices into ChannelNames, or is nil: every edge
	// is on DefaultChannel. An empty name means DefaultChannel, as in
	// AddEdge; two equal names are one channel.
	ChannelOf    []C
	ChannelNames []string
}

// FromIDs returns the graph the Builder makes from the same input (AddNode
// of strconv.Itoa(i) for every node i in order, then AddEdgeByID for every
// edge in order, then Build; fromIDsByBuilder is that reference and the
// differential test holds the two equal, array for array), built in bulk:
//
//   - the names are not stored: Name, Names, ID and Parts answer as for
//     names strconv.Itoa(i), Names making them on first use;
//   - every array is allocated once at its final size;
//   - one pass over the caller's arrays checks each edge (ids below Nodes,
//     weight finite and non-negative, channel index in range; the first
//     bad edge is the error, named by its index) while it fills the edge
//     table and counts the degrees; one counting sort per adjacency (one
//     for an undirected graph) then places the arcs and sums the
//     out-weights in arc order. No other pass reads the edges.
//
// FromIDs keeps none of the caller's slices (they may be C memory read
// during the call only) except ChannelNames' strings.
func FromIDs[T, C Index](in IDEdges[T, C]) (*Graph, error) {
	n := in.Nodes
	if n < 1 {
		return nil, errors.New("csr: graph has no nodes")
	}
	if n > maxIDs {
		return nil, fmt.Errorf("csr: %d nodes, more than %d", n, maxIDs)
	}
	if len(in.Pairs)%2 != 0 {
		return nil, fmt.Errorf("csr: %d node ids, want an even number (src, dst pairs)", len(in.Pairs))
	}
	m := len(in.Pairs) / 2
	if m >= maxIDs {
		return nil, fmt.Errorf("csr: more than %d edges", maxIDs)
	}
	if in.Weights != nil && len(in.Weights) != m {
		return nil, fmt.Errorf("csr: %d weights for %d edges", len(in.Weights), m)
	}
	if in.ChannelOf != nil && len(in.ChannelOf) != m {
		return nil, fmt.Errorf("csr: %d channel indices for %d edges", len(in.ChannelOf), m)
	}
	g := &Graph{directed: in.Directed, nodes: n, decimalNames: true}
	arcs := m
	if !in.Directed {
		arcs = 2 * m
	}

	// Pass 1: check, copy into the edge table, count. The counts go two
	// places ahead (count[u+2]) so that after the prefix sum count[u+1]
	// is u's first arc: the scatter's cursor, which it leaves at u's end,
	// that is u+1's start, making count[:n+1] the offsets (no cursor
	// array to allocate and copy).
	src, dst := make([]uint32, m), make([]uint32, m)
	pairs := in.Pairs[:2*m]
	var weight []float64
	unit := true
	if in.Weights != nil {
		weight = make([]float64, m)
	}
	channel := make([]uint32, m)
	outCount := make([]int, n+2)
	var inCount []int
	if in.Directed {
		inCount = make([]int, n+2)
	}
	// remap[c] is the graph's index of the caller's channel c, interned
	// on first appearance as the Builder does; notSeen until then.
	const notSeen = math.MaxUint32
	var remap []uint32
	var names map[string]uint32
	if in.ChannelOf != nil {
		remap = make([]uint32, len(in.ChannelNames))
		for i := range remap {
			remap[i] = notSeen
		}
		names = make(map[string]uint32)
	} else if m > 0 {
		g.channels = []string{DefaultChannel}
	}
	sorted := true // sources non-decreasing: out-adjacency in stream order
	nn := uint64(n)
	for e := range m {
		s, d := pairs[2*e], pairs[2*e+1]
		// A negative signed id converts to at least 2^63 > n: one
		// comparison per endpoint covers both ends of the range.
		if uint64(s) >= nn || uint64(d) >= nn {
			return nil, fmt.Errorf("csr: edge %d: node %d -> %d out of range (graph has %d nodes, ids 0..%d)", e, s, d, n, n-1)
		}
		if remap != nil {
			c := in.ChannelOf[e]
			if uint64(c) >= uint64(len(remap)) {
				return nil, fmt.Errorf("csr: edge %d: channel %d out of range (%d channel names)", e, c, len(remap))
			}
			id := remap[c]
			if id == notSeen {
				name := in.ChannelNames[c]
				if name == "" {
					name = DefaultChannel
				}
				id = intern(name, names, &g.channels)
				remap[c] = id
			}
			channel[e] = id
		}
		if weight != nil {
			w := in.Weights[e]
			// !(w >= 0) is NaN or negative; -Inf is negative.
			if !(w >= 0) || w > math.MaxFloat64 {
				return nil, fmt.Errorf("csr: edge %d (%d -> %d): weight %v, want finite and non-negative", e, s, d, w)
			}
			weight[e] = w + 0 // +0 turns -0 into 0
			unit = unit && w == 1
		}
		su, du := uint32(s), uint32(d)
		src[e], dst[e] = su, du
		outCount[su+2]++
		if inCount != nil {
			inCount[du+2]++
			sorted = sorted && (e == 0 || src[e-1] <= su)
		} else {
			outCount[du+2]++
		}
	}
	if g.channels == nil {
		g.channels = []string{}
	}
	g.edgeSrc, g.edgeDst, g.edgeChannel = src, dst, channel
	g.unit = unit

	// ones is every weight array of a unit-weight graph, as shareArrays
	// makes it: the longest weight array (arcs long) and prefixes of it.
	// The scatters then get no weights to copy (arcWeight nil).
	var ones []float64
	arcWeight := weight
	if unit {
		ones = make([]float64, arcs)
		for p := range ones {
			ones[p] = 1
		}
		weight, arcWeight = ones[:m], nil
	}
	g.edgeWeight = weight

	if !in.Directed {
		g.out = newAdjacency(outCount, n, arcs, ones)
		g.outWeight = make([]float64, n)
		scatterUndirected(g.out, outCount[1:n+1], src, dst, arcWeight, g.outWeight)
		g.in = g.out
		return g, nil
	}
	g.in = newAdjacency(inCount, n, arcs, ones)
	g.outWeight = make([]float64, n)
	if sorted {
		// As Build: the out-adjacency is the edge table itself, in
		// stream order, with identity edge ids. No scatter moves the
		// cursors, so the offsets are the full running sum:
		// outCount[u+1] = arcs of the nodes before u.
		for k := 2; k <= n+1; k++ {
			outCount[k] += outCount[k-1]
		}
		g.out = Adjacency{Offsets: outCount[1 : n+2], Nbr: dst, Weight: weight, Edge: make([]uint32, m)}
		for e := range g.out.Edge {
			g.out.Edge[e] = uint32(e)
		}
		scatter(g.in, inCount[1:n+1], dst, src, arcWeight)
		outWeights(g.out, unit, g.outWeight)
		return g, nil
	}
	g.out = newAdjacency(outCount, n, arcs, ones)
	scatterDirected(g.out, g.in, outCount[1:n+1], inCount[1:n+1], src, dst, arcWeight, g.outWeight)
	if unit {
		outWeights(g.out, unit, g.outWeight)
	}
	return g, nil
}

// prefixSum turns count (count[u+2] = arcs of u) into count[u+1] = first
// arc of u.
func prefixSum(count []int, n int) {
	count = count[:n+2]
	for u := 2; u <= n; u++ {
		count[u] += count[u-1]
	}
}

// newAdjacency sums the counts and allocates the arc arrays; ones (when
// not nil) is the graph's shared array of unit weights.
func newAdjacency(count []int, n, arcs int, ones []float64) Adjacency {
	prefixSum(count, n)
	a := Adjacency{Offsets: count[:n+1], Nbr: make([]uint32, arcs), Edge: make([]uint32, arcs)}
	if ones != nil {
		a.Weight = ones[:arcs]
	} else {
		a.Weight = make([]float64, arcs)
	}
	return a
}

// outWeights sets W(u) from the out-adjacency: the arc count for unit
// weights (a sum of that many ones, exact below 2^53), else sumWeights.
func outWeights(out Adjacency, unit bool, w []float64) {
	for u := range w {
		lo, hi := out.Offsets[u], out.Offsets[u+1]
		if unit {
			w[u] = float64(hi - lo)
		} else {
			w[u] = sumWeights(out.Weight[lo:hi])
		}
	}
}

// scatterUndirected is buildAdjacency(n, src, dst, weight, dst, src)
// placing arcs into a (offsets counted, arrays allocated; next[u] is u's
// first arc and ends as u's end), and also sums W(u) over u's arcs in
// arc order, exactly as sumWeights over the span would (the same
// additions from 0 in the same order). Weight nil means unit weights:
// a.Weight is already all ones, and W(u) counts u's arcs.
func scatterUndirected(a Adjacency, next []int, src, dst []uint32, weight, w []float64) {
	m := len(src)
	dst = dst[:m]
	nbr, edge := a.Nbr, a.Edge
	if weight == nil {
		for e := range m {
			s, d := src[e], dst[e]
			p := next[s]
			next[s]++
			nbr[p], edge[p] = d, uint32(e)
			q := next[d]
			next[d]++
			nbr[q], edge[q] = s, uint32(e)
		}
		for u := range w {
			w[u] = float64(a.Offsets[u+1] - a.Offsets[u])
		}
		return
	}
	weight = weight[:m]
	wt := a.Weight
	for e := range m {
		s, d, x := src[e], dst[e], weight[e]
		p := next[s]
		next[s]++
		nbr[p], wt[p], edge[p] = d, x, uint32(e)
		w[s] += x
		q := next[d]
		next[d]++
		nbr[q], wt[q], edge[q] = s, x, uint32(e)
		w[d] += x
	}
}

// scatter places arc from[e]->to[e] of every edge into a, as
// buildAdjacency(n, from, to, weight, nil, nil); weight nil means a.Weight
// is already all ones.
func scatter(a Adjacency, next []int, from, to []uint32, weight []float64) {
	m := len(from)
	to = to[:m]
	nbr, edge := a.Nbr, a.Edge
	for e := range m {
		u := from[e]
		p := next[u]
		next[u]++
		nbr[p], edge[p] = to[e], uint32(e)
	}
	if weight != nil {
		weight = weight[:m]
		for p, e := range edge {
			a.Weight[p] = weight[e]
		}
	}
}

// scatterDirected places the out- and in-arcs of every edge in one pass
// (the out-adjacency as buildAdjacency(n, src, dst, ...), the in-adjacency
// as buildAdjacency(n, dst, src, ...)) and sums W(u) over u's out-arcs in
// arc order, as sumWeights would; with weight nil the weights are all
// ones and the caller sets W.
func scatterDirected(out, in Adjacency, outNext, inNext []int, src, dst []uint32, weight, w []float64) {
	m := len(src)
	dst = dst[:m]
	if weight == nil {
		for e := range m {
			s, d := src[e], dst[e]
			p := outNext[s]
			outNext[s]++
			out.Nbr[p], out.Edge[p] = d, uint32(e)
			q := inNext[d]
			inNext[d]++
			in.Nbr[q], in.Edge[q] = s, uint32(e)
		}
		return
	}
	weight = weight[:m]
	for e := range m {
		s, d, x := src[e], dst[e], weight[e]
		p := outNext[s]
		outNext[s]++
		out.Nbr[p], out.Weight[p], out.Edge[p] = d, x, uint32(e)
		w[s] += x
		q := inNext[d]
		inNext[d]++
		in.Nbr[q], in.Weight[q], in.Edge[q] = s, x, uint32(e)
	}
}

// fromIDsByBuilder is FromIDs' reference: the Builder fed the same input
// node by node and edge by edge, with FromIDs' checks (ids in range and
// channel indices, which AddEdgeByID cannot see, in the same words).
func fromIDsByBuilder[T, C Index](in IDEdges[T, C]) (*Graph, error) {
	if in.Nodes < 1 {
		return nil, errors.New("csr: graph has no nodes")
	}
	if len(in.Pairs)%2 != 0 {
		return nil, fmt.Errorf("csr: %d node ids, want an even number (src, dst pairs)", len(in.Pairs))
	}
	m := len(in.Pairs) / 2
	if in.Weights != nil && len(in.Weights) != m {
		return nil, fmt.Errorf("csr: %d weights for %d edges", len(in.Weights), m)
	}
	if in.ChannelOf != nil && len(in.ChannelOf) != m {
		return nil, fmt.Errorf("csr: %d channel indices for %d edges", len(in.ChannelOf), m)
	}
	b := NewBuilder(in.Directed)
	for i := range in.Nodes {
		if _, err := b.AddNode(strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	for e := range m {
		s, d := int64(in.Pairs[2*e]), int64(in.Pairs[2*e+1])
		// int64 of a uint64 above 2^63 is negative: out of range either way.
		if s < 0 || s >= int64(in.Nodes) || d < 0 || d >= int64(in.Nodes) {
			return nil, fmt.Errorf("csr: edge %d: node %d -> %d out of range (graph has %d nodes, ids 0..%d)",
				e, in.Pairs[2*e], in.Pairs[2*e+1], in.Nodes, in.Nodes-1)
		}
		channel := DefaultChannel
		if in.ChannelOf != nil {
			c := int64(in.ChannelOf[e])
			if c < 0 || c >= int64(len(in.ChannelNames)) {
				return nil, fmt.Errorf("csr: edge %d: channel %d out of range (%d channel names)", e, in.ChannelOf[e], len(in.ChannelNames))
			}
			channel = in.ChannelNames[c]
		}
		w := 1.0
		if in.Weights != nil {
			w = in.Weights[e]
		}
		if _, err := b.AddEdgeByID(uint32(s), uint32(d), w, channel); err != nil {
			return nil, err
		}
	}
	return b.Build()
}
