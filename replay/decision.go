package replay

import (
	"fmt"
	"time"

	"github.com/authppr/authppr/ppr"
)

// Outcome classifies the authenticated replay of a native selection.
type Outcome int

const (
	// Same: the native selection is the authenticated one, every selected
	// candidate strictly above every other (gapA > 0, proved).
	Same Outcome = iota
	// Tie: no candidate outside the native selection beats one inside by
	// more than TieTol on the authenticated graph, and the guard proved
	// |gapA| <= TieTol without proving gapA > 0. Accepted, reported.
	Tie
	// Divergent: untrusted structure changed the selection.
	Divergent
)

func (o Outcome) String() string {
	switch o {
	case Same:
		return "same"
	case Tie:
		return "tie"
	case Divergent:
		return "divergent"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Path names how a decision was reached, cheapest first.
type Path int

const (
	PathAuto        Path = iota // only as Options.Force: no path forced
	PathUntouched               // no touched node carries native mass
	PathCertificate             // the L1 certificate
	PathDelta                   // signed delta push on the authenticated view
	PathFull                    // warm-started sweeps on the authenticated view
)

func (p Path) String() string {
	switch p {
	case PathAuto:
		return "auto"
	case PathUntouched:
		return "untouched"
	case PathCertificate:
		return "certificate"
	case PathDelta:
		return "delta"
	case PathFull:
		return "full"
	}
	return fmt.Sprintf("Path(%d)", int(p))
}

// ParsePath accepts the names String returns.
func ParsePath(s string) (Path, error) {
	for p := PathAuto; p <= PathFull; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("replay: unknown path %q, want auto, untouched, certificate, delta or full", s)
}

// OnDivergence says what Select hands the caller on a divergence.
type OnDivergence int

const (
	// Reject (the default): the caller gets the authenticated selection and
	// the divergence flag.
	Reject OnDivergence = iota
	// Escalate: Select returns a *DivergenceError the caller must handle.
	Escalate
	// Report: the native selection passes through, flagged.
	Report
)

func (p OnDivergence) String() string {
	switch p {
	case Reject:
		return "reject"
	case Escalate:
		return "escalate"
	case Report:
		return "report"
	}
	return fmt.Sprintf("OnDivergence(%d)", int(p))
}

// ParseOnDivergence accepts reject, escalate or report.
func ParseOnDivergence(s string) (OnDivergence, error) {
	for p := Reject; p <= Report; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("replay: unknown divergence policy %q, want reject, escalate or report", s)
}

// Interval is a closed interval proved to hold a quantity.
type Interval = ppr.Interval

// Suspect is an edge whose trust status differs between the views, with
// the native PPR mass that flowed through it (or, for an untrusted
// deletion, would have flowed) in the native solution: the largest terms of
// the replay's start residual.
type Suspect struct {
	Edge     uint32
	Src, Dst uint32
	Channels []string // untrusted channels that added (or deleted) the edge
	Deleted  bool     // true when an untrusted channel deleted a trusted edge
	Mass     float64
}

// Decision is the guard's answer for one query.
type Decision struct {
	Native   []ppr.Scored // native top-k, native scores
	Auth     []ppr.Scored // authenticated top-k, authenticated estimates
	Selected []ppr.Scored // what the policy hands the caller (nil when Escalate refused)
	Outcome  Outcome
	// Divergent is Outcome == Divergent; a Tie is never a divergence.
	Divergent bool
	Path      Path
	// NativeGap is the native boundary gap: the k-th native score minus the
	// best unselected candidate's (+Inf when every candidate is selected).
	// The smaller it is, the more precision a decision needs.
	NativeGap float64
	// Gap holds gapA (see the package doc) as proved by the path.
	Gap Interval
	// Bound is the half-width of Gap: the precision the decision needed.
	Bound float64
	// Suspects lists, on a divergence, the untrusted edges that carried the
	// most native mass, largest first.
	Suspects []Suspect

	NativeSweeps int
	NativeTime   time.Duration // native solve and top-k
	ReplayTime   time.Duration // everything after that
	ReplayArcOps int64         // arcs read by replay pushes and sweeps
	ReplaySweeps int
	// Refined counts the candidates whose bounds reverse pushes tightened
	// when they decided (directed views, full path; see reverse.go).
	Refined int
}

// DivergenceError is returned by Select under the Escalate policy.
type DivergenceError struct {
	Decision *Decision
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("replay: selection diverges on the authenticated graph (path %s, gap in [%.3g, %.3g]); %d suspect edge(s)",
		e.Decision.Path, e.Decision.Gap.Lo, e.Decision.Gap.Hi, len(e.Decision.Suspects))
}
