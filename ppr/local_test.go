package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// localGraph is an undirected graph where a few seeds reach few nodes: a
// ring of n nodes joined to their next few neighbours, a few random chords
// and hubs, weights random or all 1, some edges on an untrusted channel.
func localGraph(t *testing.T, rng *rand.Rand, n int) (*csr.Graph, *mask.Labels) {
	t.Helper()
	b := csr.NewBuilder(false)
	for u := range n {
		_, err := b.AddNode(fmt.Sprint(u))
		require.NoError(t, err)
	}
	unit := rng.IntN(2) == 0
	weight := func() float64 {
		if unit {
			return 1
		}
		return 0.25 + rng.Float64()
	}
	channels := []string{"trusted", "trusted", "trusted", "bot"}
	add := func(u, v int) {
		_, err := b.AddEdgeByID(uint32(u), uint32(v), weight(), channels[rng.IntN(len(channels))])
		require.NoError(t, err)
	}
	reach := 1 + rng.IntN(3)
	for u := range n {
		for j := 1; j <= reach; j++ {
			if rng.IntN(8) != 0 {
				add(u, (u+j)%n)
			}
		}
	}
	for range rng.IntN(n / 20) {
		add(rng.IntN(n), rng.IntN(n))
	}
	for range rng.IntN(4) {
		hub := rng.IntN(n)
		for range 5 + rng.IntN(40) {
			add(hub, rng.IntN(n))
		}
	}
	g, err := b.Build()
	require.NoError(t, err)
	return g, mask.FromGraph(g)
}

// SolveTopK, ordered or not, with local checks (see local.go) give
// the bits of the full passes: the same vector, selection, bounds and
// counts, on full and authenticated views, through reused engines.
func TestLocalChecksMatchFull(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(61, 62))
	var local, withCands, withOutside, capped, fullTops, left, solves int
	for c := range 100 {
		g, labels := localGraph(t, rng, 200+rng.IntN(3000))
		n := g.NumNodes()
		view := mask.Full(g)
		if c%3 == 0 {
			var err error
			view, err = mask.Authenticated(g, labels, mask.Trust("trusted"))
			require.NoError(t, err)
		}
		var fast, full *Engine
		for q := range 4 {
			var raw []Seed
			for range 1 + rng.IntN(3) {
				raw = append(raw, Seed{Node: uint32(rng.IntN(n)), Weight: 0.1 + rng.Float64()})
			}
			seeds, err := NewSeeds(n, raw)
			require.NoError(t, err)
			damping := []float64{0.3, 0.5, 0.85}[rng.IntN(3)]
			if q == 0 {
				fast, err = NewEngine(view, seeds, damping)
				require.NoError(t, err)
				full, err = NewEngine(view, seeds, damping)
				require.NoError(t, err)
			} else {
				require.NoError(t, fast.Restart(seeds, damping))
				require.NoError(t, full.Restart(seeds, damping))
			}
			k := 1 + rng.IntN(12)
			var cands []uint32
			if rng.IntN(3) == 0 {
				cands = randomCandidates(rng, n)
			}
			ordered := rng.IntN(2) == 0
			refine := rng.IntN(4) != 0 // without refinement coordGap collects no blockers
			solve := func(e *Engine, on bool) *TopKResult {
				opt := Options{Tol: 1e-13, Ordered: ordered}.with(tuned(func(t *tuning) { t.localChecks, t.refineUndirected = on, refine }))
				res, err := e.SolveTopK(k, cands, opt)
				require.NoError(t, err)
				return res
			}
			got, want := solve(fast, true), solve(full, false)
			what := fmt.Sprintf("case %d query %d (n %d, k %d, d %v, ordered %v, refined %v, %d candidates)", c, q, n, k, damping, ordered, refine, len(cands))
			require.Zero(t, want.LocalChecks, what)
			bitsOf := func(v []float64) []uint64 {
				out := make([]uint64, len(v))
				for i, f := range v {
					out[i] = math.Float64bits(f)
				}
				return out
			}
			require.Equal(t, bitsOf(want.Scores), bitsOf(got.Scores), what)
			require.Equal(t, bitsOf(full.R), bitsOf(fast.R), what)
			require.Equal(t, want.TopK, got.TopK, what)
			require.Equal(t, want.Certified, got.Certified, what)
			require.Equal(t, want.Ordered, got.Ordered, what)
			require.Equal(t, math.Float64bits(want.ProvedGap), math.Float64bits(got.ProvedGap), what)
			require.Equal(t, bitsOf(want.Leads), bitsOf(got.Leads), what)
			require.Equal(t, bitsOf(want.ScoreErrs), bitsOf(got.ScoreErrs), what)
			require.Equal(t, [4]int{want.Sweeps, want.Scans, want.Refined, int(want.ReverseArcs)},
				[4]int{got.Sweeps, got.Scans, got.Refined, int(got.ReverseArcs)}, what)
			require.Equal(t, full.Stats, fast.Stats, what)
			solves++
			if got.LocalChecks > 0 {
				local++
				if cands != nil {
					withCands++
				}
			}
		}
		withOutside += fast.local.outsideChecks
		capped += fast.local.cappedChecks
		fullTops += fast.local.fullTops
		left += fast.local.left
	}
	t.Logf("%d of %d solves checked locally (%d with candidates); checks with blockers outside S %d, walks capped %d, full top-k passes %d, solves that left local checks %d",
		local, solves, withCands, withOutside, capped, fullTops, left)
	// A solve from the native start state checks first after its first
	// sweep (x = 0 proves nothing), by which about two thirds of these
	// have left local checks: a quarter of them still check locally.
	require.Greater(t, local, solves/4)
	require.Positive(t, withCands)
	require.Positive(t, withOutside)
	require.Positive(t, capped)
	require.Positive(t, fullTops)
	require.Positive(t, left)
}
