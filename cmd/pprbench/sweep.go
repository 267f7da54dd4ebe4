package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/authppr/authppr/anchors"
	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
	"github.com/authppr/authppr/internal/cpu"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// sweepKernel is one way to advance an engine by a sweep.
type sweepKernel struct {
	name    string
	threads int
	step    func(e *ppr.Engine)
}

// sweepRow is one timed kernel.
type sweepRow struct {
	name    string
	threads int
	perIter time.Duration
}

// runSweep times one sweep of each kernel on one graph, measures the memory
// floor for the same shape in the same run and, with --c, runs the C loop
// of anchors/c/ppr_csr.c on the same file, then prints every time as a
// ratio to the floor and to the C loop.
func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var gf graphFlags
	gf.registerOrdered(fs, "stream") // --reorder adds degree order's rows
	reps := fs.Int("reps", 15, "sweeps timed per kernel (the median is reported)")
	damping := fs.Float64("damping", 0.85, "damping d")
	threads := fs.Int("threads", 2, "threads for the parallel rows (1 to skip them)")
	reorder := fs.Bool("reorder", true, "also time the kernels on a copy of the graph in degree order (csr.DegreeOrder)")
	wide := fs.Bool("float64", true, "when the graph stores float32 weights, also time the kernels on it with float64 weights (ReadOptions.Float64Weights; the same results)")
	cLoop := fs.String("c", "", "the plain C loop to run on the same file (--format ppredge only): a program built from anchors/c/ppr_csr.c, or build to compile it now with the C compiler $CC names (cc by default; needs OpenMP, as gcc has); empty for no C column")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := given(fs)
	if err := firstErr(
		gf.check(set), checkDamping(*damping), checkAtLeast("reps", *reps, 1), checkAtLeast("threads", *threads, 1),
		onlyWith(set, gf.format == "ppredge", "with --format ppredge (the C loop reads PPREDGE1 files)", "c"),
	); err != nil {
		return err
	}
	if gf.order != "stream" {
		return fmt.Errorf("%w: sweep times the stream order and (--reorder) the degree order itself; --order %s is not used", errUsage, gf.order)
	}
	if *cLoop == "build" {
		dir, err := os.MkdirTemp("", "pprbench-c-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if *cLoop, err = buildCLoop(dir); err != nil {
			return err
		}
	}
	ld, loadTime, err := gf.load(stderr)
	if err != nil {
		return err
	}
	defer ld.close()
	g := ld.g
	arcs := float64(max(g.NumArcs(), 1))
	fmt.Fprintf(stdout, "graph %s: %d nodes, %d arcs, unit weights %v, loaded in %v; kernels %v\n",
		gf.name(), g.NumNodes(), g.NumArcs(), g.UnitWeights(), loadTime.Round(time.Millisecond), cpu.Best())
	fmt.Fprintf(stdout, "memory: snapshot %.1f bytes/arc, sweep's hot arrays %.1f bytes/arc;", float64(g.MemoryBytes())/arcs, float64(hotBytes(g))/arcs)
	for _, p := range csrHooks.MemoryParts(g) {
		if p.SharedWith == "" {
			fmt.Fprintf(stdout, " %s %.2f", p.Name, float64(p.Bytes)/arcs)
		} else {
			fmt.Fprintf(stdout, " %s=%s", p.Name, p.SharedWith)
		}
	}
	fmt.Fprintln(stdout)

	// Every kernel gets its own engine; the reps go round-robin over the
	// kernels so that the machine's load drifts over all of them alike.
	type timed struct {
		sweepKernel
		e  *ppr.Engine
		ds []time.Duration
	}
	var runs []*timed
	// groups[name] is the index in runs of the first kernel on that copy.
	groups := map[string]int{}
	addGraph := func(g *csr.Graph, suffix string) error {
		groups[suffix] = len(runs)
		view := mask.Full(g)
		seeds, err := ppr.NewSeeds(g.NumNodes(), pickSeeds(g, 5))
		if err != nil {
			return err
		}
		kernels := []sweepKernel{
			{"jacobi pull (Sweep)", 1, func(e *ppr.Engine) { e.Sweep(ppr.Jacobi, 1) }},
			{"gauss-seidel push (PushSweep)", 1, func(e *ppr.Engine) { e.Sweep(ppr.GaussSeidel, 1) }},
		}
		if *threads > 1 {
			kernels = append(kernels, sweepKernel{"jacobi pull (SweepParallel)", *threads, func(e *ppr.Engine) { e.Sweep(ppr.Jacobi, *threads) }})
		}
		for _, k := range kernels {
			e, err := ppr.NewEngine(view, seeds, *damping)
			if err != nil {
				return err
			}
			for range 3 { // spread the residual over the graph first
				e.Sweep(ppr.Jacobi, 1)
			}
			k.name += suffix
			runs = append(runs, &timed{sweepKernel: k, e: e})
		}
		return nil
	}
	if err := addGraph(g, ""); err != nil {
		return err
	}
	if *wide && csrHooks.Float32(g) {
		start := time.Now()
		g64 := csrHooks.WithWeightStorage(g, true)
		fmt.Fprintf(stdout, "float64 copy built in %v: hot arrays %.1f bytes/arc\n", time.Since(start).Round(time.Millisecond), float64(hotBytes(g64))/arcs)
		if err := addGraph(g64, ", float64 weights"); err != nil {
			return err
		}
	}
	if *reorder {
		start := time.Now()
		rg, err := csr.Reorder(g, csr.DegreeOrder)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "degree order built in %v\n", time.Since(start).Round(time.Millisecond))
		if err := addGraph(rg, ", degree order"); err != nil {
			return err
		}
	}
	timeReps := func(reps int) {
		for range reps {
			for _, r := range runs {
				start := time.Now()
				r.step(r.e)
				r.ds = append(r.ds, time.Since(start))
			}
		}
	}
	threadCounts := []int{1}
	if *threads > 1 {
		threadCounts = append(threadCounts, *threads)
	}
	// The C loop runs between the two halves of the reps, so that the
	// machine's load over the run weighs on both sides alike.
	timeReps(*reps / 2)
	cRows := map[int]map[string]time.Duration{}
	if *cLoop != "" && gf.format == "ppredge" {
		if _, err := os.Stat(*cLoop); err != nil {
			fmt.Fprintf(stderr, "pprbench sweep: C loop %s not found (build anchors/c/ppr_csr.c, or give --c build): no C column\n", *cLoop)
		} else {
			for _, th := range threadCounts {
				if cRows[th], err = runCLoop(*cLoop, gf.path, th); err != nil {
					return err
				}
			}
		}
	}
	timeReps(*reps - *reps/2)
	var rows []sweepRow
	for _, r := range runs {
		rows = append(rows, sweepRow{r.name, r.threads, bench.Median(r.ds)})
	}

	weightBytes := 8
	if csrHooks.Float32(g) {
		weightBytes = 4
	}
	if g.UnitWeights() {
		weightBytes = 0
	}
	shape := bench.SweepShape{Nodes: g.NumNodes(), Arcs: g.NumArcs(), WeightBytes: weightBytes}
	floors := map[int]bench.Floor{1: bench.MeasureFloor(shape, 1, 5)}
	if *threads > 1 {
		floors[*threads] = bench.MeasureFloor(shape, *threads, 5)
	}
	for _, th := range threadCounts {
		f := floors[th]
		fmt.Fprintf(stdout, "floor, %d thread(s): copy %.1f GB/s, random gather %.2f ns/arc; stream %.2f ms + gather %.2f ms -> %.2f ms (overlap) .. %.2f ms (serial)\n",
			th, f.CopyGBps, f.GatherNs, ms(f.StreamTime), ms(f.GatherTime), ms(f.OverlapFloor), ms(f.SerialFloor))
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "kernel\tthreads\tms/sweep\t/floor (overlap)\t/floor (serial)\t/C f64 loop")
	for _, r := range rows {
		f := floors[r.threads]
		c := "-"
		if cf, ok := cRows[r.threads]["f64"]; ok {
			c = fmt.Sprintf("%.2fx", float64(r.perIter)/float64(cf))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2fx\t%.2fx\t%s\n", r.name, r.threads, ms(r.perIter),
			float64(r.perIter)/float64(f.OverlapFloor), float64(r.perIter)/float64(f.SerialFloor), c)
	}
	for _, th := range threadCounts {
		for _, v := range []string{"f64", "f32", "pattern"} {
			if d, ok := cRows[th][v]; ok {
				fmt.Fprintf(tw, "C ppr_csr %s\t%d\t%.2f\t%.2fx\t%.2fx\t%.2fx\n", v, th, ms(d),
					float64(d)/float64(floors[th].OverlapFloor), float64(d)/float64(floors[th].SerialFloor), float64(d)/float64(cRows[th]["f64"]))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *threads > 1 && len(rows) >= 3 {
		fmt.Fprintf(stdout, "threads: %d-thread Jacobi sweep is %.2fx faster than 1 thread\n", *threads, float64(rows[0].perIter)/float64(rows[2].perIter))
	}
	if i, ok := groups[", float64 weights"]; ok {
		fmt.Fprintf(stdout, "weight storage: float32 / float64 time: Jacobi sweep %.2f, Gauss-Seidel sweep %.2f",
			float64(rows[0].perIter)/float64(rows[i].perIter), float64(rows[1].perIter)/float64(rows[i+1].perIter))
		if *threads > 1 {
			fmt.Fprintf(stdout, ", %d-thread Jacobi sweep %.2f", *threads, float64(rows[2].perIter)/float64(rows[i+2].perIter))
		}
		fmt.Fprintln(stdout)
	}
	if i, ok := groups[", degree order"]; ok {
		fmt.Fprintf(stdout, "degree order: Jacobi sweep %.2fx, Gauss-Seidel sweep %.2fx faster than stream order\n",
			float64(rows[0].perIter)/float64(rows[i].perIter), float64(rows[1].perIter)/float64(rows[i+1].perIter))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// pickSeeds returns k distinct seeds with out-arcs, drawn from a fixed
// generator, weight 1 each.
func pickSeeds(g *csr.Graph, k int) []ppr.Seed {
	rng := rand.New(rand.NewPCG(7, 7))
	out := g.Out()
	var seeds []ppr.Seed
	seen := map[uint32]bool{}
	for tries := 0; len(seeds) < k && tries < 1000*k; tries++ {
		u := uint32(rng.IntN(g.NumNodes()))
		if lo, hi := out.Span(u); hi > lo && !seen[u] {
			seen[u] = true
			seeds = append(seeds, ppr.Seed{Node: u, Weight: 1})
		}
	}
	if len(seeds) == 0 {
		seeds = append(seeds, ppr.Seed{Node: 0, Weight: 1})
	}
	return seeds
}

// buildCLoop compiles anchors/c/ppr_csr.c (anchors.PPRLoop) into dir as
// anchors/run_all.sh does, with the C compiler $CC names (cc when unset),
// and returns the program's path.
func buildCLoop(dir string) (string, error) {
	cc := strings.Fields(os.Getenv("CC"))
	if len(cc) == 0 {
		cc = []string{"cc"}
	}
	if _, err := exec.LookPath(cc[0]); err != nil {
		return "", fmt.Errorf("--c build: no C compiler: %v (install gcc, e.g. apt-get install gcc, set CC, or give --c a built program)", err)
	}
	src, prog := filepath.Join(dir, "ppr_csr.c"), filepath.Join(dir, "ppr_csr")
	if err := os.WriteFile(src, anchors.PPRLoop, 0o644); err != nil {
		return "", err
	}
	args := append(cc[1:], "-O3", "-march=native", "-fopenmp", src, "-o", prog, "-lm")
	if out, err := exec.Command(cc[0], args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("--c build: %s %s: %v (the C loop needs OpenMP: gcc has it): %s", cc[0], strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return prog, nil
}

// runCLoop runs the C loop on a PPREDGE1 file on th OpenMP threads and
// returns its median bare-iteration time per variant (f64, f32, pattern).
func runCLoop(path, file string, th int) (map[string]time.Duration, error) {
	cmd := exec.Command(path, file, "1")
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+strconv.Itoa(th))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("the C loop %s: %v: %s", path, err, bytes.TrimSpace(errOut.Bytes()))
	}
	res := map[string]time.Duration{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var rec struct {
			Bench   string  `json:"bench"`
			Variant string  `json:"variant"`
			Median  float64 `json:"ms_per_iter_median"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("the C loop %s: output line %q: %v", path, sc.Text(), err)
		}
		if rec.Bench == "c_iter" {
			res[rec.Variant] = time.Duration(rec.Median * 1e6)
		}
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("the C loop %s: no c_iter lines in its output", path)
	}
	return res, nil
}
