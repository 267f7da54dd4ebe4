package consensus

import (
	"fmt"
	"math/bits"
)

// Graph is a contradiction graph over k ranked items. Item i (0-based) has
// rank i+1: item 0 is the most reliable. Edges are undirected; a Graph
// never holds a self-loop.
type Graph struct {
	k     int
	words int      // uint64 words per adjacency row: ceil(k/64)
	adj   []uint64 // row i is adj[i*words : (i+1)*words]
}

// newGraph returns the graph of k items with no contradictions.
func newGraph(k int) (*Graph, error) {
	if k < 0 {
		return nil, fmt.Errorf("consensus: %d items, want at least 0", k)
	}
	w := (k + 63) / 64
	return &Graph{k: k, words: w, adj: make([]uint64, k*w)}, nil
}

func (g *Graph) row(i int) []uint64 { return g.adj[i*g.words : (i+1)*g.words] }

// addContradiction records that items i and j contradict each other.
// Adding an edge twice is harmless.
func (g *Graph) addContradiction(i, j int) error {
	if i < 0 || i >= g.k || j < 0 || j >= g.k {
		return fmt.Errorf("consensus: contradiction (%d, %d): item out of range [0, %d)", i, j, g.k)
	}
	if i == j {
		return fmt.Errorf("consensus: contradiction (%d, %d): an item cannot contradict itself", i, j)
	}
	g.row(i)[j/64] |= 1 << (j % 64)
	g.row(j)[i/64] |= 1 << (i % 64)
	return nil
}

// contradicts reports whether items i and j contradict. Out-of-range items
// contradict nothing.
func (g *Graph) contradicts(i, j int) bool {
	if i < 0 || i >= g.k || j < 0 || j >= g.k {
		return false
	}
	return g.row(i)[j/64]>>(j%64)&1 == 1
}

// degree returns the number of items i contradicts.
func (g *Graph) degree(i int) int {
	n := 0
	for _, w := range g.row(i) {
		n += bits.OnesCount64(w)
	}
	return n
}

// Judge says whether two ranked items contradict each other (an NLI model,
// an answer comparison, a test table). Contradicts is called with i < j.
type Judge interface {
	Contradicts(i, j int) (bool, error)
}

// JudgeFunc adapts a function to Judge.
type JudgeFunc func(i, j int) (bool, error)

// Contradicts calls f.
func (f JudgeFunc) Contradicts(i, j int) (bool, error) { return f(i, j) }

// BuildGraph asks the judge about every pair i < j of k items, once, in
// order (i, then j ascending), and returns the contradiction graph.
func BuildGraph(k int, judge Judge) (*Graph, error) {
	g, err := newGraph(k)
	if err != nil {
		return nil, err
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			c, err := judge.Contradicts(i, j)
			if err != nil {
				return nil, fmt.Errorf("consensus: judge on items %d and %d: %w", i, j, err)
			}
			if c {
				g.addContradiction(i, j) // in range and i != j by construction
			}
		}
	}
	return g, nil
}

// bitset helpers over rows of g.words words.

func popcount(s []uint64) int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

func empty(s []uint64) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// highest returns the largest set bit of s; s must be non-empty.
func highest(s []uint64) int {
	for wi := len(s) - 1; wi >= 0; wi-- {
		if s[wi] != 0 {
			return wi*64 + 63 - bits.LeadingZeros64(s[wi])
		}
	}
	return -1
}

// members appends the set bits of s in ascending order.
func members(dst []int, s []uint64) []int {
	for wi, w := range s {
		for w != 0 {
			dst = append(dst, wi*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return dst
}
