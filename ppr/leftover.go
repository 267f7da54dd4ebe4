package ppr

import "math"

// Leftover bounds the residual that push rounds leave on the nodes they
// change, so that a proof of the state after them need not read those
// nodes again (ProveLeftover).
//
// Set as an engine's Left, PushRounds and PushRoundsSigned add to it the
// residual of every node they visit and leave unpushed. Every node whose
// residual a round changes (a push zeroes its own and adds to its
// neighbours', the dangling share adds to the seeds') is marked and
// visited in the next round, and rounds end with a round that pushes
// nothing. So once rounds have run to the end (not stopped by the budget),
// every node they changed or started from has its final residual among
// the values added: a pushed node that is never visited again holds 0,
// which adds nothing, and a node visited more than once added every value
// it held, which only loosens the sums. The largest ratios are maxima of a
// superset of the final values, the sums (||r||_1 and the dangling ones)
// exceed the final ones by the earlier values: every statistic Prove
// derives from changed nodes is bounded.
type Leftover struct {
	tally    residualTally
	complete bool
}

// Reset empties the leftover: the next rounds start a new account.
func (l *Leftover) Reset() { *l = Leftover{complete: true} }

// Complete reports whether every round since Reset ran to the end.
func (l *Leftover) Complete() bool { return l.complete }

// residualTally is Prove's account of a set of nodes' residuals (see
// Prove): ||r||_1 over them, the largest ratio |r(u)|/W(u) and the
// negative part's over those with out-weight, the sums of |r| and of r-
// over the others, and whether any is negative.
type residualTally struct {
	l1, maxRatio, maxNeg  float64
	dangling, danglingNeg float64
	signed                bool
}

// note adds one node's residual rv and out-weight w.
func (t *residualTally) note(rv, w float64) {
	a := math.Abs(rv)
	t.l1 += a
	if rv < 0 {
		t.signed = true
	}
	if w > 0 {
		t.maxRatio = max(t.maxRatio, a/w)
		if rv < 0 {
			t.maxNeg = max(t.maxNeg, a/w)
		}
	} else {
		t.dangling += a
		t.danglingNeg += max(-rv, 0)
	}
}

// ProveLeftover is Prove (with since) for a state whose changes since
// since's were all made by push rounds that added to left since its Reset
// (the rounds' starting nodes included), except at the nodes of unvisited,
// which it reads: changed still lists every node that may differ (the
// proof keeps it for its gaps, see Prove), and when left is not complete
// (a round stopped at its budget) it reads them all, as Prove does. The
// statistics bound Prove's (see Leftover), so every bound derived from
// them holds.
func (e *Engine) ProveLeftover(passes int, since *Proof, left *Leftover, changed, unvisited []uint32) *Proof {
	if !left.complete {
		return e.Prove(passes, since, changed)
	}
	t := left.tally
	w := e.view.NodeOutWeights()
	for _, u := range unvisited {
		t.note(e.R[u], w.At(u))
	}
	return e.proveSince(passes, since, changed, t)
}
