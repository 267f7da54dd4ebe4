package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/store"
)

// maxEventLine bounds one event line (a write batch of many ops).
const maxEventLine = 64 << 20

// runLive applies the write batches and answers the guarded queries of
// an event file in order, one JSON line per query; a summary goes to
// stderr.
func runLive(args []string, stdout, stderr io.Writer) error {
	r, err := newLiveRun(args)
	if err != nil {
		return err
	}
	events, err := os.Open(r.eventsPath)
	if err != nil {
		return err
	}
	defer events.Close()
	stop, err := startCPUProfile(r.cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	start := time.Now()
	st, closeGraph, err := r.store(stderr)
	if err != nil {
		return err
	}
	defer closeGraph()
	runner, err := live.NewRunner(st, live.Options{Damping: r.damping, Trust: r.trusted, Check: r.check})
	if err != nil {
		return err
	}
	bad, err := answerTo(r.outPath, stdout, func(w io.Writer) (error, error) {
		return runEvents(events, runner, w, stderr)
	})
	if err != nil {
		return err
	}
	runner.Print(stderr, time.Since(start))
	return bad
}

// liveRun is one live run's settings.
type liveRun struct {
	gf                  graphFlags
	damping             float64
	trusted             []string
	eventsPath, outPath string
	check               bool
	cpuProfile          string
}

// newLiveRun parses live's flags and checks them.
func newLiveRun(args []string) (*liveRun, error) {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	r := &liveRun{}
	r.gf.register(fs)
	registerDamping(fs, &r.damping)
	trust := fs.String("trust", "", "comma-separated trusted channels (required; channels may be named before they write)")
	fs.StringVar(&r.eventsPath, "events", "", "JSON-lines event file: write batches and queries, applied in order (required)")
	fs.StringVar(&r.outPath, "out", "", "write one JSON line per query here instead of stdout")
	fs.BoolVar(&r.check, "check", false, "verify every decision against a from-scratch guard on the materialised version (slow)")
	fs.StringVar(&r.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if r.eventsPath == "" {
		return nil, fmt.Errorf("%w: --events is required", errUsage)
	}
	if r.trusted = splitList(*trust); len(r.trusted) == 0 {
		return nil, fmt.Errorf("%w: --trust CH[,CH...] is required", errUsage)
	}
	if err := firstErr(checkDamping(r.damping), r.gf.check(given(fs))); err != nil {
		return nil, err
	}
	return r, nil
}

// store makes the living store: on the graph or snapshot given, else
// empty (edges directed unless --undirected), its edges arriving through
// the events as a replicated memory's do (pprbench publish, pprbench
// follow). The caller must call closeGraph.
func (r *liveRun) store(stderr io.Writer) (st *store.Store, closeGraph func(), err error) {
	if r.gf.path == "" && r.gf.snapshot == "" {
		st, err = store.New(nil, nil, store.Options{Directed: !r.gf.undirected})
		return st, func() {}, err
	}
	ld, _, err := r.gf.load(stderr)
	if err != nil {
		return nil, nil, err
	}
	if st, err = store.New(ld.g, ld.labels, store.Options{}); err != nil {
		ld.close()
		return nil, nil, err
	}
	return st, ld.close, nil
}

// answerTo runs answer with a buffered writer on the file outPath (on
// stdout when outPath is empty) and closes the file; bad is what answer
// says was not answered, err what stopped it or the writing.
func answerTo(outPath string, stdout io.Writer, answer func(w io.Writer) (bad, err error)) (bad, err error) {
	out, closeOut, err := createOutput(outPath, stdout)
	if err != nil {
		return nil, err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	if bad, err = answer(w); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return bad, closeOut()
}

// runEvents applies the stream's events in order and writes one record per
// query. A bad event (malformed, or a write or query the store refuses) is
// reported on stderr naming its line and changes nothing; the run goes on,
// and the first one is returned at the end so the exit status says so. A
// failed --check or an output error stops the run.
func runEvents(in io.Reader, runner *live.Runner, out io.Writer, stderr io.Writer) (bad, err error) {
	lines := eventLines{command: "live", what: "event(s)", verdict: "applied not at all"}
	return lines.run(in, out, stderr, func(ev live.Event) (*live.Record, error) {
		if ev.Write != nil {
			if _, err := runner.Apply(ev.Write); err != nil {
				return nil, fmt.Errorf("write by %q: %w", ev.Write.Channel, err)
			}
			return nil, nil
		}
		return runner.Answer(ev.Query)
	})
}

// eventLines reads a JSON-lines event stream for a command.
type eventLines struct {
	command, what, verdict string
}

// run parses each line of in and hands its event to handle, writing the
// records handle returns to out. A line that does not parse or that handle
// refuses is reported on stderr with its number and the run goes on; the
// first is returned as bad at the end. A failed check (live.ErrCheck) or an
// output error stops the run.
func (l eventLines) run(in io.Reader, out, stderr io.Writer, handle func(live.Event) (*live.Record, error)) (bad, err error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	enc := json.NewEncoder(out)
	count := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(trimSpace(text)) == 0 {
			continue
		}
		ev, err := live.Parse(text, line)
		var rec *live.Record
		if err == nil {
			rec, err = handle(ev)
			if err != nil {
				err = fmt.Errorf("line %d: %w", line, err)
			}
		}
		switch {
		case errors.Is(err, live.ErrCheck):
			return nil, err
		case err != nil:
			count++
			fmt.Fprintf(stderr, "pprbench: %s: %v\n", l.command, err)
			if bad == nil {
				bad = err
			}
		case rec != nil:
			if err := enc.Encode(rec); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", l.command, err)
	}
	if count > 0 {
		return fmt.Errorf("%d bad %s, each reported above and %s; the first: %w", count, l.what, l.verdict, bad), nil
	}
	return nil, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
