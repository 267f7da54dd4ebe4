package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/authppr/authppr/internal/version"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"solve", "solve PPR for one seed set on a graph file and print the top-k", runSolve},
		{"ingest", "stream an edge file into a snapshot file (see snapshot/FORMAT.md)", runIngest},
		{"store-bench", "measure the living store (ingest, compaction, queries during compaction, cached updates, snapshot load) on one graph", runStoreBench},
		{"queries", "write a query file for a graph: random seeds, or HippoRAG2-style dense retrievals", runQueries},
		{"compare", "run the same graph and queries through igraph PRPACK and compare times and top-k", runCompare},
		{"overhead", "measure replay overhead against the native solve on a generated or real workload", runOverhead},
		{"sweep", "time one sweep per kernel against the memory floor and the C loop, in one run", runSweep},
		{"replay", "guard a file of queries: native selection, authenticated replay, decision per query", runReplay},
		{"live", "a living memory: apply write batches and answer guarded queries from one event stream", runLive},
		{"publish", "publish the write batches of a live event file to a replicated memory on NATS JetStream", runPublish},
		{"follow", "catch a local replica of a memory on NATS JetStream up to a sequence and answer guarded queries", runFollow},
		{"attack", "structural-write attacks (laundering through a trusted merge among them) on four selectors, the divergence set, the guard with and without min-inheritance, the ledger scenario; tables, JSON, charts", runAttack},
		{"consensus", "rank-aware consensus selection over a contradiction graph, replayed on trusted edges", runConsensus},
		{"version", "print authppr's version (the C ABI and the Python package report the same)", runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks errors caused by how the command was called.
var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) == 0:
		err = runDefault(stdout)
	case args[0] == "--version":
		err = runVersion(args[1:], stdout, stderr)
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		usage(stderr)
		return 0
	default:
		found := false
		for _, c := range commands() {
			if c.name == args[0] {
				found = true
				err = c.run(args[1:], stdout, stderr)
			}
		}
		if !found {
			fmt.Fprintf(stderr, "pprbench: unknown command %q\n", args[0])
			usage(stderr)
			return 2
		}
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
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

// runVersion prints the version internal/version holds.
func runVersion(args []string, stdout, _ io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: version takes no arguments, got %q", errUsage, args)
	}
	fmt.Fprintln(stdout, "pprbench", version.Version)
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pprbench [COMMAND [FLAGS]]")
	fmt.Fprintln(w, "\nWith no command, runs the built-in default workload.")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'pprbench COMMAND -h' for a command's flags.")
}
