package attack

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Query is one retrieval: the question's entities (structural seeds; the
// first is the centre node of the distance rerankers), the candidate
// passages and a content score per candidate, as a dense retriever reading
// the passage text would give it. Attacks write no passage text, so the
// content score is fixed with the query.
type Query struct {
	ID         string
	Entities   []uint32
	Candidates []uint32
	Content    []float64 // aligned with Candidates, each in [0, 1)
	K          int
}

// Centre is the node the distance rerankers measure from.
func (q *Query) Centre() uint32 { return q.Entities[0] }

// Validate checks the query against a graph with n nodes.
func (q *Query) Validate(n int) error {
	if q.K < 1 {
		return fmt.Errorf("attack: query %s: k = %d, want at least 1", q.ID, q.K)
	}
	if len(q.Entities) == 0 {
		return fmt.Errorf("attack: query %s: no entities", q.ID)
	}
	if len(q.Content) != len(q.Candidates) {
		return fmt.Errorf("attack: query %s: %d content scores for %d candidates", q.ID, len(q.Content), len(q.Candidates))
	}
	seen := make(map[uint32]bool, len(q.Candidates))
	for i, c := range q.Candidates {
		if int64(c) >= int64(n) || seen[c] {
			return fmt.Errorf("attack: query %s: candidate %d (node %d) out of range or repeated (graph has %d nodes)", q.ID, i, c, n)
		}
		seen[c] = true
		if s := q.Content[i]; !(s >= 0 && s < 1) {
			return fmt.Errorf("attack: query %s: candidate %d: content score %v, want [0, 1)", q.ID, i, s)
		}
	}
	for i, e := range q.Entities {
		if int64(e) >= int64(n) || seen[e] {
			return fmt.Errorf("attack: query %s: entity %d (node %d) out of range or a candidate", q.ID, i, e)
		}
	}
	return nil
}

// Selector ranks a query's candidates on a view.
type Selector interface {
	Name() string
	// Keys returns one key per candidate, aligned with q.Candidates: higher
	// ranks first, ties by lower node id; -Inf marks a candidate the
	// selector cannot select.
	Keys(v *mask.View, q *Query) ([]float64, error)
}

// Select returns the top-k candidates by keys, best first, ties by lower
// node id; candidates with key -Inf are never selected, so fewer than k may
// come back.
func Select(keys []float64, q *Query) []uint32 {
	out := make([]uint32, 0, q.K)
	for _, i := range Top(keys, q, q.K) {
		if math.IsInf(keys[i], -1) {
			break
		}
		out = append(out, q.Candidates[i])
	}
	return out
}

// Ranking returns every candidate index ordered by key (higher first),
// ties by lower node id: the order Top's first m follow.
func Ranking(keys []float64, q *Query) []int {
	order := indexes(len(q.Candidates))
	slices.SortFunc(order, func(a, b int) int { return rankCmp(keys, q, a, b) })
	return order
}

func rankCmp(keys []float64, q *Query, a, b int) int {
	switch {
	case keys[a] > keys[b]:
		return -1
	case keys[a] < keys[b]:
		return 1
	}
	return cmp.Compare(q.Candidates[a], q.Candidates[b])
}

// Top returns the first m indexes of Ranking(keys, q), in O(len * m): the
// selectors' m is a handful, where a full sort would dominate the lab.
func Top(keys []float64, q *Query, m int) []int {
	m = max(0, min(m, len(keys)))
	top := make([]int, 0, m+1)
	if m == 0 {
		return top
	}
	for i := range keys {
		if len(top) == m && rankCmp(keys, q, i, top[m-1]) >= 0 {
			continue
		}
		j, _ := slices.BinarySearchFunc(top, i, func(a, b int) int { return rankCmp(keys, q, a, b) })
		top = slices.Insert(top, j, i)
		if len(top) > m {
			top = top[:m]
		}
	}
	return top
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// SameSet reports whether two selections hold the same nodes.
func SameSet(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// Jaccard is |a ∩ b| / |a ∪ b|, 1 for two empty selections.
func Jaccard(a, b []uint32) float64 {
	in := make(map[uint32]bool, len(a))
	for _, u := range a {
		in[u] = true
	}
	both := 0
	for _, u := range b {
		if in[u] {
			both++
		}
	}
	union := len(a) + len(b) - both
	if union == 0 {
		return 1
	}
	return float64(both) / float64(union)
}

// PPR is HippoRAG2's selector: personalized PageRank seeded by the query's
// entities (weight 1 each) and every candidate at ContentWeight times its
// content score (the dense passage reset), top-k over the candidates.
type PPR struct {
	Damping       float64 // 0.5 in HippoRAG2
	ContentWeight float64 // 0.05 in HippoRAG2
	Tol           float64 // L1 error bound of the solve
}

// HippoPPR is the PPR selector with HippoRAG2's settings.
var HippoPPR = PPR{Damping: 0.5, ContentWeight: 0.05, Tol: 1e-10}

func (p PPR) Name() string { return "ppr" }

// Seeds returns the personalisation of q (the same one the guard replays).
func (p PPR) Seeds(q *Query) []ppr.Seed {
	seeds := make([]ppr.Seed, 0, len(q.Entities)+len(q.Candidates))
	for _, e := range q.Entities {
		seeds = append(seeds, ppr.Seed{Node: e, Weight: 1})
	}
	for i, c := range q.Candidates {
		seeds = append(seeds, ppr.Seed{Node: c, Weight: p.ContentWeight * q.Content[i]})
	}
	return seeds
}

// Scores solves q on v and returns the whole PPR vector.
func (p PPR) Scores(v *mask.View, q *Query) ([]float64, error) {
	seeds, err := ppr.NewSeeds(v.Graph().NumNodes(), p.Seeds(q))
	if err != nil {
		return nil, fmt.Errorf("attack: query %s: %w", q.ID, err)
	}
	res, err := ppr.Solve(v, seeds, p.Damping, ppr.Options{Tol: p.Tol})
	if err != nil {
		return nil, fmt.Errorf("attack: query %s: %w", q.ID, err)
	}
	return res.Scores, nil
}

// Keys solves until the top-k and its order are proved
// (ppr.Engine.SolveTopK with Options.Ordered; Select lists the selection best first) or
// the tolerance is reached: the selection is exact, the other keys are
// within the solve's error bound, which is all greedy's margin needs.
func (p PPR) Keys(v *mask.View, q *Query) ([]float64, error) {
	seeds, err := ppr.NewSeeds(v.Graph().NumNodes(), p.Seeds(q))
	if err != nil {
		return nil, fmt.Errorf("attack: query %s: %w", q.ID, err)
	}
	e, err := ppr.NewEngine(v, seeds, p.Damping)
	if err != nil {
		return nil, fmt.Errorf("attack: query %s: %w", q.ID, err)
	}
	res, err := e.SolveTopK(q.K, q.Candidates, ppr.Options{Tol: p.Tol, Ordered: true})
	if err != nil {
		return nil, fmt.Errorf("attack: query %s: %w", q.ID, err)
	}
	keys := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		keys[i] = res.Scores[c]
	}
	return keys, nil
}

// FixedPool is a Graphiti-style node-distance reranker: the pool is the
// Pool candidates with the highest content score (ties by lower id), fixed
// before any structure is read; the pool is ranked by hop distance from the
// centre node in the view (closer first; beyond MaxHops counts as MaxHops+1),
// ties by content score, then by lower id.
type FixedPool struct {
	Pool, MaxHops int
}

func (f FixedPool) Name() string { return fmt.Sprintf("fixed-pool-%d", f.Pool) }

func (f FixedPool) Keys(v *mask.View, q *Query) ([]float64, error) {
	inPool := f.InPool(q)
	dist := HopDistances(v, q.Centre(), f.MaxHops)
	keys := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		keys[i] = math.Inf(-1)
		if inPool[i] {
			keys[i] = distanceKey(dist[c], f.MaxHops, q.Content[i])
		}
	}
	return keys, nil
}

// distanceKey orders by hop distance, then content: content < 1, so half of
// it never bridges one hop.
func distanceKey(d int32, maxHops int, content float64) float64 {
	if d < 0 {
		d = int32(maxHops) + 1
	}
	return -float64(d) + content/2
}

// BFSPool draws the pool by BFS from the centre: every candidate within
// Hops hops in the view, ranked like FixedPool's pool (distance, content,
// id). Candidates further away are never selected.
type BFSPool struct {
	Hops int
}

func (b BFSPool) Name() string { return fmt.Sprintf("bfs-pool-%d", b.Hops) }

func (b BFSPool) Keys(v *mask.View, q *Query) ([]float64, error) {
	dist := HopDistances(v, q.Centre(), b.Hops)
	keys := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		keys[i] = math.Inf(-1)
		if dist[c] >= 0 {
			keys[i] = distanceKey(dist[c], b.Hops, q.Content[i])
		}
	}
	return keys, nil
}

// Content ranks by the content score alone: no structure at all.
type Content struct{}

func (Content) Name() string { return "content" }

func (Content) Keys(_ *mask.View, q *Query) ([]float64, error) {
	return slices.Clone(q.Content), nil
}

// HopDistances returns the hop distance from src over the view's surviving
// arcs, -1 for nodes further than maxHops or unreachable.
func HopDistances(v *mask.View, src uint32, maxHops int) []int32 {
	g := v.Graph()
	dist := make([]int32, g.NumNodes())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	out := g.Out()
	frontier := []uint32{src}
	for h := int32(1); h <= int32(maxHops) && len(frontier) > 0; h++ {
		var next []uint32
		for _, u := range frontier {
			lo, hi := out.Span(u)
			for p := lo; p < hi; p++ {
				w := out.Nbr[p]
				if dist[w] < 0 && !v.MaskedEdge(out.Edge[p]) {
					dist[w] = h
					next = append(next, w)
				}
			}
		}
		frontier = next
	}
	return dist
}
