package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/snapshot"
)

// graphFlags are the flags that name and parse a graph file, or a saved
// snapshot in its place.
type graphFlags struct {
	path       string
	format     string
	undirected bool
	snapshot   string
	order      string
	weights    string
	maxMemory  string
}

func (f *graphFlags) register(fs *flag.FlagSet) {
	f.registerOrdered(fs, "auto")
}

// registerOrdered registers the flags with defaultOrder as --order's
// default.
func (f *graphFlags) registerOrdered(fs *flag.FlagSet, defaultOrder string) {
	fs.StringVar(&f.path, "graph", "", "graph file (gzip detected automatically)")
	fs.StringVar(&f.format, "format", "edges", "file format: edges ('src dst [weight [channel]]'), triples ('head relation tail [channel]') or ppredge (the binary PPREDGE1 of anchors/gen_graph.py, docs/formats.md; its header says undirected)")
	fs.BoolVar(&f.undirected, "undirected", false, "treat edges as undirected")
	f.registerSnapshot(fs)
	fs.StringVar(&f.order, "order", defaultOrder, "node numbering: stream (first appearance), degree (descending degree, for cache locality) or auto (degree when the graph's vectors outgrow a core's L2 cache); results by name are the same in every order")
	fs.StringVar(&f.weights, "weights", "auto", "weight storage of a --graph: auto (float32 when every weight is exactly a float32, as in ppredge files; the same results) or float64")
	registerMaxMemory(fs, &f.maxMemory)
}

// registerMaxMemory registers --max-memory, the memory limit of loading a
// graph, into p.
func registerMaxMemory(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "max-memory", "auto", "memory limit of loading the graph: a size (512M, 8G; K, M, G, T are powers of 1024), auto (half the memory available, as the system reports it within any container limit) or none; a graph whose build would need more is refused before it is allocated")
}

// parseMaxMemory reads a --max-memory value as a csr MaxMemory setting:
// bytes, 0 for auto (csr's default: half the memory available), -1 for
// none.
func parseMaxMemory(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "", "auto":
		return 0, nil
	case "none":
		return -1, nil
	}
	// "8GiB", "8GB" and "8G" are one size; a plain number is bytes.
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	shift := 0
	if i := len(t) - 1; i > 0 && strings.IndexByte("kmgt", t[i]) >= 0 {
		shift = 10 * (1 + strings.IndexByte("kmgt", t[i]))
		t = t[:i]
	}
	v, err := strconv.ParseFloat(t, 64)
	bytes := math.Ldexp(v, shift)
	if err != nil || !(bytes >= 1) || bytes >= 1<<62 {
		return 0, fmt.Errorf("%w: --max-memory %q, want a size like 512M or 8G (K, M, G, T: powers of 1024), auto or none", errUsage, s)
	}
	return int64(bytes), nil
}

// registerData registers --data, the directory with the real graphs of
// the repository's testdata/, into p.
func registerData(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "data", "testdata", "directory with wn18rr-train.txt.gz: the repository's testdata/ (the default, relative to the working directory: run from the repository's root)")
}

// readWN18RR reads WN18RR's training triples from dir (--data) as an
// undirected graph within maxMemory; when the file is absent the error
// says where to run from.
func readWN18RR(dir string, maxMemory int64) (*csr.Graph, error) {
	path := filepath.Join(dir, "wn18rr-train.txt.gz")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("--data %s: %w (run from the repository's root, whose testdata/ has it, or pass --data DIR)", dir, err)
	}
	return csr.ReadFile(path, csr.ReadOptions{Format: csr.FormatTriples, MaxMemory: maxMemory})
}

// memoryLimit parses --max-memory.
func (f *graphFlags) memoryLimit() (int64, error) { return parseMaxMemory(f.maxMemory) }

// memoryHint adds to an error that is a *csr.MemoryError the flag that sets
// the limit.
func memoryHint(err error) error {
	var me *csr.MemoryError
	if errors.As(err, &me) {
		return fmt.Errorf("%w (set --max-memory to change the limit)", err)
	}
	return err
}

func (f *graphFlags) registerSnapshot(fs *flag.FlagSet) {
	fs.StringVar(&f.snapshot, "snapshot", "", "snapshot file written by 'pprbench ingest', in place of --graph")
}

// loaded is a graph with its provenance labels: from a text file, every
// edge labelled by its channel column; from a snapshot, the saved labels.
type loaded struct {
	g      *csr.Graph
	labels *mask.Labels
	close  func()
	// order is the node order g is in, and reorderTime what renumbering
	// the nodes into it took (0 for stream order), part of load's time.
	order       csr.NodeOrder
	reorderTime time.Duration
}

// load reads the graph and reports how long that took. A --graph file of
// progressMinBytes or more shows progress on w (none when w is nil), as
// ingest does, and a last line when loaded. The caller must call close
// when done with the graph.
func (f *graphFlags) load(w io.Writer) (*loaded, time.Duration, error) {
	start := time.Now()
	var prog *progress
	if f.snapshot == "" && f.path != "" {
		prog = startProgress(w, "loading", f.path, false)
	}
	ld, err := f.loadInOrder(prog)
	if err != nil {
		prog.stop("")
		return nil, 0, err
	}
	// Edge ids survive reordering, so the labels still apply.
	if ld.g, ld.order, ld.reorderTime, err = f.applyOrder(ld.g, f.snapshot != ""); err != nil {
		prog.stop("")
		ld.close()
		return nil, 0, memoryHint(err)
	}
	prog.stop(fmt.Sprintf("%d nodes, %d edges, %s order", ld.g.NumNodes(), ld.g.NumEdges(), ld.order))
	return ld, time.Since(start), nil
}

// nodeOrder parses --order (a usage error when it names no order).
func (f *graphFlags) nodeOrder() (csr.NodeOrder, error) {
	order, err := parseOrder(f.order)
	if err != nil {
		return "", fmt.Errorf("%w: --order: %v", errUsage, err)
	}
	return order, nil
}

// applyOrder renumbers g's nodes as --order says and returns the graph, its
// order and the time renumbering took (0 when g is already in it). With
// --order auto a snapshot keeps the order it was saved in (chosen at
// ingest); other graphs get csr.AutoOrder's choice.
func (f *graphFlags) applyOrder(g *csr.Graph, fromSnapshot bool) (*csr.Graph, csr.NodeOrder, time.Duration, error) {
	order, err := f.nodeOrder()
	if err != nil {
		return nil, "", 0, err
	}
	want := csr.NodeOrder(csrHooks.ResolveOrder(string(order), g.NumNodes()))
	if order == csr.AutoOrder && fromSnapshot {
		want = orderOf(g)
	}
	if want == orderOf(g) {
		return g, want, 0, nil
	}
	// A reorder copies the graph's arrays (at most its MemoryBytes) while
	// the graph is alive: the load then holds both.
	limit, err := f.memoryLimit()
	if err != nil {
		return nil, "", 0, err
	}
	if err := csrHooks.CheckMemory("reordering "+f.name(), int64(g.NumNodes()), int64(g.NumEdges()), 2*g.MemoryBytes(), limit); err != nil {
		return nil, "", 0, err
	}
	start := time.Now()
	if g, err = csr.Reorder(g, want); err != nil {
		return nil, "", 0, err
	}
	return g, want, time.Since(start), nil
}

// loadInOrder reads the graph in the order --order asks (a snapshot in its
// saved order), within the memory limit --max-memory sets; prog (may be
// nil) counts the bytes of a text --graph read.
func (f *graphFlags) loadInOrder(prog *progress) (*loaded, error) {
	ld, err := f.loadLimited(prog)
	return ld, memoryHint(err)
}

func (f *graphFlags) loadLimited(prog *progress) (*loaded, error) {
	switch {
	case f.snapshot != "" && f.path != "":
		return nil, fmt.Errorf("%w: give --graph or --snapshot, not both", errUsage)
	case f.snapshot != "":
		s, err := snapshot.Load(f.snapshot)
		if err != nil {
			return nil, err
		}
		return &loaded{g: s.Graph, labels: s.Labels, close: func() { s.Close() }}, nil
	case f.path == "":
		return nil, fmt.Errorf("%w: --graph (or --snapshot) is required", errUsage)
	}
	float64Weights := false
	if f.weights != "" {
		var err error
		if float64Weights, err = parseWeights(f.weights); err != nil {
			return nil, fmt.Errorf("%w: --weights: %v", errUsage, err)
		}
	}
	limit, err := f.memoryLimit()
	if err != nil {
		return nil, err
	}
	opt := csr.ReadOptions{Format: csr.Format(f.format), Directed: !f.undirected, MaxMemory: limit}
	if opt.Format == csr.FormatPPREDGE1 {
		// Built straight in the order and the storage asked (applyOrder
		// then has nothing to do): no stream-order copy alive beside the
		// reordered one.
		order, err := f.nodeOrder()
		if err != nil {
			return nil, err
		}
		opt.Order, opt.Float64Weights = order, float64Weights
	}
	var g *csr.Graph
	if prog != nil && opt.Format != csr.FormatPPREDGE1 {
		g, err = readCounted(f.path, opt, prog)
	} else {
		g, err = csr.ReadFile(f.path, opt)
	}
	if err != nil {
		return nil, err
	}
	g = csrHooks.WithWeightStorage(g, float64Weights)
	return &loaded{g: g, labels: mask.FromGraph(g), close: func() {}}, nil
}

// readCounted reads a text graph file as csr.ReadFile does, counting the
// bytes read into prog.
func readCounted(path string, opt csr.ReadOptions, prog *progress) (*csr.Graph, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return csr.Read(prog.reader(file), path, opt)
}

// createOutput returns stdout when path is empty, else the file it creates.
// closeOut closes that file (once; later calls return nil) and returns its
// error, so that a write the file system refused at close is reported:
// call it on the success path and defer it for the error paths.
func createOutput(path string, stdout io.Writer) (out io.Writer, closeOut func() error, err error) {
	if path == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	closed := false
	return f, func() error {
		if closed {
			return nil
		}
		closed = true
		return f.Close()
	}, nil
}

// name says where the graph came from.
func (f *graphFlags) name() string {
	if f.snapshot != "" {
		return f.snapshot
	}
	return f.path
}

// viewFlags choose the view to solve on.
type viewFlags struct {
	trust string
	view  string
}

func (f *viewFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.trust, "trust", "", "comma-separated trusted channels (for --view auth)")
	fs.StringVar(&f.view, "view", "native", "native (every edge) or auth (only edges of trusted channels)")
}

// build returns the chosen view of the loaded graph.
func (f *viewFlags) build(ld *loaded) (*mask.View, error) {
	g, labels := ld.g, ld.labels
	trusted := splitList(f.trust)
	policy := mask.Trust(trusted...)
	if len(trusted) > 0 {
		if err := policy.Check(labels); err != nil {
			return nil, err
		}
	}
	switch f.view {
	case "native":
		return mask.Native(g, labels)
	case "auth":
		if len(trusted) == 0 {
			return nil, fmt.Errorf("%w: --view auth needs --trust with the trusted channels (comma-separated)", errUsage)
		}
		return mask.Authenticated(g, labels, policy)
	}
	return nil, fmt.Errorf("%w: --view %q, want native or auth", errUsage, f.view)
}

// parseFlags parses a command's flags: -h or --help asks for the
// command's help (printed on standard output, exit 0); an unknown flag, a
// bad value or a stray argument is a usage error naming them (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard) // run prints help and errors itself
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &helpRequest{fs}
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// parseSeeds reads "NAME[:WEIGHT],...". The weight is the text after the
// last ':' when it parses as a number; a name that itself contains ':' must
// therefore be given with an explicit weight ("a:b:1"). An item with a ':'
// whose tail is no number and which names no node is a bad weight, and a
// weight must be finite and non-negative, with a positive total: usage
// errors. Every unknown name is reported at once.
func parseSeeds(g *csr.Graph, spec string) ([]ppr.Seed, error) {
	items := splitList(spec)
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: --seeds is required (NAME[:WEIGHT],...)", errUsage)
	}
	var seeds []ppr.Seed
	var unknown []string
	total := 0.0
	for _, item := range items {
		name, weight := item, 1.0
		if i := strings.LastIndexByte(item, ':'); i >= 0 {
			w, err := strconv.ParseFloat(item[i+1:], 64)
			if _, whole := g.ID(item); err != nil && !whole {
				return nil, usagef("--seeds %q: weight %q, want a finite non-negative number (NAME[:WEIGHT])", item, item[i+1:])
			}
			if err == nil {
				name, weight = item[:i], w
			}
		}
		if !(weight >= 0) || math.IsInf(weight, 0) {
			return nil, usagef("--seeds %q: weight %v, want a finite non-negative number", item, weight)
		}
		total += weight
		id, ok := g.ID(name)
		if !ok {
			unknown = append(unknown, strconv.Quote(name))
			continue
		}
		seeds = append(seeds, ppr.Seed{Node: id, Weight: weight})
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown seed node(s): %s", strings.Join(unknown, ", "))
	}
	if total == 0 {
		return nil, usagef("--seeds %q: weights sum to 0, want a positive total", spec)
	}
	return seeds, nil
}

// readCandidates reads one node name per line ('#' comments and blank lines
// skipped). Unknown names are errors with their line numbers, and so is a
// repeat (ppr and the guard refuse repeated candidates: a file that has
// one was probably not meant as written).
func readCandidates(g *csr.Graph, path string) ([]uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []uint32
	seen := make(map[uint32]int) // the line of each candidate
	var unknown []string
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		name := strings.TrimSpace(sc.Text())
		if name == "" || name[0] == '#' {
			continue
		}
		id, ok := g.ID(name)
		if !ok {
			unknown = append(unknown, fmt.Sprintf("%s:%d: %q", path, line, name))
			continue
		}
		if first, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s:%d: candidate %q repeats line %d", path, line, name, first)
		}
		seen[id] = line
		out = append(out, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if len(unknown) > 0 {
		if len(unknown) > 5 {
			unknown = append(unknown[:5], fmt.Sprintf("and %d more", len(unknown)-5))
		}
		return nil, fmt.Errorf("unknown candidate node(s): %s", strings.Join(unknown, "; "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no candidates", path)
	}
	return out, nil
}
