package fuzz

import (
	"testing"

	"github.com/authppr/authppr/internal/fuzzcase"
	"github.com/authppr/authppr/internal/fuzzseed"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// FuzzGuard checks the replay guard against two from-scratch solves
// (replay.Reference) on every path: the decision (same, tie or divergent),
// both selections and the proved gap interval. cand picks a candidate
// subset (bit v%32 admits node v; 0 means every node); mode picks the tie
// tolerance and a tiny delta budget that forces hand-overs to the full path.
func FuzzGuard(f *testing.F) {
	f.Add([]byte{4, 0x30, 2, 1, 0, 1, 0, 1, 0x00, 1, 2, 0x08, 2, 3, 0x10, 3, 0, 0x28}, uint32(0), uint8(0))
	f.Add([]byte{6, 0x11, 3, 2, 0, 2, 5, 1, 0, 1, 0x20, 1, 0, 0x09, 2, 2, 0x02, 4, 5, 0x18}, uint32(0x3c), uint8(1))
	f.Add([]byte{9, 0x13, 1, 1, 0, 1, 0, 1, 0x00, 0, 2, 0x00, 1, 3, 0x00, 2, 3, 0x00, 0, 3, 0x08, 3, 4, 0x00, 2, 5, 0x00}, uint32(0x38), uint8(2))
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzGuard.zip
	f.Fuzz(func(t *testing.T, data []byte, cand uint32, mode uint8) {
		c, err := fuzzcase.Decode(data)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		n := c.Graph.NumNodes()
		q := replay.Query{K: c.K, Damping: c.Damping}
		for i, u := range c.Seeds.Nodes {
			q.Seeds = append(q.Seeds, ppr.Seed{Node: u, Weight: c.Seeds.Weights[i]})
		}
		if cand != 0 {
			q.Candidates = []uint32{}
			for v := range n {
				if cand&(1<<(v%32)) != 0 {
					q.Candidates = append(q.Candidates, uint32(v))
				}
			}
			if len(q.Candidates) == 0 {
				q.Candidates = nil // an empty set is a query error, tested in replay
			}
		}
		tie := []float64{1e-9, 1e-6, 1e-3, 1e-9}[mode&3]
		var budget int64
		if mode&4 != 0 {
			budget = 1 + int64(mode>>3)
		}
		var ref *replay.ReferenceDecision
		for _, force := range []replay.Path{replay.PathAuto, replay.PathDelta, replay.PathFull} {
			opt := replay.Options{TieTol: tie, DeltaBudget: budget, Force: force}
			gd, err := replay.New(c.Graph, c.Labels, c.Policy, opt)
			if err != nil {
				t.Fatalf("new guard: %v", err)
			}
			d, err := gd.Select(q)
			if err != nil {
				t.Fatalf("select (force %s): %v", force, err)
			}
			if ref == nil {
				if ref, err = replay.Reference(c.Graph, c.Labels, c.Policy, q, opt); err != nil {
					t.Fatalf("reference: %v", err)
				}
			}
			if _, err := ref.Check(d, q, tie); err != nil {
				t.Fatalf("force %s: %v", force, err)
			}
		}
	})
}
