package attack

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Kind names a family of structural writes.
type Kind int

const (
	// EdgeInsert adds an edge from the target passage to one of the query's
	// entities or a high-score entity of the query (weight 1).
	EdgeInsert Kind = iota
	// Synonym adds a synonym edge (weight 0.9, as similarity-weighted
	// synonym links are) between a high-score entity of the query and an
	// entity the target mentions.
	Synonym
	// Merge merges an entity the target mentions into a high-score entity of
	// the query: each of its edges is deleted and re-added at the other
	// entity. One merge is one write.
	Merge
	// Delete deletes one trusted edge of a selected passage.
	Delete
	// Launder routes an untrusted edge through a trusted merge: the
	// attacker plants an edge at a low-value entity f (to the target, or a
	// synonym edge to an entity the target mentions) and a trusted
	// entity-resolution channel merges f into a high-score entity e, so
	// the rewired copy at e is written by the trusted channel. By
	// min-inheritance the copy still depends on the attacker. One planted
	// edge and its merge are one write.
	Launder
)

// Kinds lists every kind, in order.
var Kinds = []Kind{EdgeInsert, Synonym, Merge, Delete, Launder}

func (k Kind) String() string {
	switch k {
	case EdgeInsert:
		return "edge-insert"
	case Synonym:
		return "synonym"
	case Merge:
		return "merge"
	case Delete:
		return "delete"
	case Launder:
		return "launder"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind accepts the names String returns.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("attack: unknown attack kind %q, want edge-insert, synonym, merge, delete or launder", s)
}

// Arc is an edge to add, by node ids.
type Arc struct {
	Src, Dst uint32
	Weight   float64
}

// Write is one structural write: edges it adds and ids of clean-graph
// edges it deletes, by the attacker, except for a Launder write, whose
// Add and Delete are the trusted merger's (see roles). Writes never add
// nodes.
type Write struct {
	Kind   Kind
	Add    []Arc
	Delete []uint32
	// Plant (Launder only) holds the attacker's edges at the entity the
	// merge rewires; the merge deletes them, so no view keeps them, and
	// their rewired copies close Add, in order.
	Plant []Arc
	// from[i] is the clean edge Add[i] is a rewired copy of (Merge and
	// Launder: the merge's copies of clean edges open Add).
	from []uint32
	// Ids of the added and planted edges in the attacked snapshot, set by
	// attackGraph.
	added, planted []uint32
}

// roles names the channels of an attacked snapshot: the attacker writes
// every write, and a Launder write's planted edges; the merger, a trusted
// entity-resolution channel, writes a Launder write's merge.
type roles struct{ attacker, merger string }

// by returns the channel that writes w's Add and Delete.
func (r roles) by(w *Write) string {
	if w.Kind == Launder {
		return r.merger
	}
	return r.attacker
}

// synonymWeight is the weight of an injected synonym edge: HippoRAG2 weights
// synonym edges by embedding similarity, which is near 1 for a synonym.
const synonymWeight = 0.9

// writer proposes candidate writes for one query on the clean graph.
type writer struct {
	g           *csr.Graph
	q           *Query
	isCandidate []bool
	spare       []uint32 // low-value entities, least linked first (Memory.spare)
	high        []uint32 // the query's entities, then entities by clean PPR score
	limit       int      // candidate writes per kind and target
	maxMerge    int      // largest degree of an entity that may be merged
	trusted     mask.Policy
}

// newWriter ranks the query's entities first, then the entities with the
// highest clean PPR scores.
func newWriter(m *Memory, q *Query, scores []float64, limit, maxMerge int, trusted mask.Policy) *writer {
	w := &writer{g: m.Graph, q: q, isCandidate: m.isCandidate, spare: m.spare, limit: limit, maxMerge: maxMerge, trusted: trusted}
	seen := make(map[uint32]bool)
	for _, e := range q.Entities {
		if !seen[e] {
			seen[e] = true
			w.high = append(w.high, e)
		}
	}
	for _, s := range ppr.TopK(scores, limit+len(q.Entities), m.Entities, nil) {
		if !seen[s.Node] && len(w.high) < limit {
			seen[s.Node] = true
			w.high = append(w.high, s.Node)
		}
	}
	return w
}

func (w *writer) adjacent(u, v uint32) bool {
	out := w.g.Out()
	lo, hi := out.Span(u)
	return slices.Contains(out.Nbr[lo:hi], v)
}

// mentioned returns the entities adjacent to t, lowest out-weight first
// (a low-degree entity passes more of what it receives to t), ties by id.
func (w *writer) mentioned(t uint32) []uint32 {
	out := w.g.Out()
	lo, hi := out.Span(t)
	var ents []uint32
	for _, x := range out.Nbr[lo:hi] {
		if !w.isCandidate[x] && x != t && !slices.Contains(ents, x) {
			ents = append(ents, x)
		}
	}
	slices.SortFunc(ents, func(a, b uint32) int {
		if c := cmp.Compare(w.g.OutWeight(a), w.g.OutWeight(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return ents
}

// propose returns up to limit candidate writes of kind k aimed at target t
// given the clean selection.
func (w *writer) propose(k Kind, t uint32, selected []uint32) []Write {
	var out []Write
	full := func() bool { return len(out) >= w.limit }
	switch k {
	case EdgeInsert:
		for _, e := range w.high {
			if full() {
				break
			}
			if !w.adjacent(e, t) {
				out = append(out, Write{Kind: k, Add: []Arc{{e, t, 1}}})
			}
		}
	case Synonym, Merge:
		ents := w.mentioned(t)
		for _, e := range w.high {
			for _, f := range ents[:min(2, len(ents))] {
				if full() || e == f {
					continue
				}
				if k == Synonym && !w.adjacent(e, f) {
					out = append(out, Write{Kind: k, Add: []Arc{{e, f, synonymWeight}}})
				}
				if k == Merge {
					if wr, ok := w.merge(k, f, e); ok {
						out = append(out, wr)
					}
				}
			}
		}
	case Delete:
		// Trusted edges of the selected passages, weakest passage first.
		adj := w.g.Out()
		var dels []Write
		for i := len(selected) - 1; i >= 0 && len(dels) < w.limit; i-- {
			lo, hi := adj.Span(selected[i])
			for p := lo; p < hi && len(dels) < w.limit; p++ {
				e := adj.Edge[p]
				if !w.trusted.Trusts(w.g.Edge(e).Channel) {
					continue
				}
				if !slices.ContainsFunc(dels, func(d Write) bool { return d.Delete[0] == e }) {
					dels = append(dels, Write{Kind: k, Delete: []uint32{e}})
				}
			}
		}
		return dels
	case Launder:
		return w.launder(t)
	}
	return out
}

// launder returns up to limit Launder writes aimed at t: per high-score
// entity e, the attacker plants an edge from a fresh spare entity f to t
// (weight 1), then a synonym edge from another to the entity t mentions
// with the least out-weight (synonymWeight), and the trusted merger merges
// f into e. Spares are the least linked entities (so the trusted part of
// the merge moves as little as possible) with at most maxMerge arcs and no
// self-loop, not among the query's entities or the high-score ones nor
// adjacent to them, to t, to the synonym's end or to each other: so any
// subset of the writes applies in any order with the same result, and
// each merge rewires exactly what store.MergeInto would.
func (w *writer) launder(t uint32) []Write {
	var out []Write
	ents := w.mentioned(t)
	var picked []uint32
	next := 0
	fits := func(f uint32) bool {
		lo, hi := w.g.Out().Span(f)
		if hi-lo > w.maxMerge || slices.Contains(w.high, f) || w.adjacent(f, t) || w.adjacent(f, f) {
			return false
		}
		if len(ents) > 0 && w.adjacent(f, ents[0]) {
			return false
		}
		near := func(g uint32) bool { return w.adjacent(f, g) }
		return !slices.ContainsFunc(w.high, near) && !slices.ContainsFunc(picked, near)
	}
	pick := func() (uint32, bool) {
		for ; next < len(w.spare); next++ {
			if f := w.spare[next]; fits(f) {
				next++
				picked = append(picked, f)
				return f, true
			}
		}
		return 0, false
	}
	for _, e := range w.high {
		plants := []Arc{{Dst: t, Weight: 1}}
		if len(ents) > 0 {
			plants = append(plants, Arc{Dst: ents[0], Weight: synonymWeight})
		}
		for _, plant := range plants {
			if len(out) >= w.limit {
				return out
			}
			f, ok := pick()
			if !ok {
				return out
			}
			wr, ok := w.merge(Launder, f, e)
			if !ok {
				continue // cannot happen: fits bounds f's arcs
			}
			plant.Src = f
			wr.Plant = []Arc{plant}
			wr.Add = append(wr.Add, Arc{e, plant.Dst, plant.Weight})
			out = append(out, wr)
		}
	}
	return out
}

// merge returns a write of kind k that rewires every clean edge of f to e:
// each edge f-x becomes e-x (same weight; a self-loop of f or an edge f-e
// is only deleted), recording the edge each copy came from. It declines
// entities with more than maxMerge arcs, to keep attacked snapshots small,
// and a Merge of an entity with none (it would change nothing).
func (w *writer) merge(k Kind, f, e uint32) (Write, bool) {
	out := w.g.Out()
	lo, hi := out.Span(f)
	if hi-lo > w.maxMerge || (hi == lo && k == Merge) {
		return Write{}, false
	}
	wr := Write{Kind: k}
	for p := lo; p < hi; p++ {
		id := out.Edge[p]
		if slices.Contains(wr.Delete, id) {
			continue // the second arc of a self-loop
		}
		wr.Delete = append(wr.Delete, id)
		if x := out.Nbr[p]; x != f && x != e {
			wr.Add = append(wr.Add, Arc{e, x, out.Weight.At(p)})
			wr.from = append(wr.from, id)
		}
	}
	return wr, true
}

// attackGraph returns g with the edges of writes appended, in order: per
// write its planted edges (the attacker's) then its added ones (by
// r.by(w)), recording their ids; the clean edges keep their ids and
// channels. base holds every appended edge: the view masking base is the
// clean graph.
func attackGraph(g *csr.Graph, writes []*Write, r roles) (*csr.Graph, *roaring.Bitmap, error) {
	b := csr.NewBuilder(g.Directed())
	for _, name := range g.Names() {
		if _, err := b.AddNode(name); err != nil {
			return nil, nil, err
		}
	}
	for e := range g.NumEdges() {
		ed := g.Edge(uint32(e))
		if _, err := b.AddEdgeByID(ed.Src, ed.Dst, ed.Weight, ed.Channel); err != nil {
			return nil, nil, err
		}
	}
	base := roaring.New()
	appendArcs := func(w *Write, arcs []Arc, channel string, ids []uint32) ([]uint32, error) {
		ids = ids[:0]
		for _, a := range arcs {
			id, err := b.AddEdgeByID(a.Src, a.Dst, a.Weight, channel)
			if err != nil {
				return nil, fmt.Errorf("attack: %s write: %w", w.Kind, err)
			}
			ids = append(ids, id)
			base.Add(id)
		}
		return ids, nil
	}
	for _, w := range writes {
		var err error
		if w.planted, err = appendArcs(w, w.Plant, r.attacker, w.planted); err != nil {
			return nil, nil, err
		}
		if w.added, err = appendArcs(w, w.Add, r.by(w), w.added); err != nil {
			return nil, nil, err
		}
	}
	ag, err := b.Build()
	if err != nil {
		return nil, nil, err
	}
	return ag, base, nil
}

// stateView returns the view of the attacked snapshot with the given writes
// applied: every appended edge masked except those the writes add, and the
// edges they delete masked too.
func stateView(ag *csr.Graph, base *roaring.Bitmap, writes []*Write) (*mask.View, error) {
	masked := base.Clone()
	for _, w := range writes {
		for _, id := range w.added {
			masked.Remove(id)
		}
		masked.AddMany(w.Delete)
	}
	return mask.FromMasked(ag, "attacked", masked)
}

// labelsFor labels the attacked snapshot for the guard as the store would
// (store.Writer, store.MergeInto): every clean edge added by its own
// channel; each write's edges added and its deletions recorded by r.by(w);
// a Launder write's planted edges added by the attacker and deleted by the
// merge; and, by min-inheritance, every rewired copy requiring what its
// original depended on (the clean edge's channel, or the attacker for a
// copy of a planted edge). Every other appended edge is added by nobody,
// so it exists in neither view.
func labelsFor(ag *csr.Graph, clean int, writes []*Write, r roles) (*mask.Labels, error) {
	l := mask.NewLabels(ag.NumEdges())
	perChannel := map[string][]uint32{}
	for e := range clean {
		ch := ag.Edge(uint32(e)).Channel
		perChannel[ch] = append(perChannel[ch], uint32(e))
	}
	for ch, ids := range perChannel {
		if err := l.Add(ch, ids...); err != nil {
			return nil, err
		}
	}
	for _, w := range writes {
		by := r.by(w)
		if err := errors.Join(l.Add(by, w.added...), l.Delete(by, w.Delete...),
			l.Add(r.attacker, w.planted...), l.Delete(by, w.planted...)); err != nil {
			return nil, err
		}
		for i, o := range w.from {
			if ch := ag.Edge(o).Channel; ch != by { // the store leaves the writer out
				if err := l.Require(ch, w.added[i]); err != nil {
					return nil, err
				}
			}
		}
		if err := l.Require(r.attacker, w.added[len(w.added)-len(w.planted):]...); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// dropRequires returns l without its Require labels: what a store without
// min-inheritance would label (the counterfactual the lab measures).
func dropRequires(l *mask.Labels) (*mask.Labels, error) {
	out := mask.NewLabels(l.NumEdges())
	for _, ch := range l.Channels() {
		if bm := l.Added(ch); bm != nil {
			if err := out.Add(ch, bm.ToArray()...); err != nil {
				return nil, err
			}
		}
		if bm := l.Deleted(ch); bm != nil {
			if err := out.Delete(ch, bm.ToArray()...); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
