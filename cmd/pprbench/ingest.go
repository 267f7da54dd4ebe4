package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/snapshot"
)

// runIngest streams an edge file into a snapshot builder and saves the
// snapshot (graph and channel labels) atomically. Long inputs get a
// progress line on stderr every second.
func runIngest(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	var gf graphFlags
	fs.StringVar(&gf.path, "graph", "", "graph file (gzip detected automatically)")
	fs.StringVar(&gf.format, "format", "edges", "file format: edges, triples or ppredge (the binary PPREDGE1 of anchors/gen_graph.py, docs/formats.md; its header says undirected)")
	fs.BoolVar(&gf.undirected, "undirected", false, "treat edges as undirected")
	fs.StringVar(&gf.order, "order", "auto", "node numbering: stream (first appearance), degree (descending degree) or auto (degree when the graph's vectors outgrow a core's L2 cache); the snapshot keeps the ranks, so results by name are unchanged")
	out := fs.String("out", "", "snapshot file to write (required)")
	registerMaxMemory(fs, &gf.maxMemory)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if gf.path == "" || *out == "" {
		return fmt.Errorf("%w: --graph and --out are required", errUsage)
	}
	if err := gf.check(given(fs)); err != nil {
		return err
	}
	start := time.Now()
	limit, err := gf.memoryLimit()
	if err != nil {
		return err
	}
	var g *csr.Graph
	if gf.format == "ppredge" {
		var order csr.NodeOrder
		if order, err = gf.nodeOrder(); err != nil {
			return err
		}
		g, err = csr.ReadFile(gf.path, csr.ReadOptions{Format: csr.FormatPPREDGE1, Order: order, MaxMemory: limit})
	} else {
		g, err = streamGraph(gf, limit, stderr)
	}
	if err != nil {
		return memoryHint(err)
	}
	if g, _, _, err = gf.applyOrder(g, false); err != nil {
		return memoryHint(err)
	}
	built := time.Since(start)
	if err := snapshot.Save(*out, g, mask.FromGraph(g)); err != nil {
		return err
	}
	saved, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ingested %s: %d nodes, %d edges (%d arcs), %s order, in %v; in memory %.1f bytes/arc; snapshot %s: %d bytes, %.1f bytes/edge, saved in %v\n",
		gf.path, g.NumNodes(), g.NumEdges(), g.NumArcs(), orderOf(g), built.Round(time.Millisecond),
		float64(g.MemoryBytes())/float64(g.NumArcs()), *out, saved.Size(),
		float64(saved.Size())/float64(g.NumEdges()), (time.Since(start) - built).Round(time.Millisecond))
	return nil
}

// streamGraph reads a text edge file into a graph within a memory limit
// (csr.Builder.SetMaxMemory), with a progress line on stderr every second
// for inputs of progressMinBytes or more.
func streamGraph(gf graphFlags, maxMemory int64, stderr io.Writer) (*csr.Graph, error) {
	format := csr.Format(gf.format)
	f, err := os.Open(gf.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := csr.NewBuilder(!gf.undirected)
	b.SetMaxMemory(maxMemory)
	edges := 0
	prog := startProgress(stderr, "ingest", gf.path, true)
	err = csr.Stream(prog.reader(f), gf.path, format, func(in csr.Input, _ int) error {
		_, err := b.AddEdge(in)
		edges++
		prog.edge()
		return err
	})
	prog.stop("")
	if err != nil {
		return nil, err
	}
	if edges == 0 {
		return nil, fmt.Errorf("%s: no edges (the input is empty or only comments)", gf.path)
	}
	return b.Build()
}
