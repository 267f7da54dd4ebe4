package ppr

import (
	"cmp"
	"slices"
)

// Scored is a node with its score.
type Scored struct {
	Node  uint32
	Score float64
}

// before reports whether a ranks above b: higher score, then lower node id.
func before(a, b Scored) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.Node < b.Node)
}

// ranking orders Scored values: higher score first, ties by lower rank[node]
// (by lower node id when rank is nil).
type ranking []uint32

func (rk ranking) tie(u uint32) uint32 {
	if rk == nil {
		return u
	}
	return rk[u]
}

func (rk ranking) before(a, b Scored) bool {
	if rk == nil {
		return before(a, b)
	}
	return a.Score > b.Score || (a.Score == b.Score && rk[a.Node] < rk[b.Node])
}

// TopK returns the k best nodes, best first, ties broken by lower node id.
// With candidates nil every node competes; otherwise only the candidates,
// which must be distinct ids below len(scores) (validate them at the API
// boundary). Fewer than k competitors give a shorter result.
func TopK(scores []float64, k int, candidates []uint32) []Scored {
	return TopKRanked(scores, k, candidates, nil)
}

// TopKRanked is TopK with ties broken by lower rank[node] instead of lower
// node id: with rank = csr.Graph.Ranks() a reordered graph selects, by name,
// what the graph in stream order selects. A nil rank is TopK.
func TopKRanked(scores []float64, k int, candidates []uint32, rank []uint32) []Scored {
	if k <= 0 {
		return nil
	}
	count := len(scores)
	if candidates != nil {
		count = len(candidates)
	}
	at := func(i int) Scored {
		if candidates != nil {
			u := candidates[i]
			return Scored{u, scores[u]}
		}
		return Scored{uint32(i), scores[i]}
	}
	return topK(count, k, at, rank)
}

// TopKByRanked is TopKRanked over scores computed by a function: score(u)
// for every candidate, or for every u < n when candidates is nil; ties break
// by lower rank[node] (nil: by node id).
func TopKByRanked(n, k int, candidates []uint32, score func(u uint32) float64, rank []uint32) []Scored {
	if k <= 0 {
		return nil
	}
	count := n
	if candidates != nil {
		count = len(candidates)
	}
	at := func(i int) Scored {
		u := uint32(i)
		if candidates != nil {
			u = candidates[i]
		}
		return Scored{u, score(u)}
	}
	return topK(count, k, at, rank)
}

func topK(count, k int, at func(i int) Scored, rank ranking) []Scored {
	// A min-heap of the best k so far, the worst of them at the root.
	heap := make([]Scored, 0, min(k, count))
	for i := range count {
		c := at(i)
		if len(heap) < k {
			heap = append(heap, c)
			siftUp(heap, len(heap)-1, rank)
		} else if rank.before(c, heap[0]) {
			heap[0] = c
			siftDown(heap, 0, rank)
		}
	}
	slices.SortFunc(heap, func(a, b Scored) int {
		if rank.before(a, b) {
			return -1
		}
		if rank.before(b, a) {
			return 1
		}
		return cmp.Compare(rank.tie(a.Node), rank.tie(b.Node))
	})
	return heap
}

// The heap orders by "ranks below": the root ranks below every other entry.
func siftUp(h []Scored, i int, rank ranking) {
	for i > 0 {
		parent := (i - 1) / 2
		if !rank.before(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func siftDown(h []Scored, i int, rank ranking) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && rank.before(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && rank.before(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// eachCandidate calls visit on every candidate, or on every node 0..n-1
// when candidates is nil (the convention of every top-k function here).
func eachCandidate(n int, candidates []uint32, visit func(u uint32)) {
	if candidates == nil {
		for u := range n {
			visit(uint32(u))
		}
		return
	}
	for _, u := range candidates {
		visit(u)
	}
}

// TopKReference is TopK by sorting every competitor: the plain version the
// heap is tested against.
func TopKReference(scores []float64, k int, candidates []uint32) []Scored {
	var all []Scored
	if candidates == nil {
		for u, s := range scores {
			all = append(all, Scored{uint32(u), s})
		}
	} else {
		for _, u := range candidates {
			all = append(all, Scored{u, scores[u]})
		}
	}
	slices.SortFunc(all, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Node, b.Node)
	})
	return all[:min(k, len(all))]
}
