package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/authppr/authppr/anchors"
	"github.com/authppr/authppr/ppr"
)

// oracleRecord is one line of anchors/igraph_oracle.py's output.
type oracleRecord struct {
	ID      string       `json:"id"`
	TopK    []scoredName `json:"topk"`
	Seconds float64      `json:"seconds"`
	// BuildSeconds is set on the first line only: igraph's graph build.
	BuildSeconds *float64 `json:"build_s"`
}

// runCompare solves the same graph and queries with authppr and with igraph
// PRPACK (anchors/igraph_oracle.py, built into the binary, or the script
// --oracle names) and prints, per query, the time ratio and whether the
// top-k agree. authppr solves every query before and after igraph's run
// and reports the mean of its two times.
func runCompare(args []string, stdout, stderr io.Writer) error {
	c, err := newComparison(args, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.ld.close()
	if err := c.solveAll(); err != nil {
		return err
	}
	if err := exec.Command(c.python, "-c", "import igraph, numpy").Run(); err != nil {
		fmt.Fprintf(stderr, "pprbench compare: igraph is not available to %s (%v); install Debian's python3-igraph python3-numpy "+
			"(apt-get install -y python3-igraph python3-numpy) to compare. authppr's own results follow.\n", c.python, err)
		return printOurs(stdout, c.queries, c.ours)
	}
	theirs, igraphBuild, err := c.runOracle()
	if err != nil {
		return err
	}
	if err := c.solveAll(); err != nil {
		return err
	}
	return c.report(stdout, theirs, igraphBuild)
}

// comparison is one compare run: the graph, the queries, authppr's answers
// and how igraph is run.
type comparison struct {
	gf        graphFlags
	ld        *loaded
	loadTime  time.Duration
	queries   []namedQuery
	queryPath string
	qs        *querySolver
	damping   float64
	opt       ppr.Options
	certify   bool
	oracle    string
	python    string
	ours      map[string]*solveRecord
}

// newComparison parses compare's flags and loads the graph and queries.
func newComparison(args []string, stdout, stderr io.Writer) (*comparison, error) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	c := &comparison{}
	c.gf.register(fs)
	registerDamping(fs, &c.damping)
	queryPath := fs.String("queries", "", "JSON-lines query file (required)")
	tol := fs.Float64("tol", ppr.DefaultTol, "authppr's L1 error bound (PRPACK always uses 1e-10)")
	certify := fs.Bool("certify", false, "authppr stops once the top-k is proved")
	ordered := fs.Bool("ordered", true, "with --certify: prove the order within the top-k too, not only the set")
	sweeps := sweepOrderFlag(fs)
	threads := fs.Int("threads", 1, "authppr goroutines per sweep (igraph runs on one thread)")
	visits := fs.Bool("visits", false, "with --certify on a directed graph: build the view's visit bounds once before the queries (time reported apart) and prove with them")
	oracle := fs.String("oracle", "", "igraph oracle script to run in place of the built-in copy of anchors/igraph_oracle.py")
	python := fs.String("python", "python3", "Python interpreter with igraph and numpy (Debian: apt-get install python3-igraph python3-numpy)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if *queryPath == "" {
		return nil, fmt.Errorf("%w: --queries is required", errUsage)
	}
	set := given(fs)
	if err := firstErr(
		c.gf.check(set), checkDamping(c.damping), checkTol("tol", *tol), checkAtLeast("threads", *threads, 1),
		onlyWith(set, *certify, "with --certify", "ordered"),
	); err != nil {
		return nil, err
	}
	if c.gf.snapshot != "" {
		return nil, fmt.Errorf("%w: compare reads the text file igraph reads: use --graph", errUsage)
	}
	if *oracle != "" {
		if _, err := os.Stat(*oracle); err != nil {
			return nil, fmt.Errorf("%w: --oracle: %v", errUsage, err)
		}
	}
	c.queryPath, c.certify, c.oracle, c.python = *queryPath, *certify, *oracle, *python
	c.opt = ppr.Options{Tol: *tol, Threads: *threads, Order: *sweeps}
	ld, loadTime, err := c.gf.load(stderr)
	if err != nil {
		return nil, err
	}
	c.ld, c.loadTime = ld, loadTime
	if err := c.prepare(*ordered, *visits, stdout); err != nil {
		ld.close()
		return nil, err
	}
	return c, nil
}

// prepare reads the queries and makes the solver on the native view.
func (c *comparison) prepare(ordered, visits bool, stdout io.Writer) error {
	view, err := (&viewFlags{view: "native"}).build(c.ld)
	if err != nil {
		return err
	}
	if c.queries, err = readQueries(c.ld.g, c.queryPath); err != nil {
		return err
	}
	c.ours = make(map[string]*solveRecord, len(c.queries))
	c.qs = &querySolver{g: c.ld.g, view: view, ordered: ordered}
	return c.qs.buildVisits(visits, c.certify, c.damping, stdout)
}

// solveAll solves every query with authppr. The second pass, after
// igraph's, reports the mean of the two, so that load drifting during the
// run weighs on both sides alike.
func (c *comparison) solveAll() error {
	for _, q := range c.queries {
		rec, err := c.qs.solve(q, c.damping, c.opt, c.certify)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		if old := c.ours[q.ID]; old != nil {
			rec.SolveUS = (rec.SolveUS + old.SolveUS) / 2
		}
		c.ours[q.ID] = rec
	}
	return nil
}

// runOracle runs igraph PRPACK on the graph and queries: its answers by
// query id, and its graph build time (-1 when the oracle gives none).
func (c *comparison) runOracle() (map[string]oracleRecord, float64, error) {
	script := c.oracle
	if script == "" {
		dir, err := os.MkdirTemp("", "pprbench-oracle-")
		if err != nil {
			return nil, 0, err
		}
		defer os.RemoveAll(dir)
		script = filepath.Join(dir, "igraph_oracle.py")
		if err := os.WriteFile(script, anchors.IgraphOracle, 0o644); err != nil {
			return nil, 0, err
		}
	}
	args := []string{script, "--graph", c.gf.path, "--format", c.gf.format, "--damping", fmt.Sprint(c.damping), "--queries", c.queryPath}
	if c.gf.undirected {
		args = append(args, "--undirected")
	}
	cmd := exec.Command(c.python, args...)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1") // one thread, as authppr
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("igraph oracle failed: %v: %s", err, strings.TrimSpace(errOut.String()))
	}
	theirs := map[string]oracleRecord{}
	igraphBuild := -1.0
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec oracleRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, 0, fmt.Errorf("igraph oracle output: %v", err)
		}
		if rec.BuildSeconds != nil {
			igraphBuild = *rec.BuildSeconds
			continue
		}
		theirs[rec.ID] = rec
	}
	return theirs, igraphBuild, sc.Err()
}

// report prints the per-query table, the summary and the build times.
func (c *comparison) report(stdout io.Writer, theirs map[string]oracleRecord, igraphBuild float64) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "query\tauthppr us\tigraph us\tigraph/authppr\ttop-k\tmax score diff")
	var ratios []float64
	agree := 0
	for _, q := range c.queries {
		a, b := c.ours[q.ID], theirs[q.ID]
		if b.TopK == nil {
			return fmt.Errorf("igraph oracle gave no answer for query %s", q.ID)
		}
		ratio := b.Seconds * 1e6 / math.Max(float64(a.SolveUS), 1)
		ratios = append(ratios, ratio)
		same, diff := compareTopK(a.TopK, b.TopK)
		verdict := "same"
		if same {
			agree++
		} else {
			verdict = "DIFFERENT"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.1fx\t%s\t%.2g\n", q.ID, a.SolveUS, b.Seconds*1e6, ratio, verdict, diff)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	slices.Sort(ratios)
	fmt.Fprintf(stdout, "\n%d queries: top-k agree on %d; igraph PRPACK / authppr per query: median %.1fx, min %.1fx\n",
		len(c.queries), agree, ratios[len(ratios)/2], ratios[0])
	if igraphBuild >= 0 {
		ld := c.ld
		build := c.loadTime - ld.reorderTime
		fmt.Fprintf(stdout, "graph build: authppr %.2fs (file read included), igraph %.2fs (file read excluded): authppr/igraph %.2f\n",
			build.Seconds(), igraphBuild, build.Seconds()/igraphBuild)
		if ld.reorderTime > 0 {
			fmt.Fprintf(stdout, "nodes renumbered in %s order in %.2fs more (not in the build time; --order stream skips it)\n", ld.order, ld.reorderTime.Seconds())
		}
	}
	return nil
}

// compareTopK reports whether two selections hold the same nodes (order may
// differ among equal scores) and the largest score difference by node.
func compareTopK(a, b []scoredName) (bool, float64) {
	if len(a) != len(b) {
		return false, math.Inf(1)
	}
	scores := map[string]float64{}
	for _, s := range b {
		scores[s.Node] = s.Score
	}
	same, diff := true, 0.0
	for _, s := range a {
		other, ok := scores[s.Node]
		if !ok {
			same = false
			continue
		}
		diff = math.Max(diff, math.Abs(other-s.Score))
	}
	return same, diff
}

func printOurs(w io.Writer, queries []namedQuery, ours map[string]*solveRecord) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "query\tauthppr us\tsweeps")
	for _, q := range queries {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", q.ID, ours[q.ID].SolveUS, ours[q.ID].Sweeps)
	}
	return tw.Flush()
}
