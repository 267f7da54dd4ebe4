package ppr

import (
	"iter"
	"math"
	"math/bits"
	"unsafe"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/prefetch"
	"github.com/authppr/authppr/internal/reuse"
	"github.com/authppr/authppr/mask"
)

// PushRounds is pushUntil with the frontier kept as a bitset and processed
// in rounds, in id order: a round visits the frontier's nodes by ascending
// id and lists those over their threshold, a block of pushBlockLen at a
// time; it pushes a block's nodes in order, in place, each still over its
// threshold with its residual at that moment (so a later node already
// holds what earlier pushes sent it, as in a Gauss-Seidel sweep), before
// it lists the next; it marks every node a push changed for the next
// round, and ends when a round finds nothing to push. Marking costs one OR
// into a bitset that stays in cache, and the next round reads the marked
// nodes in id order, so an arc costs about what it costs in a scan,
// several times less than in pushUntil's FIFO, while the work stays
// proportional to the active nodes. Reading the marks a block ahead of the
// visits, and listing the nodes to push before pushing them, lets a visit
// or a push ask for the memory of those a few places after it
// (package prefetch) while its own is read: the pushes of a living store's
// guard are bound by the latency of those lines, not by the arcs.
// The seeds' share of dangling pushes is added at the end of each round.
//
// Thresholds, keepDangling, Support and the budget (arc operations, 0 = no
// cap) mean what they mean for pushUntil, and so does the result: true when
// every node reached is at or below its threshold. The pushes differ from
// pushUntil's in order, never in kind, so the residual identity holds after
// every round (TestPushRoundsKeepsIdentity).
func (e *Engine) PushRounds(eps float64, frontier []uint32, budget int64) bool {
	return e.pushRounds(eps, eps, frontier, budget)
}

// PushRoundsSigned is PushRounds with a threshold per sign: it pushes the
// nodes whose residual is over above*W(u) or under -below*W(u) (above or
// below where W(u) = 0), and never on a side whose threshold is +Inf
// (PushRounds(eps) is PushRoundsSigned(eps, eps)). A state whose negative
// residual is a local correction (a native state turned authenticated,
// see replay) drives that part down finer than the positive one, where it
// is, so the error below x (errorBounds.below) shrinks at the cost of the
// correction's neighbourhood, in the same rounds as the positive part.
func (e *Engine) PushRoundsSigned(above, below float64, frontier []uint32, budget int64) bool {
	return e.pushRounds(above, below, frontier, budget)
}

// roundScratch is PushRounds' frontier bitsets, this round's and the
// next's, each with a summary bitset of its non-zero words (all zero
// between calls): a round visits the marked words alone, so a round of a
// few pushes costs O(them + n/4096 words), not O(n/64).
type roundScratch struct {
	cur, next roundMarks
	visit     []uint32 // a round's block of marked nodes to visit
	todo      []uint32 // a round's block of nodes to push
}

// roundMarks is one round's bitset of nodes and its summary (bit i of
// word i/64: word i may be non-zero).
type roundMarks struct {
	bits, sum []uint64
}

// resize sizes the scratch, made on first use, for n nodes: all zero
// between calls, it stays so (reuse.Slice), and a living store's engines,
// moved to each version's views (Engine.Rebind), keep their pages.
func (rs *roundScratch) resize(n int) {
	if rs.cur.bits == nil {
		return
	}
	words := (n + 63) / 64
	sums := (words + 63) / 64
	for _, f := range []*roundMarks{&rs.cur, &rs.next} {
		f.bits, f.sum = reuse.Slice(f.bits, words), reuse.Slice(f.sum, sums)
	}
}

// mark marks v, and its word in the summary when the word was zero. The
// summary so lists every non-zero word: a word becomes non-zero only
// here, and a round clears a word only with its summary bit (or both
// whole).
func (f roundMarks) mark(v uint32) {
	w := &f.bits[v/64]
	if *w == 0 {
		f.sum[v/4096] |= 1 << (v / 64 % 64)
	}
	*w |= 1 << (v % 64)
}

func (e *Engine) pushRounds(above, below float64, frontier []uint32, budget int64) bool {
	if wt := e.view.Graph().Out().Weight.Float32s(); wt != nil {
		return pushRounds(e, wt, above, below, frontier, budget)
	}
	return pushRounds(e, e.view.Graph().Out().Weight.Float64s(), above, below, frontier, budget)
}

// pushBlockLen is how many nodes over their threshold a round lists before
// it pushes them (roundPusher.pushBlock): enough for the prefetches to run
// ahead of the pushes, few enough that the residuals the listing read are
// still in cache when the block is pushed.
const pushBlockLen = 1024

// pushRounds is PushRoundsSigned with the out-adjacency's weights wts in
// their storage (csr.Weights), widened as read.
func pushRounds[W weight](e *Engine, wts []W, above, below float64, start []uint32, budget int64) bool {
	n := e.view.NumNodes()
	rs := &e.rounds
	if rs.cur.bits == nil {
		words := (n + 63) / 64
		sums := (words + 63) / 64
		rs.cur = roundMarks{make([]uint64, words), make([]uint64, sums)}
		rs.next = roundMarks{make([]uint64, words), make([]uint64, sums)}
	}
	for _, u := range start {
		rs.cur.mark(u)
	}
	p := newRoundPusher(e, wts, above, below, budget)
	for {
		cur := rs.cur
		p.next, p.active, p.dangling = rs.next, false, 0
		visit := rs.visit[:0]
		for si, sw := range cur.sum {
			if sw == 0 {
				continue
			}
			cur.sum[si] = 0
			for sw != 0 {
				wi := si*64 + bits.TrailingZeros64(sw)
				sw &= sw - 1
				word := cur.bits[wi]
				cur.bits[wi] = 0
				for ; word != 0; word &= word - 1 {
					visit = append(visit, uint32(wi*64+bits.TrailingZeros64(word)))
				}
				if len(visit) >= visitBlockLen {
					if !p.visitBlock(visit) {
						return p.outOfBudget(cur)
					}
					visit = visit[:0]
				}
			}
		}
		rs.visit = visit
		if !p.visitBlock(visit) || !p.pushBlock(rs.todo) {
			return p.outOfBudget(cur)
		}
		rs.todo = rs.todo[:0]
		e.endRound(p.dangling, p.next)
		if !p.active {
			p.next.clear()
			return true
		}
		rs.cur, rs.next = rs.next, cur
	}
}

// visitBlockLen is how many of a round's marked nodes pushRounds reads from
// the bitset before it visits them (roundPusher.visitBlock), at least: the
// visits know the nodes ahead of them and ask for their residuals.
const visitBlockLen = 256

// visitAhead is how many places ahead a visit asks for a node's residual
// and out-weight, visitHints nodes at a time (one call).
const visitAhead, visitHints = 16, 8

// visitBlock visits the listed marked nodes in order: it tallies a node
// at or below its threshold in the leftover (and logs it if watched), and
// lists one over it in the scratch's block, which it pushes (pushBlock)
// when the block is full. It returns false when the budget ran out.
func (p *roundPusher[W]) visitBlock(visit []uint32) bool {
	rs, r, left := &p.e.rounds, p.r, p.left
	flat, _ := p.w.Flat()
	for i, u := range visit {
		if i%visitHints == 0 && i+visitAhead < len(visit) && len(flat) > 0 {
			// A patched view's new nodes lie past flat: a hint past an
			// array is harmless (package prefetch).
			ahead := visit[i+visitAhead : min(i+visitAhead+visitHints, len(visit))]
			prefetch.Indexed(unsafe.Pointer(&r[0]), unsafe.Pointer(&flat[0]), ahead)
		}
		val, wu := r[u], p.w.At(u)
		if !p.over(val, wu) {
			if left != nil {
				left.tally.note(val, wu)
				if left.watching(u) {
					left.record(u, p.x[u], val, wu)
				}
			}
			continue
		}
		if rs.todo = append(rs.todo, u); len(rs.todo) == pushBlockLen {
			if !p.pushBlock(rs.todo) {
				return false
			}
			rs.todo = rs.todo[:0]
		}
	}
	return true
}

// roundPusher is what one pushRounds call reads on every push, and the
// state of its round: the marks for the next round, whether the round
// pushed, and the dangling mass it collected.
type roundPusher[W weight] struct {
	e            *Engine
	x, r         []float64
	w            *mask.NodeWeights
	out          csr.Adjacency
	wts          []W
	mbits, tb    []uint64
	above, below float64
	keepDangling bool
	d            float64
	left         *Leftover
	budget       int64 // arc operations, 0 = no cap
	arcsAtStart  int64

	next     roundMarks
	active   bool
	dangling float64
}

func newRoundPusher[W weight](e *Engine, wts []W, above, below float64, budget int64) roundPusher[W] {
	n := e.view.NumNodes()
	mbits, tb := e.view.MaskedBits(), e.view.TouchedBits()
	return roundPusher[W]{
		e: e, x: e.X[:n], r: e.R[:n], w: e.view.NodeOutWeights(), out: e.view.Graph().Out(), wts: wts,
		mbits: mbits, tb: tb, above: above, below: below, keepDangling: e.keepDangling, d: e.damping, left: e.Left,
		budget: budget, arcsAtStart: e.Stats.ArcOps,
	}
}

// over reports whether a residual val at out-weight wu is pushed: over
// its sign's threshold times wu (the threshold itself where wu = 0,
// unless dangling nodes are kept), and never on a side whose threshold is
// +Inf: there t is +Inf where wu > 0 and NaN where wu = 0 (Inf*0), and no
// value compares greater than either. Small enough to be inlined: every
// visit asks.
func (p *roundPusher[W]) over(val, wu float64) bool {
	eps := p.above
	if val < 0 {
		eps = p.below
	}
	t := eps * wu
	if t == 0 {
		if p.keepDangling {
			return false
		}
		t = eps
	}
	return math.Abs(val) > t
}

// pushAhead is how many places ahead in a block pushBlock asks for a
// push's offsets and value (half as many for its row, whose place the
// offsets give): about the pushes that fit in one memory latency.
const pushAhead = 6

// pushBlock pushes the listed nodes, in order, each with its residual at
// that moment if it is still over its threshold (a push earlier in the
// block may have moved it; that push marked it for the next round). It
// returns false when the budget ran out.
func (p *roundPusher[W]) pushBlock(todo []uint32) bool {
	offsets := p.out.Offsets
	for i, u := range todo {
		if j := i + pushAhead; j < len(todo) {
			if v := todo[j]; int(v) < len(offsets) {
				prefetch.Pair(unsafe.Pointer(&offsets[v]), unsafe.Pointer(&p.x[v]))
			}
		}
		if j := i + pushAhead/2; j < len(todo) {
			// A patched view's new nodes have no row in the base.
			if v := todo[j]; int(v)+1 < len(offsets) && offsets[v] < offsets[v+1] {
				lo := offsets[v]
				prefetch.Pair(unsafe.Pointer(&p.out.Nbr[lo]), unsafe.Pointer(&p.wts[lo]))
			}
		}
		val, wu := p.r[u], p.w.At(u)
		if !p.over(val, wu) {
			continue
		}
		p.push(u, val, wu)
		if p.budget > 0 && p.e.Stats.ArcOps-p.arcsAtStart >= p.budget {
			return false
		}
	}
	return true
}

// outOfBudget ends a call stopped by its budget: the round's bookkeeping,
// and every mark cleared (cur's summary no longer lists the words the
// round had not reached: clear it whole, as rarely as this).
func (p *roundPusher[W]) outOfBudget(cur roundMarks) bool {
	if p.left != nil {
		p.left.complete = false
	}
	p.e.endRound(p.dangling, p.next)
	p.e.rounds.todo = p.e.rounds.todo[:0]
	clear(cur.bits)
	clear(cur.sum)
	p.next.clear()
	return false
}

// push moves u's residual val into x and sends its damped share along
// u's live out-arcs (wu = W(u)), marking every node it changes for the
// next round; a dangling node's share goes to the seeds at the round's end.
func (p *roundPusher[W]) push(u uint32, val, wu float64) {
	e, r, next := p.e, p.r, p.next
	r[u] = 0
	p.x[u] += val
	if p.left != nil && p.left.watching(u) {
		p.left.record(u, p.x[u], 0, wu)
	}
	e.Stats.Pushes++
	p.active = true
	if e.Support != nil {
		e.Support.Add(u)
	}
	if wu == 0 {
		p.dangling += val
		return
	}
	c := p.d * val / wu
	// A touched node's row has masked arcs or is replaced (a patched view).
	special := p.tb != nil && p.tb[u/64]&(1<<(u%64)) != 0
	if special {
		if pn, pw, _, replaced := e.view.ReplacedRow(u); replaced {
			e.Stats.ArcOps += int64(len(pn))
			pw = pw[:len(pn)]
			for q, v := range pn {
				r[v] += c * pw[q]
				next.mark(v)
			}
			return
		}
	}
	lo, hi := p.out.Offsets[u], p.out.Offsets[u+1]
	nbr, wt, eid := p.out.Nbr[lo:hi], p.wts[lo:hi], p.out.Edge[lo:hi]
	wt, eid = wt[:len(nbr)], eid[:len(nbr)]
	e.Stats.ArcOps += int64(len(nbr))
	skip, listed := []int(nil), true
	if special {
		skip, listed = e.view.MaskedOutArcs(u)
	}
	if !listed {
		for q, v := range nbr {
			if p.mbits[eid[q]/64]&(1<<(eid[q]%64)) == 0 {
				r[v] += c * float64(wt[q])
				next.mark(v)
			}
		}
		return
	}
	// The row but its masked arcs (ascending): the same terms in the same
	// order, with no test per arc.
	for from, to := range liveRuns(len(nbr), lo, skip) {
		for q := from; q < to; q++ {
			r[nbr[q]] += c * float64(wt[q])
			next.mark(nbr[q])
		}
	}
}

// liveRuns yields the runs [from, to) of a row's positions 0..n-1 between
// its masked arcs, in order: skip lists the masked ones' positions in the
// adjacency, ascending, and lo is the row's first (mask.View.MaskedOutArcs).
func liveRuns(n, lo int, skip []int) iter.Seq2[int, int] {
	return func(yield func(from, to int) bool) {
		p := 0
		for _, a := range skip {
			if !yield(p, a-lo) {
				return
			}
			p = a - lo + 1
		}
		yield(p, n)
	}
}

// clear empties the marks, visiting the marked words alone.
func (f roundMarks) clear() {
	for si, sw := range f.sum {
		for sw != 0 {
			f.bits[si*64+bits.TrailingZeros64(sw)] = 0
			sw &= sw - 1
		}
		f.sum[si] = 0
	}
}

// endRound sends a round's dangling mass to the seeds, marking them, and
// records the round's marks in Support.
func (e *Engine) endRound(dangling float64, next roundMarks) {
	if dangling != 0 {
		r := e.R
		for i, s := range e.seeds.Nodes {
			r[s] += e.damping * dangling * e.seeds.Weights[i]
			next.mark(s)
		}
	}
	if e.Support != nil {
		sup := e.Support.Words()
		for si, sw := range next.sum {
			for sw != 0 {
				wi := si*64 + bits.TrailingZeros64(sw)
				sw &= sw - 1
				sup[wi] |= next.bits[wi]
			}
		}
	}
}
