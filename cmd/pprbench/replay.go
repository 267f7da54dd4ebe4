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

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var gf graphFlags
	gf.register(fs)
	damping := fs.Float64("damping", 0.85, "damping d as in igraph (teleport 1-d)")
	trust := fs.String("trust", "", "comma-separated trusted channels (required)")
	queryPath := fs.String("queries", "", "JSON-lines query file (required)")
	outPath := fs.String("out", "", "write decisions here instead of stdout")
	policyName := fs.String("policy", "reject", "on divergence: reject (hand over the authenticated selection), escalate (refuse, exit status 3), report (pass the native one, flagged)")
	tol := fs.Float64("tol", ppr.DefaultTol, "native solve L1 error bound")
	tieTol := fs.Float64("tie-tol", 0, "scores within this are a tie (left out: 10*tol)")
	force := fs.String("force", "auto", "start replay at this path: auto, delta or full")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *queryPath == "" {
		return fmt.Errorf("%w: --queries is required", errUsage)
	}
	set := given(fs)
	if err := firstErr(gf.check(set), checkDamping(*damping), checkTol("tol", *tol)); err != nil {
		return err
	}
	if set["tie-tol"] && (!(*tieTol > 0) || math.IsInf(*tieTol, 0)) {
		return usagef("--tie-tol %v, want a positive finite number (left out: 10*tol)", *tieTol)
	}
	trusted := splitList(*trust)
	if len(trusted) == 0 {
		return fmt.Errorf("%w: --trust CH,... is required", errUsage)
	}
	policy, err := replay.ParseOnDivergence(*policyName)
	if err != nil {
		return fmt.Errorf("%w: --policy: %v", errUsage, err)
	}
	path, err := replay.ParsePath(*force)
	if err != nil {
		return fmt.Errorf("%w: --force: %v", errUsage, err)
	}
	ld, _, err := gf.load(stderr)
	if err != nil {
		return err
	}
	defer ld.close()
	g, labels := ld.g, ld.labels
	trustPolicy := mask.Trust(trusted...)
	if err := trustPolicy.Check(labels); err != nil {
		return err
	}
	queries, err := readQueries(g, *queryPath)
	if err != nil {
		return err
	}
	guard, err := replay.New(g, labels, trustPolicy, replay.Options{Tol: *tol, TieTol: *tieTol, OnDivergence: policy, Force: path})
	if err != nil {
		return err
	}
	out, closeOut, err := createOutput(*outPath, stdout)
	if err != nil {
		return err
	}
	defer closeOut()
	w := bufio.NewWriter(out)
	var sum live.Summary
	for _, q := range queries {
		d, err := guard.Select(replay.Query{Seeds: q.Seeds, K: q.K, Candidates: q.Candidates, Damping: *damping})
		var div *replay.DivergenceError
		if err != nil && !errors.As(err, &div) {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		rec := decisionRecord(g, q.ID, d)
		if div != nil {
			rec.Error = div.Error()
			rec.Refused, rec.Selected = true, nil
		}
		sum.Add(d)
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := closeOut(); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "replay:", sum.Decisions())
	if policy == replay.Escalate && sum.Divergent > 0 {
		return fmt.Errorf("%w: %d of %d selections diverged and were refused", errEscalated, sum.Divergent, sum.Queries)
	}
	return nil
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
