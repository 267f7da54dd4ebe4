package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/authppr/authppr/bench"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// runDefault generates the default memory graph (bench.DefaultMemory: 1% of
// its edges written by an untrusted channel), runs HippoRAG-style retrievals
// on the native and the authenticated view, and reports timings and how many
// selections the untrusted structure changed.
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
	native, err := mask.Native(g, labels)
	if err != nil {
		return err
	}
	auth, err := mask.Authenticated(g, labels, mask.Trust(bench.TrustedChannel))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "default workload: generated memory graph, %d entities + %d passages, %d undirected edges (%d arcs), built in %v\n",
		len(mem.Entities), len(mem.Passages), g.NumEdges(), g.NumArcs(), buildTime.Round(time.Millisecond))
	fmt.Fprintf(stdout, "untrusted channel %q wrote %d edges (%.2f%%); authenticated view masks them\n",
		bench.UntrustedChannel, auth.Masked().GetCardinality(), 100*float64(auth.Masked().GetCardinality())/float64(g.NumEdges()))
	fmt.Fprintf(stdout, "%d queries: 3 entity seeds each, top-%d passages, d=%.2g, tol %.0e (L1)\n\n", queries, k, damping, ppr.DefaultTol)

	var nativeTimes, authTimes []time.Duration
	sweeps, changed := 0, 0
	for _, q := range mem.Queries(queries, 3, k, 7) {
		seeds, err := ppr.NewSeeds(g.NumNodes(), q.Seeds)
		if err != nil {
			return err
		}
		var tops [2][]ppr.Scored
		for i, view := range []*mask.View{native, auth} {
			t0 := time.Now()
			res, err := ppr.Solve(view, seeds, damping, ppr.Options{})
			if err != nil {
				return fmt.Errorf("query %s, view %s: %w", q.ID, view.Name(), err)
			}
			tops[i] = ppr.TopK(res.Scores, q.K, q.Candidates)
			elapsed := time.Since(t0)
			if i == 0 {
				nativeTimes = append(nativeTimes, elapsed)
				sweeps += res.Sweeps
			} else {
				authTimes = append(authTimes, elapsed)
			}
		}
		if !sameNodes(tops[0], tops[1]) {
			changed++
		}
	}
	medNative, medAuth := median(nativeTimes), median(authTimes)
	arcsPerSec := float64(g.NumArcs()) * float64(sweeps) / float64(queries) / medNative.Seconds()
	fmt.Fprintf(stdout, "native solve:        median %v, %.1f sweeps/query, %.0f M arcs/s\n",
		medNative.Round(time.Microsecond), float64(sweeps)/queries, arcsPerSec/1e6)
	fmt.Fprintf(stdout, "authenticated solve: median %v (%.2fx native, masked view over the same arrays)\n",
		medAuth.Round(time.Microsecond), medAuth.Seconds()/medNative.Seconds())
	fmt.Fprintf(stdout, "selections changed by untrusted structure: %d of %d queries (top-%d passage sets differ)\n", changed, queries, k)
	return nil
}

// sameNodes reports whether two selections hold the same nodes, in any order.
func sameNodes(a, b []ppr.Scored) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[uint32]bool, len(a))
	for _, s := range a {
		in[s.Node] = true
	}
	for _, s := range b {
		if !in[s.Node] {
			return false
		}
	}
	return true
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
