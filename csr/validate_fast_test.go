package csr

import (
	"fmt"
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
		Weight: slices.Clone(a.Weight), Edge: slices.Clone(a.Edge)}
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
			a.Weight[p] = a.Weight[q]
		case 3: // a whole arc copied over another
			a.Edge[p], a.Nbr[p], a.Weight[p] = a.Edge[q], a.Nbr[q], a.Weight[q]
		case 4: // two arcs swapped
			a.Edge[p], a.Edge[q] = a.Edge[q], a.Edge[p]
			a.Nbr[p], a.Nbr[q] = a.Nbr[q], a.Nbr[p]
			a.Weight[p], a.Weight[q] = a.Weight[q], a.Weight[p]
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
				a.Edge[p-1], a.Nbr[p-1], a.Weight[p-1] = a.Edge[p], a.Nbr[p], a.Weight[p]
			}
		case 8: // an arc copied over the next one (a self-loop's third arc)
			if p+1 < arcs {
				a.Edge[p+1], a.Nbr[p+1], a.Weight[p+1] = a.Edge[p], a.Nbr[p], a.Weight[p]
			}
		}
	}
}

// TestValidateAdjacencyMatchesReference: the fast adjacencyOK and the
// plain arc-by-arc validateAdjacency accept exactly the same adjacencies, on
// built graphs and on random corruptions of them, in both directions.
func TestValidateAdjacencyMatchesReference(t *testing.T) {
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
	g := corruptibleGraph(t, true)
	for range 20 {
		h, err := Assemble(g.Parts())
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
		require.NoError(t, h.Validate())
	}
}

// TestAssembleRejectsRepeatedName: Assemble's check without the dictionary
// still rejects a repeated or empty name.
func TestAssembleRejectsRepeatedName(t *testing.T) {
	g := corruptibleGraph(t, false)
	p := g.Parts()
	p.Names = slices.Clone(p.Names)
	p.Names[4] = p.Names[1]
	_, err := Assemble(p)
	require.ErrorContains(t, err, `node 4: name "b" repeats node 1`)
	p.Names[4] = ""
	_, err = Assemble(p)
	require.ErrorContains(t, err, "node 4 has an empty name")
}
