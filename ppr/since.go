package ppr

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/authppr/authppr/internal/reuse"
)

// Gaps of derived proofs without a pass over the candidates.
//
// A guard proves the authenticated selection from the native solve's state
// changed on a few nodes (Prove with since and changed). Its gap needs,
// over the unselected candidates, the greatest upper and lower ends and x,
// and for refinement the candidates whose upper end reaches the selection:
// a pass over every candidate, as long as the native solve's own check,
// for a state that differs from it on a few nodes. The solve's last check
// made that pass: restSummary keeps what it learnt, and a proof derived
// from the solve's (or the solve's own) bounds the unselected candidates
// from it, reading only the changed ones, the native blockers and the best
// unselected one (derivedRest).
//
// Bound. Let u be an unselected candidate whose x, r and out-row are not
// changed. On an undirected view its upper end under the check's bounds was
// x(u) + E_G(u), E_G(u) = min(s*up(r(u)) + dC_G*W(u) + D_G, L_G) (W(u) > 0;
// min(D_G, L_G) otherwise), and under the derived proof's it is
// x(u) + E_A(u) with the same x, r and W. A derived proof's statistics only
// grow (Prove), so D_A >= D_G and L_A >= L_G; s is the bound scale for
// both, and up(r(u)) is the same: a native residual without negative
// entries has r(u) >= 0 outside changed, where |r| = r+, and a signed one
// makes the derived one signed, both taking r+. The first terms are p
// and p' = p + (dC_A - dC_G)*W(u) + D_A - D_G <= p + g, with g = D_A - D_G
// plus, when dC grew, (dC_A - dC_G)*Wmax, Wmax the greatest out-weight of
// the check's candidates (the check reads them all, unless local checks
// leave nodes out: then Wmax is +Inf and nothing is derived): when
// E_G(u) < L_G (so p < L_G), E_A(u) <= p' <= E_G(u) + g, and in any case
// E_A(u) = min(p', L_A) <= E_G(u) + max(g, L_A - L_G). The check keeps
// the greatest E_G over the candidates: below L_G, the growth is g
// alone. So every such u has upper end at most the check's greatest plus
// the growth (at most the greatest among the non-blockers plus it when u
// is not a native blocker), and x(u) at most the check's greatest
// unselected x. The rest's greatest lower end and x are bounded below by
// the candidates read, which is all the gap's upper end needs (Gap's proof
// takes any pair for it). RefinedGap reads every candidate when the unread
// ones may reach the selection's refined lower end (those it must
// refine).

// restSummary is what a certified top-k's last check learnt about the
// unselected candidates in its pass over them (undirected views).
type restSummary struct {
	ok    bool
	id    uint64   // a kept summary's, unique (restIDs): whose candidates derivedMarks holds
	sel   []uint32 // the selection, ascending
	cands []uint32 // the solve's candidate list (nil: every node)
	// An unselected candidate of greatest x, and that x.
	high  uint32
	highX float64
	// The greatest upper end x + E over the unselected candidates.
	hi float64
	// The unselected candidates whose upper end reaches the selection's
	// lowest lower end, and the greatest upper end of the others; over
	// when there were more than the blocker set holds (or none collected).
	blockers []uint32
	over     bool
	otherHi  float64
	// The check's bound coefficients (errorBounds), whether an error term
	// E of a candidate reached the L1 cap, and the candidates' greatest
	// out-weight (+Inf when the pass did not read them all).
	rScale, dCoord, dangling, l1 float64
	capped                       bool
	maxW                         float64
}

// note records coordGap's pass: maxRest, maxErr, maxW and the blockers bs
// (nil: not collected) under bounds eb.
func (rs *restSummary) note(eb *errorBounds, maxRest, maxErr, maxW float64, bs *blockerSet) {
	rs.ok = true
	rs.maxW = maxW
	rs.capped = !(maxErr < eb.l1)
	rs.hi = maxRest
	rs.rScale, rs.dCoord, rs.dangling, rs.l1 = eb.rScale, eb.dCoord, eb.dangling, eb.l1
	rs.over = bs == nil || bs.over
	if !rs.over {
		rs.blockers, rs.otherHi = bs.nodes, bs.restHi
	}
}

// keep returns the summary with its own copies, for the solve's proof.
func (rs *restSummary) keep(sel []Scored, cands []uint32) *restSummary {
	k := *rs
	k.id = restIDs.Add(1)
	k.sel = make([]uint32, len(sel))
	for i, s := range sel {
		k.sel[i] = s.Node
	}
	slices.Sort(k.sel)
	k.cands = cands
	k.blockers = slices.Clone(rs.blockers)
	return &k
}

// sinceRest returns the summary the proof may bound sel's rest over cands
// with (its own, or that of the proof it was derived from) and the growth
// of the unchanged candidates' upper ends; nil when it may not: another
// selection or candidate list, a directed view, or dC grew and the
// summary has no bound on the candidates' out-weights.
func (p *Proof) sinceRest(sel, cands []uint32) (*restSummary, float64) {
	src := p.since
	if src == nil {
		src = p
	}
	rs := src.rest
	if rs == nil || p.eb.w == nil || p.eb.rScale != rs.rScale || !sameCandidates(rs.cands, cands) || !sameSelection(rs.sel, sel) {
		return nil, 0
	}
	grow := max(p.eb.dangling-rs.dangling, 0)
	if p.eb.dCoord > rs.dCoord {
		if math.IsInf(rs.maxW, 1) {
			return nil, 0
		}
		grow += (p.eb.dCoord - rs.dCoord) * rs.maxW
	}
	if rs.capped {
		grow = max(grow, p.eb.l1-rs.l1)
	}
	return rs, grow
}

// sameCandidates reports whether two candidate lists are the same slice
// (or both nil: every node).
func sameCandidates(a, b []uint32) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameSelection reports whether sel holds the nodes of sorted, ascending
// and distinct.
func sameSelection(sorted, sel []uint32) bool {
	if len(sorted) != len(sel) {
		return false
	}
	for _, v := range sel {
		if _, ok := slices.BinarySearch(sorted, v); !ok {
			return false
		}
	}
	return true
}

// derivedRest is what derivedRest bounds of the unselected candidates.
type derivedRest struct {
	up   gapRest // upper bounds on the greatest upper end and x
	down gapRest // lower bounds on the greatest lower end and x
	high uint32  // the candidate read of greatest x
	// With a reach: the candidates read whose upper end reaches it,
	// ascending, and upper and lower bounds on the others' greatest upper
	// end and greatest lower end (refineCheck.below); unreadHi bounds the
	// upper ends of the candidates not read (they are among the others).
	near         []uint32
	farLo, farHi float64
	unreadHi     float64
}

// derivedRest bounds the unselected candidates from rs and growth grow
// (sinceRest), reading the changed candidates (those the proof's leftover
// logged from its log, see Leftover), rs's best unselected one
// and, with reach finite, its blockers (the unread ones are then the
// non-blockers, whose upper ends are bounded apart, when the blocker set
// is complete).
func (p *Proof) derivedRest(rs *restSummary, grow float64, cands []uint32, inSel []bool, reach float64) derivedRest {
	var d derivedRest
	d.up.init()
	d.down.init()
	d.farLo, d.farHi = math.Inf(-1), math.Inf(-1)
	withReach := !math.IsInf(reach, 1)
	d.unreadHi = rs.hi + grow
	if withReach && !rs.over {
		d.unreadHi = rs.otherHi + grow
	}
	e := p.e
	marks := e.derivedMarks(rs, cands)
	defer marks.clearRead()
	// First the candidates to read, by bit tests on scratch that stays in
	// cache, then their values in a loop whose branches rarely go the
	// other way, so that the loads of several candidates overlap.
	toRead := marks.list[:0]
	pick := func(u uint32) {
		if marks.candidate(u) && !inSel[u] && !marks.seen(u) {
			toRead = append(toRead, u)
		}
	}
	// A candidate's ends: on undirected views (the only ones with a
	// summary) nTerm is at and refineCheck.below is below, so one pair of
	// ends serves the rest's maxima and the near list.
	bestX := math.Inf(-1)
	add := func(u uint32, x, under, above float64) {
		lo, hi := x-under, x+above
		d.up.addEnds(x, lo, hi)
		if x > bestX {
			bestX, d.high = x, u
		}
		if !withReach {
			return
		}
		if hi >= reach {
			d.near = append(d.near, u)
		} else {
			d.farLo, d.farHi = max(d.farLo, lo), max(d.farHi, hi)
		}
	}
	if p.left.logs(rs) {
		// The log's last entry of a node is its value now (Leftover): read
		// from the end, the first one of each node counts. The log holds
		// candidates only.
		log := p.left.log
		for i := len(log) - 1; i >= 0; i-- {
			lv := &log[i]
			if !inSel[lv.node] && !marks.seen(lv.node) {
				under, above := p.eb.endsOf(lv.r, lv.w)
				add(lv.node, lv.x, under, above)
			}
		}
	}
	pick(rs.high)
	for _, u := range p.changed {
		pick(u)
	}
	if withReach {
		for _, u := range rs.blockers {
			pick(u)
		}
	}
	marks.list = toRead
	for _, u := range toRead {
		under, above := p.eb.ends(u)
		add(u, p.x[u], under, above)
	}
	if withReach {
		d.farHi = max(d.farHi, d.unreadHi)
		slices.Sort(d.near)
	}
	d.down = d.up // the same candidates read: the maxima bound both ways
	d.up.maxHi = max(d.up.maxHi, rs.hi+grow)
	d.up.maxX = max(d.up.maxX, rs.highX)
	return d
}

// derivedMarks are the engine's scratch bitsets for derivedRest: the
// candidates of a summary (when it has a list) and the nodes read. The
// candidates stay marked between calls: the proofs derived from one
// solve's summary share its list (sinceRest takes the very slice), so a
// guard's successive gaps mark its tens of thousands of candidates once.
type derivedMarks struct {
	cand, read []uint64
	list       []uint32 // the candidates to read
	of         uint64   // the id of the summary whose candidates cand holds (0: none)
	all        bool     // every node is a candidate
}

// restIDs numbers the kept summaries (restSummary.keep) from 1.
var restIDs atomic.Uint64

// derivedMarks returns the scratch marks with rs's candidates cands
// marked (nil: every node).
func (e *Engine) derivedMarks(rs *restSummary, cands []uint32) *derivedMarks {
	m := &e.marks
	if words := (len(e.X) + 63) / 64; len(m.read) != words {
		m.cand, m.read = reuse.Slice(m.cand, words), reuse.Slice(m.read, words)
		m.of = 0
	}
	m.all = cands == nil
	if m.all || rs.id != 0 && m.of == rs.id {
		return m
	}
	clear(m.cand) // O(n/64): the last list's contents may have changed since
	for _, u := range cands {
		m.cand[u/64] |= 1 << (u % 64)
	}
	m.of = rs.id
	return m
}

// seen marks u read and reports whether it was already.
func (m *derivedMarks) seen(u uint32) bool {
	bit := uint64(1) << (u % 64)
	was := m.read[u/64]&bit != 0
	m.read[u/64] |= bit
	return was
}

func (m *derivedMarks) candidate(u uint32) bool {
	return m.all || m.cand[u/64]&(1<<(u%64)) != 0
}

// clearRead empties the read marks for the next use.
func (m *derivedMarks) clearRead() { clear(m.read) }
