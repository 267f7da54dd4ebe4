package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/authppr/authppr/internal/version"
)

// command is one subcommand: its name, group (use or measure), a one-line
// summary, the synopsis of its flags (required ones bare, optional ones in
// brackets), one example, and what runs it.
type command struct {
	name, group, summary string
	synopsis, example    string
	run                  func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"solve", "use", "PPR for a seed set on a graph file: the top-k, certified or solved to a tolerance",
			"--graph PATH | --snapshot PATH (--seeds NAME[:W],... | --queries FILE) [--k K] [--certify] [--view native|auth --trust CH,...] [--damping D] [--json]",
			"pprbench solve --graph testdata/wiki-Vote.txt.gz --seeds 30,1412 --k 5 --certify", runSolve},
		{"ingest", "use", "stream an edge file into a snapshot file (snapshot/FORMAT.md), showing progress",
			"--graph PATH --out FILE [--format edges|triples|ppredge] [--undirected]",
			"pprbench ingest --graph testdata/email-Eu-core.txt.gz --out email.snap", runIngest},
		{"replay", "use", "guard a file of queries: native selection, authenticated replay, one decision per query",
			"--graph PATH | --snapshot PATH --trust CH,... --queries FILE [--policy reject|escalate|report] [--out FILE]",
			"pprbench replay --graph memory.tsv --undirected --trust default --queries q.jsonl --damping 0.5", runReplay},
		{"live", "use", "a living memory: apply write batches and answer guarded queries from one event stream",
			"[--graph PATH] --trust CH,... --events FILE.jsonl [--out FILE.jsonl] [--check] [--damping D]",
			"pprbench live --graph memory.tsv --undirected --damping 0.5 --trust default --events events.jsonl", runLive},
		{"publish", "use", "publish the write batches of a live event file to a replicated memory on NATS JetStream",
			"--nats URLS [--user U --password P] --memory NAME --events FILE.jsonl",
			"pprbench publish --nats nats://127.0.0.1:4222 --user alice --password pw --memory m --events alice.jsonl", runPublish},
		{"follow", "use", "catch a local replica of a NATS JetStream memory up to a sequence, then answer guarded queries",
			"--nats URLS [--user U --password P] --memory NAME --dir DIR --trust CH,... --until SEQ --queries FILE.jsonl [--out FILE.jsonl] [--replicas N]",
			"pprbench follow --nats nats://127.0.0.1:4222 --memory m --dir replica --trust alice --until 0 --queries q.jsonl", runFollow},
		{"consensus", "use", "rank-aware consensus selection over a contradiction graph, replayed on trusted edges",
			"--input FILE [--trust CH,...] [--max-nodes N]",
			"pprbench consensus --input claims.json --trust judge", runConsensus},
		{"queries", "use", "write a query or event file for a graph: random seeds, HippoRAG2 retrievals, a live stream",
			"--graph PATH | --snapshot PATH [--kind seeds|dense|entities|live] [--count N] [--k K] [--entities N] [--out FILE]",
			"pprbench queries --graph kg.ppredge --format ppredge --kind dense --entities 200000 --count 20 --out q.jsonl", runQueries},
		{"compare", "measure", "the same graph and queries through igraph's PRPACK and authppr: times and top-k",
			"--graph PATH --queries FILE [--certify] [--oracle SCRIPT]",
			"pprbench compare --graph testdata/wiki-Vote.txt.gz --queries q.jsonl --certify", runCompare},
		{"overhead", "measure", "the guard's cost over the unguarded certified selection on a workload",
			"[--workload memory|kg|wn18rr|rmat] [--regime few|one-percent|attack] [--queries N] [--check] [--json]",
			"pprbench overhead --workload memory --regime few --queries 100 --check", runOverhead},
		{"sweep", "measure", "one sweep per kernel against the memory floor and the plain C loop, in one run",
			"--graph PATH | --snapshot PATH [--format ppredge] [--c PROGRAM|build]",
			"pprbench sweep --graph rmat20.ppredge --format ppredge", runSweep},
		{"store-bench", "measure", "the living store on one graph: ingest, compaction, queries during it, cached updates, loads",
			"[--graph-bin PATH | --scale N] [--writes N] [--batch N] [--trials N] [--dir DIR]",
			"pprbench store-bench --graph-bin kg.ppredge --writes 1000000", runStoreBench},
		{"attack", "measure", "structural-write attacks on four selectors (laundering through a trusted merge among them), the guard, the ledger",
			"[--graph wn18rr,memory] [--queries N] [--data DIR] [--out DIR] [--json]",
			"pprbench attack --graph memory --queries 60 --out attack-results", runAttack},
		{"version", "", "print authppr's version (the C ABI and the Python package report the same)", "", "pprbench version", runVersion},
		{"help", "", "print the commands, or one command's flags", "[COMMAND]", "pprbench help live", nil},
	}
}

// lookup returns the named command.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks errors caused by how the command was called.
var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	var err error
	name := ""
	switch {
	case len(args) == 0:
		err = runDefault(stdout)
	case args[0] == "--version":
		err = runVersion(args[1:], stdout, stderr)
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		return runHelp(args[1:], stdout, stderr)
	default:
		c, ok := lookup(args[0])
		if !ok || c.run == nil {
			fmt.Fprintf(stderr, "pprbench: unknown command %q\n\n", args[0])
			usage(stderr)
			return 2
		}
		name = c.name
		err = c.run(args[1:], stdout, stderr)
	}
	var help *helpRequest
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		commandHelp(stdout, help.fs)
		return 0
	case errors.Is(err, errUsage) && name != "":
		fmt.Fprintf(stderr, "pprbench %s: %v\nrun 'pprbench help %s' for its flags and an example\n", name, err, name)
		return 2
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "pprbench:", err)
		return 2
	case errors.Is(err, errEscalated):
		fmt.Fprintln(stderr, "pprbench:", err)
		return 3
	default:
		fmt.Fprintln(stderr, "pprbench:", err)
		return 1
	}
}

// runHelp prints the commands, or one command's help, on stdout.
func runHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return 0
	case len(args) > 1:
		fmt.Fprintf(stderr, "pprbench: help takes one command, got %q\n", args)
		return 2
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "pprbench: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if c.run == nil {
		usage(stdout)
		return 0
	}
	// A command prints its help when asked with -h: its flags are its
	// own FlagSet's.
	return run([]string{c.name, "-h"}, stdout, stderr)
}

// runVersion prints the version internal/version holds.
func runVersion(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "pprbench", version.Version)
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pprbench [COMMAND [FLAGS]]")
	fmt.Fprintln(w, "\nWith no command, pprbench runs its default workload: a generated graph memory, one")
	fmt.Fprintln(w, "percent of its edges written by an untrusted channel, HippoRAG-style retrievals")
	fmt.Fprintln(w, "guarded one by one.")
	for _, g := range []struct{ name, title string }{{"use", "Use"}, {"measure", "Measure"}, {"", "Other"}} {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, c := range commands() {
			if c.group == g.name {
				fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
			}
		}
	}
	fmt.Fprintln(w, "\nRun 'pprbench help COMMAND' (or 'pprbench COMMAND -h') for a command's flags and an example.")
}

// helpRequest is what parseFlags returns for -h: run prints the command's
// help on standard output and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return "help requested" }

// commandHelp prints a command's help: synopsis, summary, flags, example.
func commandHelp(w io.Writer, fs *flag.FlagSet) {
	c, _ := lookup(fs.Name())
	fmt.Fprintf(w, "usage: %s\n\n%s.\n", strings.TrimSpace("pprbench "+c.name+" "+c.synopsis), c.summary)
	// The flags the synopsis requires say so, where their texts do not.
	req := requiredFlags(c.synopsis)
	flags := 0
	fs.VisitAll(func(f *flag.Flag) {
		flags++
		if alt, ok := req[f.Name]; ok && !strings.Contains(f.Usage, "required") {
			if alt == "" {
				f.Usage += " (required)"
			} else {
				f.Usage += " (required, or --" + alt + ")"
			}
		}
	})
	if flags > 0 {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if c.example != "" {
		fmt.Fprintf(w, "\nExample:\n  %s\n", c.example)
	}
}

// requiredFlags reads a synopsis: a flag outside brackets is required,
// and one beside a '|' is the alternative of the flag on the other side
// (either is required). It maps each required flag to its alternative
// ("" when it has none).
func requiredFlags(synopsis string) map[string]string {
	req := map[string]string{}
	depth, last, alt := 0, "", false
	for _, tok := range strings.Fields(synopsis) {
		t := strings.TrimLeft(tok, "(")
		open := len(t) - len(strings.TrimLeft(t, "["))
		depth += open
		t = t[open:]
		if depth == 0 {
			switch {
			case t == "|":
				alt = true
			case strings.HasPrefix(t, "--"):
				name := strings.TrimRight(t[2:], ")")
				req[name] = ""
				if alt {
					req[name], req[last] = last, name
				}
				last, alt = name, false
			}
		}
		depth += strings.Count(t, "[") - strings.Count(t, "]")
	}
	return req
}
