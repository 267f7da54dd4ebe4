package main

import (
	"errors"
	"flag"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// commandFlags returns the FlagSet a command parses its flags with (the
// one its -h help prints).
func commandFlags(t *testing.T, c command) *flag.FlagSet {
	t.Helper()
	var help *helpRequest
	require.True(t, errors.As(c.run([]string{"-h"}, io.Discard, io.Discard), &help), c.name)
	return help.fs
}

// flagsNamed returns the --flags a synopsis or an example names.
func flagsNamed(s string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`--([a-z0-9-]+)`).FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names
}

// Every command's usage (issue 20): a synopsis line that names only its
// flags, required flags marked in the flag list, one example that names
// only its flags, and no trailing blank on the usage line.
func TestHelpSynopsisAndExampleNameRealFlags(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		fs := commandFlags(t, c)
		for _, name := range append(flagsNamed(c.synopsis), flagsNamed(c.example)...) {
			require.NotNilf(t, fs.Lookup(name), "%s: the synopsis or example names --%s, which it does not have", c.name, name)
		}
		require.Truef(t, strings.HasPrefix(c.example, "pprbench "+c.name), "%s: example %q", c.name, c.example)
		_, out, _ := runCLI("help", c.name)
		usage, _, _ := strings.Cut(out, "\n")
		require.Equal(t, strings.TrimSpace(usage), usage, c.name)
	}
}

// A flag the synopsis shows outside brackets is marked required in the
// flag list (with its alternative when the synopsis gives one: A | B).
func TestHelpMarksRequiredFlags(t *testing.T) {
	t.Parallel()
	require.Equal(t, map[string]string{"graph": "snapshot", "snapshot": "graph", "seeds": "queries", "queries": "seeds"},
		requiredFlags("--graph PATH | --snapshot PATH (--seeds NAME[:W],... | --queries FILE) [--k K] [--view native|auth --trust CH,...]"))
	require.Equal(t, map[string]string{"trust": "", "events": ""}, requiredFlags("[--graph PATH] --trust CH,... --events FILE.jsonl [--out FILE.jsonl]"))
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		_, out, _ := runCLI("help", c.name)
		for name, alt := range requiredFlags(c.synopsis) {
			text := flagText(t, out, name)
			require.Containsf(t, text, "required", "%s --%s: %q", c.name, name, text)
			if alt != "" {
				require.Containsf(t, text, "--"+alt, "%s --%s: %q", c.name, name, text)
			}
		}
	}
	_, out, _ := runCLI("help", "follow")
	require.NotContains(t, flagText(t, out, "until"), "default", "a required flag shows no default")
}

// flagText returns the help text of flag name in a command's help.
func flagText(t *testing.T, help, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(help, "\n  -"+name+" ")
	if !ok {
		_, rest, ok = strings.Cut(help, "\n  -"+name+"\n")
	}
	require.Truef(t, ok, "no -%s in %q", name, help)
	text, _, _ := strings.Cut(rest, "\n  -")
	text, _, _ = strings.Cut(text, "\n\nExample:")
	return text
}

// Flag texts are in the user's words (issue 20): no Go identifiers
// (pkg.Name, CamelCase, mixedCase), no instruction-set levels, and the
// name after a flag is its type or a placeholder in capitals, not words
// of the text in backquotes.
func TestHelpFlagTextsInUsersWords(t *testing.T) {
	t.Parallel()
	internal := regexp.MustCompile(`\b[a-z]\w*\.[A-Z]\w*|\b(SSE\d*|AVX\w*|FMA|NEON)\b|\b[A-Z][a-z0-9]+[A-Z]\w*|\b[a-z]+[A-Z]\w*`)
	products := []string{"HippoRAG", "HippoRAG2", "JetStream", "OpenMP"}
	placeholder := regexp.MustCompile(`^([A-Z]+|string|int|uint|float|duration)?$`)
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		commandFlags(t, c).VisitAll(func(f *flag.Flag) {
			for _, w := range internal.FindAllString(f.Usage, -1) {
				require.Truef(t, slices.Contains(products, w), "%s --%s: %q in %q", c.name, f.Name, w, f.Usage)
			}
			name, _ := flag.UnquoteUsage(f)
			require.Regexpf(t, placeholder, name, "%s --%s: %q", c.name, f.Name, f.Usage)
		})
	}
}
