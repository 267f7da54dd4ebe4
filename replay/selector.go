package replay

import "fmt"

// Selector is any selector that can run on both views of the structure it
// selects over: the native one (every write, trusted or not) and the
// authenticated one (trusted writes only). The PPR guard is the specialised
// form for PPR top-k; consensus.Guarded is another (untrusted contradiction
// edges are its structural writes). S is the selector's result type.
type Selector[S any] interface {
	// SelectNative selects on the native structure.
	SelectNative() (S, error)
	// SelectAuth selects on the authenticated structure.
	SelectAuth() (S, error)
	// Equal reports whether two selections are the same selection.
	Equal(a, b S) bool
}

// SelectorDecision is ReplaySelector's answer, in Decision's vocabulary: an
// exact selector has no tie band, so Outcome is Same or Divergent.
type SelectorDecision[S any] struct {
	Native   S
	Auth     S
	Selected S // what the policy hands the caller (S's zero value when Escalate refused)
	Outcome  Outcome
	// Divergent is Outcome == Divergent.
	Divergent bool
}

// SelectorDivergenceError is ReplaySelector's error under the Escalate
// policy; Decision is a *SelectorDecision[S].
type SelectorDivergenceError struct {
	Decision any
}

func (e *SelectorDivergenceError) Error() string {
	return "replay: selection diverges on the authenticated structure"
}

// ReplaySelector runs sel on both views and decides as Guard.Select does:
// Divergent when the selections differ; under Reject the caller gets the
// authenticated selection, under Report the native one (flagged), under
// Escalate a *SelectorDivergenceError with the decision (and no selection
// in it). An error from
// either side is returned wrapped (naming the side), with no decision.
func ReplaySelector[S any](sel Selector[S], policy OnDivergence) (*SelectorDecision[S], error) {
	native, err := sel.SelectNative()
	if err != nil {
		return nil, fmt.Errorf("replay: native selection: %w", err)
	}
	auth, err := sel.SelectAuth()
	if err != nil {
		return nil, fmt.Errorf("replay: authenticated selection: %w", err)
	}
	d := &SelectorDecision[S]{Native: native, Auth: auth, Selected: native, Outcome: Same}
	if !sel.Equal(native, auth) {
		d.Outcome, d.Divergent = Divergent, true
		switch policy {
		case Reject:
			d.Selected = auth
		case Escalate:
			var refused S // a caller that drops the error gets nothing
			d.Selected = refused
			return d, &SelectorDivergenceError{Decision: d}
		}
	}
	return d, nil
}
