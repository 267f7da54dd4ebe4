package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/authppr/authppr/internal/attack"
	"github.com/authppr/authppr/internal/bench"
)

// attackOutput is the JSON the attack command writes.
type attackOutput struct {
	Command string               `json:"command"`
	Graphs  []*attack.Report     `json:"graphs"`
	Ledger  *attack.LedgerReport `json:"ledger"`
	Config  map[string]any       `json:"config"`
	Seconds map[string]float64   `json:"seconds"`
}

// runAttack runs the attacks on each graph of --graph and the ledger
// scenario, and prints tables (or the JSON), writing the JSON and charts
// to --out.
func runAttack(args []string, stdout, stderr io.Writer) error {
	a, err := newAttackRun(args)
	if err != nil {
		return err
	}
	res, err := a.run()
	if err != nil {
		return err
	}
	if a.out != "" {
		if err := writeAttackFiles(a.out, res); err != nil {
			return err
		}
	}
	if a.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return printAttack(stdout, res)
}

// attackRun is one attack run: the graphs, the attack and ledger
// settings, and where the results go.
type attackRun struct {
	command         string
	graphs          []string
	data            string
	limit           int64 // --max-memory
	nodes, count, k int
	seed            uint64
	out             string
	asJSON          bool
	cfg             attack.Config
	ledger          attack.LedgerConfig
}

// newAttackRun parses attack's flags and checks them.
func newAttackRun(args []string) (*attackRun, error) {
	fs := flag.NewFlagSet("attack", flag.ContinueOnError)
	a := &attackRun{command: "pprbench attack " + strings.Join(args, " "), cfg: attack.DefaultConfig(), ledger: attack.DefaultLedger}
	graphs := fs.String("graph", "memory", "comma-separated graphs: memory (generated HippoRAG-like) and/or wn18rr (undirected triples, a fifth of the synsets as passages)")
	registerData(fs, &a.data)
	fs.IntVar(&a.nodes, "nodes", 50000, "memory graph size (entities + passages, 4:1)")
	fs.IntVar(&a.count, "queries", 60, "queries per graph")
	fs.IntVar(&a.k, "k", 5, "passages selected per query")
	fs.IntVar(&a.cfg.Budget, "budget", 6, "largest number of attacker writes")
	fs.IntVar(&a.cfg.PerStep, "per-step", 6, "candidate writes greedy tries per step")
	fs.IntVar(&a.cfg.Targets, "targets", 2, "targets greedy tries per query and selector")
	fs.IntVar(&a.cfg.Workers, "workers", 2, "queries attacked at once (results do not depend on it)")
	fs.Uint64Var(&a.seed, "seed", 1, "seed of the graphs, roles and queries")
	fs.Float64Var(&a.ledger.WriteWeight, "ledger-weight", attack.DefaultLedger.WriteWeight, "weight of the untrusted write in the ledger scenario")
	fs.StringVar(&a.out, "out", "", "directory to write attack.json and the SVG charts into")
	fs.BoolVar(&a.asJSON, "json", false, "print the JSON instead of tables")
	var maxMemory string
	registerMaxMemory(fs, &maxMemory)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	var err error
	if a.limit, err = parseMaxMemory(maxMemory); err != nil {
		return nil, err
	}
	if err := a.check(given(fs), *graphs); err != nil {
		return nil, err
	}
	return a, nil
}

// check checks the flags given (set) and parses --graph (spec).
func (a *attackRun) check(set map[string]bool, spec string) error {
	c := a.cfg
	if c.Budget < 1 || c.PerStep < 1 || c.Targets < 1 {
		return fmt.Errorf("%w: --budget %d, --per-step %d, --targets %d: want each at least 1", errUsage, c.Budget, c.PerStep, c.Targets)
	}
	if a.count < 1 || a.k < 1 || a.nodes < 10 {
		return fmt.Errorf("%w: --queries %d, --k %d, --nodes %d: want positive (nodes at least 10)", errUsage, a.count, a.k, a.nodes)
	}
	var err error
	if a.graphs, err = attackGraphs(spec); err != nil {
		return err
	}
	return firstErr(
		checkAtLeast("workers", c.Workers, 1),
		checkWeight("ledger-weight", a.ledger.WriteWeight),
		onlyWith(set, slices.Contains(a.graphs, "memory"), "with memory in --graph", "nodes"),
		onlyWith(set, slices.Contains(a.graphs, "wn18rr"), "with wn18rr in --graph", "data"),
	)
}

// run attacks each graph, then runs the ledger scenario, timing each.
func (a *attackRun) run() (*attackOutput, error) {
	c := a.cfg
	res := &attackOutput{
		Command: a.command,
		Config: map[string]any{
			"selectors": selectorNames(c.Selectors), "ppr_damping": c.PPR.Damping, "ppr_content_weight": c.PPR.ContentWeight,
			"ppr_tol": c.PPR.Tol, "max_merge_arcs": c.MaxMerge, "seed": a.seed, "ledger": a.ledger,
			"trusted_channels": []string{c.Trusted, c.Merger}, "attacker_channel": c.Attacker, "merger_channel": c.Merger,
		},
		Seconds: map[string]float64{},
	}
	for _, name := range a.graphs {
		start := time.Now()
		m, err := a.memory(name)
		if err != nil {
			return nil, memoryHint(err)
		}
		queries, err := m.Queries(a.count, a.k, a.seed)
		if err != nil {
			return nil, err
		}
		r, err := attack.Run(m, queries, c)
		if err != nil {
			return nil, err
		}
		res.Graphs = append(res.Graphs, r)
		res.Seconds[m.Name] = time.Since(start).Seconds()
	}
	start := time.Now()
	ledger, err := attack.Ledger(a.ledger)
	if err != nil {
		return nil, err
	}
	res.Ledger = ledger
	res.Seconds["ledger"] = time.Since(start).Seconds()
	return res, nil
}

// memory makes the named graph (memory or wn18rr) with its roles.
func (a *attackRun) memory(name string) (*attack.Memory, error) {
	if name == "wn18rr" {
		g, err := readWN18RR(a.data, a.limit)
		if err != nil {
			return nil, err
		}
		return attack.SplitRoles("wn18rr", g, 0.2, a.seed)
	}
	// A HippoRAG-like memory graph with every edge trusted.
	mc := bench.DefaultMemory
	mc.Entities, mc.Passages, mc.Seed, mc.UntrustedShare = a.nodes*4/5, a.nodes/5, a.seed, 0
	bm, err := bench.NewMemory(mc)
	if err != nil {
		return nil, err
	}
	return attack.NewMemory(fmt.Sprintf("memory-%dk", (mc.Entities+mc.Passages)/1000), bm.Graph, bm.Passages)
}

// attackGraphs parses --graph: a list of distinct names, memory or wn18rr.
func attackGraphs(spec string) ([]string, error) {
	names := strings.Split(spec, ",")
	for i, name := range names {
		if err := checkChoice("graph", name, "memory", "wn18rr"); err != nil {
			return nil, usagef("--graph %q: %q, want a comma-separated list of memory or wn18rr", spec, name)
		}
		if slices.Contains(names[:i], name) {
			return nil, usagef("--graph %q: %s given twice", spec, name)
		}
	}
	return names, nil
}

func selectorNames(ss []attack.Selector) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name())
	}
	return out
}

func printAttack(w io.Writer, res *attackOutput) error {
	for _, r := range res.Graphs {
		fmt.Fprintf(w, "graph %s: %d nodes, %d edges, %d passages; %d queries, k=%d, budget %d writes (%d candidates per step, %d targets); %.0f s\n\n",
			r.Graph, r.Nodes, r.Edges, r.Candidates, r.Queries, r.K, r.Budget, r.PerStep, r.Targets, res.Seconds[r.Graph])
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "selector\treliance\tS_adv edge-insert b=1\tb=2\tb=%d\tsynonym b=%d\tmerge b=%d\tdelete b=%d\tlaunder b=1\tb=%d\tS_inj b=1\tb=%d\tout-of-pool\n", r.Budget, r.Budget, r.Budget, r.Budget, r.Budget, r.Budget)
		for _, s := range r.Selectors {
			e, l := s.SAdv["edge-insert"], s.SAdv["launder"]
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d of %d\n", s.Name, s.Reliance,
				at(e, 0), at(e, 1), at(e, r.Budget-1), at(s.SAdv["synonym"], r.Budget-1), at(s.SAdv["merge"], r.Budget-1),
				at(s.SAdv["delete"], r.Budget-1), at(l, 0), at(l, r.Budget-1), at(s.SInj, 0), at(s.SInj, r.Budget-1), s.OutOfPool, s.Evaluated)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nPearson correlation of structural reliance across selectors: with S_adv(%d) %s, with S_inj(%d) %s;\n", r.Budget, fmtCorr(r.SelectorPearsonSAdv), r.Budget, fmtCorr(r.SelectorPearsonSInj))
		fmt.Fprintf(w, "across queries, with the edges needed to change the top-k (%d = failed):", r.Budget+1)
		for _, s := range r.Selectors {
			fmt.Fprintf(w, " %s %s", s.Name, fmtCorr(s.RelianceCostPearson))
		}
		fmt.Fprintf(w, "\n\nPPR, each query attacked on its own (cheapest successful attack, else the full-budget one):\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "attack\t|D|\tharm: no defence\tprovenance only\tguard\tguard refused\tties\tfalse alarms\tguard w/o min-inheritance: harm\trefused")
		for _, d := range r.Defences {
			fmt.Fprintf(tw, "%s\t%d of %d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", d.Kind, d.D, d.Queries, d.NoDefence, d.Provenance, d.Guard, d.GuardRefused, d.GuardTies, d.FalseAlarms,
				d.NoInheritance, d.NoInheritanceRefused)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "guard on the clean graph: %d divergences in %d queries (over-blocking)\n", r.CleanOverBlocking, r.CleanQueries)
		fmt.Fprintf(w, "launder: the attacker (%s) plants an edge at a low-value entity, the trusted %s merges it into a high-score one;\n", res.Config["attacker_channel"], res.Config["merger_channel"])
		fmt.Fprint(w, "guard w/o min-inheritance: the same guard on the same labels with the Require labels dropped\n\n")
	}
	l := res.Ledger
	fmt.Fprintf(w, "ledger: %d transfers, top-1 PPR over the accounts; one untrusted write: %s\n", l.Transfers, l.Write)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "defence\tmisdirected (attacked)\trefused\tmisdirected (clean)\trefused (clean)")
	fmt.Fprintf(tw, "none\t%d\t-\t%d\t-\n", l.NoDefence, l.CleanMisdirected)
	fmt.Fprintf(tw, "provenance only\t%d\t0\t%d\t0\n", l.Provenance, l.CleanMisdirected)
	fmt.Fprintf(tw, "guard (reject)\t%d\t%d (%d false alarms)\t%d\t%d\n", l.Guard, l.GuardRefused, l.FalseAlarms, l.CleanMisdirected, l.CleanOverBlocking)
	return tw.Flush()
}

func at(xs []float64, i int) float64 {
	if i < 0 || i >= len(xs) {
		return 0
	}
	return xs[i]
}

func fmtCorr(r *float64) string {
	if r == nil {
		return "n/a (constant)"
	}
	return fmt.Sprintf("%.2f", *r)
}

// writeAttackFiles writes attack.json, one S_adv and one S_inj chart per
// graph and the ledger chart (SVG) into dir.
func writeAttackFiles(dir string, res *attackOutput) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "attack.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	for _, r := range res.Graphs {
		sadv := func(s attack.SelectorReport) []float64 { return s.SAdv["edge-insert"] }
		title := fmt.Sprintf("%s: any top-%d change by edge insertion (%d queries)", r.Graph, r.K, r.Queries)
		if err := budgetChart(r, title, "S_adv(b)", sadv, filepath.Join(dir, "sadv-"+r.Graph+".svg")); err != nil {
			return err
		}
		sinj := func(s attack.SelectorReport) []float64 { return s.SInj }
		title = fmt.Sprintf("%s: a fixed mid-content passage injected into the top-%d", r.Graph, r.K)
		if err := budgetChart(r, title, "S_inj(b)", sinj, filepath.Join(dir, "sinj-"+r.Graph+".svg")); err != nil {
			return err
		}
	}
	return ledgerChart(res.Ledger, filepath.Join(dir, "ledger.svg"))
}

// budgetChart draws one line per selector of a measure against the budget.
func budgetChart(r *attack.Report, title, measure string, values func(attack.SelectorReport) []float64, path string) error {
	var series []chartSeries
	for _, s := range r.Selectors {
		ys := make([]float64, r.Budget)
		for b := range r.Budget {
			ys[b] = at(values(s), b)
		}
		series = append(series, chartSeries{name: s.Name, values: ys})
	}
	return lineChart(path, title, "attacker budget b (edges written)", measure+": share of queries", 1.05, series)
}

// ledgerChart draws the misdirected transfers per defence, attacked and
// clean.
func ledgerChart(l *attack.LedgerReport, path string) error {
	clean := float64(l.CleanMisdirected)
	return barChart(path, fmt.Sprintf("ledger: %d transfers, one untrusted write", l.Transfers), "misdirected transfers",
		float64(max(l.NoDefence, 1))*1.35, []string{"no defence", "provenance only", "guard (reject)"},
		[]chartSeries{
			{name: "attacked: misdirected", values: []float64{float64(l.NoDefence), float64(l.Provenance), float64(l.Guard)}, color: "#c83c3c"},
			{name: fmt.Sprintf("clean run (guard refused %d)", l.CleanOverBlocking), values: []float64{clean, clean, clean}, color: "#466ebe"},
		})
}
