package consensus

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// DefaultMaxNodes is the search-node budget Select uses when
// Options.MaxNodes is zero: about a second of search at k = 128 on this
// project's reference machine, far above what the random and adversarial
// graphs of the benchmarks need (see the package doc).
const DefaultMaxNodes = 1 << 22

// Options configure Select. The zero value takes the defaults.
type Options struct {
	// MaxNodes caps the branch-and-bound nodes (DefaultMaxNodes when 0; a
	// negative value means no cap). Each node costs O(k * k/64) word
	// operations.
	MaxNodes int64
}

// Selection is the result of Select.
type Selection struct {
	// Items are the selected item indices, ascending (rank order).
	Items []int
	// Exact is true when Items is proved to be the rank-aware maximum
	// independent set; false only together with a *BudgetError.
	Exact bool
	// UpperBound is a proved upper bound on the maximum independent set
	// size: len(Items) when Exact.
	UpperBound int
	// Nodes counts the branch-and-bound nodes visited.
	Nodes int64
}

// ErrBudget is matched (errors.Is) by the *BudgetError Select returns when
// the node budget ran out.
var ErrBudget = errors.New("consensus: node budget exceeded")

// BudgetError says the search stopped before proving its answer: the
// Selection returned beside it holds the best independent set found so far
// (Exact false), which may be smaller than the maximum or not the
// rank-aware choice among maximum sets.
type BudgetError struct {
	MaxNodes   int64
	Best       int // size of the best set found
	UpperBound int // proved bound on the maximum size
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("consensus: node budget %d exceeded: best set found has %d items, the maximum has at most %d (not proved; raise Options.MaxNodes)",
		e.MaxNodes, e.Best, e.UpperBound)
}

func (e *BudgetError) Unwrap() error { return ErrBudget }

// Select returns the rank-aware maximum independent set of g: among all
// independent sets of maximum size, the one whose ascending tuple of item
// indices is lexicographically smallest (see the package doc for the
// definition and the proof that the search finds it).
//
// When the node budget runs out, Select returns the best set found so far
// with Exact false and a *BudgetError (errors.Is(err, ErrBudget)); it never
// returns an unproved set without an error.
func Select(g *Graph, opt Options) (*Selection, error) {
	maxNodes := opt.MaxNodes
	if maxNodes == 0 {
		maxNodes = DefaultMaxNodes
	}
	s := newSolver(g, maxNodes)
	lb := s.greedy()
	s.need = len(lb)
	root := s.level(0)
	for v := 0; v < g.k; v++ {
		root[v/64] |= 1 << (v % 64)
	}
	s.expand(0)
	sel := &Selection{Nodes: s.nodes}
	if !s.aborted {
		sel.Items, sel.Exact, sel.UpperBound = s.best, true, len(s.best)
		return sel, nil
	}
	sel.Items = s.best
	if !s.found {
		sel.Items = lb
	}
	sel.UpperBound = s.rootBound
	return sel, &BudgetError{MaxNodes: maxNodes, Best: len(sel.Items), UpperBound: s.rootBound}
}

// solver is one branch-and-bound search. The search tree: a node holds the
// included items cur (all ranked before every candidate) and the candidate
// bitset P; it loops over P in rank order, and for each v first includes v
// (child candidates: P's items after v that do not contradict v), then
// excludes it and goes on. need is the smallest size still worth finding.
type solver struct {
	g        *Graph
	w        int
	maxNodes int64
	nodes    int64
	aborted  bool

	cur   []int
	best  []int
	found bool
	need  int

	rootBound int

	p     [][]uint64 // candidates per depth
	verts [][]int    // P's members per depth, ascending
	suf   [][]int    // suffix colour bound per depth
	col   []int      // colour of each vertex in the current colouring
	u, q  []uint64   // colouring scratch
}

func newSolver(g *Graph, maxNodes int64) *solver {
	return &solver{
		g: g, w: g.words, maxNodes: maxNodes,
		col:  make([]int, g.k),
		best: make([]int, 0, g.k),
		u:    make([]uint64, g.words), q: make([]uint64, g.words),
	}
}

// level returns the zeroed candidate bitset of depth d, growing the
// per-depth scratch on first use.
func (s *solver) level(d int) []uint64 {
	for len(s.p) <= d {
		s.p = append(s.p, make([]uint64, s.w))
		s.verts = append(s.verts, make([]int, 0, s.g.k))
		s.suf = append(s.suf, make([]int, s.g.k))
	}
	return s.p[d]
}

// greedy returns a maximal independent set by repeatedly taking the item
// with fewest contradictions among the remaining ones (lowest index on
// ties): a lower bound that starts the search with a high bar.
func (s *solver) greedy() []int {
	g := s.g
	rest := make([]uint64, s.w)
	for v := 0; v < g.k; v++ {
		rest[v/64] |= 1 << (v % 64)
	}
	var out []int
	var vs []int
	for !empty(rest) {
		vs = members(vs[:0], rest)
		bestV, bestD := -1, 0
		for _, v := range vs {
			row := g.row(v)
			d := 0
			for wi := range rest {
				d += bits.OnesCount64(row[wi] & rest[wi])
			}
			if bestV < 0 || d < bestD {
				bestV, bestD = v, d
			}
		}
		out = append(out, bestV)
		row := g.row(bestV)
		for wi := range rest {
			rest[wi] &^= row[wi]
		}
		rest[bestV/64] &^= 1 << (bestV % 64)
	}
	slices.Sort(out)
	return out
}

// colour partitions P into cliques of g (items that pairwise contradict;
// an independent set holds at most one item of each), built one clique at
// a time from the worst-ranked item still uncovered, so that the items
// ranked last are covered by the first cliques. It sets s.col[v] to v's
// clique number (1-based) and returns the number of cliques.
func (s *solver) colour(P []uint64) int {
	u, q := s.u, s.q
	copy(u, P)
	c := 0
	for !empty(u) {
		c++
		copy(q, u)
		for !empty(q) {
			v := highest(q)
			s.col[v] = c
			bit := uint64(1) << (v % 64)
			u[v/64] &^= bit
			row := s.g.row(v)
			for wi := range q {
				q[wi] &= row[wi]
			}
		}
	}
	return c
}

// expand searches the node at depth d (candidates s.p[d], included s.cur).
//
// Bound: for the i-th candidate v_i in rank order, any independent set in
// {v_i, v_i+1, ...} takes at most one item per clique touching that
// suffix, and every such clique has a number at most suf[i] = max colour
// over the suffix; so when len(cur) + suf[i] < need, no set of size need
// remains below this node once v_1..v_(i-1) are excluded.
func (s *solver) expand(d int) {
	s.nodes++
	if s.maxNodes >= 0 && s.nodes > s.maxNodes {
		s.aborted = true
		return
	}
	P := s.p[d]
	size := len(s.cur)
	if empty(P) {
		if size >= s.need {
			s.best = append(s.best[:0], s.cur...)
			s.found = true
			s.need = size + 1
		}
		return
	}
	if size+popcount(P) < s.need {
		return
	}
	c := s.colour(P)
	if d == 0 {
		s.rootBound = c
	}
	verts := members(s.verts[d][:0], P)
	s.verts[d] = verts
	suf := s.suf[d][:len(verts)]
	m := 0
	for i := len(verts) - 1; i >= 0; i-- {
		m = max(m, s.col[verts[i]])
		suf[i] = m
	}
	child := s.level(d + 1)
	for i, v := range verts {
		if size+suf[i] < s.need {
			return
		}
		row := s.g.row(v)
		vw := v / 64
		for wi := range child {
			var after uint64 // candidates ranked after v
			switch {
			case wi > vw:
				after = ^uint64(0)
			case wi == vw:
				after = ^uint64(0) << (v % 64) << 1
			}
			child[wi] = P[wi] &^ row[wi] & after
		}
		s.cur = append(s.cur, v)
		s.expand(d + 1)
		s.cur = s.cur[:size]
		if s.aborted {
			return
		}
	}
}
