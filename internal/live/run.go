package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
	"github.com/authppr/authppr/store"
)

// ErrCheck marks a decision that differs from a from-scratch guard's
// (Options.Check): a defect of the guard, never of the input.
var ErrCheck = errors.New("the decision differs from a from-scratch guard on the materialised version")

// Runner applies write events to a store and answers query events with a
// store guard. It is not safe for concurrent use.
type Runner struct {
	st      *store.Store
	guard   *store.Guard
	trust   mask.Policy
	trusted []string
	opt     replay.Options
	damping float64
	check   bool
	writers map[string]*store.Writer
	sum     Summary
	asked   map[string]bool // the seed sets asked for so far (seedsKey)
}

// Options configure a Runner.
type Options struct {
	Damping float64
	Trust   []string // trusted channels; they need not have written yet
	Replay  replay.Options
	// Check verifies every decision against a from-scratch guard on the
	// materialised version (replay.New on Version.Materialize, and the
	// authenticated vector solved to internal/reference.Tol).
	Check bool
}

// NewRunner returns a runner over st.
func NewRunner(st *store.Store, opt Options) (*Runner, error) {
	if len(opt.Trust) == 0 {
		return nil, errors.New("live: no trusted channel")
	}
	if !(opt.Damping >= 0 && opt.Damping < 1) {
		return nil, fmt.Errorf("live: damping %v, want 0 <= d < 1", opt.Damping)
	}
	trust := mask.Trust(opt.Trust...)
	r := &Runner{st: st, trust: trust, trusted: slices.Clone(opt.Trust), opt: opt.Replay, damping: opt.Damping, check: opt.Check,
		guard: st.NewGuard(trust, opt.Replay), writers: map[string]*store.Writer{}, asked: map[string]bool{}}
	return r, nil
}

// Apply applies a write batch as its channel: all of it or, on an error
// naming the write, none.
func (r *Runner) Apply(w *Write) (store.Result, error) { return r.ApplyAt(0, w) }

// ApplyAt is Apply recording the batch's position in an external log (a
// replicated stream's sequence; store.Writer.ApplyAt): pos 0 is Apply.
func (r *Runner) ApplyAt(pos uint64, w *Write) (store.Result, error) {
	wr := r.writers[w.Channel]
	if wr == nil {
		var err error
		if wr, err = r.st.Writer(w.Channel); err != nil {
			return store.Result{}, err
		}
		r.writers[w.Channel] = wr
	}
	res, err := wr.ApplyAt(pos, w.Ops...)
	if err != nil {
		return store.Result{}, err
	}
	r.sum.Batches++
	return res, nil
}

// Record is the answer to one query.
type Record struct {
	ID        string          `json:"id"`
	Version   uint64          `json:"version"`
	Seq       *uint64         `json:"seq,omitempty"`
	Native    []string        `json:"native"`
	Auth      []string        `json:"auth"`
	Divergent bool            `json:"divergent"`
	Outcome   string          `json:"outcome"`
	Path      string          `json:"path"`
	Suspects  []SuspectRecord `json:"suspects"`
	NativeUS  int64           `json:"native_us"`
	GuardUS   int64           `json:"guard_us"`
}

// SuspectRecord names a suspect edge by its ends and the untrusted
// channels behind it (Channel joins them with commas).
type SuspectRecord struct {
	Src      string   `json:"src"`
	Dst      string   `json:"dst"`
	Channel  string   `json:"channel"`
	Channels []string `json:"channels"`
	Deleted  bool     `json:"deleted,omitempty"`
	EdgeID   uint32   `json:"edge_id"`
}

// Answer answers q on the store's current version.
func (r *Runner) Answer(q *Query) (*Record, error) {
	v := r.st.Current()
	rq, err := r.resolve(v, q)
	if err != nil {
		return nil, err
	}
	d, err := r.guard.Select(v, rq)
	var div *replay.DivergenceError
	if err != nil && !errors.As(err, &div) {
		return nil, fmt.Errorf("query %s: %w", q.ID, err)
	}
	key := seedsKey(rq.Seeds)
	recurring := r.asked[key]
	r.asked[key] = true
	if r.check {
		if err := r.verify(v, rq, d, recurring); err != nil {
			return nil, fmt.Errorf("query %s: %w: %w", q.ID, ErrCheck, err)
		}
	}
	rec := &Record{ID: q.ID, Version: v.Batches(), Native: names(v, d.Native), Auth: names(v, d.Auth),
		Divergent: d.Divergent, Outcome: d.Outcome.String(), Path: d.Path.String(), Suspects: []SuspectRecord{},
		NativeUS: d.NativeTime.Microseconds(), GuardUS: d.ReplayTime.Microseconds()}
	for _, s := range d.Suspects {
		rec.Suspects = append(rec.Suspects, SuspectRecord{Src: v.Name(s.Src), Dst: v.Name(s.Dst),
			Channel: strings.Join(s.Channels, ","), Channels: s.Channels, Deleted: s.Deleted, EdgeID: s.Edge})
	}
	r.sum.Add(d)
	return rec, nil
}

// resolve turns a query by names into ids on v.
func (r *Runner) resolve(v *store.Version, q *Query) (replay.Query, error) {
	seeds, cands, err := q.Resolve(v.ID)
	if err != nil {
		return replay.Query{}, fmt.Errorf("query %s: %v", q.ID, err)
	}
	return replay.Query{Seeds: seeds, K: q.K, Candidates: cands, Damping: r.damping}, nil
}

func names(v *store.Version, sel []ppr.Scored) []string {
	out := make([]string, len(sel))
	for i, s := range sel {
		out[i] = v.Name(s.Node)
	}
	return out
}

// verify checks d against a from-scratch guard on v materialised: the
// decision's claims against the exact authenticated vector
// (replay.CheckDecision), and its refusal against the fresh guard's. It
// records the unguarded selection's time over the fresh guard's native
// selection (a from-scratch certified top-k on the version), apart for
// seed sets asked for before (recurring: the store's cache carries their
// state across versions).
func (r *Runner) verify(v *store.Version, q replay.Query, d *replay.Decision, recurring bool) error {
	g, labels, err := v.Materialize()
	if err != nil {
		return err
	}
	opt := r.opt
	opt.OnDivergence = replay.Report
	fresh, err := replay.New(g, labels, r.trust, opt)
	if err != nil {
		return err
	}
	fd, err := fresh.Select(q)
	if err != nil {
		return err
	}
	ref, err := replay.Reference(g, labels, r.trust, q, opt)
	if err != nil {
		return err
	}
	ambiguous, err := replay.CheckDecision(ref.AuthPPR, d, q, fresh.Options().TieTol)
	if err != nil {
		return err
	}
	// A native selection with an exact tie need not be unique (a warm
	// start may pick the other one); the refusals compare where the
	// selections agree, and CheckDecision checked this one's claims.
	if !ambiguous && sameNodes(fd.Native, d.Native) && fd.Divergent != d.Divergent {
		return fmt.Errorf("divergent %v, a from-scratch guard on the materialised version says %v", d.Divergent, fd.Divergent)
	}
	r.sum.Checked++
	ratio := float64(d.NativeTime) / float64(max(fd.NativeTime, 1))
	if recurring {
		r.sum.RecurringNative = append(r.sum.RecurringNative, ratio)
	} else {
		r.sum.FirstNative = append(r.sum.FirstNative, ratio)
	}
	return nil
}

// seedsKey identifies a seed set: its nodes and weights in order, as
// bytes (the store's cache keys its states the same way; formatting each
// of a dense reset's seeds cost a print call apiece).
func seedsKey(seeds []ppr.Seed) string {
	b := make([]byte, 0, 12*len(seeds))
	for _, s := range seeds {
		b = binary.LittleEndian.AppendUint32(b, s.Node)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Weight))
	}
	return string(b)
}

// Summary counts decisions (and a live run's write batches and checks).
type Summary struct {
	Batches, Queries, Divergent, Ties, Checked int
	Paths                                      map[string]int
	// Overhead is, per query, the guard's time over the unguarded
	// certified selection's (Decision.ReplayTime / NativeTime).
	Overhead []float64
	// With checks, per query, the unguarded selection's time on the
	// version over a from-scratch one's on the materialised version: for
	// seed sets asked for before (whose state the cache carries) and for
	// the others.
	RecurringNative, FirstNative []float64
}

// Add counts one decision.
func (s *Summary) Add(d *replay.Decision) {
	s.Queries++
	if d.Divergent {
		s.Divergent++
	}
	if d.Outcome == replay.Tie {
		s.Ties++
	}
	if s.Paths == nil {
		s.Paths = map[string]int{}
	}
	s.Paths[d.Path.String()]++
	s.Overhead = append(s.Overhead, float64(d.ReplayTime)/float64(max(d.NativeTime, 1)))
}

// Decisions returns the one-line summary of the decisions: counts, the
// paths taken, and the guard's overhead over the unguarded certified
// selection (median and p99).
func (s *Summary) Decisions() string {
	var mix []string
	for _, p := range []string{"untouched", "certificate", "delta", "full"} {
		if c := s.Paths[p]; c > 0 {
			mix = append(mix, fmt.Sprintf("%s %d", p, c))
		}
	}
	return fmt.Sprintf("%d queries, %d divergent, %d ties; paths: %s; guard overhead over the unguarded certified selection: median %.1f%%, p99 %.1f%%",
		s.Queries, s.Divergent, s.Ties, strings.Join(mix, ", "), 100*Quantile(s.Overhead, 0.5), 100*Quantile(s.Overhead, 0.99))
}

// Quantile returns the q-quantile (nearest rank) of xs; 0 for none.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Summary returns the run's summary so far.
func (r *Runner) Summary() Summary { return r.sum }

// Silent returns the trusted channels that never wrote (in the base graph
// or a batch): a typo cannot be told from a channel yet to write.
func (r *Runner) Silent() []string {
	wrote := r.st.Current().Channels()
	var out []string
	for _, c := range r.trusted {
		if _, ok := slices.BinarySearch(wrote, c); !ok {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// Print writes the summary: queries, divergent, ties, paths, the guard's
// overhead over the unguarded selection (median and p99), and the trusted
// channels that never wrote.
func (r *Runner) Print(w io.Writer, elapsed time.Duration) {
	s := r.sum
	fmt.Fprintf(w, "live: %d write batches; %s\n", s.Batches, s.Decisions())
	if s.Checked > 0 {
		fmt.Fprintf(w, "live: %d decisions checked against from-scratch guards on the materialised versions\n", s.Checked)
		fmt.Fprintf(w, "live: unguarded selection over a from-scratch one on the same version: median %.2f for %d recurring seed sets, %.2f for %d first asked\n",
			Quantile(s.RecurringNative, 0.5), len(s.RecurringNative), Quantile(s.FirstNative, 0.5), len(s.FirstNative))
	}
	if silent := r.Silent(); len(silent) > 0 {
		fmt.Fprintf(w, "live: trusted channels that never wrote: %s\n", strings.Join(silent, ", "))
	}
	fmt.Fprintf(w, "live: %v\n", elapsed.Round(time.Millisecond))
}

// sameNodes reports whether two selections hold the same nodes.
func sameNodes(a, b []ppr.Scored) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[uint32]bool, len(a))
	for _, s := range a {
		in[s.Node] = true
	}
	for _, s := range b {
		if !in[s.Node] {
			return false
		}
	}
	return true
}
