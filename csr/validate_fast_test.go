package csr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cloneAdjacency copies a so a corruption of it touches no other graph.
func cloneAdjacency(a Adjacency) Adjacency {
	return Adjacency{Offsets: slices.Clone(a.Offsets), Nbr: slices.Clone(a.Nbr),
		Weight: cloneWeights(a.Weight), Edge: slices.Clone(a.Edge)}
}

// corruptAdjacency changes a few arcs of a the way a damaged file could:
// edge ids, neighbours, weights, swapped or copied arcs, moved offsets.
func corruptAdjacency(r *rand.Rand, a Adjacency, m int) {
	arcs := len(a.Edge)
	for range 1 + r.IntN(3) {
		if arcs == 0 {
			if len(a.Offsets) > 1 {
				a.Offsets[1+r.IntN(len(a.Offsets)-1)] += r.IntN(3) - 1
			}
			return
		}
		p, q := r.IntN(arcs), r.IntN(arcs)
		switch r.IntN(9) {
		case 0:
			a.Edge[p] = uint32(r.IntN(m + 1))
		case 1:
			a.Nbr[p] = uint32(r.IntN(len(a.Offsets)))
		case 2:
			setWeight(a.Weight, p, a.Weight.At(q))
		case 3: // a whole arc copied over another
			a.Edge[p], a.Nbr[p] = a.Edge[q], a.Nbr[q]
			setWeight(a.Weight, p, a.Weight.At(q))
		case 4: // two arcs swapped
			a.Edge[p], a.Edge[q] = a.Edge[q], a.Edge[p]
			a.Nbr[p], a.Nbr[q] = a.Nbr[q], a.Nbr[p]
			swapWeights(a.Weight, p, q)
		case 5: // an arc boundary moved
			if len(a.Offsets) > 2 {
				a.Offsets[1+r.IntN(len(a.Offsets)-2)] += r.IntN(3) - 1
			}
		case 6: // an arc's edge id set to its neighbour's
			if p > 0 {
				a.Edge[p] = a.Edge[p-1]
			}
		case 7: // an arc copied over its neighbour (self-loop pairs, twins)
			if p > 0 {
				a.Edge[p-1], a.Nbr[p-1] = a.Edge[p], a.Nbr[p]
				setWeight(a.Weight, p-1, a.Weight.At(p))
			}
		case 8: // an arc copied over the next one (a self-loop's third arc)
			if p+1 < arcs {
				a.Edge[p+1], a.Nbr[p+1] = a.Edge[p], a.Nbr[p]
				setWeight(a.Weight, p+1, a.Weight.At(p))
			}
		}
	}
}

// TestValidateAdjacencyMatchesReference: the fast adjacencyOK and the
// plain arc-by-arc validateAdjacency accept exactly the same adjacencies, on
// built graphs and on random corruptions of them, in both directions.
func TestValidateAdjacencyMatchesReference(t *testing.T) {
	t.Parallel()
	graphs, rounds := 400, 30
	if testing.Short() {
		graphs = 100
	}
	rejected := 0
	for seed := range graphs {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(seed), 0xAD7))
			g := buildOps(t, directed, randomStream(r), StreamOrder)
			n, m := g.NumNodes(), g.NumEdges()
			for round := range rounds {
				for _, outgoing := range []bool{true, false} {
					dir, a := "out", g.out
					if !outgoing {
						dir, a = "in", g.in
					}
					a = cloneAdjacency(a)
					if round > 0 {
						corruptAdjacency(r, a, m)
					}
					fast := g.adjacencyOK(a, n, len(g.out.Nbr), outgoing)
					ref := g.validateAdjacency(dir, a, n, len(g.out.Nbr), outgoing)
					where := fmt.Sprintf("seed %d directed=%v round %d %s: fast %v, ref %v", seed, directed, round, dir, fast, ref)
					require.Equal(t, ref == nil, fast, where)
					if round == 0 {
						require.True(t, fast, where)
					}
					if !fast {
						rejected++
					}
				}
			}
		}
	}
	require.Greater(t, rejected, graphs*rounds/2, "too few corruptions were caught to compare")
}

// uniqueNamesMap is the plain reference for uniqueNames.
func uniqueNamesMap(names []string) error {
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if name == "" {
			return fmt.Errorf("csr: assemble: node %d has an empty name", i)
		}
		if j, dup := seen[name]; dup {
			return fmt.Errorf("csr: assemble: node %d: name %q repeats node %d", i, name, j)
		}
		seen[name] = i
	}
	return nil
}

// TestUniqueNamesMatchesMap: the table check and the map check report the
// same first fault (or none) on random name lists with repeats and empties.
func TestUniqueNamesMatchesMap(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 0x4E4D))
	faults := 0
	for round := range 3000 {
		n := 1 + r.IntN(200)
		pool := 1 + r.IntN(4*n)
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("n%d", r.IntN(pool))
			if r.IntN(500) == 0 {
				names[i] = ""
			}
		}
		if round%2 == 0 { // half the lists distinct
			for i := range names {
				names[i] = fmt.Sprintf("u%d", i)
			}
		}
		want, got := uniqueNamesMap(names), uniqueNames(names)
		require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "round %d", round)
		if want != nil {
			faults++
		}
	}
	require.Greater(t, faults, 500)
}

// TestAssembledIDsConcurrent: an assembled graph builds its name dictionary
// on the first ID call; concurrent first calls (go test -race) agree.
func TestAssembledIDsConcurrent(t *testing.T) {
	t.Parallel()
	g := corruptibleGraph(t, true)
	for range 20 {
		h, err := assemble(g.parts())
		require.NoError(t, err)
		require.Nil(t, h.ids)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for i, name := range g.Names() {
					id, ok := h.ID(name)
					assert.True(t, ok)
					assert.Equal(t, uint32(i), id)
				}
				_, ok := h.ID("no such node")
				assert.False(t, ok)
			})
		}
		wg.Wait()
		require.NoError(t, h.checkAll())
	}
}

// TestAssembleRejectsRepeatedName: assemble's check without the dictionary
// still rejects a repeated or empty name.
func TestAssembleRejectsRepeatedName(t *testing.T) {
	t.Parallel()
	g := corruptibleGraph(t, false)
	p := g.parts()
	p.Names = slices.Clone(p.Names)
	p.Names[4] = p.Names[1]
	_, err := assemble(p)
	require.ErrorContains(t, err, `node 4: name "b" repeats node 1`)
	p.Names[4] = ""
	_, err = assemble(p)
	require.ErrorContains(t, err, "node 4 has an empty name")
}

// validatePlain is validate as plain sequential loops, the reference the
// fast validate must agree with fault for fault: the arcs are checked by
// validateAdjacency, one random read of the edge table per arc.
func (g *Graph) validatePlain(checkNames func() error) error {
	n, m := g.nodes, len(g.edgeSrc)
	if len(g.edgeDst) != m || g.edgeWeight.Len() != m || len(g.edgeChannel) != m {
		return fmt.Errorf("csr: edge arrays have lengths %d, %d, %d, %d; want all %d",
			m, len(g.edgeDst), g.edgeWeight.Len(), len(g.edgeChannel), m)
	}
	if g.edgeRelation != nil && len(g.edgeRelation) != m {
		return fmt.Errorf("csr: %d edge relations for %d edges", len(g.edgeRelation), m)
	}
	if err := checkNames(); err != nil {
		return err
	}
	if err := g.checkRanks(); err != nil {
		return err
	}
	for e := 0; e < m; e++ {
		if g.edgeSrc[e] >= uint32(n) || g.edgeDst[e] >= uint32(n) {
			return fmt.Errorf("csr: edge %d: endpoint out of range (want < %d nodes)", e, n)
		}
		if err := CheckWeight(g.edgeWeight.At(e)); err != nil {
			return fmt.Errorf("csr: edge %d (%d -> %d): %w", e, g.edgeSrc[e], g.edgeDst[e], err)
		}
		if int(g.edgeChannel[e]) >= len(g.channels) {
			return fmt.Errorf("csr: edge %d: channel index %d out of range", e, g.edgeChannel[e])
		}
		if g.edgeRelation != nil && int(g.edgeRelation[e]) >= len(g.relations) {
			return fmt.Errorf("csr: edge %d: relation index %d out of range", e, g.edgeRelation[e])
		}
	}
	arcs := m
	if !g.directed {
		arcs = 2 * m
	}
	if err := g.validateAdjacency("out", g.out, n, arcs, true); err != nil {
		return err
	}
	if !(!g.directed && sameAdjacency(g.in, g.out)) {
		if err := g.validateAdjacency("in", g.in, n, arcs, false); err != nil {
			return err
		}
	}
	if len(g.outWeight) != n {
		return fmt.Errorf("csr: %d out-weights for %d nodes", len(g.outWeight), n)
	}
	for u := 0; u < n; u++ {
		lo, hi := g.out.Span(uint32(u))
		if w := sumWeights(g.out.Weight.asFloat64()[lo:hi]); w != g.outWeight[u] {
			return fmt.Errorf("csr: node %d: out-weight %v, arcs sum to %v", u, g.outWeight[u], w)
		}
	}
	return nil
}

// corruptGraph damages g's own arrays (cloned first, so no other graph
// shares them) the way a bad file could: the edge table (an endpoint, a
// weight, two edges swapped, a zero weight's sign), the arcs
// (corruptAdjacency, or one field of one arc: edge id, neighbour, a weight
// bit, -0 for +0), the out-weights, the channel indices.
func corruptGraph(r *rand.Rand, g *Graph) {
	g.edgeSrc, g.edgeDst = slices.Clone(g.edgeSrc), slices.Clone(g.edgeDst)
	g.edgeWeight, g.edgeChannel = cloneWeights(g.edgeWeight), slices.Clone(g.edgeChannel)
	g.outWeight = slices.Clone(g.outWeight)
	shared := sameAdjacency(g.in, g.out)
	g.out = cloneAdjacency(g.out)
	if shared {
		g.in = g.out
	} else {
		g.in = cloneAdjacency(g.in)
	}
	n, m, arcs := g.nodes, len(g.edgeSrc), len(g.out.Nbr)
	a := g.out
	if r.IntN(2) == 0 {
		a = g.in
	}
	if m == 0 || arcs == 0 {
		corruptAdjacency(r, a, m)
		return
	}
	e, f, p := r.IntN(m), r.IntN(m), r.IntN(arcs)
	switch r.IntN(12) {
	case 0:
		g.edgeSrc[e] = uint32(r.IntN(n))
	case 1:
		g.edgeDst[e] = uint32(r.IntN(n))
	case 2:
		setWeight(g.edgeWeight, e, g.edgeWeight.At(f))
	case 3: // two edges swapped in the table
		g.edgeSrc[e], g.edgeSrc[f] = g.edgeSrc[f], g.edgeSrc[e]
		g.edgeDst[e], g.edgeDst[f] = g.edgeDst[f], g.edgeDst[e]
		swapWeights(g.edgeWeight, e, f)
	case 4: // a zero weight's sign: -0 == +0, accepted by both checks
		if g.edgeWeight.At(e) == 0 {
			setWeight(g.edgeWeight, e, math.Copysign(0, -1))
		}
	case 5:
		if a.Weight.At(p) == 0 {
			setWeight(a.Weight, p, math.Copysign(0, -1))
		}
	case 6: // one bit of one arc weight
		flipWeightBit(a.Weight, p, r.IntN(64))
	case 7:
		a.Edge[p] ^= 1 << r.IntN(3)
	case 8:
		a.Nbr[p] ^= 1 << r.IntN(3)
	case 9:
		g.outWeight[r.IntN(n)] += 1
	case 10:
		g.edgeChannel[e] = uint32(r.IntN(len(g.channels) + 1))
	default:
		corruptAdjacency(r, a, m)
	}
}

// TestValidateMatchesPlain: the fast validate (edges, names and arcs on two
// goroutines, arcs matched by fingerprint) reports exactly the fault, or
// no fault, that the plain sequential validatePlain reports, on built
// graphs and on random corruptions of them.
func TestValidateMatchesPlain(t *testing.T) {
	t.Parallel()
	graphs, rounds := 400, 30
	if testing.Short() {
		graphs = 100
	}
	rejected, accepted := 0, 0
	for seed := range graphs {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(seed), 0x7A11))
			ops := randomStream(r)
			if seed%2 == 1 {
				ops = roundOps(ops) // float32 storage
			}
			built := buildOps(t, directed, ops, StreamOrder)
			for round := range rounds {
				// A new graph on built's arrays; corruptGraph clones what it damages.
				g := &Graph{directed: built.directed, nodes: built.nodes, names: built.names, lazyIDs: true, rank: built.rank,
					edgeSrc: built.edgeSrc, edgeDst: built.edgeDst, edgeWeight: built.edgeWeight,
					edgeChannel: built.edgeChannel, edgeRelation: built.edgeRelation,
					channels: built.channels, relations: built.relations,
					out: built.out, in: built.in, outWeight: built.outWeight}
				if round > 0 {
					corruptGraph(r, g)
				}
				names := func() error { return uniqueNames(g.names) }
				fast, ref := g.validate(names, nil), g.validatePlain(names)
				where := fmt.Sprintf("seed %d directed=%v round %d", seed, directed, round)
				require.Equal(t, fmt.Sprint(ref), fmt.Sprint(fast), where)
				if round == 0 {
					require.NoError(t, fast, where)
				}
				if fast != nil {
					rejected++
				} else if round > 0 {
					accepted++
				}
			}
		}
	}
	t.Logf("%d corruptions rejected, %d harmless ones accepted", rejected, accepted)
	require.Greater(t, rejected, graphs*rounds/2, "too few corruptions were caught to compare")
	require.Greater(t, accepted, 0, "no harmless change (such as -0 for +0) was tried")
}

// TestFingerprintWeightZeros: -0 and +0 are the same weight to the plain
// check (==), so also to the fingerprint; NaN is no weight.
func TestFingerprintWeightZeros(t *testing.T) {
	t.Parallel()
	require.Equal(t, weightBits(0), weightBits(math.Copysign(0, -1)))
	require.NotEqual(t, weightBits(0), weightBits(math.NaN()))
	require.NotEqual(t, weightBits(1), weightBits(-1))
}

// TestAssembleVisitTiles: the blocks assembleVisit reports tile every edge
// and arc array, lane after lane, each lane in order, on graphs of a
// few arcs and of several blocks per lane, directed and undirected.
func TestAssembleVisitTiles(t *testing.T) {
	t.Parallel()
	type span struct{ lo, hi int }
	for _, size := range []int{0, 1, 3, 40, 3 * visitLanes * visitEdges} {
		for _, directed := range []bool{true, false} {
			r := rand.New(rand.NewPCG(uint64(size), 0x71E))
			b := NewBuilder(directed)
			b.AddNode("first")
			nodes := 1 + size/5
			for i := range size {
				// A hub with many arcs makes a block larger than visitArcs.
				src := fmt.Sprint("n", r.IntN(nodes))
				if i%3 == 0 {
					src = "hub"
				}
				_, err := b.AddEdge(Input{Src: src, Dst: fmt.Sprint("n", r.IntN(nodes)), Weight: 1})
				require.NoError(t, err)
			}
			g, err := b.Build()
			require.NoError(t, err)
			var seen [3][visitLanes][]span
			h, err := assembleVisit(g.parts(), func(lane int, kind blockKind, lo, hi int) {
				seen[kind][lane] = append(seen[kind][lane], span{lo, hi})
			})
			require.NoError(t, err)
			require.Equal(t, g.NumArcs(), h.NumArcs())
			want := [3]int{g.NumEdges(), g.NumArcs(), g.NumArcs()}
			if !directed {
				want[inArcBlock] = 0
			}
			for kind := range seen {
				pos := 0
				for lane := range visitLanes {
					for _, sp := range seen[kind][lane] {
						where := fmt.Sprintf("size %d directed=%v kind %d lane %d: block %v at %d", size, directed, kind, lane, sp, pos)
						require.Equal(t, pos, sp.lo, where)
						require.Less(t, sp.lo, sp.hi, where)
						pos = sp.hi
					}
				}
				require.Equal(t, want[kind], pos, "size %d directed=%v kind %d", size, directed, kind)
			}
			if size == 3*visitLanes*visitEdges {
				// Several blocks in a lane, and lanes after the first used.
				for _, kind := range []blockKind{edgeBlock, outArcBlock} {
					require.Greater(t, len(seen[kind][visitLanes-1]), 1, "kind %d", kind)
				}
			}
		}
	}
}

// FuzzValidateMatchesPlain: on a graph and corruptions drawn from the
// fuzzer's seeds, the fast validate reports what validatePlain reports.
func FuzzValidateMatchesPlain(f *testing.F) {
	f.Add(uint64(1), uint64(2), true, uint8(1))
	f.Add(uint64(7), uint64(0), false, uint8(3))
	f.Fuzz(func(t *testing.T, graphSeed, corruptSeed uint64, directed bool, corruptions uint8) {
		r := rand.New(rand.NewPCG(graphSeed, 0xF0))
		built := buildOps(t, directed, randomStream(r), StreamOrder)
		g := &Graph{directed: built.directed, nodes: built.nodes, names: built.names, lazyIDs: true, rank: built.rank,
			edgeSrc: built.edgeSrc, edgeDst: built.edgeDst, edgeWeight: built.edgeWeight,
			edgeChannel: built.edgeChannel, edgeRelation: built.edgeRelation,
			channels: built.channels, relations: built.relations,
			out: built.out, in: built.in, outWeight: built.outWeight}
		rc := rand.New(rand.NewPCG(corruptSeed, 0xF1))
		for range corruptions % 4 {
			corruptGraph(rc, g)
		}
		names := func() error { return uniqueNames(g.names) }
		require.Equal(t, fmt.Sprint(g.validatePlain(names)), fmt.Sprint(g.validate(names, nil)))
	})
}
