package ppr

import (
	"iter"
	"math"
	"math/bits"

	"github.com/authppr/authppr/internal/reuse"
)

// PushRounds is pushUntil with the frontier kept as a bitset and processed
// in rounds, in id order: a round visits the frontier's nodes by ascending
// id, pushes those over their threshold in place (so a later node in the
// same round already holds what earlier pushes sent it, as in a Gauss-Seidel sweep),
// and marks every node a push changed for the next round; it ends when a
// round finds nothing to push. Marking costs one OR into a bitset that
// stays in cache, and the next round reads the marked nodes in id order, so
// an arc costs about what it costs in a scan, several times less than in
// pushUntil's FIFO, while the work stays proportional to the active nodes.
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

func (f roundMarks) mark(v uint32) {
	f.bits[v/64] |= 1 << (v % 64)
	f.sum[v/4096] |= 1 << (v / 64 % 64)
}

func (e *Engine) pushRounds(above, below float64, frontier []uint32, budget int64) bool {
	if wt := e.view.Graph().Out().Weight.Float32s(); wt != nil {
		return pushRounds(e, wt, above, below, frontier, budget)
	}
	return pushRounds(e, e.view.Graph().Out().Weight.Float64s(), above, below, frontier, budget)
}

// pushRounds is PushRoundsSigned with the out-adjacency's weights wts in
// their storage (csr.Weights), widened as read.
func pushRounds[W weight](e *Engine, wts []W, above, below float64, start []uint32, budget int64) bool {
	g := e.view.Graph()
	n := e.view.NumNodes()
	words := (n + 63) / 64
	sums := (words + 63) / 64
	rs := &e.rounds
	if rs.cur.bits == nil {
		rs.cur = roundMarks{make([]uint64, words), make([]uint64, sums)}
		rs.next = roundMarks{make([]uint64, words), make([]uint64, sums)}
	}
	cur, next := rs.cur, rs.next
	for _, u := range start {
		cur.mark(u)
	}
	x, r := e.X[:n], e.R[:n]
	w := e.view.NodeOutWeights()
	out := g.Out()
	mbits, tb := e.view.MaskedBits(), e.view.TouchedBits()
	d := e.damping
	arcsAtStart := e.Stats.ArcOps
	left := e.Left
	for {
		active := false
		dangling := 0.0
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
				for word != 0 {
					u := uint32(wi*64 + bits.TrailingZeros64(word))
					word &= word - 1
					val, wu := r[u], w.At(u)
					eps := above
					if val < 0 {
						eps = below
					}
					// Not pushed: this side's threshold is +Inf, a dangling
					// node kept, or at most the threshold.
					t := eps * wu
					kept := math.IsInf(eps, 1)
					if t == 0 && !kept {
						kept = e.keepDangling
						t = eps
					}
					if kept || math.Abs(val) <= t {
						if left != nil {
							left.tally.note(val, wu)
							if left.watching(u) {
								left.record(u, x[u], val, wu)
							}
						}
						continue
					}
					r[u] = 0
					x[u] += val
					if left != nil && left.watching(u) {
						left.record(u, x[u], 0, wu)
					}
					e.Stats.Pushes++
					active = true
					if e.Support != nil {
						e.Support.Add(u)
					}
					if wu == 0 {
						dangling += val
						continue
					}
					c := d * val / wu
					// A touched node's row has masked arcs or is replaced (a
					// patched view).
					special := tb != nil && tb[u/64]&(1<<(u%64)) != 0
					replaced := false
					if special {
						var pn []uint32
						var pw []float64
						if pn, pw, _, replaced = e.view.ReplacedRow(u); replaced {
							e.Stats.ArcOps += int64(len(pn))
							pw = pw[:len(pn)]
							for p, v := range pn {
								r[v] += c * pw[p]
								next.mark(v)
							}
						}
					}
					if !replaced {
						lo, hi := out.Offsets[u], out.Offsets[u+1]
						nbr, wt, eid := out.Nbr[lo:hi], wts[lo:hi], out.Edge[lo:hi]
						wt, eid = wt[:len(nbr)], eid[:len(nbr)]
						e.Stats.ArcOps += int64(len(nbr))
						skip, listed := []int(nil), true
						if special {
							skip, listed = e.view.MaskedOutArcs(u)
						}
						if listed {
							// The row but its masked arcs (ascending): the
							// same terms in the same order, with no test per arc.
							for from, to := range liveRuns(len(nbr), lo, skip) {
								for p := from; p < to; p++ {
									r[nbr[p]] += c * float64(wt[p])
									next.mark(nbr[p])
								}
							}
						} else {
							for p, v := range nbr {
								if mbits[eid[p]/64]&(1<<(eid[p]%64)) == 0 {
									r[v] += c * float64(wt[p])
									next.mark(v)
								}
							}
						}
					}
					if budget > 0 && e.Stats.ArcOps-arcsAtStart >= budget {
						if left != nil {
							left.complete = false
						}
						// Out of budget: finish the round's bookkeeping and stop.
						// (cur's summary no longer lists the words left
						// in this one: clear it whole, as rarely as this.)
						e.endRound(dangling, next)
						clear(cur.bits)
						clear(cur.sum)
						next.clear()
						return false
					}
				}
			}
		}
		e.endRound(dangling, next)
		if !active {
			next.clear()
			return true
		}
		cur, next = next, cur
		rs.cur, rs.next = cur, next
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
