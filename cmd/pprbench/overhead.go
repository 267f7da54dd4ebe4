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

// startCPUProfile starts a CPU profile written to path (nothing when path
// is empty); stop ends it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

func runOverhead(args []string, stdout, stderr io.Writer) error {
	o, err := newOverhead(args)
	if err != nil {
		return err
	}
	stop, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	err = o.run()
	if err := stop(); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	if o.asJSON {
		return json.NewEncoder(stdout).Encode(o.jsonReport())
	}
	return o.report(stdout)
}

// overhead is one overhead run: the workload, its guard, and what the
// queries measured.
type overhead struct {
	w          *bench.Workload
	guard      *replay.Guard
	setup      time.Duration
	check      bool
	perQuery   string
	asJSON     bool
	cpuProfile string

	sum                     live.Summary
	arcOps, nativeGaps      map[string][]float64 // by path
	opsRatio                []float64
	checked, ambiguous      int
	nativeTotal, guardTotal time.Duration
}

// newOverhead parses overhead's flags and sets the workload and guard up.
func newOverhead(args []string) (*overhead, error) {
	fs := flag.NewFlagSet("overhead", flag.ContinueOnError)
	workload := fs.String("workload", "memory", "memory (generated HippoRAG-like), kg (the KG graph anchors/gen_graph.py makes, see --kg), wn18rr (undirected, d=0.5; see --data) or rmat (directed, d=0.85)")
	kgPath := fs.String("kg", "", "PPREDGE1 file from anchors/gen_graph.py kg (for --workload kg)")
	kgEntities := fs.Int("kg-entities", 200000, "entity count of the --kg graph (its passages follow)")
	nodes := fs.Int("nodes", 250000, "memory graph size (entities + passages, 4:1)")
	scale := fs.Int("scale", 16, "R-MAT scale (2^scale nodes, 16 edges per node)")
	regimeName := fs.String("regime", "one-percent", "few (0.01% untrusted edges), one-percent, or attack (memory only)")
	count := fs.Int("queries", 200, "number of queries")
	var data string
	registerData(fs, &data)
	force := fs.String("force", "auto", "start replay at this path: auto, delta or full")
	o := &overhead{arcOps: map[string][]float64{}, nativeGaps: map[string][]float64{}}
	fs.BoolVar(&o.check, "check", false, "also check every decision against two from-scratch solves (slow)")
	fs.StringVar(&o.perQuery, "per-query", "", "also write one JSON line per query to this file (path, outcome, times, arcs, gaps), to see where the tail comes from")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the query loop to this file")
	var maxMemory string
	registerMaxMemory(fs, &maxMemory)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := checkOverheadFlags(given(fs), *workload, *nodes, *scale, *count, *kgEntities, *kgPath); err != nil {
		return nil, err
	}
	regime, err := bench.ParseRegime(*regimeName)
	if err != nil {
		return nil, flagErr("regime", err)
	}
	if regime == bench.Attack && *workload != "memory" {
		return nil, usagef("--regime attack applies only with --workload memory (its attack edges are placed on the memory graph)")
	}
	path, err := replay.ParsePath(*force)
	if err != nil {
		return nil, fmt.Errorf("%w: --force: %v", errUsage, err)
	}
	limit, err := parseMaxMemory(maxMemory)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	w := workloadSpec{name: *workload, kgPath: *kgPath, kgEntities: *kgEntities, nodes: *nodes, scale: *scale, data: data}
	if o.w, err = w.make(regime, *count, limit); err != nil {
		return nil, memoryHint(err)
	}
	o.setup = time.Since(start)
	if o.guard, err = replay.New(o.w.Graph, o.w.Labels, o.w.Trust, replay.Options{Force: path}); err != nil {
		return nil, err
	}
	return o, nil
}

// workloadSpec is the workload the flags name.
type workloadSpec struct {
	name, kgPath, data       string
	kgEntities, nodes, scale int
}

func (s workloadSpec) make(regime bench.Regime, count int, limit int64) (*bench.Workload, error) {
	switch s.name {
	case "memory":
		c := bench.HippoMemory
		c.Entities, c.Passages = s.nodes*4/5, s.nodes/5
		return bench.MemoryWorkload(c, regime, count, 1)
	case "kg":
		g, err := csr.ReadFile(s.kgPath, csr.ReadOptions{Format: csr.FormatPPREDGE1, MaxMemory: limit})
		if err != nil {
			return nil, err
		}
		return bench.KGWorkload(filepath.Base(s.kgPath), g, s.kgEntities, regime, count, 1)
	case "wn18rr":
		g, err := readWN18RR(s.data, limit)
		if err != nil {
			return nil, err
		}
		return bench.GraphWorkload("wn18rr", g, regime, 0.5, count, 5, 1)
	default: // rmat; checkOverheadFlags checked the name
		g, err := bench.RMAT(s.scale, 16, 1)
		if err != nil {
			return nil, err
		}
		return bench.GraphWorkload(fmt.Sprintf("rmat%d", s.scale), g, regime, 0.85, count, 10, 1)
	}
}

// run guards every query, and checks each decision with --check.
func (o *overhead) run() error {
	var perQueryOut *json.Encoder
	closePerQuery := func() error { return nil }
	if o.perQuery != "" {
		f, closeF, err := createOutput(o.perQuery, nil)
		if err != nil {
			return err
		}
		defer closeF()
		perQueryOut, closePerQuery = json.NewEncoder(f), closeF
	}
	for _, q := range o.w.Queries {
		rq := replay.Query{Seeds: q.Seeds, K: q.K, Candidates: q.Candidates, Damping: o.w.Damping}
		d, err := o.guard.Select(rq)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		o.add(d)
		if perQueryOut != nil {
			if err := perQueryOut.Encode(o.queryRecord(q.ID, d)); err != nil {
				return err
			}
		}
		if o.check {
			if err := o.verify(q.ID, rq, d); err != nil {
				return err
			}
		}
	}
	return closePerQuery()
}

// add counts one decision.
func (o *overhead) add(d *replay.Decision) {
	o.sum.Add(d)
	o.nativeTotal += d.NativeTime
	o.guardTotal += d.ReplayTime
	// Arcs read, replay against native (a sweep reads every arc): the
	// same ratio without the timer noise of a shared machine.
	o.opsRatio = append(o.opsRatio, float64(d.ReplayArcOps)/float64(max(1, d.NativeSweeps)*o.w.Graph.NumArcs()))
	o.arcOps[d.Path.String()] = append(o.arcOps[d.Path.String()], float64(d.ReplayArcOps))
	o.nativeGaps[d.Path.String()] = append(o.nativeGaps[d.Path.String()], d.NativeGap)
}

// queryRecord is one line of --per-query.
func (o *overhead) queryRecord(id string, d *replay.Decision) map[string]any {
	return map[string]any{
		"id": id, "path": d.Path.String(), "outcome": d.Outcome.String(),
		"native_us": d.NativeTime.Microseconds(), "replay_us": d.ReplayTime.Microseconds(),
		"native_sweeps": d.NativeSweeps, "replay_sweeps": d.ReplaySweeps,
		"arcs_ratio": o.opsRatio[len(o.opsRatio)-1], "refined": d.Refined,
		"native_gap": jsonFloat(d.NativeGap), "gap_lo": jsonFloat(d.Gap.Lo), "gap_hi": jsonFloat(d.Gap.Hi),
	}
}

// verify checks d against the from-scratch reference.
func (o *overhead) verify(id string, rq replay.Query, d *replay.Decision) error {
	ref, err := replay.Reference(o.w.Graph, o.w.Labels, o.w.Trust, rq, o.guard.Options())
	if err != nil {
		return err
	}
	amb, err := ref.Check(d, rq, o.guard.Options().TieTol)
	if err != nil {
		return fmt.Errorf("query %s: decision differs from the from-scratch reference: %w", id, err)
	}
	o.checked++
	if amb {
		o.ambiguous++
	}
	return nil
}

// jsonReport is --json's object.
func (o *overhead) jsonReport() map[string]any {
	g, sum := o.w.Graph, &o.sum
	out := map[string]any{
		"workload": o.w.Name, "nodes": g.NumNodes(), "edges": g.NumEdges(), "arcs": g.NumArcs(),
		"masked_auth": o.guard.Auth().Masked().GetCardinality(), "touched_nodes": len(o.guard.Touched()),
		"queries": sum.Queries, "divergent": sum.Divergent, "ties": sum.Ties, "paths": sum.Paths,
		"overhead_median": live.Quantile(sum.Overhead, 0.5), "overhead_p99": live.Quantile(sum.Overhead, 0.99),
		"overhead_total":       ratio(o.guardTotal, o.nativeTotal),
		"arc_ops_ratio_median": live.Quantile(o.opsRatio, 0.5), "arc_ops_ratio_p99": live.Quantile(o.opsRatio, 0.99),
		"checked": o.checked, "ambiguous": o.ambiguous,
	}
	ops := map[string]float64{}
	for p, xs := range o.arcOps {
		ops[p] = live.Quantile(xs, 0.5)
	}
	out["replay_arc_ops_median"] = ops
	return out
}

// report prints the run in text.
func (o *overhead) report(stdout io.Writer) error {
	g, sum := o.w.Graph, &o.sum
	fmt.Fprintf(stdout, "workload %s: %d nodes, %d edges (%d arcs), %d masked in the authenticated view, %d touched nodes; set up in %v\n",
		o.w.Name, g.NumNodes(), g.NumEdges(), g.NumArcs(), o.guard.Auth().Masked().GetCardinality(), len(o.guard.Touched()), o.setup.Round(time.Millisecond))
	fmt.Fprintf(stdout, "%d queries, d=%.2g: %d divergent, %d ties\n", sum.Queries, o.w.Damping, sum.Divergent, sum.Ties)
	fmt.Fprintf(stdout, "replay overhead (replay time / native time, same query, same run): median %.2f%%, p99 %.2f%%, all queries together %.2f%%\n",
		100*live.Quantile(sum.Overhead, 0.5), 100*live.Quantile(sum.Overhead, 0.99), 100*ratio(o.guardTotal, o.nativeTotal))
	fmt.Fprintf(stdout, "arcs read (replay / native sweeps x arcs, per query): median %.2f%%, p99 %.2f%%\n\n",
		100*live.Quantile(o.opsRatio, 0.5), 100*live.Quantile(o.opsRatio, 0.99))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "path\tqueries\tmedian replay arc ops\tmax replay arc ops\tmedian native gap")
	for _, p := range []string{"untouched", "certificate", "delta", "full"} {
		if xs := o.arcOps[p]; len(xs) > 0 {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2g\n", p, len(xs), live.Quantile(xs, 0.5), live.Quantile(xs, 1), live.Quantile(o.nativeGaps[p], 0.5))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if o.check {
		fmt.Fprintf(stdout, "\nchecked against from-scratch solves: %d of %d agree (%d ambiguous at the tie band's edge)\n", o.checked, sum.Queries, o.ambiguous)
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
		return usagef("--workload kg needs --kg FILE (made by anchors/gen_graph.py kg --out FILE)")
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
