package main

import (
	"bufio"
	"bytes"
	_ "embed"
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

	"github.com/authppr/authppr/ppr"
)

// oracleRecord is one line of shared/anchors/igraph_oracle.py's output.
type oracleRecord struct {
	ID      string       `json:"id"`
	TopK    []scoredName `json:"topk"`
	Seconds float64      `json:"seconds"`
	// BuildSeconds is set on the PPREDGE1 reader's first line only.
	BuildSeconds *float64 `json:"build_s"`
}

// ppredgeOracle runs igraph PRPACK on a PPREDGE1 file.
//
//go:embed ppredge_oracle.py
var ppredgeOracle []byte

// runCompare solves the same graph and queries with authppr and with igraph
// PRPACK (through shared/anchors/igraph_oracle.py) and prints, per query,
// the time ratio and whether the top-k agree. authppr solves every query
// before and after igraph's run and reports the mean of its two times.
func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var gf graphFlags
	gf.register(fs)
	damping := fs.Float64("damping", 0.85, "damping d as in igraph")
	queryPath := fs.String("queries", "", "JSON-lines query file (required)")
	tol := fs.Float64("tol", ppr.DefaultTol, "authppr's L1 error bound (PRPACK always uses 1e-10)")
	certify := fs.Bool("certify", false, "authppr stops once the top-k is proved")
	ordered := fs.Bool("ordered", true, "with --certify: prove the order within the top-k too, not only the set")
	sweeps := sweepOrderFlag(fs)
	threads := fs.Int("threads", 1, "authppr goroutines per sweep (igraph runs on one thread)")
	visits := fs.Bool("visits", false, "with --certify on a directed graph: build the view's visit bounds once before the queries (time reported apart) and prove with them")
	oracle := fs.String("oracle", filepath.Join("..", "shared", "anchors", "igraph_oracle.py"), "path to igraph_oracle.py")
	python := fs.String("python", "/usr/bin/python3", "Python with Debian's python3-igraph")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *queryPath == "" {
		return fmt.Errorf("%w: --queries is required", errUsage)
	}
	set := given(fs)
	if err := firstErr(
		gf.check(set), checkDamping(*damping), checkTol("tol", *tol), checkAtLeast("threads", *threads, 1),
		onlyWith(set, *certify, "with --certify", "ordered"),
	); err != nil {
		return err
	}
	if gf.snapshot != "" {
		return fmt.Errorf("%w: compare reads the text file igraph reads: use --graph", errUsage)
	}
	ld, loadTime, err := gf.load()
	if err != nil {
		return err
	}
	defer ld.close()
	g := ld.g
	var vf viewFlags
	vf.view = "native"
	view, err := vf.build(ld)
	if err != nil {
		return err
	}
	queries, err := readQueries(g, *queryPath)
	if err != nil {
		return err
	}
	ours := make(map[string]*solveRecord, len(queries))
	qs := &querySolver{g: g, view: view, ordered: *ordered}
	if err := qs.buildVisits(*visits, *certify, *damping, stdout); err != nil {
		return err
	}
	solveAll := func() error {
		for _, q := range queries {
			rec, err := qs.solve(q, *damping, ppr.Options{Tol: *tol, Threads: *threads, Order: *sweeps}, *certify)
			if err != nil {
				return fmt.Errorf("query %s: %w", q.ID, err)
			}
			if old := ours[q.ID]; old != nil {
				// The second pass, after igraph's: report the mean of the
				// two, so that load drifting during the run weighs on both
				// sides alike.
				rec.SolveUS = (rec.SolveUS + old.SolveUS) / 2
			}
			ours[q.ID] = rec
		}
		return nil
	}
	if err := solveAll(); err != nil {
		return err
	}

	if err := exec.Command(*python, "-c", "import igraph, numpy").Run(); err != nil {
		fmt.Fprintf(stderr, "pprbench compare: igraph is not available to %s (%v); install Debian's python3-igraph python3-numpy "+
			"(apt-get install -y python3-igraph python3-numpy) to compare. authppr's own results follow.\n", *python, err)
		return printOurs(stdout, queries, ours)
	}
	var oracleArgs []string
	if gf.format == "ppredge" {
		// igraph_oracle.py reads text only: run the embedded PPREDGE1 reader.
		script := filepath.Join(os.TempDir(), fmt.Sprintf("pprbench-ppredge-oracle-%d.py", os.Getpid()))
		if err := os.WriteFile(script, ppredgeOracle, 0o644); err != nil {
			return err
		}
		defer os.Remove(script)
		oracleArgs = []string{script, gf.path, fmt.Sprint(*damping), *queryPath}
	} else {
		if _, err := os.Stat(*oracle); err != nil {
			return fmt.Errorf("oracle script: %w (set --oracle)", err)
		}
		oracleArgs = []string{*oracle, "--graph", gf.path, "--format", gf.format, "--damping", fmt.Sprint(*damping), "--queries", *queryPath}
		if gf.undirected {
			oracleArgs = append(oracleArgs, "--undirected")
		}
	}
	cmd := exec.Command(*python, oracleArgs...)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1") // one thread, as authppr
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("igraph oracle failed: %v: %s", err, strings.TrimSpace(errOut.String()))
	}
	if err := solveAll(); err != nil {
		return err
	}
	theirs := map[string]oracleRecord{}
	igraphBuild := -1.0
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec oracleRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("igraph oracle output: %v", err)
		}
		if rec.BuildSeconds != nil {
			igraphBuild = *rec.BuildSeconds
			continue
		}
		theirs[rec.ID] = rec
	}

	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "query\tauthppr us\tigraph us\tigraph/authppr\ttop-k\tmax score diff")
	var ratios []float64
	agree := 0
	for _, q := range queries {
		a, b := ours[q.ID], theirs[q.ID]
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
		len(queries), agree, ratios[len(ratios)/2], ratios[0])
	if igraphBuild >= 0 {
		build := loadTime - ld.reorderTime
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
