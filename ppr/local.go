package ppr

import (
	"github.com/authppr/authppr/internal/nodeset"
	"math"
	"math/bits"
	"slices"
)

// Local checks. A query with a few seeds on a big undirected view reaches
// few nodes before its top-k is proved, yet every check of SolveTopK would
// read every node: the threshold scan, the residual's statistics, the
// top-k and coordGap's pass, which were nearly all of a certified query
// (docs/benchmarks.md, "ppr: small passes"). So SolveTopK keeps, on undirected
// views, the set S of nodes whose x or r may be non-zero (one pass over x
// and r at entry; the scans add every node they change) and, while S stays
// below a localShare of the nodes, runs each of those passes over S alone
// (the top-k and coordGap's pass only without a candidate list: with one
// they read the candidates), with the same result to the bit:
//
//   - scan: the nodes outside S have r = 0, which the full scan skips
//     (pushScanOver);
//   - ||r||_1, max |r|/W and min r: a zero adds nothing (residualStats);
//   - top-k: the best k+1 members of S are the best k+1 nodes when the last
//     of them has x > 0, since every other node has x = 0 (else the full
//     TopK runs);
//   - coordGap: a node u outside S has x(u) = r(u) = 0, so its upper end
//     is E(u) = min(d*C*W(u) + L, l1) (L alone where W(u) = 0; see
//     errorBounds), which never decreases as W(u) grows. Walking the nodes
//     by descending W (mask.View.NodesByOutWeight, sorted once per view),
//     the unselected nodes outside S up to the first whose E is below the
//     selection's lowest end are exactly the blockers outside S, and that
//     first one has the highest upper end of the rest (localVisit).
//     coordGap visits S and those blockers in id order, the order of its
//     full pass, and starts its rest at that upper end. Past maxRefined+1
//     blockers outside S the walk stops: the blocker set is over
//     (refineTopK gives up either way), the highest and the tightest
//     blockers outside S are the first ones walked, and the rest lies below
//     them.
//
// TestLocalChecksMatchFull solves with and without them
// (tuning.localChecks), to the same bits.

// localShare: the checks stay local while |S| <= n/localShare. Not tuned:
// a local pass costs a few nanoseconds per member (the list, scattered
// reads), a full one about one per node (streams), so local passes stop
// paying well before S is the whole view; sparse queries stay far below an
// eighth, dense ones (a reset over every passage) start above it.
const localShare = 8

// localState is SolveTopK's set S and scratch, kept by the engine.
type localState struct {
	on      bool
	members *nodeset.Set // S
	list    []uint32     // S in increasing id order, as of the last scan
	outside []uint32     // blockers outside S (scratch)
	visit   []uint32     // S and the blockers outside it, in id order (scratch)
	// The branches taken, for the tests: checks that visited blockers
	// outside S, that stopped the walk past maxRefined of them, whose top-k
	// needed the full pass, and solves that left local checks.
	outsideChecks, cappedChecks, fullTops, left int
}

// enterLocal starts local checks when the nodes with x or r non-zero are at
// most a localShare of the view's: one pass over x and r.
func (e *Engine) enterLocal() {
	l := &e.local
	n := len(e.X)
	l.on = false
	if l.members == nil {
		l.members = nodeset.New(n)
	}
	l.members.Resize(n)
	l.members.Reset()
	count := 0
	x, r := e.X, e.R[:n]
	for u, xu := range x {
		if xu != 0 || r[u] != 0 {
			l.members.Add(uint32(u))
			count++
			if count > n/localShare {
				return
			}
		}
	}
	l.on = true
	l.relist(n)
}

// relist rebuilds the list from the bitset after a scan and leaves local
// checks once S outgrows its share.
func (l *localState) relist(n int) {
	l.list = l.members.AppendNodes(l.list[:0])
	if len(l.list) > n/localShare {
		l.on = false
		l.left++
	}
}

// nextMember returns the smallest member of the bitset at or after u, or a
// value >= 64*len(set) when there is none.
func nextMember(set []uint64, u int) int {
	wi := u / 64
	if wi >= len(set) {
		return u
	}
	if word := set[wi] >> (u % 64); word != 0 {
		return u + bits.TrailingZeros64(word)
	}
	for wi++; wi < len(set); wi++ {
		if word := set[wi]; word != 0 {
			return wi*64 + bits.TrailingZeros64(word)
		}
	}
	return len(set) * 64
}

// localTop is TopK over every node, computed over S when that gives
// the same answer (see local.go).
func (e *Engine) localTop(count int, rank []uint32) []Scored {
	top := TopK(e.X, count, e.local.list, rank)
	if len(top) == count && top[count-1].Score > 0 {
		return top
	}
	e.local.fullTops++
	return TopK(e.X, count, nil, rank)
}

// localVisit returns the nodes coordGap must visit for bounds eb and
// selection sel, S and the unselected blockers outside it in id order, and
// the highest upper end among the other unselected nodes (-Inf when none;
// see local.go). A selected node needs no visit: coordGap passes over
// it.
func (e *Engine) localVisit(eb *errorBounds, sel []Scored) (visit []uint32, outsideHi float64) {
	l := &e.local
	minSel := selectionFloor(eb, sel)
	if e.inSel == nil {
		e.inSel = make([]bool, len(e.X))
	}
	for _, s := range sel {
		e.inSel[s.Node] = true
	}
	defer func() {
		for _, s := range sel {
			e.inSel[s.Node] = false
		}
	}()
	l.outside = l.outside[:0]
	outsideHi = math.Inf(-1)
	for u := range e.view.NodesByOutWeight() {
		if l.members.Has(u) || e.inSel[u] {
			continue
		}
		hi := eb.at(u)
		if hi < minSel {
			outsideHi = hi
			break
		}
		if l.outside = append(l.outside, u); len(l.outside) > maxRefined {
			l.cappedChecks++
			break
		}
	}
	if len(l.outside) == 0 {
		return l.list, outsideHi
	}
	l.outsideChecks++
	slices.Sort(l.outside)
	l.visit = l.visit[:0]
	i := 0
	for _, u := range l.list {
		for ; i < len(l.outside) && l.outside[i] < u; i++ {
			l.visit = append(l.visit, l.outside[i])
		}
		l.visit = append(l.visit, u)
	}
	l.visit = append(l.visit, l.outside[i:]...)
	return l.visit, outsideHi
}
