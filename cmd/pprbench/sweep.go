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
	s, err := newSweep(args, stdout, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	s.header()
	if err := s.addCopies(); err != nil {
		return err
	}
	if err := s.time(); err != nil {
		return err
	}
	return s.report()
}

// sweep is one sweep run: its settings, the graph, the kernels timed on
// each copy of it and what they measured.
type sweep struct {
	gf             graphFlags
	reps, threads  int
	damping        float64
	reorder, wide  bool
	cLoop, cDir    string // cDir: where --c build put the program
	stdout, stderr io.Writer

	ld       *loaded
	loadTime time.Duration
	runs     []*timedKernel
	// groups[suffix] is the index in runs of the first kernel on the
	// copy the suffix names ("" for the graph as loaded).
	groups map[string]int
	rows   []sweepRow
	cRows  map[int]map[string]time.Duration // by threads, then variant
}

// timedKernel is a kernel, its own engine and the times of its sweeps.
type timedKernel struct {
	sweepKernel
	e  *ppr.Engine
	ds []time.Duration
}

// newSweep parses sweep's flags, builds the C loop if --c build asks for
// it and loads the graph. The caller must call close.
func newSweep(args []string, stdout, stderr io.Writer) (*sweep, error) {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	s := &sweep{stdout: stdout, stderr: stderr, groups: map[string]int{}, cRows: map[int]map[string]time.Duration{}}
	s.gf.registerOrdered(fs, "stream") // --reorder adds degree order's rows
	fs.IntVar(&s.reps, "reps", 15, "sweeps timed per kernel (the median is reported)")
	registerDamping(fs, &s.damping)
	fs.IntVar(&s.threads, "threads", 2, "threads for the parallel rows (1 to skip them)")
	fs.BoolVar(&s.reorder, "reorder", true, "also time the kernels on a copy of the graph in degree order (descending degree)")
	fs.BoolVar(&s.wide, "float64", true, "when the graph stores float32 weights, also time the kernels on a copy with float64 weights (the same results)")
	fs.StringVar(&s.cLoop, "c", "", "the plain C loop to run on the same file (--format ppredge only): a program built from anchors/c/ppr_csr.c, or build to compile it now with the C compiler $CC names (cc by default; needs OpenMP, as gcc has); empty for no C column")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	set := given(fs)
	if err := firstErr(
		s.gf.check(set), checkDamping(s.damping), checkAtLeast("reps", s.reps, 1), checkAtLeast("threads", s.threads, 1),
		onlyWith(set, s.gf.format == "ppredge", "with --format ppredge (the C loop reads PPREDGE1 files)", "c"),
	); err != nil {
		return nil, err
	}
	if s.gf.order != "stream" {
		return nil, fmt.Errorf("%w: sweep times the stream order and (--reorder) the degree order itself; --order %s is not used", errUsage, s.gf.order)
	}
	if err := s.load(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// load builds the C loop (--c build) and loads the graph.
func (s *sweep) load() error {
	if s.cLoop == "build" {
		var err error
		if s.cDir, err = os.MkdirTemp("", "pprbench-c-"); err != nil {
			return err
		}
		if s.cLoop, err = buildCLoop(s.cDir); err != nil {
			return err
		}
	}
	var err error
	s.ld, s.loadTime, err = s.gf.load(s.stderr)
	return err
}

// close releases the graph and removes the C loop --c build made.
func (s *sweep) close() {
	if s.ld != nil {
		s.ld.close()
	}
	if s.cDir != "" {
		os.RemoveAll(s.cDir)
	}
}

// header prints the graph and its memory per arc.
func (s *sweep) header() {
	g, w := s.ld.g, s.stdout
	arcs := float64(max(g.NumArcs(), 1))
	fmt.Fprintf(w, "graph %s: %d nodes, %d arcs, unit weights %v, loaded in %v; kernels %v\n",
		s.gf.name(), g.NumNodes(), g.NumArcs(), g.UnitWeights(), s.loadTime.Round(time.Millisecond), cpu.Best())
	fmt.Fprintf(w, "memory: snapshot %.1f bytes/arc, sweep's hot arrays %.1f bytes/arc;", float64(g.MemoryBytes())/arcs, float64(hotBytes(g))/arcs)
	for _, p := range csrHooks.MemoryParts(g) {
		if p.SharedWith == "" {
			fmt.Fprintf(w, " %s %.2f", p.Name, float64(p.Bytes)/arcs)
		} else {
			fmt.Fprintf(w, " %s=%s", p.Name, p.SharedWith)
		}
	}
	fmt.Fprintln(w)
}

// addCopies adds the kernels on the graph, on its float64 copy (--float64,
// when it stores float32 weights) and on its degree-order copy
// (--reorder), saying what each copy took to build.
func (s *sweep) addCopies() error {
	g := s.ld.g
	if err := s.addGraph(g, ""); err != nil {
		return err
	}
	if s.wide && csrHooks.Float32(g) {
		start := time.Now()
		g64 := csrHooks.WithWeightStorage(g, true)
		fmt.Fprintf(s.stdout, "float64 copy built in %v: hot arrays %.1f bytes/arc\n", time.Since(start).Round(time.Millisecond), float64(hotBytes(g64))/float64(max(g.NumArcs(), 1)))
		if err := s.addGraph(g64, ", float64 weights"); err != nil {
			return err
		}
	}
	if !s.reorder {
		return nil
	}
	start := time.Now()
	rg, err := csr.Reorder(g, csr.DegreeOrder)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "degree order built in %v\n", time.Since(start).Round(time.Millisecond))
	return s.addGraph(rg, ", degree order")
}

// addGraph adds the kernels on g, their names ending in suffix, each with
// its own engine.
func (s *sweep) addGraph(g *csr.Graph, suffix string) error {
	s.groups[suffix] = len(s.runs)
	view := mask.Full(g)
	seeds, err := ppr.NewSeeds(g.NumNodes(), pickSeeds(g, 5))
	if err != nil {
		return err
	}
	kernels := []sweepKernel{
		{"jacobi pull (Sweep)", 1, func(e *ppr.Engine) { e.Sweep(ppr.Jacobi, 1) }},
		{"gauss-seidel push (PushSweep)", 1, func(e *ppr.Engine) { e.Sweep(ppr.GaussSeidel, 1) }},
	}
	if th := s.threads; th > 1 {
		kernels = append(kernels, sweepKernel{"jacobi pull (SweepParallel)", th, func(e *ppr.Engine) { e.Sweep(ppr.Jacobi, th) }})
	}
	for _, k := range kernels {
		e, err := ppr.NewEngine(view, seeds, s.damping)
		if err != nil {
			return err
		}
		for range 3 { // spread the residual over the graph first
			e.Sweep(ppr.Jacobi, 1)
		}
		k.name += suffix
		s.runs = append(s.runs, &timedKernel{sweepKernel: k, e: e})
	}
	return nil
}

// threadCounts are the thread counts of the rows: 1 and --threads.
func (s *sweep) threadCounts() []int {
	if s.threads > 1 {
		return []int{1, s.threads}
	}
	return []int{1}
}

// time times the reps, round-robin over the kernels so that the machine's
// load drifts over all of them alike, and runs the C loop between the two
// halves of the reps, so that the load over the run weighs on both sides
// alike.
func (s *sweep) time() error {
	s.timeReps(s.reps / 2)
	if err := s.runC(); err != nil {
		return err
	}
	s.timeReps(s.reps - s.reps/2)
	for _, r := range s.runs {
		s.rows = append(s.rows, sweepRow{r.name, r.threads, bench.Median(r.ds)})
	}
	return nil
}

func (s *sweep) timeReps(reps int) {
	for range reps {
		for _, r := range s.runs {
			start := time.Now()
			r.step(r.e)
			r.ds = append(r.ds, time.Since(start))
		}
	}
}

// runC runs the C loop (--c) at each thread count; a program that is not
// there is said on stderr, and there is no C column.
func (s *sweep) runC() error {
	if s.cLoop == "" || s.gf.format != "ppredge" {
		return nil
	}
	if _, err := os.Stat(s.cLoop); err != nil {
		fmt.Fprintf(s.stderr, "pprbench sweep: C loop %s not found (build anchors/c/ppr_csr.c, or give --c build): no C column\n", s.cLoop)
		return nil
	}
	for _, th := range s.threadCounts() {
		var err error
		if s.cRows[th], err = runCLoop(s.cLoop, s.gf.path, th); err != nil {
			return err
		}
	}
	return nil
}

// report measures the memory floors and prints them, the table of every
// row as ratios to the floor and to the C loop, and the summary lines.
func (s *sweep) report() error {
	floors := s.floors()
	for _, th := range s.threadCounts() {
		f := floors[th]
		fmt.Fprintf(s.stdout, "floor, %d thread(s): copy %.1f GB/s, random gather %.2f ns/arc; stream %.2f ms + gather %.2f ms -> %.2f ms (overlap) .. %.2f ms (serial)\n",
			th, f.CopyGBps, f.GatherNs, ms(f.StreamTime), ms(f.GatherTime), ms(f.OverlapFloor), ms(f.SerialFloor))
	}
	if err := s.table(floors); err != nil {
		return err
	}
	s.summary()
	return nil
}

// floors measures the memory floor of the graph's shape at each thread
// count.
func (s *sweep) floors() map[int]bench.Floor {
	g := s.ld.g
	weightBytes := 8
	if csrHooks.Float32(g) {
		weightBytes = 4
	}
	if g.UnitWeights() {
		weightBytes = 0
	}
	shape := bench.SweepShape{Nodes: g.NumNodes(), Arcs: g.NumArcs(), WeightBytes: weightBytes}
	floors := map[int]bench.Floor{1: bench.MeasureFloor(shape, 1, 5)}
	if s.threads > 1 {
		floors[s.threads] = bench.MeasureFloor(shape, s.threads, 5)
	}
	return floors
}

// table prints the kernels' rows and the C loop's.
func (s *sweep) table(floors map[int]bench.Floor) error {
	tw := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "kernel\tthreads\tms/sweep\t/floor (overlap)\t/floor (serial)\t/C f64 loop")
	for _, r := range s.rows {
		f := floors[r.threads]
		c := "-"
		if cf, ok := s.cRows[r.threads]["f64"]; ok {
			c = fmt.Sprintf("%.2fx", float64(r.perIter)/float64(cf))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2fx\t%.2fx\t%s\n", r.name, r.threads, ms(r.perIter),
			float64(r.perIter)/float64(f.OverlapFloor), float64(r.perIter)/float64(f.SerialFloor), c)
	}
	for _, th := range s.threadCounts() {
		for _, v := range []string{"f64", "f32", "pattern"} {
			if d, ok := s.cRows[th][v]; ok {
				fmt.Fprintf(tw, "C ppr_csr %s\t%d\t%.2f\t%.2fx\t%.2fx\t%.2fx\n", v, th, ms(d),
					float64(d)/float64(floors[th].OverlapFloor), float64(d)/float64(floors[th].SerialFloor), float64(d)/float64(s.cRows[th]["f64"]))
			}
		}
	}
	return tw.Flush()
}

// summary prints the ratios between rows: threads, weight storage, node
// order.
func (s *sweep) summary() {
	rows, w := s.rows, s.stdout
	if s.threads > 1 && len(rows) >= 3 {
		fmt.Fprintf(w, "threads: %d-thread Jacobi sweep is %.2fx faster than 1 thread\n", s.threads, float64(rows[0].perIter)/float64(rows[2].perIter))
	}
	if i, ok := s.groups[", float64 weights"]; ok {
		fmt.Fprintf(w, "weight storage: float32 / float64 time: Jacobi sweep %.2f, Gauss-Seidel sweep %.2f",
			float64(rows[0].perIter)/float64(rows[i].perIter), float64(rows[1].perIter)/float64(rows[i+1].perIter))
		if s.threads > 1 {
			fmt.Fprintf(w, ", %d-thread Jacobi sweep %.2f", s.threads, float64(rows[2].perIter)/float64(rows[i+2].perIter))
		}
		fmt.Fprintln(w)
	}
	if i, ok := s.groups[", degree order"]; ok {
		fmt.Fprintf(w, "degree order: Jacobi sweep %.2fx, Gauss-Seidel sweep %.2fx faster than stream order\n",
			float64(rows[0].perIter)/float64(rows[i].perIter), float64(rows[1].perIter)/float64(rows[i+1].perIter))
	}
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
