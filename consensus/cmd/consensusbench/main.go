// Command consensusbench measures the consensus package: the median time of
// the exact rank-aware selection over many random graphs per setting
// (medians), and the empirical robustness of sample-and-aggregate
// (internal/sampleagg) against its bound (robust). Both print markdown
// tables.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/authppr/authppr/consensus"
	"github.com/authppr/authppr/internal/randgraph"
	"github.com/authppr/authppr/internal/sampleagg"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: consensusbench medians|robust [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "medians":
		err = runMedians(os.Args[2:], os.Stdout)
	case "robust":
		err = runRobust(os.Args[2:], os.Stdout)
	default:
		err = fmt.Errorf("unknown command %q, want medians or robust", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "consensusbench:", err)
		os.Exit(1)
	}
}

// setting is one row of the medians table.
type setting struct {
	name string
	make func(rng *rand.Rand, k int) (*consensus.Graph, error)
}

func settings() []setting {
	var out []setting
	for _, d := range []float64{0.05, 0.1, 0.2, 0.3} {
		out = append(out, setting{fmt.Sprintf("random density %.2f", d), func(rng *rand.Rand, k int) (*consensus.Graph, error) {
			return consensus.BuildGraph(k, consensus.JudgeFunc(randgraph.Contradictions(rng, d)))
		}})
	}
	// Adversarial: the last quarter of the items collude (agree with each
	// other, contradict every honest item); honest items disagree at 0.1.
	out = append(out, setting{"collusion k/4, honest 0.10", func(rng *rand.Rand, k int) (*consensus.Graph, error) {
		return collusionGraph(rng, k, k/4, 0.1, 1)
	}})
	out = append(out, setting{"collusion k/3, honest 0.20", func(rng *rand.Rand, k int) (*consensus.Graph, error) {
		return collusionGraph(rng, k, k/3, 0.2, 1)
	}})
	return out
}

// collusionGraph draws randgraph.Collusion's adversarial shape: the last c
// items collude.
func collusionGraph(rng *rand.Rand, k, c int, density, cross float64) (*consensus.Graph, error) {
	judge, err := randgraph.Collusion(rng, k, c, density, cross)
	if err != nil {
		return nil, err
	}
	return consensus.BuildGraph(k, consensus.JudgeFunc(judge))
}

func runMedians(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("medians", flag.ContinueOnError)
	graphs := fs.Int("graphs", 200, "random graphs per setting")
	seed := fs.Uint64("seed", 1, "PCG seed")
	maxNodes := fs.Int64("max-nodes", 0, "node budget per selection (0: Select's default, 2^20)")
	ks := fs.String("k", "64,128", "comma-separated item counts")
	only := fs.String("shape", "", "run only the shapes whose name contains this")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// CPU time of the selecting thread is what the targets mean on a
	// shared machine; wall time is printed beside it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fmt.Fprintf(w, "| setting | graphs | median CPU | p90 CPU | max CPU | median wall | median nodes | budget exceeded |\n|---|---|---|---|---|---|---|---|\n")
	var kList []int
	for _, f := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return fmt.Errorf("-k: %q is not a positive item count", f)
		}
		kList = append(kList, k)
	}
	for _, k := range kList {
		for _, s := range settings() {
			if !strings.Contains(s.name, *only) {
				continue
			}
			rng := rand.New(rand.NewPCG(*seed, uint64(k)))
			var times, cpu []time.Duration
			var nodes []int64
			over := 0
			for i := 0; i < *graphs; i++ {
				g, err := s.make(rng, k)
				if err != nil {
					return err
				}
				start, c0 := time.Now(), threadCPU()
				sel, err := consensus.Select(g, consensus.Options{MaxNodes: *maxNodes})
				cpu = append(cpu, time.Duration(threadCPU()-c0))
				times = append(times, time.Since(start))
				nodes = append(nodes, sel.Nodes)
				if err != nil {
					over++
				}
			}
			slices.Sort(times)
			slices.Sort(cpu)
			slices.Sort(nodes)
			us := func(d time.Duration) string { return d.Round(time.Microsecond).String() }
			fmt.Fprintf(w, "| %d %s | %d | %s | %s | %s | %s | %d | %d |\n", k, s.name, *graphs,
				us(cpu[len(cpu)/2]), us(cpu[len(cpu)*9/10]), us(cpu[len(cpu)-1]), us(times[len(times)/2]), nodes[len(nodes)/2], over)
		}
	}
	return nil
}

func runRobust(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("robust", flag.ContinueOnError)
	k := fs.Int("k", 50, "items")
	t := fs.Int("t", 15, "samples per aggregation")
	m := fs.Int("m", 5, "items per sample")
	runs := fs.Int("runs", 2000, "seeded aggregations per row")
	seed := fs.Uint64("seed", 1, "first seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	type scheme struct {
		name    string
		weights []float64
	}
	var schemes []scheme
	for _, g := range []float64{0.8, 0.9, 1} {
		wts, err := sampleagg.GeometricWeights(*k, g)
		if err != nil {
			return err
		}
		schemes = append(schemes, scheme{fmt.Sprintf("gamma %.1f", g), wts})
	}
	schemes = append(schemes, scheme{"linear", sampleagg.LinearWeights(*k)})
	ranks := func(lo, hi int) []int { // 1-based inclusive ranks -> indices
		var out []int
		for r := lo; r <= hi && r <= *k; r++ {
			out = append(out, r-1)
		}
		return out
	}
	attacks := []struct {
		name string
		bad  []int
	}{
		{"1", ranks(1, 1)}, {"1-2", ranks(1, 2)}, {"10", ranks(10, 10)}, {"10-14", ranks(10, 14)},
		{fmt.Sprintf("%d-%d", *k-4, *k), ranks(*k-4, *k)}, {fmt.Sprintf("%d-%d", *k-9, *k), ranks(*k-9, *k)},
	}
	fmt.Fprintf(w, "k = %d items, T = %d samples of m = %d, %d seeded runs per row\n\n", *k, *t, *m, *runs)
	fmt.Fprintf(w, "| weights | malicious ranks | c | sample hit rate | qBar (bound) | P(malicious answer) | bound | within bound |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range schemes {
		for _, a := range attacks {
			rate, hit, err := sampleagg.AttackRate(s.weights, a.bad, *t, *m, *runs, *seed)
			if err != nil {
				return err
			}
			q, bound, err := sampleagg.AttackBound(s.weights, a.bad, *t, *m)
			if err != nil {
				return err
			}
			// Within bound: the measured rate is below the bound plus three
			// binomial standard errors of the estimate.
			se := math.Sqrt(max(bound*(1-bound), 1e-12) / float64(*runs))
			ok := rate <= bound+3*se
			fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3f | %.4f | %.4f | %v |\n", s.name, a.name, len(a.bad), hit, q, rate, bound, ok)
		}
	}
	return nil
}
