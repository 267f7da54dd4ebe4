package ppr_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// BenchmarkPushRoundsAtLevel pushes a local disturbance of a proved state
// back to the state's own level, the way a guard pushes a correction on a
// warm state: the HippoRAG-sized memory graph, a HippoRAG2 query (its
// dense reset, bench.HippoQueries), the certified top-5 passages' state,
// and 40 entities' residuals raised by a tenth of their scores. Every
// node the pushes change is restored between iterations (outside the
// timer).
func BenchmarkPushRoundsAtLevel(b *testing.B) {
	mem, err := bench.NewMemory(bench.HippoMemory)
	if err != nil {
		b.Fatal(err)
	}
	view, err := mask.Native(mem.Graph, mask.FromGraph(mem.Graph))
	if err != nil {
		b.Fatal(err)
	}
	q := mem.HippoQueries(1, 5, 13)[0]
	s, err := ppr.NewSeeds(view.NumNodes(), q.Seeds)
	if err != nil {
		b.Fatal(err)
	}
	eng, err := ppr.NewEngine(view, s, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	res, err := eng.SolveTopK(q.K, q.Candidates, ppr.Options{})
	if err != nil {
		b.Fatal(err)
	}
	level := res.Proof.MaxRatio()
	rng := rand.New(rand.NewPCG(13, 14))
	var start []uint32
	for len(start) < 40 {
		u := mem.Entities[rng.IntN(len(mem.Entities))]
		if eng.X[u] > 0 && !slices.Contains(start, u) {
			eng.R[u] += eng.X[u] / 10
			start = append(start, u)
		}
	}
	slices.Sort(start)
	x0, r0 := slices.Clone(eng.X), slices.Clone(eng.R)
	sup := nodeset.New(view.NumNodes())
	eng.Support = sup
	var changed []uint32
	pushes := 0
	for b.Loop() {
		eng.PushRounds(level, start, 0)
		b.StopTimer()
		changed = sup.AppendNodes(changed[:0])
		pushes = len(changed)
		for _, u := range changed {
			eng.X[u], eng.R[u] = x0[u], r0[u]
		}
		sup.Reset()
		b.StartTimer()
	}
	b.ReportMetric(float64(pushes), "changed")
}
