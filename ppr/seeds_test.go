package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/internal/seedweights"
)

// NewSeeds (a dense sum for resets on many nodes, a stable sort for the
// others) gives what its plain reference gives, to the bit: a map of sums
// in input order, normalised in node order. Duplicates, zero weights,
// weights over many magnitudes, sparse and dense resets, seeds in
// ascending order.
func TestNewSeedsMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(81, 82))
	for trial := range 500 {
		n := 1 + rng.IntN(200)
		k := 1 + rng.IntN(2*n)
		seeds := make([]Seed, k)
		for i := range seeds {
			w := math.Ldexp(rng.Float64(), rng.IntN(40)-20)
			if rng.IntN(6) == 0 {
				w = 0
			}
			seeds[i] = Seed{Node: uint32(rng.IntN(n)), Weight: w}
		}
		if trial%3 == 0 {
			// Strictly ascending nodes (a seed set read back, a caller's
			// sorted list): the path that reads them as they are.
			slices.SortFunc(seeds, func(a, b Seed) int { return int(a.Node) - int(b.Node) })
			seeds = slices.CompactFunc(seeds, func(a, b Seed) bool { return a.Node == b.Node })
		}
		got, gotErr := NewSeeds(n, seeds)
		want, wantErr := newSeedsReference(n, seeds)
		require.Equal(t, wantErr, gotErr, "trial %d", trial)
		require.Equal(t, want, got, "trial %d: %d seeds on %d nodes", trial, k, n)
	}
}

// newSeedsReference is NewSeeds with a map of sums (its implementation
// before the dense and sorted paths).
func newSeedsReference(n int, seeds []Seed) (Seeds, error) {
	top := 0.0
	for _, s := range seeds {
		top = max(top, s.Weight)
	}
	scale := seedweights.Scale(top)
	sum := make(map[uint32]float64, len(seeds))
	for _, s := range seeds {
		sum[s.Node] += s.Weight * scale
	}
	var out Seeds
	for u, w := range sum {
		if w > 0 {
			out.Nodes = append(out.Nodes, u)
		}
	}
	slices.Sort(out.Nodes)
	total := 0.0
	for _, u := range out.Nodes {
		total += sum[u]
	}
	if total == 0 {
		return Seeds{}, fmt.Errorf("ppr: seed weights sum to %v, want a positive finite total", total)
	}
	out.Weights = make([]float64, len(out.Nodes))
	kept := 0
	for _, u := range out.Nodes {
		if w := sum[u] / total; w > 0 {
			out.Nodes[kept], out.Weights[kept] = u, w
			kept++
		}
	}
	out.Nodes, out.Weights = out.Nodes[:kept], out.Weights[:kept]
	return out, nil
}

// BenchmarkNewSeedsDense is a dense reset as HippoRAG2 makes one: a fifth
// of 250k nodes seeded, in no particular order.
func BenchmarkNewSeedsDense(b *testing.B) {
	const n = 250_000
	rng := rand.New(rand.NewPCG(83, 84))
	var seeds []Seed
	for u := range n {
		if rng.IntN(5) == 0 {
			seeds = append(seeds, Seed{Node: uint32(u), Weight: 1 + rng.Float64()})
		}
	}
	rng.Shuffle(len(seeds), func(i, j int) { seeds[i], seeds[j] = seeds[j], seeds[i] })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewSeeds(n, seeds); err != nil {
			b.Fatal(err)
		}
	}
}
