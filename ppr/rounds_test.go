package ppr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/mask"
)

// pushRoundsReference is PushRoundsSigned written plainly: each round a
// sorted list of the frontier's nodes, listed in blocks of pushBlockLen nodes
// over their threshold and each block pushed (a node still over it) before
// the next is listed, rows read through the view's OutRow, a set of the
// nodes marked for the next round.
func pushRoundsReference(e *Engine, above, below float64, frontier []uint32, budget int64) bool {
	cur := slices.Clone(frontier)
	start := e.Stats.ArcOps
	for {
		slices.Sort(cur)
		cur = slices.Compact(cur)
		var next []uint32
		active, dangling := false, 0.0
		endRound := func() {
			if dangling != 0 {
				for i, s := range e.seeds.Nodes {
					e.R[s] += e.damping * dangling * e.seeds.Weights[i]
					next = append(next, s)
				}
			}
			if e.Support != nil {
				for _, v := range next {
					e.Support.Add(v)
				}
			}
		}
		over := func(u uint32) bool {
			val, wu := e.R[u], e.view.OutWeight(u)
			eps := above
			if val < 0 {
				eps = below
			}
			t := eps * wu
			if t == 0 {
				if e.keepDangling {
					return false
				}
				t = eps
			}
			return !math.IsInf(eps, 1) && math.Abs(val) > t
		}
		// A block of listed nodes, each pushed if still over.
		pushBlock := func(block []uint32) bool {
			for _, u := range block {
				if !over(u) {
					continue
				}
				val, wu := e.R[u], e.view.OutWeight(u)
				e.R[u] = 0
				e.X[u] += val
				e.Stats.Pushes++
				active = true
				if e.Support != nil {
					e.Support.Add(u)
				}
				if wu == 0 {
					dangling += val
					continue
				}
				c := e.damping * val / wu
				row := e.view.OutRow(u)
				e.Stats.ArcOps += int64(row.Len())
				for p, v := range row.Nbr {
					if row.Live(p) {
						e.R[v] += c * row.Weight.At(p)
						next = append(next, v)
					}
				}
				if budget > 0 && e.Stats.ArcOps-start >= budget {
					return false
				}
			}
			return true
		}
		var block []uint32
		for _, u := range cur {
			if !over(u) {
				continue
			}
			if block = append(block, u); len(block) == pushBlockLen {
				if !pushBlock(block) {
					endRound()
					return false
				}
				block = block[:0]
			}
		}
		if !pushBlock(block) {
			endRound()
			return false
		}
		endRound()
		if !active {
			return true
		}
		cur = next
	}
}

// PushRounds and PushRoundsSigned (a summary bitset over the frontier's words)
// make the plain reference's pushes, in its order, to the same bits, on
// snapshot and patched views, with budgets that stop them mid-round, and
// call after call on one engine (whose frontier scratch must be left
// clean, a stop mid-round included).
func TestPushRoundsMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(51, 52))
	for trial := range 300 {
		directed := trial%2 == 1
		// Every tenth trial a residual on every node of a larger graph,
		// so that rounds list more than a block.
		wide := trial%10 == 9
		c, err := randgraph.NewDeltaCase(rng, directed, map[bool]int{false: 300, true: 4 * pushBlockLen}[wide])
		if err != nil {
			t.Fatal(err)
		}
		view := c.Material
		if trial%3 == 0 {
			if view, err = mask.WithDelta(c.Base, c.Delta); err != nil {
				t.Fatal(err)
			}
		}
		n := view.NumNodes()
		seeds := randomSeeds(t, rng, n)
		d := []float64{0.5, 0.85}[trial%2]
		fast, err := NewEngine(view, seeds, d)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NewEngine(view, seeds, d)
		if err != nil {
			t.Fatal(err)
		}
		fast.Support, ref.Support = nodeset.New(n), nodeset.New(n)
		fast.keepDangling = trial%5 == 0
		ref.keepDangling = fast.keepDangling
		for call := range 6 {
			if call == 3 {
				// A signed residual, for the thresholds per sign.
				for range 1 + rng.IntN(5) {
					u := rng.IntN(n)
					fast.R[u] -= 0.3 * rng.Float64()
					ref.R[u] = fast.R[u]
				}
			}
			var frontier []uint32
			for range 1 + rng.IntN(8) {
				frontier = append(frontier, uint32(rng.IntN(n)))
			}
			eps := []float64{1e-2, 1e-4, 1e-7}[rng.IntN(3)]
			budget := []int64{0, 0, 5, 50}[rng.IntN(4)]
			if wide && call%3 == 0 {
				frontier = frontier[:0]
				for u := range n {
					fast.R[u] += (rng.Float64() - 0.25) * 1e-3
					ref.R[u] = fast.R[u]
					frontier = append(frontier, uint32(u))
				}
				eps = 1e-7
				budget = []int64{0, 3000}[rng.IntN(2)]
			}
			above, below := eps, eps
			if call >= 3 {
				// One side finer, or not pushed at all.
				switch rng.IntN(3) {
				case 0:
					above = math.Inf(1)
				case 1:
					below = eps / 100
				}
			}
			gotDone := fast.pushRounds(above, below, frontier, budget)
			wantDone := pushRoundsReference(ref, above, below, frontier, budget)
			if gotDone != wantDone || !slices.Equal(fast.X, ref.X) || !slices.Equal(fast.R, ref.R) || fast.Stats != ref.Stats {
				t.Fatalf("trial %d call %d (thresholds %v and %v, budget %d): PushRounds differs from the reference (done %v, want %v)",
					trial, call, above, below, budget, gotDone, wantDone)
			}
			if !slices.Equal(fast.Support.AppendNodes(nil), ref.Support.AppendNodes(nil)) {
				t.Fatalf("trial %d call %d: supports differ", trial, call)
			}
		}
	}
}

// One engine moved from view to view (Engine.Rebind: smaller and larger
// graphs, patched and not) keeps PushRounds' scratch, resized in place,
// and pushes as the reference does on a new engine, bit for bit.
func TestPushRoundsAfterRebindMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(53, 54))
	var moved *Engine
	for trial := range 120 {
		c, err := randgraph.NewDeltaCase(rng, trial%2 == 1, 20+rng.IntN(400))
		if err != nil {
			t.Fatal(err)
		}
		view := []*mask.View{c.Base, c.Material}[rng.IntN(2)]
		if trial%3 == 0 {
			if view, err = mask.WithDelta(c.Base, c.Delta); err != nil {
				t.Fatal(err)
			}
		}
		n := view.NumNodes()
		seeds := randomSeeds(t, rng, n)
		d := []float64{0.5, 0.85}[trial%2]
		if moved == nil {
			if moved, err = NewEngine(view, seeds, d); err != nil {
				t.Fatal(err)
			}
		} else {
			moved.Rebind(view)
			if err := moved.Restart(seeds, d); err != nil {
				t.Fatal(err)
			}
		}
		ref, err := NewEngine(view, seeds, d)
		if err != nil {
			t.Fatal(err)
		}
		for call := range 3 {
			var frontier []uint32
			for range 1 + rng.IntN(8) {
				frontier = append(frontier, uint32(rng.IntN(n)))
			}
			eps := []float64{1e-2, 1e-4, 1e-7}[rng.IntN(3)]
			budget := []int64{0, 0, 5}[rng.IntN(3)]
			gotDone := moved.pushRounds(eps, eps, frontier, budget)
			wantDone := pushRoundsReference(ref, eps, eps, frontier, budget)
			if gotDone != wantDone || !slices.Equal(moved.X, ref.X) || !slices.Equal(moved.R, ref.R) {
				t.Fatalf("trial %d call %d (%d nodes, eps %v, budget %d): a rebound engine's PushRounds differs from the reference", trial, call, n, eps, budget)
			}
		}
	}
}
