package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/authppr/authppr/ppr"
)

func runSolve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var gf graphFlags
	var vf viewFlags
	gf.register(fs)
	vf.register(fs)
	damping := fs.Float64("damping", 0.85, "damping d as in igraph (teleport 1-d)")
	seedSpec := fs.String("seeds", "", "seed nodes NAME[:WEIGHT],... (weights normalised)")
	k := fs.Int("k", 10, "how many nodes to select")
	candPath := fs.String("candidates", "", "file of candidate node names, one per line (default: all nodes)")
	tol := fs.Float64("tol", ppr.DefaultTol, "L1 error bound to reach")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *k < 1 {
		return fmt.Errorf("%w: --k %d, want at least 1", errUsage, *k)
	}
	g, loadTime, err := gf.load()
	if err != nil {
		return err
	}
	view, err := vf.build(g)
	if err != nil {
		return err
	}
	raw, err := parseSeeds(g, *seedSpec)
	if err != nil {
		return err
	}
	seeds, err := ppr.NewSeeds(g.NumNodes(), raw)
	if err != nil {
		return err
	}
	var cands []uint32
	if *candPath != "" {
		if cands, err = readCandidates(g, *candPath); err != nil {
			return err
		}
	}
	start := time.Now()
	res, err := ppr.Solve(view, seeds, *damping, ppr.Options{Tol: *tol})
	if err != nil {
		return err
	}
	top := ppr.TopK(res.Scores, *k, cands)
	solveTime := time.Since(start)

	if *asJSON {
		type entry struct {
			Node  string  `json:"node"`
			Score float64 `json:"score"`
		}
		out := struct {
			TopK       []entry `json:"topk"`
			Iterations int     `json:"iterations"`
			ResidualL1 float64 `json:"residual_l1"`
			ErrorBound float64 `json:"error_bound_l1"`
			View       string  `json:"view"`
			Nodes      int     `json:"nodes"`
			Edges      int     `json:"edges"`
			Masked     uint64  `json:"masked_edges"`
			LoadUS     int64   `json:"load_us"`
			SolveUS    int64   `json:"solve_us"`
		}{
			TopK: []entry{}, Iterations: res.Sweeps, ResidualL1: res.ResidualL1, ErrorBound: res.ErrorBound,
			View: view.Name(), Nodes: g.NumNodes(), Edges: g.NumEdges(), Masked: view.Masked().GetCardinality(),
			LoadUS: loadTime.Microseconds(), SolveUS: solveTime.Microseconds(),
		}
		for _, s := range top {
			out.TopK = append(out.TopK, entry{g.Name(s.Node), s.Score})
		}
		enc := json.NewEncoder(stdout)
		return enc.Encode(out)
	}
	kind := "directed"
	if !g.Directed() {
		kind = "undirected"
	}
	fmt.Fprintf(stdout, "graph %s: %d nodes, %d edges (%s), loaded in %v\n", gf.path, g.NumNodes(), g.NumEdges(), kind, loadTime.Round(time.Millisecond))
	fmt.Fprintf(stdout, "view %s: %d edges masked\n", view.Name(), view.Masked().GetCardinality())
	fmt.Fprintf(stdout, "solved in %d sweeps, %v; L1 error bound %.2g (residual %.2g)\n\n", res.Sweeps, solveTime.Round(time.Microsecond), res.ErrorBound, res.ResidualL1)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tnode\tscore")
	for i, s := range top {
		fmt.Fprintf(tw, "%d\t%s\t%.12g\n", i+1, g.Name(s.Node), s.Score)
	}
	return tw.Flush()
}
