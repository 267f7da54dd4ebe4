package attack

import (
	"cmp"
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
)

// Kinds lists every kind, in order.
var Kinds = []Kind{EdgeInsert, Synonym, Merge, Delete}

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
	return 0, fmt.Errorf("attack: unknown attack kind %q, want edge-insert, synonym, merge or delete", s)
}

// Arc is an edge to add, by node ids.
type Arc struct {
	Src, Dst uint32
	Weight   float64
}

// Write is one structural write of the attacker: edges it adds and ids of
// clean-graph edges it deletes. Writes never add nodes.
type Write struct {
	Kind   Kind
	Add    []Arc
	Delete []uint32
	// Ids of the added edges in the attacked snapshot, set by attackGraph.
	added []uint32
}

// synonymWeight is the weight of an injected synonym edge: HippoRAG2 weights
// synonym edges by embedding similarity, which is near 1 for a synonym.
const synonymWeight = 0.9

// writer proposes candidate writes for one query on the clean graph.
type writer struct {
	g           *csr.Graph
	q           *Query
	isCandidate []bool
	high        []uint32 // the query's entities, then entities by clean PPR score
	limit       int      // candidate writes per kind and target
	maxMerge    int      // largest degree of an entity that may be merged
	trusted     mask.Policy
}

// newWriter ranks the query's entities first, then the entities with the
// highest clean PPR scores.
func newWriter(g *csr.Graph, q *Query, isCandidate []bool, entities []uint32, scores []float64, limit, maxMerge int, trusted mask.Policy) *writer {
	w := &writer{g: g, q: q, isCandidate: isCandidate, limit: limit, maxMerge: maxMerge, trusted: trusted}
	seen := make(map[uint32]bool)
	for _, e := range q.Entities {
		if !seen[e] {
			seen[e] = true
			w.high = append(w.high, e)
		}
	}
	for _, s := range ppr.TopK(scores, limit+len(q.Entities), entities, nil) {
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
					if wr, ok := w.merge(f, e); ok {
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
	}
	return out
}

// merge rewires every edge of f to e: each edge f-x becomes e-x (same
// weight; a self-loop of f or an edge f-e is only deleted). It declines
// entities with more than maxMerge arcs, to keep attacked snapshots small.
func (w *writer) merge(f, e uint32) (Write, bool) {
	out := w.g.Out()
	lo, hi := out.Span(f)
	if hi-lo > w.maxMerge || hi == lo {
		return Write{}, false
	}
	wr := Write{Kind: Merge}
	for p := lo; p < hi; p++ {
		id := out.Edge[p]
		if slices.Contains(wr.Delete, id) {
			continue // the second arc of a self-loop
		}
		wr.Delete = append(wr.Delete, id)
		if x := out.Nbr[p]; x != f && x != e {
			wr.Add = append(wr.Add, Arc{e, x, out.Weight.At(p)})
		}
	}
	return wr, true
}

// attackGraph returns g with every add of writes appended as an edge of
// channel, in order, and records each write's added edge ids; the clean
// edges keep their ids and channels. base holds every appended edge: the
// view masking base is the clean graph.
func attackGraph(g *csr.Graph, writes []*Write, channel string) (*csr.Graph, *roaring.Bitmap, error) {
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
	for _, w := range writes {
		w.added = w.added[:0]
		for _, a := range w.Add {
			id, err := b.AddEdgeByID(a.Src, a.Dst, a.Weight, channel)
			if err != nil {
				return nil, nil, fmt.Errorf("attack: %s write: %w", w.Kind, err)
			}
			w.added = append(w.added, id)
			base.Add(id)
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

// labelsFor labels the attacked snapshot for the guard: every clean edge
// added by its own channel, the writes' edges added (and their deletions
// recorded) by channel, every other appended edge by nobody, so it exists
// in neither view.
func labelsFor(ag *csr.Graph, clean int, writes []*Write, channel string) (*mask.Labels, error) {
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
		if err := l.Add(channel, w.added...); err != nil {
			return nil, err
		}
		if err := l.Delete(channel, w.Delete...); err != nil {
			return nil, err
		}
	}
	return l, nil
}
