package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// solveRecord is one query's answer in JSON.
type solveRecord struct {
	ID         string       `json:"id,omitempty"`
	TopK       []scoredName `json:"topk"`
	Iterations int          `json:"iterations"`
	Sweeps     int          `json:"sweeps"`
	// Scans counts the threshold scans among the sweeps; Arcs the arcs
	// the solve read (sweeps, scans and pushes), ReverseArcs those of its
	// reverse pushes (certified top-k refinement), counted apart;
	// LocalChecks the checks that read only the nodes the query reached.
	Scans       int     `json:"scans,omitempty"`
	Arcs        int64   `json:"arcs"`
	ReverseArcs int64   `json:"reverse_arcs,omitempty"`
	LocalChecks int     `json:"local_checks,omitempty"`
	ResidualL1  float64 `json:"residual_l1"`
	ErrorBound  float64 `json:"error_bound_l1"`
	// With --certify: Certified says the selection is proved as a set,
	// Ordered that its order is proved too (ppr.TopKResult); Gap is the
	// k-th score minus the best unselected one and ProvedGap a lower
	// bound on the exact gap. When every candidate is selected there is
	// no gap: both are absent and EveryCandidateSelected says why.
	Certified              *bool    `json:"certified,omitempty"`
	Ordered                *bool    `json:"ordered,omitempty"`
	Gap                    *float64 `json:"gap,omitempty"`
	ProvedGap              *float64 `json:"proved_gap,omitempty"`
	EveryCandidateSelected bool     `json:"every_candidate_selected,omitempty"`
	View                   string   `json:"view"`
	Nodes                  int      `json:"nodes,omitempty"`
	Edges                  int      `json:"edges,omitempty"`
	Masked                 uint64   `json:"masked_edges"`
	LoadUS                 int64    `json:"load_us,omitempty"`
	SolveUS                int64    `json:"solve_us"`
	// orderAsked: the solve tried to prove the order (--ordered).
	orderAsked bool
}

type scoredName struct {
	Node  string  `json:"node"`
	Score float64 `json:"score"`
	// Err, with --certify, bounds |pi - score| for this entry
	// (ppr.TopKResult.ScoreErrs); without it error_bound_l1 bounds
	// every entry.
	Err *float64 `json:"error,omitempty"`
}

// runSolve solves one seed set (--seeds) or a file of queries (--queries)
// on the graph and prints each top-k, as text or JSON.
func runSolve(args []string, stdout, stderr io.Writer) error {
	s, err := newSolve(args, stderr)
	if err != nil {
		return err
	}
	defer s.ld.close()
	if err := s.prepare(stderr); err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for i, q := range s.queries {
		rec, err := s.answer(i, q)
		if err != nil {
			return err
		}
		if err := s.report(w, i, q, rec); err != nil {
			return err
		}
	}
	return nil
}

// solveRun is one solve run: its settings, the graph and view, the
// queries and the solver.
type solveRun struct {
	gf                         graphFlags
	vf                         viewFlags
	damping, tol               float64
	seedSpec, queryPath, cands string
	k, threads                 int
	certify, ordered, asJSON   bool
	visits, batched            bool
	sweeps                     *ppr.Order
	ld                         *loaded
	loadTime                   time.Duration
	view                       *mask.View
	queries                    []namedQuery
	batchRecs                  []*solveRecord // with --batch: every query's answer
	qs                         *querySolver
}

// newSolve parses solve's flags, checks them and loads the graph. The
// caller must close s.ld.
func newSolve(args []string, stderr io.Writer) (*solveRun, error) {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	s := &solveRun{}
	s.gf.register(fs)
	s.vf.register(fs)
	registerDamping(fs, &s.damping)
	fs.StringVar(&s.seedSpec, "seeds", "", "seed nodes NAME[:WEIGHT],... (weights normalised)")
	fs.StringVar(&s.queryPath, "queries", "", "JSON-lines query file (the replay format) instead of --seeds/--k/--candidates")
	fs.IntVar(&s.k, "k", 10, "how many nodes to select")
	fs.StringVar(&s.cands, "candidates", "", "file of candidate node names, one per line (default: all nodes)")
	fs.Float64Var(&s.tol, "tol", ppr.DefaultTol, "L1 error bound to reach")
	fs.BoolVar(&s.certify, "certify", false, "stop as soon as the top-k is proved (or tol is reached), not at tol")
	fs.BoolVar(&s.ordered, "ordered", true, "with --certify: prove the order within the top-k too, not only the set (the output says whether the order was proved)")
	s.sweeps = sweepOrderFlag(fs)
	fs.IntVar(&s.threads, "threads", 1, "goroutines per sweep (more than 1: parallel Jacobi sweeps)")
	fs.BoolVar(&s.asJSON, "json", false, "print JSON (one object per query)")
	fs.BoolVar(&s.visits, "visits", false, "with --certify on a directed graph: build the view's visit bounds once, before the queries, and prove with them; the build time goes to standard error")
	fs.BoolVar(&s.batched, "batch", false, "with --queries: solve the queries 16 at a time, each sweep over the graph serving the whole batch (Gauss-Seidel sweeps, not certified); solve_us is the batch's time divided among its queries")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := s.check(given(fs)); err != nil {
		return nil, err
	}
	var err error
	if s.ld, s.loadTime, err = s.gf.load(stderr); err != nil {
		return nil, err
	}
	return s, nil
}

// check checks the flags given (set) before anything is read.
func (s *solveRun) check(set map[string]bool) error {
	if s.queryPath != "" && (s.seedSpec != "" || s.cands != "") {
		return fmt.Errorf("%w: --queries replaces --seeds and --candidates", errUsage)
	}
	if s.batched && (s.queryPath == "" || s.certify) {
		return fmt.Errorf("%w: --batch needs --queries and does not certify", errUsage)
	}
	return firstErr(
		s.gf.check(set), s.vf.check(),
		checkDamping(s.damping), checkTol("tol", s.tol),
		checkAtLeast("k", s.k, 1), checkAtLeast("threads", s.threads, 1),
		onlyWith(set, s.queryPath == "", "without --queries (each query gives its own k)", "k"),
		onlyWith(set, s.certify, "with --certify", "ordered"),
		onlyWith(set, !s.batched, "without --batch (a batch solves on one thread)", "threads"),
	)
}

// prepare builds the view, reads the queries, solves them all with
// --batch and builds the visit bounds with --visits (their cost on
// stderr).
func (s *solveRun) prepare(stderr io.Writer) error {
	var err error
	if s.view, err = s.vf.build(s.ld); err != nil {
		return err
	}
	if s.queries, err = s.readQueries(); err != nil {
		return err
	}
	if s.batched {
		if s.batchRecs, err = solveBatched(s.ld.g, s.view, s.queries, s.damping, ppr.Options{Tol: s.tol, Order: *s.sweeps}); err != nil {
			return err
		}
	}
	s.qs = &querySolver{g: s.ld.g, view: s.view, ordered: s.ordered}
	return s.qs.buildVisits(s.visits, s.certify, s.damping, stderr)
}

// readQueries reads --queries, or makes the one query of --seeds, --k
// and --candidates.
func (s *solveRun) readQueries() ([]namedQuery, error) {
	g := s.ld.g
	if s.queryPath != "" {
		return readQueries(g, s.queryPath)
	}
	raw, err := parseSeeds(g, s.seedSpec)
	if err != nil {
		return nil, err
	}
	q := namedQuery{Seeds: raw, K: s.k}
	if s.cands != "" {
		if q.Candidates, err = readCandidates(g, s.cands); err != nil {
			return nil, err
		}
	}
	return []namedQuery{q}, nil
}

// answer solves query i (or takes its batch's answer), naming the query
// in an error.
func (s *solveRun) answer(i int, q namedQuery) (*solveRecord, error) {
	if s.batchRecs != nil {
		return s.batchRecs[i], nil
	}
	rec, err := s.qs.solve(q, s.damping, ppr.Options{Tol: s.tol, Threads: s.threads, Order: *s.sweeps}, s.certify)
	if err != nil && q.ID != "" {
		return nil, fmt.Errorf("query %s: %w", q.ID, err)
	}
	return rec, err
}

// report prints one answer: a JSON object (--json), a line per query
// (--queries) or the text of one solve.
func (s *solveRun) report(w io.Writer, i int, q namedQuery, rec *solveRecord) error {
	g := s.ld.g
	switch {
	case s.asJSON:
		if s.queryPath == "" {
			rec.Nodes, rec.Edges, rec.LoadUS = g.NumNodes(), g.NumEdges(), s.loadTime.Microseconds()
		}
		return json.NewEncoder(w).Encode(rec)
	case s.queryPath != "":
		names := make([]string, len(rec.TopK))
		for j, x := range rec.TopK {
			names[j] = x.Node
		}
		fmt.Fprintf(w, "%s\t%d sweeps\t%dus\t%v", q.ID, rec.Sweeps, rec.SolveUS, names)
		if rec.Certified != nil {
			fmt.Fprintf(w, "\t%s", proofSummary(rec))
		}
		fmt.Fprintln(w)
	default:
		printSolveText(w, g, s.gf.name(), s.view, s.loadTime, rec, i)
	}
	return nil
}

// querySolver solves queries on one view with one engine, reused through
// Restart, so a query allocates nothing proportional to the graph after
// the first.
type querySolver struct {
	g      *csr.Graph
	view   *mask.View
	eng    *ppr.Engine
	visits *ppr.VisitBounds // nil: certify without visit bounds
	// ordered: a certified solve proves the order within the selection
	// too (ppr.Options.Ordered).
	ordered bool
}

// buildVisits builds the view's visit bounds when asked (--visits, which
// needs --certify) and reports their cost on w.
func (qs *querySolver) buildVisits(want, certify bool, damping float64, w io.Writer) error {
	if !want {
		return nil
	}
	if !certify {
		return fmt.Errorf("%w: --visits needs --certify", errUsage)
	}
	start := time.Now()
	vb, err := ppr.NewVisitBounds(qs.view, damping)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "visit bounds: built in %dus (%d pulls over every arc, %d nodes' diagonals by reverse push reading %d arcs; within %.1f%%)\n",
		time.Since(start).Microseconds(), vb.Pulls, vb.Pushed, vb.ReverseArcs, 100*vb.Loose)
	qs.visits = vb
	return nil
}

// solve solves one query and times the solve and top-k alone.
func (qs *querySolver) solve(q namedQuery, damping float64, opt ppr.Options, certify bool) (*solveRecord, error) {
	g, view := qs.g, qs.view
	seeds, err := ppr.NewSeeds(g.NumNodes(), q.Seeds)
	if err != nil {
		return nil, err
	}
	rec := &solveRecord{ID: q.ID, TopK: []scoredName{}, View: view.Name(), Masked: view.Masked().GetCardinality()}
	start := time.Now()
	if qs.eng == nil {
		qs.eng, err = ppr.NewEngine(view, seeds, damping)
	} else {
		err = qs.eng.Restart(seeds, damping)
	}
	if err != nil {
		return nil, err
	}
	if certify {
		err = qs.solveTopK(rec, q, damping, opt)
	} else {
		var res *ppr.Result
		if res, err = qs.eng.SolveSweeps(opt); err == nil {
			top := ppr.TopK(res.Scores, q.K, q.Candidates, g.Ranks())
			rec.Sweeps, rec.ErrorBound, rec.ResidualL1 = res.Sweeps, res.ErrorBound, res.ResidualL1
			for _, s := range top {
				rec.TopK = append(rec.TopK, scoredName{Node: g.Name(s.Node), Score: s.Score})
			}
		}
	}
	if err != nil {
		return nil, err
	}
	rec.SolveUS = time.Since(start).Microseconds()
	rec.Iterations = rec.Sweeps
	rec.Arcs = qs.eng.Stats.ArcOps
	return rec, nil
}

// solveTopK runs a certified solve on the restarted engine (ordered when
// qs.ordered) and records the selection with each score's error bound and
// what was proved.
func (qs *querySolver) solveTopK(rec *solveRecord, q namedQuery, damping float64, opt ppr.Options) error {
	opt.Visits, opt.Ordered = qs.visits, qs.ordered
	res, err := qs.eng.SolveTopK(q.K, q.Candidates, opt)
	if err != nil {
		return err
	}
	rec.Sweeps, rec.ErrorBound = res.Sweeps, res.ErrorBound
	rec.Scans, rec.ReverseArcs, rec.LocalChecks = res.Scans, res.ReverseArcs, res.LocalChecks
	rec.ResidualL1 = res.ErrorBound * (1 - damping)
	certified, ordered := res.Certified, res.Ordered
	rec.Certified, rec.Ordered, rec.orderAsked = &certified, &ordered, qs.ordered
	// Every candidate selected: ppr's gaps are +Inf, which JSON has no
	// number for; the fields are left out and the flag says why.
	rec.Gap, rec.ProvedGap = jsonFloat(res.Gap), jsonFloat(res.ProvedGap)
	rec.EveryCandidateSelected = math.IsInf(res.Gap, 1)
	for i, s := range res.TopK {
		rec.TopK = append(rec.TopK, scoredName{Node: qs.g.Name(s.Node), Score: s.Score, Err: jsonFloat(res.ScoreErrs[i])})
	}
	return nil
}

// solveBatched solves the queries 16 at a time with ppr.SolveBatch (one
// wide batch where the kernel level has it) and gives each query an equal
// share of its batch's time.
func solveBatched(g *csr.Graph, view *mask.View, queries []namedQuery, damping float64, opt ppr.Options) ([]*solveRecord, error) {
	var recs []*solveRecord
	for lo := 0; lo < len(queries); lo += 16 {
		part := queries[lo:min(lo+16, len(queries))]
		seeds := make([]ppr.Seeds, len(part))
		for i, q := range part {
			s, err := ppr.NewSeeds(g.NumNodes(), q.Seeds)
			if err != nil {
				return nil, fmt.Errorf("query %s: %w", q.ID, err)
			}
			seeds[i] = s
		}
		start := time.Now()
		res, err := ppr.SolveBatch(view, seeds, damping, opt)
		if err != nil {
			return nil, err
		}
		tops := make([][]ppr.Scored, len(part))
		for i, q := range part {
			tops[i] = ppr.TopK(res[i].Scores, q.K, q.Candidates, g.Ranks())
		}
		share := time.Since(start).Microseconds() / int64(len(part))
		for i, q := range part {
			rec := &solveRecord{ID: q.ID, TopK: []scoredName{}, View: view.Name(), Masked: view.Masked().GetCardinality(),
				Sweeps: res[i].Sweeps, Iterations: res[i].Sweeps, ErrorBound: res[i].ErrorBound, ResidualL1: res[i].ResidualL1, SolveUS: share}
			for _, s := range tops[i] {
				rec.TopK = append(rec.TopK, scoredName{Node: g.Name(s.Node), Score: s.Score})
			}
			recs = append(recs, rec)
		}
	}
	return recs, nil
}

func printSolveText(w io.Writer, g *csr.Graph, path string, view *mask.View, loadTime time.Duration, rec *solveRecord, _ int) {
	kind := "directed"
	if !g.Directed() {
		kind = "undirected"
	}
	fmt.Fprintf(w, "graph %s: %d nodes, %d edges (%s), loaded in %v\n", path, g.NumNodes(), g.NumEdges(), kind, loadTime.Round(time.Millisecond))
	fmt.Fprintf(w, "view %s: %d edges masked\n", view.Name(), rec.Masked)
	fmt.Fprintf(w, "solved in %d sweeps, %dus; L1 error bound %.2g (residual %.2g)", rec.Sweeps, rec.SolveUS, rec.ErrorBound, rec.ResidualL1)
	if rec.Certified != nil {
		fmt.Fprintf(w, "; top-k: %s", proofSummary(rec))
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if rec.Certified != nil {
		fmt.Fprintln(tw, "rank\tnode\tscore\terror bound")
	} else {
		fmt.Fprintln(tw, "rank\tnode\tscore")
	}
	for i, s := range rec.TopK {
		fmt.Fprintf(tw, "%d\t%s\t%.12g", i+1, s.Node, s.Score)
		if s.Err != nil {
			fmt.Fprintf(tw, "\t%.2g", *s.Err)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// proofSummary says what a certified solve proved: the set (or that every
// candidate is selected, which needs no proof) and the order.
func proofSummary(rec *solveRecord) string {
	var set string
	switch {
	case rec.EveryCandidateSelected:
		set = "every candidate selected (no gap to prove)"
	case *rec.Certified:
		set = fmt.Sprintf("set proved (gap %.3g, proved at least %.3g)", *rec.Gap, *rec.ProvedGap)
	default:
		set = fmt.Sprintf("set not proved (gap %.3g within the error at the tolerance)", *rec.Gap)
	}
	order := "order proved"
	switch {
	case *rec.Ordered:
	case rec.orderAsked:
		order = "order not proved (scores within their error bounds of each other at the tolerance)"
	default:
		order = "order not proved (--ordered=false proves the set only)"
	}
	return set + ", " + order
}

// sweepOrderFlag registers --sweeps, the ppr.Order of the solves.
func sweepOrderFlag(fs *flag.FlagSet) *ppr.Order {
	o := new(ppr.Order)
	fs.Func("sweeps", "sweep `ORDER`: default (normalized for --certify on a directed graph, gauss-seidel otherwise), gauss-seidel, jacobi or normalized", func(s string) error {
		var err error
		*o, err = parseSweepOrder(s)
		return err
	})
	return o
}

// parseSweepOrder reads a sweep order by its name (ppr.Order.String): "default",
// "gauss-seidel", "jacobi" or "normalized".
func parseSweepOrder(s string) (ppr.Order, error) {
	for _, o := range []ppr.Order{0, ppr.GaussSeidel, ppr.Jacobi, ppr.Normalized} {
		if s == o.String() {
			return o, nil
		}
	}
	return 0, fmt.Errorf("sweep order %q, want default, gauss-seidel, jacobi or normalized", s)
}
