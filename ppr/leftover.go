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
//
// Watching a certified top-k's candidates (WatchCandidates), it also logs
// the values a watched node holds after each visit or push (x, r and its
// out-weight): the last entry of each node is its value now, by the same
// argument, so a gap derived from the proof reads the log in order instead
// of the nodes (since.go).
type Leftover struct {
	tally    residualTally
	complete bool
	watch    *derivedMarks // nil: no log
	watchOf  uint64        // the summary whose candidates watch marks
	log      []leftValue
}

// leftValue is one logged value of a watched node.
type leftValue struct {
	node uint32
	x, r float64
	w    float64 // out-weight
}

// Reset empties the leftover: the next rounds start a new account (and a
// new log, watching what it watched).
func (l *Leftover) Reset() {
	l.tally, l.complete, l.log = residualTally{}, true, l.log[:0]
}

// WatchCandidates makes the leftover log the candidates of since's
// certified top-k (cands, the list it was solved for; nil: every node) in
// e's rounds, on e's scratch marks, which e's derived gaps of proofs from
// since share (derivedMarks). Without a summary in since (not a certified
// top-k's proof, or a directed view) it watches nothing.
func (l *Leftover) WatchCandidates(e *Engine, since *Proof, cands []uint32) {
	l.watch, l.watchOf = nil, 0
	if since == nil || since.rest == nil || since.rest.id == 0 {
		return
	}
	l.watch = e.derivedMarks(since.rest, cands)
	l.watchOf = since.rest.id
}

// watching reports whether the log takes u's values (tested before
// reading x(u), which a visit does not read otherwise).
func (l *Leftover) watching(u uint32) bool {
	return l.watch != nil && l.watch.candidate(u)
}

// record logs a watched node's values.
func (l *Leftover) record(u uint32, x, r, w float64) {
	l.log = append(l.log, leftValue{node: u, x: x, r: r, w: w})
}

// logging reports whether the leftover logs candidates (WatchCandidates
// found a summary to watch).
func (l *Leftover) logging() bool { return l.watch != nil }

// Covers reports whether the leftover's log stands for the changed nodes
// in proofs derived from since (ProveLeftover): the rounds since Reset
// ran to the end, logging the candidates of since's certified top-k.
func (l *Leftover) Covers(since *Proof) bool {
	return since != nil && since.rest != nil && l.logs(since.rest)
}

// logs reports whether the leftover's log covers the candidates of rs
// after complete rounds.
func (l *Leftover) logs(rs *restSummary) bool {
	return l != nil && l.complete && l.watch != nil && l.watchOf == rs.id
}

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

// ProveLeftover is Prove (with since, not nil) for a state whose changes
// since since's were all made by push rounds that added to left since its
// Reset (the rounds' starting nodes included), except at the nodes of
// unvisited, which it reads. changed lists every node that may differ, as
// for Prove: the proof keeps it for its gaps (since.go), and reads it all,
// as Prove does, when left is not complete (a round stopped at its
// budget). The statistics bound Prove's (see Leftover), so every bound
// derived from them holds.
//
// When left covers since (Covers), the proof's gaps read the log and the
// nodes of unvisited, and changed may be nil. Otherwise a nil changed
// leaves nothing to derive from: the statistics come from a pass over
// every node when left is not complete, and the gaps read every
// candidate.
func (e *Engine) ProveLeftover(passes int, since *Proof, left *Leftover, changed, unvisited []uint32) *Proof {
	logs := left.Covers(since)
	switch {
	case !left.complete && changed == nil:
		return e.Prove(passes, nil, nil)
	case !left.complete:
		return e.Prove(passes, since, changed)
	}
	t := left.tally
	w := e.view.NodeOutWeights()
	for _, u := range unvisited {
		t.note(e.R[u], w.At(u))
	}
	if logs {
		p := e.proveSince(passes, since, unvisited, t)
		p.left = left
		return p
	}
	p := e.proveSince(passes, since, changed, t)
	if changed == nil {
		p.since = nil // no summary to derive from: the gaps read every candidate
	}
	return p
}
