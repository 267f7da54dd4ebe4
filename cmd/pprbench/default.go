package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// runDefault generates the default memory graph (bench.DefaultMemory: 1% of
// its edges written by an untrusted channel), guards HippoRAG-style
// retrievals with the replay guard, and reports timings, the decision paths
// and what the untrusted structure changed.
func runDefault(stdout io.Writer) error {
	const (
		queries = 50
		k       = 5
		damping = 0.5 // HippoRAG2's
	)
	start := time.Now()
	mem, err := bench.NewMemory(bench.DefaultMemory)
	if err != nil {
		return err
	}
	buildTime := time.Since(start)
	g := mem.Graph
	labels := mask.FromGraph(g)
	guard, err := replay.New(g, labels, mask.Trust(bench.TrustedChannel), replay.Options{})
	if err != nil {
		return err
	}
	masked := guard.Auth().Masked().GetCardinality()
	fmt.Fprintf(stdout, "default workload: generated memory graph, %d entities + %d passages, %d undirected edges (%d arcs, %.1f bytes/arc in memory), built in %v\n",
		len(mem.Entities), len(mem.Passages), g.NumEdges(), g.NumArcs(), float64(g.MemoryBytes())/float64(g.NumArcs()), buildTime.Round(time.Millisecond))
	fmt.Fprintf(stdout, "untrusted channel %q wrote %d edges (%.2f%%); the guard replays every selection without them\n",
		bench.UntrustedChannel, masked, 100*float64(masked)/float64(g.NumEdges()))
	fmt.Fprintf(stdout, "%d queries: 3 entity seeds each, top-%d passages, d=%.2g; the native selection is the certified top-%d (what an unguarded caller runs)\n\n", queries, k, damping, k)

	var sum live.Summary
	var nativeTimes []time.Duration
	sweeps := 0
	var example *replay.Decision
	for _, q := range mem.Queries(queries, 3, k, 7) {
		d, err := guard.Select(replay.Query{Seeds: q.Seeds, K: q.K, Candidates: q.Candidates, Damping: damping})
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		sum.Add(d)
		nativeTimes = append(nativeTimes, d.NativeTime)
		sweeps += d.NativeSweeps
		if d.Divergent && example == nil {
			example = d
		}
	}
	med := median(nativeTimes)
	fmt.Fprintf(stdout, "unguarded certified top-k: median %v, %.1f sweeps/query, %.0f M arcs/s\n",
		med.Round(time.Microsecond), float64(sweeps)/queries, float64(g.NumArcs())*float64(sweeps)/queries/med.Seconds()/1e6)
	fmt.Fprintln(stdout, "replay:", sum.Decisions())
	if example != nil {
		fmt.Fprintf(stdout, "\nexample divergence (path %s): native %s, authenticated %s\n", example.Path, names(g.Name, example.Native), names(g.Name, example.Auth))
		for _, s := range example.Suspects {
			fmt.Fprintf(stdout, "  suspect edge %s - %s, channel %v, native mass %.3g\n", g.Name(s.Src), g.Name(s.Dst), s.Channels, s.Mass)
		}
	}
	return nil
}

func names(name func(uint32) string, sel []ppr.Scored) []string {
	out := make([]string, len(sel))
	for i, s := range sel {
		out[i] = name(s.Node)
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
