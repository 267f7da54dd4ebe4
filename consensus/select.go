package consensus

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// defaultMaxNodes is the search-node budget Select uses when
// Options.MaxNodes is zero.
const defaultMaxNodes = 1 << 20

// Options configure Select. The zero value takes the defaults.
type Options struct {
	// MaxNodes caps the branch-and-bound nodes of both phases together
	// (2^20 when 0; a negative value means no cap). When it runs out,
	// Select returns the best set found with an error matching ErrBudget.
	MaxNodes int64
}

// Selection is the result of Select.
type Selection struct {
	// Items are the selected item indices, ascending (rank order).
	Items []int
	// Exact is true when Items is proved to be the rank-aware maximum
	// independent set; false only together with an error matching
	// ErrBudget.
	Exact bool
	// UpperBound is a proved upper bound on the maximum independent set
	// size: len(Items) when Exact.
	UpperBound int
	// Nodes counts the branch-and-bound nodes visited.
	Nodes int64
}

// ErrBudget is matched (errors.Is) by the error Select returns when the
// node budget ran out: the Selection beside it holds the best independent
// set found so far (Exact false), which may be smaller than the maximum or
// not the rank-aware choice among maximum sets, and a proved UpperBound on
// the maximum size.
var ErrBudget = errors.New("consensus: node budget exceeded")

// budgetError says the search stopped before proving its answer; it
// matches ErrBudget.
type budgetError struct {
	maxNodes   int64
	best       int // size of the best set found
	upperBound int // proved bound on the maximum size
}

func (e *budgetError) Error() string {
	return fmt.Sprintf("consensus: node budget %d exceeded: best set found has %d items, the maximum has at most %d (not proved; raise Options.MaxNodes)",
		e.maxNodes, e.best, e.upperBound)
}

func (e *budgetError) Unwrap() error { return ErrBudget }

// Select returns the rank-aware maximum independent set of g: among all
// independent sets of maximum size, the one whose ascending tuple of item
// indices is lexicographically smallest (see the package doc for the
// definition and the proof that the search finds it).
//
// When the node budget runs out, Select returns the best set found so far
// with Exact false and an error matching ErrBudget (errors.Is); it never
// returns an unproved set without an error.
func Select(g *Graph, opt Options) (*Selection, error) {
	maxNodes := opt.MaxNodes
	if maxNodes == 0 {
		maxNodes = defaultMaxNodes
	}
	s := newSolver(g, maxNodes)
	all := make([]uint64, s.w)
	for v := 0; v < g.k; v++ {
		all[v/64] |= 1 << (v % 64)
	}

	// Phase 1: the maximum size alpha and one maximum set, by branch and
	// reduce in whatever order is fastest.
	lb := s.greedy()
	witness, ok := s.largest(all, len(lb), false)
	if !ok { // budget exceeded
		best := lb
		if len(witness) > len(best) {
			best = witness
		}
		sel := &Selection{Items: best, UpperBound: s.rootBound, Nodes: s.nodes}
		return sel, &budgetError{maxNodes: maxNodes, best: len(best), upperBound: s.rootBound}
	}
	if witness == nil { // the greedy set is maximum
		witness = lb
	}

	// Phase 2: the rank-aware choice among maximum sets, decided item by
	// item in rank order.
	items, ok := s.lexFirst(all, witness)
	sel := &Selection{Items: items, Exact: ok, UpperBound: len(witness), Nodes: s.nodes}
	if !ok {
		return sel, &budgetError{maxNodes: maxNodes, best: len(items), upperBound: len(witness)}
	}
	return sel, nil
}

// forceGenericColour makes every solver use colour, for the differential
// test of colourTwo.
var forceGenericColour = false

// solver holds the scratch of one Select call.
type solver struct {
	g        *Graph
	w        int
	maxNodes int64
	nodes    int64

	// The searches run on sg, g renumbered by ascending degree: item
	// order[i] of g is item i of sg, and pos inverts order.
	sg         *Graph
	order, pos []int

	rootBound int // clique-cover bound of the whole graph

	// state of one largest() search
	cur     []int
	best    []int
	found   bool
	need    int
	first   bool // stop at the first set of size need
	done    bool // stop: first set found (first) or budget exceeded
	aborted bool

	p     [][]uint64 // candidates per depth
	verts [][]int    // listed items per depth, by clique number
	cols  [][]int    // their clique numbers
	u, q  []uint64   // colouring scratch

	// absorb scratch: the cliques numbered below the bar, the items of
	// each left open, and which cliques an absorption used
	cls          [][]uint64
	adj2         [][2]uint64 // sg's rows when k <= 128: colourTwo
	consumed, in []bool
	queue        []int
	cnt, classOf []int
	csize        []int
	singles      []int
	touched      []int
	forced       []int
	reason       [][]int // per clique: the forced cliques that removed its items
	live, pool   []uint64
}

func newSolver(g *Graph, maxNodes int64) *solver {
	s := &solver{
		g: g, w: g.words, maxNodes: maxNodes,
		u: make([]uint64, g.words), q: make([]uint64, g.words),
		consumed: make([]bool, g.k), in: make([]bool, g.k),
		cnt: make([]int, g.k), classOf: make([]int, g.k), live: make([]uint64, g.words),
		csize: make([]int, g.k), pool: make([]uint64, g.words), reason: make([][]int, g.k),
	}
	s.cls = make([][]uint64, g.k)
	for i := range s.cls {
		s.cls[i] = make([]uint64, g.words)
	}
	s.order = make([]int, g.k)
	deg := make([]int, g.k)
	for i := range s.order {
		s.order[i], deg[i] = i, g.degree(i)
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return deg[a] - deg[b] })
	s.pos = make([]int, g.k)
	for i, v := range s.order {
		s.pos[v] = i
	}
	s.sg, _ = newGraph(g.k)
	for i := 0; i < g.k; i++ {
		for j := i + 1; j < g.k; j++ {
			if g.contradicts(s.order[i], s.order[j]) {
				s.sg.addContradiction(i, j)
			}
		}
	}
	if g.words <= 2 && !forceGenericColour {
		s.adj2 = make([][2]uint64, g.k)
		for v := range s.adj2 {
			copy(s.adj2[v][:], s.sg.row(v))
		}
	}
	return s
}

// level makes sure the per-depth scratch reaches depth d.
func (s *solver) level(d int) []uint64 {
	for len(s.p) <= d {
		s.p = append(s.p, make([]uint64, s.w))
		s.verts = append(s.verts, make([]int, 0, s.g.k))
		s.cols = append(s.cols, make([]int, 0, s.g.k))
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

// largest searches P (original item indices) for an independent set of at
// least need items. With first false it returns one set of the maximum
// size when that maximum is at least need (nil when it is smaller); with
// first true it stops at the first set of need items. ok is false when the
// budget ran out (the set is then the best found, possibly nil).
func (s *solver) largest(P []uint64, need int, first bool) (set []int, ok bool) {
	s.cur, s.best, s.found = s.cur[:0], nil, false
	s.need, s.first, s.done, s.aborted = need, first, false, false
	root := s.level(0)
	clear(root)
	for wi, w := range P {
		for w != 0 {
			v := s.pos[wi*64+bits.TrailingZeros64(w)]
			w &= w - 1
			root[v/64] |= 1 << (v % 64)
		}
	}
	s.search(0)
	if !s.found {
		return nil, !s.aborted
	}
	out := make([]int, len(s.best))
	for i, v := range s.best {
		out[i] = s.order[v]
	}
	slices.Sort(out)
	return out, !s.aborted
}

// search is one branch-and-bound node on the renumbered graph s.sg:
// candidates s.p[d], included s.cur (MCQ/BBMC scheme, Tomita and San
// Segundo, on the complement: cliques of sg play the colour classes).
//
// P is partitioned greedily into cliques of sg, one clique at a time, each
// grown from the lowest-numbered uncovered item; an item in the c-th
// clique gets number c. An independent set holds at most one item per
// clique, so among the items numbered at most c no independent set has
// more than c items. The items are then branched on from the highest
// number down, each included and then removed from P: when v's number plus
// len(cur) is below need, every item left is numbered at most v's, so no
// set of need items remains and the node returns. Items numbered below
// need - len(cur) are never listed.
func (s *solver) search(d int) {
	s.nodes++
	if s.maxNodes >= 0 && s.nodes > s.maxNodes {
		s.aborted, s.done = true, true
		return
	}
	P := s.p[d]
	size := len(s.cur)
	if empty(P) {
		if size >= s.need {
			s.best = append(s.best[:0], s.cur...)
			s.found = true
			s.need = size + 1
			s.done = s.first
		}
		return
	}
	if size+popcount(P) < s.need {
		return
	}
	s.level(d + 1)
	verts, cols := s.verts[d][:0], s.cols[d][:0]
	kmin := s.need - size
	var c int
	if s.adj2 != nil {
		verts, cols, c = s.colourTwo(P, kmin, verts, cols)
	} else {
		verts, cols, c = s.colour(P, kmin, verts, cols)
	}
	if d == 0 && !s.first {
		s.rootBound = size + c
	}
	if len(verts) > 0 && kmin >= 2 {
		verts, cols = s.absorb(verts, cols, kmin-1)
	}
	s.verts[d], s.cols[d] = verts, cols
	child := s.p[d+1]
	for i := len(verts) - 1; i >= 0; i-- {
		if size+cols[i] < s.need {
			return
		}
		v := verts[i]
		row := s.sg.row(v)
		for xi := range child {
			child[xi] = P[xi] &^ row[xi]
		}
		child[v/64] &^= 1 << (v % 64)
		s.cur = append(s.cur, v)
		s.search(d + 1)
		s.cur = s.cur[:size]
		if s.done {
			return
		}
		P[v/64] &^= 1 << (v % 64)
	}
}

// colour partitions P into cliques of sg greedily, one clique at a time,
// each grown from the lowest-numbered uncovered item. Cliques numbered
// below kmin are stored in s.cls (and their items' numbers in s.classOf);
// the items of the others are appended to verts with their numbers to
// cols, in numbering order. It returns the lists and the clique count.
func (s *solver) colour(P []uint64, kmin int, verts, cols []int) ([]int, []int, int) {
	u, q := s.u, s.q
	copy(u, P)
	c := 0
	for !empty(u) {
		c++
		copy(q, u)
		var class []uint64
		if c < kmin {
			class = s.cls[c-1]
			clear(class)
		}
		for wi := 0; wi < len(q); wi++ {
			for q[wi] != 0 {
				v := wi*64 + bits.TrailingZeros64(q[wi])
				u[wi] &^= 1 << (v % 64)
				row := s.sg.row(v)
				for xi := wi; xi < len(q); xi++ {
					q[xi] &= row[xi]
				}
				if c >= kmin {
					verts, cols = append(verts, v), append(cols, c)
				} else {
					class[wi] |= 1 << (v % 64)
					s.classOf[v] = c - 1
				}
			}
		}
	}
	return verts, cols, c
}

// colourTwo is colour for at most 128 items, with the two words in
// registers and rows from s.adj2; it must give exactly colour's result
// (the multi-word tests run both: k <= 128 here, k > 128 there).
func (s *solver) colourTwo(P []uint64, kmin int, verts, cols []int) ([]int, []int, int) {
	var u0, u1 uint64
	u0 = P[0]
	if len(P) > 1 {
		u1 = P[1]
	}
	adj := s.adj2
	c := 0
	for u0|u1 != 0 {
		c++
		q0, q1 := u0, u1
		var k0, k1 uint64
		for q0 != 0 {
			v := bits.TrailingZeros64(q0)
			u0 &^= 1 << v
			r := &adj[v]
			q0 &= r[0]
			q1 &= r[1]
			if c >= kmin {
				verts, cols = append(verts, v), append(cols, c)
			} else {
				k0 |= 1 << v
				s.classOf[v] = c - 1
			}
		}
		for q1 != 0 {
			b := bits.TrailingZeros64(q1)
			v := 64 + b
			u1 &^= 1 << b
			q1 &= adj[v][1]
			if c >= kmin {
				verts, cols = append(verts, v), append(cols, c)
			} else {
				k1 |= 1 << b
				s.classOf[v] = c - 1
			}
		}
		if c < kmin {
			class := s.cls[c-1]
			class[0] = k0
			if len(class) > 1 {
				class[1] = k1
			}
		}
	}
	return verts, cols, c
}

// absorb drops from the branching list the items that an inconsistency
// argument shows need no branch (the infra-chromatic bound of San Segundo
// et al., with MaxCLQ's unit propagation, on the complement).
//
// The nc cliques K_1..K_nc numbered below the bar bound the unlisted items
// by nc. A listed item v can join them without raising that bound when
// {v} ∪ K_i1 ∪ ... ∪ K_ij has no independent set of j+1 items: such a set
// would take v and one item from each K_i, so from K_i only items not
// contradicting v; a clique left with one such item forces it,
// which removes the items it contradicts from the other cliques; a clique
// left with none proves the inconsistency, over the cliques forced so far
// plus that one. Those cliques are then consumed: a later item may only
// use others, so the groups are disjoint and the items kept off the list
// with all nc cliques still have no independent set above nc, which is
// what the branching loop's last step assumes.
func (s *solver) absorb(verts, cols []int, nc int) ([]int, []int) {
	consumed := s.consumed[:nc]
	clear(consumed)
	clear(s.pool)
	s.singles = s.singles[:0]
	for i := 0; i < nc; i++ {
		k := s.cls[i]
		n := 0
		for wi, x := range k {
			s.pool[wi] |= x
			n += bits.OnesCount64(x)
		}
		s.csize[i], s.cnt[i], s.in[i] = n, n, false
		if n == 1 {
			s.singles = append(s.singles, i)
		}
	}
	keep := 0
	for i, v := range verts {
		if !s.inconsistent(v) {
			verts[keep], cols[keep] = v, cols[i]
			keep++
		}
	}
	return verts[:keep], cols[:keep]
}

// inconsistent runs the unit propagation for item v over the cliques not
// yet consumed and, on success, consumes the cliques it used.
//
// Event-driven: cnt[i] (reset to csize[i] after each call) counts the
// items of clique i still open; live holds the open items of the cliques
// neither consumed nor forced (pool holds those not consumed), and forcing
// an item or taking v only visits its contradictions among them (clique
// numbers in classOf), never every clique.
func (s *solver) inconsistent(v int) bool {
	found := s.propagate(v)
	for _, j := range s.touched {
		s.cnt[j] = s.csize[j]
		s.in[j] = false
		s.reason[j] = s.reason[j][:0]
	}
	s.touched, s.forced, s.queue = s.touched[:0], s.forced[:0], s.queue[:0]
	return found
}

// drop lowers clique j's count for an item that left it, because v was
// taken (by < 0) or clique by's item was forced; it reports whether the
// clique ran out.
func (s *solver) drop(j, by int) bool {
	if s.cnt[j] == s.csize[j] {
		s.touched = append(s.touched, j)
	}
	if by >= 0 {
		s.reason[j] = append(s.reason[j], by)
	}
	s.cnt[j]--
	switch s.cnt[j] {
	case 0:
		return true
	case 1:
		s.queue = append(s.queue, j)
	}
	return false
}

// consume marks as used the cliques the conflict at clique j rests on:
// j and, recursively, the forced cliques whose items emptied or forced
// them (MaxCLQ's implication graph). Restricted to those cliques and v,
// the same propagation reaches the same conflict, so only they are spent.
func (s *solver) consume(j int) {
	stack := append(s.forced[:0], j)
	s.consumed[j] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for wi, x := range s.cls[c] {
			s.pool[wi] &^= x
		}
		for _, r := range s.reason[c] {
			if !s.consumed[r] {
				s.consumed[r] = true
				stack = append(stack, r)
			}
		}
	}
	s.forced = stack[:0]
}

// propagate is inconsistent's search; it leaves the counts for
// inconsistent to reset.
func (s *solver) propagate(v int) bool {
	live := s.live
	rowv := s.sg.row(v)
	for wi := range live {
		live[wi] = s.pool[wi] &^ rowv[wi]
		hit := s.pool[wi] & rowv[wi]
		for hit != 0 {
			x := wi*64 + bits.TrailingZeros64(hit)
			hit &= hit - 1
			if j := s.classOf[x]; s.drop(j, -1) {
				s.consume(j)
				return true
			}
		}
	}
	for _, j := range s.singles {
		if !s.consumed[j] && s.cnt[j] == 1 {
			s.queue = append(s.queue, j)
		}
	}
	for head := 0; head < len(s.queue); head++ {
		i := s.queue[head]
		if s.in[i] {
			continue
		}
		if s.cnt[i] == s.csize[i] {
			s.touched = append(s.touched, i) // a singleton: reset in[i] too
		}
		s.in[i] = true
		s.forced = append(s.forced, i)
		k := s.cls[i]
		u := -1
		for wi := range live {
			if x := k[wi] & live[wi]; x != 0 {
				u = wi*64 + bits.TrailingZeros64(x)
			}
			live[wi] &^= k[wi]
		}
		rowu := s.sg.row(u)
		for wi := range live {
			hit := rowu[wi] & live[wi]
			live[wi] &^= hit
			for hit != 0 {
				x := wi*64 + bits.TrailingZeros64(hit)
				hit &= hit - 1
				if j := s.classOf[x]; s.drop(j, i) {
					s.consume(j)
					return true
				}
			}
		}
	}
	return false
}

// lexFirst turns a maximum independent set into the rank-aware one. It
// decides items in rank order, keeping I (items taken), P (items still
// open, all ranked after the current one and contradicting nothing in I)
// and a witness W, a maximum set with W ∩ decided = I.
//
// Invariant: L, the lexicographically smallest maximum set, agrees with
// every decision so far. Proof of the step for item v in P: every maximum
// set consistent with the decisions is I ∪ X with X ⊆ P, |X| = t; those
// containing v have a smaller tuple than those that do not (they agree
// before v, and after v every other element is larger), so L contains v
// iff P \ N[v] holds an independent set of t-1 items. If v ∈ W, W is such
// a set; otherwise a search with first = true answers and, on yes, gives
// the new witness. Items outside P are in no set consistent with I.
func (s *solver) lexFirst(all []uint64, witness []int) ([]int, bool) {
	g := s.g
	P := slices.Clone(all)
	inW := make([]bool, g.k)
	for _, v := range witness {
		inW[v] = true
	}
	t := len(witness)
	var taken []int
	child := make([]uint64, s.w)
	for v := 0; v < g.k; v++ {
		if P[v/64]>>(v%64)&1 == 0 {
			continue
		}
		P[v/64] &^= 1 << (v % 64)
		row := g.row(v)
		for xi := range child {
			child[xi] = P[xi] &^ row[xi]
		}
		if !inW[v] {
			// One swap: when v contradicts a single member w of W, W - w + v
			// is a maximum set too (w is undecided: it is not in I, which v
			// does not contradict), so no search is needed.
			w, n := -1, 0
			for wi, word := range row {
				for word != 0 {
					u := wi*64 + bits.TrailingZeros64(word)
					word &= word - 1
					if inW[u] {
						w, n = u, n+1
					}
				}
			}
			if n == 1 {
				inW[w] = false
				taken = append(taken, v)
				copy(P, child)
				t--
				continue
			}
			x, ok := s.largest(child, t-1, true)
			if !ok {
				return witness, false
			}
			if x == nil {
				continue // v is in no maximum set consistent with I
			}
			clear(inW)
			for _, u := range x {
				inW[u] = true
			}
		}
		taken = append(taken, v)
		copy(P, child)
		t--
	}
	if taken == nil {
		taken = []int{}
	}
	return taken, true
}
