package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/live"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// errEscalated is returned when the escalate policy refused selections.
var errEscalated = errors.New("escalated")

// runReplay guards a file of queries on the graph and writes one decision
// per query as a JSON line; a summary goes to stderr.
func runReplay(args []string, stdout, stderr io.Writer) error {
	r, err := newReplayRun(args, stderr)
	if err != nil {
		return err
	}
	defer r.ld.close()
	out, closeOut, err := createOutput(r.outPath, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	sum, err := r.run(out)
	if err != nil {
		return err
	}
	if err := closeOut(); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "replay:", sum.Decisions())
	if r.policy == replay.Escalate && sum.Divergent > 0 {
		return fmt.Errorf("%w: %d of %d selections diverged and were refused", errEscalated, sum.Divergent, sum.Queries)
	}
	return nil
}

// replayRun is one replay run: the graph, the queries, the guard.
type replayRun struct {
	ld      *loaded
	queries []namedQuery
	guard   *replay.Guard
	damping float64
	outPath string
	policy  replay.OnDivergence
}

// newReplayRun parses replay's flags, checks them, loads the graph and
// the queries and makes the guard. The caller must close r.ld.
func newReplayRun(args []string, stderr io.Writer) (*replayRun, error) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var gf graphFlags
	gf.register(fs)
	r := &replayRun{}
	registerDamping(fs, &r.damping)
	trust := fs.String("trust", "", "comma-separated trusted channels (required)")
	queryPath := fs.String("queries", "", "JSON-lines query file (required)")
	fs.StringVar(&r.outPath, "out", "", "write decisions here instead of stdout")
	policyName := fs.String("policy", "reject", "on divergence: reject (hand over the authenticated selection), escalate (refuse, exit status 3), report (pass the native one, flagged)")
	opt := replay.Options{}
	fs.Float64Var(&opt.Tol, "tol", ppr.DefaultTol, "native solve L1 error bound")
	fs.Float64Var(&opt.TieTol, "tie-tol", 0, "scores within this are a tie (left out: 10*tol)")
	force := fs.String("force", "auto", "start replay at this path: auto, delta or full")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	trusted, err := checkReplayFlags(given(fs), &gf, r.damping, *queryPath, *trust, opt)
	if err != nil {
		return nil, err
	}
	if r.policy, err = replay.ParseOnDivergence(*policyName); err != nil {
		return nil, fmt.Errorf("%w: --policy: %v", errUsage, err)
	}
	if opt.Force, err = replay.ParsePath(*force); err != nil {
		return nil, fmt.Errorf("%w: --force: %v", errUsage, err)
	}
	opt.OnDivergence = r.policy
	if r.ld, _, err = gf.load(stderr); err != nil {
		return nil, err
	}
	if err := r.prepare(trusted, *queryPath, opt); err != nil {
		r.ld.close()
		return nil, err
	}
	return r, nil
}

// checkReplayFlags checks replay's flags (set: those given) and returns
// the trusted channels.
func checkReplayFlags(set map[string]bool, gf *graphFlags, damping float64, queryPath, trust string, opt replay.Options) ([]string, error) {
	if queryPath == "" {
		return nil, fmt.Errorf("%w: --queries is required", errUsage)
	}
	if err := firstErr(gf.check(set), checkDamping(damping), checkTol("tol", opt.Tol)); err != nil {
		return nil, err
	}
	if set["tie-tol"] && (!(opt.TieTol > 0) || math.IsInf(opt.TieTol, 0)) {
		return nil, usagef("--tie-tol %v, want a positive finite number (left out: 10*tol)", opt.TieTol)
	}
	trusted := splitList(trust)
	if len(trusted) == 0 {
		return nil, fmt.Errorf("%w: --trust CH,... is required", errUsage)
	}
	return trusted, nil
}

// prepare checks the trusted channels against the graph's labels, reads
// the queries and makes the guard.
func (r *replayRun) prepare(trusted []string, queryPath string, opt replay.Options) error {
	trustPolicy := mask.Trust(trusted...)
	if err := trustPolicy.Check(r.ld.labels); err != nil {
		return err
	}
	var err error
	if r.queries, err = readQueries(r.ld.g, queryPath); err != nil {
		return err
	}
	r.guard, err = replay.New(r.ld.g, r.ld.labels, trustPolicy, opt)
	return err
}

// run guards every query and writes its decision to out as a JSON line.
func (r *replayRun) run(out io.Writer) (live.Summary, error) {
	w := bufio.NewWriter(out)
	var sum live.Summary
	for _, q := range r.queries {
		d, err := r.guard.Select(replay.Query{Seeds: q.Seeds, K: q.K, Candidates: q.Candidates, Damping: r.damping})
		var div *replay.DivergenceError
		if err != nil && !errors.As(err, &div) {
			return sum, fmt.Errorf("query %s: %w", q.ID, err)
		}
		rec := decisionRecord(r.ld.g, q.ID, d)
		if div != nil {
			rec.Error = div.Error()
			rec.Refused, rec.Selected = true, nil
		}
		sum.Add(d)
		b, err := json.Marshal(rec)
		if err != nil {
			return sum, err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	return sum, w.Flush()
}

type suspectRecord struct {
	Channel  string    `json:"channel"`
	Channels []string  `json:"channels"`
	Edge     [2]string `json:"edge"`
	EdgeID   uint32    `json:"edge_id"`
	Deleted  bool      `json:"deleted,omitempty"`
	Mass     float64   `json:"mass"`
}

type decisionJSON struct {
	ID     string   `json:"id"`
	Native []string `json:"native"`
	Auth   []string `json:"auth"`
	// Selected is what the policy hands over: null when escalate refused
	// the selection (Refused).
	Selected  []string `json:"selected"`
	Refused   bool     `json:"refused"`
	Divergent bool     `json:"divergent"`
	Outcome   string   `json:"outcome"`
	Path      string   `json:"path"`
	// Gap is the interval [lo, hi] proved to hold gapA (replay.Decision):
	// null when every candidate is selected (gapA is +Inf; said by
	// EveryCandidateSelected), an end null when unbounded on that side.
	Gap                    []*float64      `json:"gap"`
	EveryCandidateSelected bool            `json:"every_candidate_selected,omitempty"`
	Bound                  *float64        `json:"bound"`
	NativeUS               int64           `json:"native_us"`
	ReplayUS               int64           `json:"replay_us"`
	NativeSweeps           int             `json:"native_sweeps"`
	ReplayArcOps           int64           `json:"replay_arc_ops"`
	Suspects               []suspectRecord `json:"suspects"`
	Error                  string          `json:"error,omitempty"`
}

func decisionRecord(g *csr.Graph, id string, d *replay.Decision) decisionJSON {
	names := func(s []ppr.Scored) []string {
		out := make([]string, len(s))
		for i, x := range s {
			out[i] = g.Name(x.Node)
		}
		return out
	}
	rec := decisionJSON{
		ID: id, Native: names(d.Native), Auth: names(d.Auth), Selected: names(d.Selected),
		Divergent: d.Divergent, Outcome: d.Outcome.String(), Path: d.Path.String(),
		Bound:    jsonFloat(d.Bound),
		NativeUS: d.NativeTime.Microseconds(), ReplayUS: d.ReplayTime.Microseconds(),
		NativeSweeps: d.NativeSweeps, ReplayArcOps: d.ReplayArcOps,
		Suspects: []suspectRecord{},
	}
	if math.IsInf(d.NativeGap, 1) {
		rec.EveryCandidateSelected = true
	} else {
		rec.Gap = []*float64{jsonFloat(d.Gap.Lo), jsonFloat(d.Gap.Hi)}
	}
	for _, s := range d.Suspects {
		rec.Suspects = append(rec.Suspects, suspectRecord{
			Channel: strings.Join(s.Channels, ","), Channels: s.Channels,
			Edge: [2]string{g.Name(s.Src), g.Name(s.Dst)}, EdgeID: s.Edge, Deleted: s.Deleted, Mass: s.Mass,
		})
	}
	return rec
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		b = 1
	}
	return float64(a) / float64(b)
}
