package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"text/tabwriter"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/replay"
)

func runOverhead(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workload := fs.String("workload", "memory", "memory (generated HippoRAG-like), kg (shared/anchors' KG file, see --kg), wn18rr (undirected, d=0.5) or rmat (directed, d=0.85)")
	kgPath := fs.String("kg", "", "PPREDGE1 file from shared/anchors/gen_graph.py kg (for --workload kg)")
	kgEntities := fs.Int("kg-entities", 200000, "entity count of the --kg graph (its passages follow)")
	nodes := fs.Int("nodes", 250000, "memory graph size (entities + passages, 4:1)")
	scale := fs.Int("scale", 16, "R-MAT scale (2^scale nodes, 16 edges per node)")
	regimeName := fs.String("regime", "one-percent", "few (0.01% untrusted edges), one-percent, or attack (memory only)")
	count := fs.Int("queries", 200, "number of queries")
	data := fs.String("data", filepath.Join("..", "shared", "data"), "directory with wn18rr-train.txt.gz")
	force := fs.String("force", "auto", "start replay at this path: auto, delta or full")
	check := fs.Bool("check", false, "also check every decision against two from-scratch solves (slow)")
	perQuery := fs.String("per-query", "", "also write one JSON line per query to this file (path, outcome, times, arcs, gaps), to see where the tail comes from")
	asJSON := fs.Bool("json", false, "print one JSON object")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the query loop to this file")
	var maxMemory string
	registerMaxMemory(fs, &maxMemory)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkOverheadFlags(given(fs), *workload, *nodes, *scale, *count, *kgEntities, *kgPath); err != nil {
		return err
	}
	regime, err := bench.ParseRegime(*regimeName)
	if err != nil {
		return flagErr("regime", err)
	}
	if regime == bench.Attack && *workload != "memory" {
		return usagef("--regime attack applies only with --workload memory (its attack edges are placed on the memory graph)")
	}
	path, err := replay.ParsePath(*force)
	if err != nil {
		return fmt.Errorf("%w: --force: %v", errUsage, err)
	}
	limit, err := parseMaxMemory(maxMemory)
	if err != nil {
		return err
	}
	start := time.Now()
	var w *bench.Workload
	switch *workload {
	case "memory":
		c := bench.HippoMemory
		c.Entities, c.Passages = *nodes*4/5, *nodes/5
		w, err = bench.MemoryWorkload(c, regime, *count, 1)
	case "kg":
		var g *csr.Graph
		if g, err = csr.ReadFile(*kgPath, csr.ReadOptions{Format: csr.FormatPPREDGE1, MaxMemory: limit}); err == nil {
			w, err = bench.KGWorkload(filepath.Base(*kgPath), g, *kgEntities, regime, *count, 1)
		}
	case "wn18rr":
		var g *csr.Graph
		if g, err = csr.ReadFile(filepath.Join(*data, "wn18rr-train.txt.gz"), csr.ReadOptions{Format: csr.FormatTriples, MaxMemory: limit}); err == nil {
			w, err = bench.GraphWorkload("wn18rr", g, regime, 0.5, *count, 5, 1)
		}
	case "rmat":
		var g *csr.Graph
		if g, err = bench.RMAT(*scale, 16, 1); err == nil {
			w, err = bench.GraphWorkload(fmt.Sprintf("rmat%d", *scale), g, regime, 0.85, *count, 10, 1)
		}
	}
	if err != nil {
		return memoryHint(err)
	}
	setup := time.Since(start)
	guard, err := replay.New(w.Graph, w.Labels, w.Trust, replay.Options{Force: path})
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var sum live.Summary
	arcOps := map[string][]float64{}
	nativeGaps := map[string][]float64{}
	var checked, ambiguous int
	var nativeTotal, replayTotal time.Duration
	var opsRatio []float64
	var perQueryOut *json.Encoder
	closePerQuery := func() error { return nil }
	if *perQuery != "" {
		f, closeF, err := createOutput(*perQuery, nil)
		if err != nil {
			return err
		}
		defer closeF()
		perQueryOut, closePerQuery = json.NewEncoder(f), closeF
	}
	for _, q := range w.Queries {
		rq := replay.Query{Seeds: q.Seeds, K: q.K, Candidates: q.Candidates, Damping: w.Damping}
		d, err := guard.Select(rq)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		sum.Add(d)
		nativeTotal += d.NativeTime
		replayTotal += d.ReplayTime
		// Arcs read, replay against native (a sweep reads every arc): the
		// same ratio without the timer noise of a shared machine.
		opsRatio = append(opsRatio, float64(d.ReplayArcOps)/float64(max(1, d.NativeSweeps)*w.Graph.NumArcs()))
		arcOps[d.Path.String()] = append(arcOps[d.Path.String()], float64(d.ReplayArcOps))
		nativeGaps[d.Path.String()] = append(nativeGaps[d.Path.String()], d.NativeGap)
		if perQueryOut != nil {
			err := perQueryOut.Encode(map[string]any{
				"id": q.ID, "path": d.Path.String(), "outcome": d.Outcome.String(),
				"native_us": d.NativeTime.Microseconds(), "replay_us": d.ReplayTime.Microseconds(),
				"native_sweeps": d.NativeSweeps, "replay_sweeps": d.ReplaySweeps,
				"arcs_ratio": opsRatio[len(opsRatio)-1], "refined": d.Refined,
				"native_gap": jsonFloat(d.NativeGap), "gap_lo": jsonFloat(d.Gap.Lo), "gap_hi": jsonFloat(d.Gap.Hi),
			})
			if err != nil {
				return err
			}
		}
		if *check {
			ref, err := replay.Reference(w.Graph, w.Labels, w.Trust, rq, guard.Options())
			if err != nil {
				return err
			}
			amb, err := ref.Check(d, rq, guard.Options().TieTol)
			if err != nil {
				return fmt.Errorf("query %s: decision differs from the from-scratch reference: %w", q.ID, err)
			}
			checked++
			if amb {
				ambiguous++
			}
		}
	}
	if err := closePerQuery(); err != nil {
		return err
	}
	g := w.Graph
	if *asJSON {
		out := map[string]any{
			"workload": w.Name, "nodes": g.NumNodes(), "edges": g.NumEdges(), "arcs": g.NumArcs(),
			"masked_auth": guard.Auth().Masked().GetCardinality(), "touched_nodes": len(guard.Touched()),
			"queries": sum.Queries, "divergent": sum.Divergent, "ties": sum.Ties, "paths": sum.Paths,
			"overhead_median": live.Quantile(sum.Overhead, 0.5), "overhead_p99": live.Quantile(sum.Overhead, 0.99),
			"overhead_total":       ratio(replayTotal, nativeTotal),
			"arc_ops_ratio_median": live.Quantile(opsRatio, 0.5), "arc_ops_ratio_p99": live.Quantile(opsRatio, 0.99),
			"checked": checked, "ambiguous": ambiguous,
		}
		ops := map[string]float64{}
		for p, xs := range arcOps {
			ops[p] = live.Quantile(xs, 0.5)
		}
		out["replay_arc_ops_median"] = ops
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "workload %s: %d nodes, %d edges (%d arcs), %d masked in the authenticated view, %d touched nodes; set up in %v\n",
		w.Name, g.NumNodes(), g.NumEdges(), g.NumArcs(), guard.Auth().Masked().GetCardinality(), len(guard.Touched()), setup.Round(time.Millisecond))
	fmt.Fprintf(stdout, "%d queries, d=%.2g: %d divergent, %d ties\n", sum.Queries, w.Damping, sum.Divergent, sum.Ties)
	fmt.Fprintf(stdout, "replay overhead (replay time / native time, same query, same run): median %.2f%%, p99 %.2f%%, all queries together %.2f%%\n",
		100*live.Quantile(sum.Overhead, 0.5), 100*live.Quantile(sum.Overhead, 0.99), 100*ratio(replayTotal, nativeTotal))
	fmt.Fprintf(stdout, "arcs read (replay / native sweeps x arcs, per query): median %.2f%%, p99 %.2f%%\n\n",
		100*live.Quantile(opsRatio, 0.5), 100*live.Quantile(opsRatio, 0.99))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "path\tqueries\tmedian replay arc ops\tmax replay arc ops\tmedian native gap")
	for _, p := range []string{"untouched", "certificate", "delta", "full"} {
		if xs := arcOps[p]; len(xs) > 0 {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2g\n", p, len(xs), live.Quantile(xs, 0.5), live.Quantile(xs, 1), live.Quantile(nativeGaps[p], 0.5))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *check {
		fmt.Fprintf(stdout, "\nchecked against from-scratch solves: %d of %d agree (%d ambiguous at the tie band's edge)\n", checked, sum.Queries, ambiguous)
	}
	return nil
}

// checkOverheadFlags checks the workload's flags: its name, the sizes it
// uses, and no flag another workload uses.
func checkOverheadFlags(set map[string]bool, workload string, nodes, scale, count, kgEntities int, kgPath string) error {
	if err := checkChoice("workload", workload, "memory", "kg", "wn18rr", "rmat"); err != nil {
		return err
	}
	if workload == "kg" && kgPath == "" {
		return usagef("--workload kg needs --kg FILE (shared/anchors/gen_graph.py kg --out FILE)")
	}
	return firstErr(
		checkAtLeast("queries", count, 1),
		onlyWith(set, workload == "memory", "with --workload memory", "nodes"),
		onlyWith(set, workload == "kg", "with --workload kg", "kg", "kg-entities"),
		onlyWith(set, workload == "wn18rr", "with --workload wn18rr", "data"),
		onlyWith(set, workload == "rmat", "with --workload rmat", "scale"),
		checkAtLeast("nodes", nodes, 10), checkAtLeast("kg-entities", kgEntities, 1),
		checkRange("scale", scale, 1, 30),
	)
}

// jsonFloat returns x, or nil (null, or left out) for an infinity or NaN,
// which JSON has no number for: every candidate selected makes a gap
// +Inf. No finite stand-in is used: it would read as a measurement.
func jsonFloat(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}
