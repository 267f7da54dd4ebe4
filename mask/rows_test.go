package mask_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
)

// liveArcs lists a row's live arcs as (neighbour, weight bits, edge).
func liveArcs(row mask.Row) [][3]uint64 {
	var out [][3]uint64
	for p, v := range row.Nbr {
		if row.Live(p) {
			out = append(out, [3]uint64{uint64(v), math.Float64bits(row.Weight.At(p)), uint64(row.Edge[p])})
		}
	}
	return out
}

func TestWithDeltaMatchesMaterialized(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 400 {
		directed := trial%2 == 0
		c, err := randgraph.NewDeltaCase(r, directed, 30)
		if err != nil {
			t.Fatal(err)
		}
		v, err := mask.WithDelta(c.Base, c.Delta)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if v.NumNodes() != c.Material.NumNodes() {
			t.Fatalf("trial %d: %d nodes, materialised %d", trial, v.NumNodes(), c.Material.NumNodes())
		}
		for u := range uint32(v.NumNodes()) {
			if got, want := v.OutWeight(u), c.Material.OutWeight(u); got != want {
				t.Fatalf("trial %d (directed %v): W(%d) = %v, materialised %v", trial, directed, u, got, want)
			}
			// The inverse derives from the base's: the same 1/W to the bit.
			if got, want := v.InvOutWeights()[u], c.Material.InvOutWeights()[u]; got != want {
				t.Fatalf("trial %d (directed %v): 1/W(%d) = %v, materialised %v", trial, directed, u, got, want)
			}
			if got, want := liveArcs(v.OutRow(u)), liveArcs(c.Material.OutRow(u)); !slices.Equal(got, want) {
				t.Fatalf("trial %d (directed %v): out-row of %d = %v, materialised %v", trial, directed, u, got, want)
			}
			if got, want := liveArcs(v.InRow(u)), liveArcs(c.Material.InRow(u)); !slices.Equal(got, want) {
				t.Fatalf("trial %d (directed %v): in-row of %d = %v, materialised %v", trial, directed, u, got, want)
			}
			touched := v.TouchedBits() != nil && v.TouchedBits()[u/64]&(1<<(u%64)) != 0
			_, _, _, replaced := v.ReplacedRow(u)
			if replaced && !touched {
				t.Fatalf("trial %d: replaced row %d not in TouchedBits", trial, u)
			}
		}
	}
}
