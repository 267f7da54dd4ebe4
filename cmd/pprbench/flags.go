package main

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Flag checks. Every command checks its flags before it reads a file, with
// one rule: a value outside what the flag takes, or a flag that the other
// flags make meaningless, is a usage error (exit status 2) naming the
// flag, the value and what the flag wants. Nothing is substituted
// silently (a zero tolerance is not the default tolerance) and nothing
// given is ignored.

// usagef returns a usage error.
func usagef(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// firstErr returns the first error that is not nil: a command's checks,
// in the order its message should win.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// given returns the flags set on the command line (after parseFlags).
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// checkTol refuses a tolerance that is not a positive finite number (the
// libraries read 0 as their default; the flags' defaults are stated).
func checkTol(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return usagef("--%s %v, want a positive finite number", name, v)
	}
	return nil
}

// checkWeight refuses an edge weight that is not a positive finite number.
func checkWeight(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return usagef("--%s %v, want a positive finite weight", name, v)
	}
	return nil
}

// checkDamping refuses a damping outside [0, 1), the range ppr accepts.
func checkDamping(d float64) error {
	if !(d >= 0 && d < 1) {
		return usagef("--damping %v, want 0 <= d < 1", d)
	}
	return nil
}

// checkAtLeast refuses an integer flag below lo.
func checkAtLeast(name string, v, lo int) error {
	if v < lo {
		return usagef("--%s %d, want at least %d", name, v, lo)
	}
	return nil
}

// checkRange refuses an integer flag outside [lo, hi].
func checkRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s %d, want %d..%d", name, v, lo, hi)
	}
	return nil
}

// onlyWith refuses the named flags, if given, unless cond holds: what
// they set applies only when it does (when says when: "with --certify").
func onlyWith(set map[string]bool, cond bool, when string, names ...string) error {
	if cond {
		return nil
	}
	for _, name := range names {
		if set[name] {
			return usagef("--%s applies only %s", name, when)
		}
	}
	return nil
}

// flagErr makes a library's error parsing a flag's value (which names the
// value and what is wanted) a usage error naming the flag.
func flagErr(name string, err error) error {
	return usagef("--%s: %v", name, err)
}

// checkChoice refuses a value that is not one of choices.
func checkChoice(name, v string, choices ...string) error {
	for _, c := range choices {
		if v == c {
			return nil
		}
	}
	return usagef("--%s %q, want %s", name, v, orList(choices))
}

// orList joins choices as "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// graphFormats are the values of --format: the text formats csr reads
// and the PPREDGE1 binary (csr.FormatPPREDGE1).
var graphFormats = []string{"edges", "triples", "ppredge"}

// check checks the graph flags given on the command line: the names of
// --format, --order and --weights, and that no flag is given that the
// input ignores (a snapshot keeps its own format, direction and weights;
// a PPREDGE1 file says itself whether it is undirected).
func (f *graphFlags) check(set map[string]bool) error {
	if !slices.Contains(graphFormats, f.format) {
		return usagef("--format: unknown format %q, want %s", f.format, orList(graphFormats))
	}
	if _, err := parseOrder(f.order); err != nil {
		return flagErr("order", err)
	}
	if f.weights != "" {
		if _, err := parseWeights(f.weights); err != nil {
			return flagErr("weights", err)
		}
	}
	if err := onlyWith(set, f.snapshot == "", "with --graph (a snapshot keeps what it was saved with)", "format", "undirected", "weights"); err != nil {
		return err
	}
	return onlyWith(set, f.format != "ppredge", "with a text format (a PPREDGE1 file says itself whether it is undirected)", "undirected")
}

// check checks --view and --trust: auth needs trusted channels, and
// trusted channels mean nothing to the native view.
func (f *viewFlags) check() error {
	if err := checkChoice("view", f.view, "native", "auth"); err != nil {
		return err
	}
	trusted := splitList(f.trust)
	if f.view == "auth" && len(trusted) == 0 {
		return usagef("--view auth needs --trust with the trusted channels (comma-separated)")
	}
	if f.view == "native" && len(trusted) > 0 {
		return usagef("--trust %s applies only with --view auth (the native view keeps every edge)", f.trust)
	}
	return nil
}

// registerDamping registers --damping, the damping of the solves, into p
// (checkDamping checks it).
func registerDamping(fs *flag.FlagSet, p *float64) {
	fs.Float64Var(p, "damping", 0.85, "damping d as in igraph (teleport 1-d)")
}
