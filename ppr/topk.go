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
// (by lower node id when rank is nil). A node at or beyond len(rank) ranks
// as its id: a rank list of a graph's nodes (a permutation of 0..len-1)
// serves a view with nodes appended after them, ranked after all of them
// in id order.
type ranking []uint32

func (rk ranking) tie(u uint32) uint32 {
	if int(u) < len(rk) {
		return rk[u]
	}
	return u
}

func (rk ranking) before(a, b Scored) bool {
	if rk == nil {
		return before(a, b)
	}
	return a.Score > b.Score || (a.Score == b.Score && rk.tie(a.Node) < rk.tie(b.Node))
}

// TopK returns the k best nodes, best first. With candidates nil every
// node competes; otherwise only the candidates, which must be distinct ids
// below len(scores) (validate them at the API boundary). Fewer than k
// competitors give a shorter result. Ties break by lower rank[node] (a node
// at or beyond len(rank) ranks as its id), or by lower node id when rank
// is nil: with rank = csr.Graph.Ranks() a
// reordered graph selects, by name, what the graph in stream order
// selects (a solve's scores on a reordered graph need its ranks).
func TopK(scores []float64, k int, candidates []uint32, rank []uint32) []Scored {
	if k <= 0 {
		return nil
	}
	count := len(scores)
	if candidates != nil {
		count = len(candidates)
	}
	// The loops read scores directly (SolveTopK ranks every candidate at
	// every check, and a closure per element was a visible share of a
	// certified query: docs/benchmarks.md, "ppr: small passes") and skip,
	// once k are held, every score below the worst held one, which ranks
	// below it whatever the tie-break (the same test offer makes, so the
	// same result).
	h := topKHeap{items: make([]Scored, 0, min(k, count)), rank: rank}
	if candidates == nil {
		for u, sc := range scores {
			if len(h.items) == k && sc < h.items[0].Score {
				continue
			}
			h.offer(Scored{uint32(u), sc}, k)
		}
	} else {
		for _, u := range candidates {
			sc := scores[u]
			if len(h.items) == k && sc < h.items[0].Score {
				continue
			}
			h.offer(Scored{u, sc}, k)
		}
	}
	return h.sorted()
}

// topKHeap is a min-heap of the best k offered so far, the worst of them
// at the root.
type topKHeap struct {
	items []Scored
	rank  ranking
}

// offer keeps c if it ranks among the best k offered.
func (h *topKHeap) offer(c Scored, k int) {
	if len(h.items) < k {
		h.items = append(h.items, c)
		siftUp(h.items, len(h.items)-1, h.rank)
	} else if h.rank.before(c, h.items[0]) {
		h.items[0] = c
		siftDown(h.items, 0, h.rank)
	}
}

// sorted returns the kept entries, best first.
func (h *topKHeap) sorted() []Scored {
	rank := h.rank
	slices.SortFunc(h.items, func(a, b Scored) int {
		if rank.before(a, b) {
			return -1
		}
		if rank.before(b, a) {
			return 1
		}
		return cmp.Compare(rank.tie(a.Node), rank.tie(b.Node))
	})
	return h.items
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

// topKReference is TopK by sorting every competitor: the plain version the
// heap is tested against.
func topKReference(scores []float64, k int, candidates []uint32) []Scored {
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
