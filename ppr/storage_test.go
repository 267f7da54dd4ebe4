package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
	"github.com/stretchr/testify/require"
)

// storageCase is one graph stored both ways (csr.Weights): g32 with float32
// weights (every weight is exactly a float32), g64 the same graph with
// float64 weights, and the same views on each.
type storageCase struct {
	g32, g64     *csr.Graph
	v32, v64     []*mask.View // full, authenticated (a few masked arcs), many masked
	seeds        Seeds
	damping      float64
	batchSeeds   []Seeds
	undirected   bool
	nodes, edges int
}

// newStorageCase builds a random graph (directed or not, some dangling
// nodes, parallel edges and self-loops, weights float32 values from 2^-20
// to about 8 and zeros) and its views.
func newStorageCase(t *testing.T, rng *rand.Rand, n, m int) storageCase {
	t.Helper()
	directed := rng.IntN(2) == 0
	b := csr.NewBuilder(directed)
	for u := range n {
		_, err := b.AddNode(fmt.Sprint(u))
		require.NoError(t, err)
	}
	channels := []string{"trusted", "peer"}
	dangling := n / 5 // sources avoid the last fifth: dangling when directed
	for range m {
		w := float64(float32(rng.Float64() * 8))
		switch rng.IntN(8) {
		case 0:
			w = 0
		case 1:
			w = math.Ldexp(float64(1+rng.IntN(1<<23)), -43) // a float32 mantissa, tiny
		}
		src := uint32(rng.IntN(n - dangling))
		dst := uint32(rng.IntN(n))
		if rng.IntN(20) == 0 {
			dst = src
		}
		_, err := b.AddEdgeByID(src, dst, w, channels[rng.IntN(8)/7])
		require.NoError(t, err)
	}
	g32, err := b.Build()
	require.NoError(t, err)
	hooks := csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()
	require.True(t, hooks.Float32(g32))
	g64 := hooks.WithWeightStorage(g32, true)
	require.False(t, hooks.Float32(g64))
	labels := mask.FromGraph(g32)
	many := roaring.New()
	for e := range uint32(g32.NumEdges()) {
		if e%3 == 0 {
			many.Add(e)
		}
	}
	views := func(g *csr.Graph) []*mask.View {
		auth, err := mask.Authenticated(g, labels, mask.Trust("trusted"))
		require.NoError(t, err)
		manyView, err := mask.FromMasked(g, "many", many)
		require.NoError(t, err)
		return []*mask.View{mask.Full(g), auth, manyView}
	}
	var raw []Seed
	for range 1 + rng.IntN(3) {
		raw = append(raw, Seed{Node: uint32(rng.IntN(n)), Weight: 0.1 + rng.Float64()})
	}
	seeds, err := NewSeeds(n, raw)
	require.NoError(t, err)
	var batch []Seeds
	for range 20 { // one wide batch (16) and a narrow one at AVX512, else 8, 8, 4
		s, err := NewSeeds(n, []Seed{{Node: uint32(rng.IntN(n)), Weight: 1}, {Node: uint32(rng.IntN(n)), Weight: 0.5}})
		require.NoError(t, err)
		batch = append(batch, s)
	}
	return storageCase{g32: g32, g64: g64, v32: views(g32), v64: views(g64), seeds: seeds,
		damping: []float64{0.5, 0.85}[rng.IntN(2)], batchSeeds: batch, undirected: !directed, nodes: n, edges: m}
}

// sameBits fails unless a and b are the same float64s bit for bit.
func sameBits(t *testing.T, a, b []float64, what string) {
	t.Helper()
	require.Equal(t, len(a), len(b), what)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s: entry %d: %v (float32 storage) != %v (float64 storage)", what, i, a[i], b[i])
		}
	}
}

// TestFloat32StorageSameBits: a graph whose weights are stored as float32
// solves to the same bits as the same graph stored as float64, at every
// CPU level this host supports, on unmasked views, views masking a few arcs
// and views masking too many to list: Jacobi sweeps (one and two
// goroutines), Gauss-Seidel sweeps and PushScan at thresholds, the FIFO
// push (pushUntil), PushRounds, SolvePair, the batched sweeps (both
// orders, narrow and wide layouts), SolveTopK and reverse pushes. Widening
// a float32 is exact and every kernel computes in float64 in the same
// order, so nothing may differ.
func TestFloat32StorageSameBits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(32, 64))
	cases := 12
	if testing.Short() {
		cases = 4
	}
	for i := range cases {
		c := newStorageCase(t, rng, 20+rng.IntN(300), 50+rng.IntN(3000))
		for _, l := range cpu.Supported() {
			for vi := range c.v32 {
				where := fmt.Sprintf("case %d (n %d, m %d, undirected %v) level %v view %d", i, c.nodes, c.edges, c.undirected, l, vi)
				checkStorageSameBits(t, c, c.v32[vi], c.v64[vi], atLevel(l), where)
			}
		}
	}
}

func checkStorageSameBits(t *testing.T, c storageCase, v32, v64 *mask.View, tn *tuning, where string) {
	t.Helper()
	type run func(v *mask.View) [][]float64
	engine := func(v *mask.View) *Engine {
		e, err := tunedEngine(v, c.seeds, c.damping, tn)
		require.NoError(t, err)
		return e
	}
	runs := map[string]run{
		"Sweep": func(v *mask.View) [][]float64 {
			e := engine(v)
			l1 := make([]float64, 0, 6)
			for range 6 {
				l1 = append(l1, e.jacobiSweep())
			}
			return [][]float64{e.X, e.R, l1}
		},
		"parallelSweep": func(v *mask.View) [][]float64 {
			e := engine(v)
			l1 := make([]float64, 0, 6)
			for range 6 {
				l1 = append(l1, e.parallelSweep(2))
			}
			return [][]float64{e.X, e.R, l1}
		},
		"pushSweep+PushScan": func(v *mask.View) [][]float64 {
			e := engine(v)
			var l1 []float64
			for range 3 {
				l1 = append(l1, e.pushSweep())
			}
			e.keepDangling = true
			for _, eps := range []float64{1e-3, 1e-6} {
				l1 = append(l1, float64(e.PushScan(eps)))
			}
			return [][]float64{e.X, e.R, l1}
		},
		"pushUntil": func(v *mask.View) [][]float64 {
			e := engine(v)
			e.pushUntil(1e-7, c.seeds.Nodes, 0)
			return [][]float64{e.X, e.R, {float64(e.Stats.Pushes), float64(e.Stats.ArcOps)}}
		},
		"PushRounds": func(v *mask.View) [][]float64 {
			e := engine(v)
			e.PushRounds(1e-7, c.seeds.Nodes, 0)
			return [][]float64{e.X, e.R, {float64(e.Stats.Pushes)}}
		},
		"Solve Jacobi": func(v *mask.View) [][]float64 {
			res, err := Solve(v, c.seeds, c.damping, Options{Tol: 1e-9, Order: Jacobi}.with(tn))
			require.NoError(t, err)
			return [][]float64{res.Scores, {res.ResidualL1}}
		},
		"Solve": func(v *mask.View) [][]float64 {
			res, err := Solve(v, c.seeds, c.damping, Options{Tol: 1e-9}.with(tn))
			require.NoError(t, err)
			return [][]float64{res.Scores, {res.ResidualL1}}
		},
		"SolvePair": func(v *mask.View) [][]float64 {
			full := mask.Full(v.Graph())
			a, b, err := SolvePair(full, v, c.seeds, c.damping, Options{Tol: 1e-9}.with(tn))
			require.NoError(t, err)
			return [][]float64{a.Scores, b.Scores}
		},
		"SolveBatch Jacobi": func(v *mask.View) [][]float64 {
			res, err := SolveBatch(v, c.batchSeeds, c.damping, Options{Tol: 1e-9, Order: Jacobi}.with(tn))
			require.NoError(t, err)
			var out [][]float64
			for _, r := range res {
				out = append(out, r.Scores, []float64{r.ResidualL1})
			}
			return out
		},
		"SolveBatch": func(v *mask.View) [][]float64 {
			res, err := SolveBatch(v, c.batchSeeds, c.damping, Options{Tol: 1e-9}.with(tn))
			require.NoError(t, err)
			var out [][]float64
			for _, r := range res {
				out = append(out, r.Scores, []float64{r.ResidualL1})
			}
			return out
		},
		"SolveTopK": func(v *mask.View) [][]float64 {
			res, err := SolveTopK(v, c.seeds, c.damping, 5, nil, Options{Tol: 1e-9}.with(tn))
			require.NoError(t, err)
			var out []float64
			for _, s := range res.TopK {
				out = append(out, float64(s.Node), s.Score)
			}
			return [][]float64{out, {res.Gap, res.ProvedGap, res.ErrorBound, res.CoordBound}, res.Leads}
		},
		"ReversePush": func(v *mask.View) [][]float64 {
			rp := newReversePusher(v.Graph().NumNodes())
			var out [][]float64
			for _, target := range c.seeds.Nodes {
				est := rp.push(v, c.damping, target, 1e-6, 1<<20)
				nodes := make([]float64, len(est.Nodes))
				for i, u := range est.Nodes {
					nodes[i] = float64(u)
				}
				out = append(out, nodes, est.Q, []float64{est.MaxS})
			}
			return out
		},
	}
	for name, f := range runs {
		a, b := f(v32), f(v64)
		require.Equal(t, len(b), len(a), "%s: %s", where, name)
		for i := range a {
			sameBits(t, a[i], b[i], fmt.Sprintf("%s: %s, output %d", where, name, i))
		}
	}
}
