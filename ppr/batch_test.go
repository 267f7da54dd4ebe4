package ppr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/mask"
	"github.com/stretchr/testify/require"
)

// batchGraph is a random directed graph with dangling nodes (ids >= 250
// have no out-edges), unit or random weights.
func batchGraph(t *testing.T, unit bool) *csr.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, uint64(len(fmt.Sprint(unit)))))
	b := csr.NewBuilder(true)
	for u := range 300 {
		_, err := b.AddNode(fmt.Sprint(u))
		require.NoError(t, err)
	}
	for range 2500 {
		w := 1.0
		if !unit {
			w = rng.Float64() * 2
		}
		_, err := b.AddEdgeByID(uint32(rng.IntN(250)), uint32(rng.IntN(300)), w, "")
		require.NoError(t, err)
	}
	g, err := b.Build()
	require.NoError(t, err)
	return g
}

// batchViews returns the views the batch tests run on: unmasked, masking
// a few arcs (subtracted after the pull) and masking too many to list (the
// per-vector fallback).
func batchViews(t *testing.T, g *csr.Graph) []*mask.View {
	t.Helper()
	few, many := roaring.New(), roaring.New()
	for e := range uint32(g.NumEdges()) {
		if e%97 == 0 {
			few.Add(e)
		}
		if e%3 == 0 {
			many.Add(e)
		}
	}
	fewView, err := mask.FromMasked(g, "few", few)
	require.NoError(t, err)
	manyView, err := mask.FromMasked(g, "many", many)
	require.NoError(t, err)
	return []*mask.View{mask.Full(g), fewView, manyView}
}

func batchSeeds(t *testing.T, n, count int) []Seeds {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	var out []Seeds
	for range count {
		var in []Seed
		for range 1 + rng.IntN(4) {
			in = append(in, Seed{Node: uint32(rng.IntN(n)), Weight: 0.1 + rng.Float64()})
		}
		s, err := NewSeeds(n, in)
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// batchSeedSets returns 27 seed vectors, which SolveBatch splits into
// narrow batches of 8, 8, 8 and 3, or at a level with wide kernels into a
// full wide batch (16) and a partial one (11); at such a level also 20,
// which it splits into 16 wide and 4 narrow.
func batchSeedSets(t *testing.T, n int, l cpu.Level) [][]Seeds {
	t.Helper()
	sets := [][]Seeds{batchSeeds(t, n, 27)}
	if pullSetFor(l).b16 != nil {
		sets = append(sets, batchSeeds(t, n, 20))
	}
	return sets
}

// TestSolveBatchMatchesSolve checks, at every kernel level, every batched
// vector against an Engine at the Generic level swept as many times, bit
// for bit (every level's batch pull sums each lane in arc order, as
// pullReference does), on unmasked views, a view masking a few arcs (subtracted after the pull)
// and one masking too many to list (the per-vector fallback).
func TestSolveBatchMatchesSolve(t *testing.T) {
	t.Parallel()
	for _, unit := range []bool{false, true} {
		g := batchGraph(t, unit)
		for _, view := range batchViews(t, g) {
			for _, l := range cpu.Supported() {
				for _, seeds := range batchSeedSets(t, g.NumNodes(), l) {
					res, err := SolveBatch(view, seeds, 0.85, Options{Tol: 1e-11, Order: Jacobi}.with(atLevel(l)))
					require.NoError(t, err)
					require.Len(t, res, len(seeds))
					for i, s := range seeds {
						where := fmt.Sprintf("unit=%v view %s level %v query %d", unit, view.Name(), l, i)
						require.LessOrEqual(t, res[i].ErrorBound, 1e-11, where)
						e, err := tunedEngine(view, s, 0.85, atLevel(cpu.Generic))
						require.NoError(t, err)
						var l1 float64
						for range res[i].Sweeps {
							l1 = e.jacobiSweep()
						}
						require.Equal(t, e.X, res[i].Scores, where)
						require.Equal(t, l1, res[i].ResidualL1, where)
					}
				}
			}
		}
	}
}

// TestSolveBatchGaussSeidel checks the default order against Engine.pushSweep
// swept as many times, bit for bit at every kernel level (the push
// arithmetic is the same per vector), on the same views.
func TestSolveBatchGaussSeidel(t *testing.T) {
	t.Parallel()
	for _, unit := range []bool{false, true} {
		g := batchGraph(t, unit)
		for _, view := range batchViews(t, g) {
			for _, l := range cpu.Supported() {
				for _, seeds := range batchSeedSets(t, g.NumNodes(), l) {
					res, err := SolveBatch(view, seeds, 0.85, Options{Tol: 1e-11}.with(atLevel(l)))
					require.NoError(t, err)
					for i, s := range seeds {
						where := fmt.Sprintf("unit=%v view %s level %v query %d", unit, view.Name(), l, i)
						require.LessOrEqual(t, res[i].ErrorBound, 1e-11, where)
						e, err := NewEngine(view, s, 0.85)
						require.NoError(t, err)
						var l1 float64
						for range res[i].Sweeps {
							l1 = e.pushSweep()
						}
						require.Equal(t, e.X, res[i].Scores, where)
						require.Equal(t, l1, res[i].ResidualL1, where)
					}
				}
			}
		}
	}
}

func TestSolveBatchErrors(t *testing.T) {
	t.Parallel()
	g := batchGraph(t, false)
	v := mask.Full(g)
	_, err := SolveBatch(v, []Seeds{{}}, 0.85, Options{})
	require.ErrorContains(t, err, "ppr: batch query 0: no seeds")
	_, err = SolveBatch(v, []Seeds{{Nodes: []uint32{900}, Weights: []float64{1}}}, 0.85, Options{})
	require.ErrorContains(t, err, "out of range")
	_, err = SolveBatch(v, batchSeeds(t, g.NumNodes(), 2), 1.5, Options{})
	require.Error(t, err)
	_, err = SolveBatch(v, batchSeeds(t, g.NumNodes(), 2), 0.85, Options{Tol: 1e-14, MaxSweeps: 3})
	require.ErrorContains(t, err, "after 3 sweeps")
	res, err := SolveBatch(v, nil, 0.85, Options{})
	require.NoError(t, err)
	require.Empty(t, res)
}

// levelKernels returns level l's batch kernels for layout L, and whether
// the level has its own (a level without wide kernels makes narrow passes).
func levelKernels[L lanes](l cpu.Level) (batchKernels[L], bool) {
	set := pullSetFor(l)
	var line L
	if len(line) == batchWidth {
		return any(set.b8).(batchKernels[L]), true
	}
	if set.b16 == nil {
		return batchKernels[L]{}, false
	}
	return any(*set.b16).(batchKernels[L]), true
}

func TestPullBatchMatchesReference(t *testing.T) {
	t.Parallel()
	testPullBatch[[batchWidth]float64](t)
	testPullBatch[[2 * batchWidth]float64](t)
}

func testPullBatch[L lanes](t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	awkward := []int{0, 1, 2, 3, 7, 8, 15, 16, 17, 63, 64, 65}
	for trial := range 40 {
		degrees := make([]int, 1+rng.IntN(30))
		for i := range degrees {
			degrees[i] = awkward[rng.IntN(len(awkward))]
		}
		offsets, nbr, wt, _, _, _ := kernelCase(rng, degrees, 0)
		n := len(degrees)
		factor := batchLines[L](rng, n)
		want := make([]L, n)
		wl1 := pullBatchReference(offsets, nbr, wt, factor, want, 0.85)
		wt32, wide := float32Weights(wt)
		want32 := make([]L, n)
		wl132 := pullBatchReference(offsets, nbr, wide, factor, want32, 0.85)
		var line L
		width := len(line)
		if width == batchWidth {
			got := make([][batchWidth]float64, n)
			gl1 := pullBatch(offsets, nbr, wt, any(factor).([][batchWidth]float64), got, 0.85)
			require.Equal(t, want, any(got), "trial %d", trial)
			require.Equal(t, wl1, any(gl1), "trial %d", trial)
			gl1 = pullBatch(offsets, nbr, wt32, any(factor).([][batchWidth]float64), got, 0.85)
			require.Equal(t, bitsOf(want32), bitsOf(any(got).([]L)), "float32 weights: trial %d", trial)
			require.Equal(t, bitsOf([]L{wl132}), bitsOf([]L{any(gl1).(L)}), "float32 weights: trial %d", trial)
		}
		// Every level's batch kernel sums each lane in arc order: the
		// reference's bits.
		for _, l := range cpu.Supported() {
			k, ok := levelKernels[L](l)
			if !ok {
				continue
			}
			lgot := make([]L, n)
			ll1 := k.pull(offsets, nbr, wt, factor, lgot, 0.85)
			require.Equal(t, bitsOf(want), bitsOf(lgot), "trial %d width %d level %v", trial, width, l)
			require.Equal(t, bitsOf([]L{wl1}), bitsOf([]L{ll1}), "trial %d width %d level %v", trial, width, l)
			// The float32 kernel on float32 weights: the float64
			// reference's bits on the widened weights.
			lgot32 := make([]L, n)
			ll132 := k.pull32(offsets, nbr, wt32, factor, lgot32, 0.85)
			require.Equal(t, bitsOf(want32), bitsOf(lgot32), "float32 weights: trial %d width %d level %v", trial, width, l)
			require.Equal(t, bitsOf([]L{wl132}), bitsOf([]L{ll132}), "float32 weights: trial %d width %d level %v", trial, width, l)
		}
		// Lane j is the single-vector reference on lane j's factors.
		for j := range width {
			single := make([]float64, n)
			lane := make([]float64, n)
			for u := range lane {
				lane[u] = factor[u][j]
			}
			l1 := pullReference(offsets, nbr, wt, nil, nil, lane, single, 0.85)
			for v := range single {
				require.Equal(t, single[v], want[v][j])
			}
			require.Equal(t, l1, wl1[j])
		}
	}
}

// batchLines returns n random lines: some all zero, some with zero or -0
// lanes, the rest random of both signs.
func batchLines[L lanes](rng *rand.Rand, n int) []L {
	out := make([]L, n)
	for u := range out {
		if rng.IntN(4) == 0 {
			continue
		}
		for j := range len(out[u]) {
			switch rng.IntN(5) {
			case 0:
			case 1:
				out[u][j] = math.Copysign(0, -1)
			default:
				out[u][j] = rng.Float64()*2 - 1
			}
		}
	}
	return out
}

// TestPushBatchMatchesReference runs every level's batch push kernel and
// the reference from the same state, in both layouts, on rows of awkward
// and long degrees (empty rows included), out-weights with zeros (dangling
// nodes, some with arcs), residual lines with all-zero, -0 and mixed
// lanes, and the node range split into several calls (the runs between
// masked nodes); x, r and dangling must agree bit for bit. It also checks
// each level's l1 and factor kernels.
func TestPushBatchMatchesReference(t *testing.T) {
	t.Parallel()
	testPushBatch[[batchWidth]float64](t)
	testPushBatch[[2 * batchWidth]float64](t)
}

func testPushBatch[L lanes](t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	awkward := []int{0, 1, 2, 3, 7, 8, 15, 16, 17, 63, 64, 65, 300}
	var line L
	width := len(line)
	for trial := range 60 {
		degrees := make([]int, 1+rng.IntN(40))
		for i := range degrees {
			degrees[i] = awkward[rng.IntN(len(awkward))]
		}
		offsets, nbr, wt, _, _, _ := kernelCase(rng, degrees, 0)
		n := len(degrees)
		w := make([]float64, n)
		for u := range w {
			if rng.IntN(5) != 0 {
				w[u] = 0.5 + rng.Float64()*float64(degrees[u])
			}
		}
		x0, r0 := batchLines[L](rng, n), batchLines[L](rng, n)
		var cuts []int
		for range rng.IntN(4) {
			cuts = append(cuts, rng.IntN(n+1))
		}
		cuts = append(cuts, 0, n)
		slices.Sort(cuts)
		d := []float64{0.85, 0.5, 0}[trial%3]
		run := func(push func([]int, []uint32, []float64, []float64, []L, []L, int, int, float64, *L)) (x, r []L, dangling L) {
			x, r = slices.Clone(x0), slices.Clone(r0)
			dangling[3] = 0.25
			for i := 1; i < len(cuts); i++ {
				push(offsets, nbr, wt, w, x, r, cuts[i-1], cuts[i], d, &dangling)
			}
			return x, r, dangling
		}
		wx, wr, wd := run(pushBatchReference[L, float64])
		wl1 := l1BatchReference(wr)
		// The same on float32 weights: the float32 kernels must give the
		// reference's bits on the widened weights.
		wt32, wide := float32Weights(wt)
		run32 := func(push func([]int, []uint32, []float32, []float64, []L, []L, int, int, float64, *L)) (x, r []L, dangling L) {
			x, r = slices.Clone(x0), slices.Clone(r0)
			dangling[3] = 0.25
			for i := 1; i < len(cuts); i++ {
				push(offsets, nbr, wt32, w, x, r, cuts[i-1], cuts[i], d, &dangling)
			}
			return x, r, dangling
		}
		wt64 := wt
		wt = wide
		wx32, wr32, wd32 := run(pushBatchReference[L, float64])
		wt = wt64
		for _, l := range cpu.Supported() {
			k, ok := levelKernels[L](l)
			if !ok {
				continue
			}
			x, r, dangling := run(k.push)
			where := fmt.Sprintf("trial %d width %d level %v", trial, width, l)
			require.Equal(t, bitsOf(wx), bitsOf(x), where)
			require.Equal(t, bitsOf(wr), bitsOf(r), where)
			require.Equal(t, bitsOf([]L{wd}), bitsOf([]L{dangling}), where)
			require.Equal(t, bitsOf([]L{wl1}), bitsOf([]L{k.l1(wr)}), where)
			x, r, dangling = run32(k.push32)
			require.Equal(t, bitsOf(wx32), bitsOf(x), "float32 weights: "+where)
			require.Equal(t, bitsOf(wr32), bitsOf(r), "float32 weights: "+where)
			require.Equal(t, bitsOf([]L{wd32}), bitsOf([]L{dangling}), "float32 weights: "+where)
		}
	}
	// The l1 and factor kernels at short lengths, with dangling nodes.
	for n := range 20 {
		r, x0 := batchLines[L](rng, n), batchLines[L](rng, n)
		inv := make([]float64, n)
		for u := range inv {
			if rng.IntN(3) != 0 {
				inv[u] = rng.Float64()
			}
		}
		var wd L
		wd[5] = -1.5
		wx, wf := slices.Clone(x0), make([]L, n)
		factorBatchReference(r, wx, wf, inv, &wd)
		for _, l := range cpu.Supported() {
			k, ok := levelKernels[L](l)
			if !ok {
				continue
			}
			where := fmt.Sprintf("n %d width %d level %v", n, width, l)
			require.Equal(t, bitsOf([]L{l1BatchReference(r)}), bitsOf([]L{k.l1(r)}), where)
			var dangling L
			dangling[5] = -1.5
			x, f := slices.Clone(x0), make([]L, n)
			k.factor(r, x, f, inv, &dangling)
			require.Equal(t, bitsOf(wx), bitsOf(x), where)
			require.Equal(t, bitsOf(wf), bitsOf(f), where)
			require.Equal(t, bitsOf([]L{wd}), bitsOf([]L{dangling}), where)
		}
	}
}

// bitsOf returns the bit patterns of lines, so that -0 and +0 differ.
func bitsOf[L lanes](lines []L) [][]uint64 {
	out := make([][]uint64, len(lines))
	for u := range lines {
		for j := range len(lines[u]) {
			out[u] = append(out[u], math.Float64bits(lines[u][j]))
		}
	}
	return out
}

// float32Weights returns wt rounded to float32 and those float32s widened
// back: a graph's float32 weight array and its float64 form.
func float32Weights(wt []float64) ([]float32, []float64) {
	w32, wide := make([]float32, len(wt)), make([]float64, len(wt))
	for p, w := range wt {
		w32[p] = float32(w)
		wide[p] = float64(w32[p])
	}
	return w32, wide
}

// SolveBatch with Normalized sweeps solves each vector alone, to Solve's
// bits.
func TestSolveBatchNormalized(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(73, 74))
	for i := range 50 {
		c := newRandomCase(t, rng)
		var seeds []Seeds
		for range 1 + rng.IntN(4) {
			s, err := NewSeeds(c.g.NumNodes(), []Seed{{Node: uint32(rng.IntN(c.g.NumNodes())), Weight: 1}})
			require.NoError(t, err)
			seeds = append(seeds, s)
		}
		opt := Options{Tol: 1e-11, Order: Normalized}
		got, err := SolveBatch(c.native, seeds, c.damping, opt)
		require.NoError(t, err)
		for j, s := range seeds {
			want, err := Solve(c.native, s, c.damping, opt)
			require.NoError(t, err)
			require.Equal(t, want.Scores, got[j].Scores, "case %d vector %d", i, j)
			require.Equal(t, want.Sweeps, got[j].Sweeps, "case %d vector %d", i, j)
		}
	}
}
