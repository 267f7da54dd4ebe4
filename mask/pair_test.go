package mask_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
)

// pairArcsReference is PairArcs written plainly: each row's live arcs
// counted in a map by edge (an undirected self-loop is two arcs of its
// node's row), the union sorted by edge id, an edge as many times as the
// row that has more of it.
func pairArcsReference(a, b mask.Row) []mask.Paired {
	type arcs struct {
		p      mask.Paired
		na, nb int
	}
	byEdge := map[uint32]*arcs{}
	for side, row := range []mask.Row{a, b} {
		for p := range row.Len() {
			if !row.Live(p) {
				continue
			}
			e := row.Edge[p]
			q := byEdge[e]
			if q == nil {
				q = &arcs{p: mask.Paired{Nbr: row.Nbr[p], Weight: row.Weight.At(p), Edge: e}}
				byEdge[e] = q
			}
			if side == 0 {
				q.na++
			} else {
				q.nb++
			}
		}
	}
	var out []mask.Paired
	for _, q := range byEdge {
		for i := range max(q.na, q.nb) {
			p := q.p
			p.InA, p.InB = i < q.na, i < q.nb
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(x, y mask.Paired) int {
		if x.Edge != y.Edge {
			return int(x.Edge) - int(y.Edge)
		}
		return boolInt(y.InA && y.InB) - boolInt(x.InA && x.InB) // both first
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PairArcs pairs a node's rows in two views as the reference does: a
// masked view and the same view patched by a delta (a version and a later
// one), and two views of one graph under different masks.
func TestPairArcsMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(61, 62))
	for trial := range 200 {
		c, err := randgraph.NewDeltaCase(rng, trial%2 == 1, 60)
		if err != nil {
			t.Fatal(err)
		}
		patched, err := mask.WithDelta(c.Base, c.Delta)
		if err != nil {
			t.Fatal(err)
		}
		g := c.Material.Graph()
		masks := [2]*roaring.Bitmap{roaring.New(), roaring.New()}
		for e := range g.NumEdges() {
			for _, m := range masks {
				if rng.IntN(3) == 0 {
					m.Add(uint32(e))
				}
			}
		}
		va, err := mask.FromMasked(g, "a", masks[0])
		if err != nil {
			t.Fatal(err)
		}
		vb, err := mask.FromMasked(g, "b", masks[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]*mask.View{{c.Base, patched}, {patched, c.Base}, {va, vb}, {patched, c.Material}} {
			for u := range min(pair[0].NumNodes(), pair[1].NumNodes()) {
				a, b := pair[0].OutRow(uint32(u)), pair[1].OutRow(uint32(u))
				got := slices.Collect(mask.PairArcs(a, b))
				if want := pairArcsReference(a, b); !slices.Equal(got, want) {
					t.Fatalf("trial %d node %d: PairArcs %v, want %v", trial, u, got, want)
				}
			}
		}
	}
}
