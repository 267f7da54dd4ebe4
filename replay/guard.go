package replay

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Options configure a Guard. Zero values take the defaults.
type Options struct {
	// Tol is the native solve's L1 error bound (default ppr.DefaultTol).
	Tol float64
	// TieTol is delta: authenticated scores within it of each other are a
	// tie (default 10*Tol: proving a tie needs estimates more precise than
	// the band, and 10*Tol is reached without refining the native solve).
	TieTol float64
	// DeltaBudget caps the arc operations of the delta path before it hands
	// over to the full path. Default: eight times the graph's arcs (an
	// eighth of that on directed views, whose L1 bound pushes shrink
	// slowly). The delta path pushes in id-ordered rounds
	// (ppr.Engine.PushRounds), which cost about what a sweep costs per arc,
	// so it stays the cheaper path until it has done several sweeps' work.
	DeltaBudget int64
	// Policy says what the caller gets on a divergence (default Reject).
	Policy Policy
	// Force starts the replay at this path (PathDelta or PathFull) instead
	// of the cheapest; for tests and measurements.
	Force Path
	// MaxSuspects caps the suspect edges named on a divergence (default 5).
	MaxSuspects int

	explicitBudget bool // DeltaBudget was given by the caller
}

// Guard replays selections on the authenticated view of one snapshot. It is
// safe for concurrent use: per-query state lives in pooled workspaces.
type Guard struct {
	g      *csr.Graph
	labels *mask.Labels
	trust  mask.Policy
	native *mask.View
	auth   *mask.View
	opt    Options

	touched // rows that differ between the views (see touchedRows)

	pool sync.Pool // *workspace
}

// New builds a guard for g with the given labels and trust policy.
func New(g *csr.Graph, labels *mask.Labels, trust mask.Policy, opt Options) (*Guard, error) {
	if opt.Tol == 0 {
		opt.Tol = ppr.DefaultTol
	}
	if !(opt.Tol > 0) {
		return nil, fmt.Errorf("replay: tolerance %v, want positive", opt.Tol)
	}
	if opt.TieTol == 0 {
		opt.TieTol = 10 * opt.Tol
	}
	if !(opt.TieTol > 0) {
		return nil, fmt.Errorf("replay: tie tolerance %v, want positive", opt.TieTol)
	}
	opt.explicitBudget = opt.DeltaBudget != 0
	if opt.DeltaBudget == 0 {
		opt.DeltaBudget = max(8*int64(g.NumArcs()), 1024)
	}
	if opt.MaxSuspects == 0 {
		opt.MaxSuspects = 5
	}
	if opt.Force != PathAuto && opt.Force != PathDelta && opt.Force != PathFull {
		return nil, fmt.Errorf("replay: cannot force path %s (only delta or full)", opt.Force)
	}
	native, err := mask.Native(g, labels)
	if err != nil {
		return nil, err
	}
	auth, err := mask.Authenticated(g, labels, trust)
	if err != nil {
		return nil, err
	}
	gd := &Guard{g: g, labels: labels, trust: trust, native: native, auth: auth, opt: opt}
	gd.touched = touchedRows(native, auth)
	return gd, nil
}

// Native returns the native view.
func (gd *Guard) Native() *mask.View { return gd.native }

// Auth returns the authenticated view.
func (gd *Guard) Auth() *mask.View { return gd.auth }

// Touched returns the nodes whose out-rows differ between the views.
func (gd *Guard) Touched() []uint32 { return gd.touched.nodes }

// Options returns the options in effect (defaults filled in).
func (gd *Guard) Options() Options { return gd.opt }

// Query is one selection request.
type Query struct {
	Seeds      []ppr.Seed
	K          int
	Candidates []uint32 // nil: every node competes
	Damping    float64
}

// workspace holds one query's vectors; the sparse difference state is
// cleared through its support after use (O(support + n/64)), so a query
// costs no O(n) clearing beyond the native solve's own.
type workspace struct {
	nativeEng *ppr.Engine // native view: x_G, r_G
	deltaEng  *ppr.Engine // authenticated view: dx, dr (sparse)
	authEng   *ppr.Engine // authenticated view, dense: the full path
	support   *ppr.Support
	supNodes  []uint32 // scratch: the support as a list
	inSel     []bool
	xTouched  []float64      // x_G on the guard's touched nodes, kept for attribution
	reverse   *reversePusher // directed full path's reverse pushes, made on first use
	authMark  []bool         // scratch: the estimated authenticated selection (withAuthSelection)
}

func (gd *Guard) workspace(seeds ppr.Seeds, damping float64) (*workspace, error) {
	ws, _ := gd.pool.Get().(*workspace)
	if ws == nil {
		n := gd.g.NumNodes()
		ws = &workspace{support: ppr.NewSupport(n), inSel: make([]bool, n)}
		var err error
		if ws.nativeEng, err = ppr.NewEngine(gd.native, seeds, damping); err != nil {
			return nil, err
		}
		if ws.deltaEng, err = ppr.NewEngine(gd.auth, seeds, damping); err != nil {
			return nil, err
		}
		if ws.authEng, err = ppr.NewEngine(gd.auth, seeds, damping); err != nil {
			return nil, err
		}
		ws.deltaEng.Support = ws.support
		// Dangling residual is pushed too: PushRounds sends a round's
		// dangling mass to the seeds once, so a dense seed vector costs
		// |seeds| per round, not per push.
		clear(ws.deltaEng.R) // the delta state starts at zero
	}
	if err := ws.nativeEng.Restart(seeds, damping); err != nil {
		return nil, err
	}
	if err := ws.deltaEng.SetProblem(seeds, damping); err != nil {
		return nil, err
	}
	ws.deltaEng.Stats = ppr.Stats{}
	return ws, nil
}

// release clears the sparse state and returns ws to the pool.
func (gd *Guard) release(ws *workspace) {
	ws.supNodes = ws.support.AppendNodes(ws.supNodes[:0])
	for _, v := range ws.supNodes {
		ws.deltaEng.X[v] = 0
		ws.deltaEng.R[v] = 0
	}
	ws.support.Reset()
	gd.pool.Put(ws)
}

// validate checks a query at the API boundary.
func (gd *Guard) validate(q Query) (ppr.Seeds, error) {
	n := gd.g.NumNodes()
	if q.K < 1 {
		return ppr.Seeds{}, fmt.Errorf("replay: k = %d, want at least 1", q.K)
	}
	if q.Candidates != nil {
		if len(q.Candidates) == 0 {
			return ppr.Seeds{}, errors.New("replay: empty candidate set")
		}
		seen := make(map[uint32]bool, len(q.Candidates))
		for i, c := range q.Candidates {
			if int64(c) >= int64(n) {
				return ppr.Seeds{}, fmt.Errorf("replay: candidate %d: node %d out of range (graph has %d nodes)", i, c, n)
			}
			if seen[c] {
				return ppr.Seeds{}, fmt.Errorf("replay: candidate %d: node %d repeated", i, c)
			}
			seen[c] = true
		}
	}
	seeds, err := ppr.NewSeeds(n, q.Seeds)
	if err != nil {
		return ppr.Seeds{}, fmt.Errorf("replay: %w", err)
	}
	return seeds, nil
}

// Select solves the query natively, replays it on the authenticated view and
// returns the decision. Under the Escalate policy a divergence also returns
// a *DivergenceError (with the same decision, whose Selected is nil: the
// selection is refused).
func (gd *Guard) Select(q Query) (*Decision, error) {
	seeds, err := gd.validate(q)
	if err != nil {
		return nil, err
	}
	ws, err := gd.workspace(seeds, q.Damping)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer gd.release(ws)

	start := time.Now()
	res, err := ws.nativeEng.SolveSweeps(ppr.Options{Tol: gd.opt.Tol})
	if err != nil {
		return nil, fmt.Errorf("replay: native solve: %w", err)
	}
	k := q.K
	if q.Candidates != nil {
		k = min(k, len(q.Candidates))
	} else {
		k = min(k, gd.g.NumNodes())
	}
	// One more than k gives the native boundary gap for free: the k-th
	// score minus the best unselected one (+Inf when all are selected).
	// Ties break by first-appearance rank (node id unless the graph was
	// reordered), so a reordered graph selects what stream order does.
	top := ppr.TopKRanked(res.Scores, k+1, q.Candidates, gd.g.Ranks())
	native, gx := top, math.Inf(1)
	if len(top) > k {
		native, gx = top[:k], top[k-1].Score-top[k].Score
	}
	d := &Decision{Native: native, NativeSweeps: res.Sweeps, NativeGap: gx}
	d.NativeTime = time.Since(start)

	start = time.Now()
	r := &run{gd: gd, ws: ws, q: q, k: k, d: d, seeds: seeds, tauG: res.ErrorBound, gx: gx}
	r.decide()
	d.ReplayTime = time.Since(start)
	d.Divergent = d.Outcome == Divergent
	d.Selected = d.Native
	if d.Divergent && gd.opt.Policy == Reject {
		d.Selected = d.Auth
	}
	if d.Divergent && gd.opt.Policy == Escalate {
		d.Selected = nil // refused: a caller that drops the error gets nothing
		return d, &DivergenceError{Decision: d}
	}
	return d, nil
}

// Vectors solves the query on both views at once with ppr.SolvePair (one
// pass over the arrays per sweep serves both; Jacobi sweeps to the guard's
// tolerance), for callers that always want both full vectors rather than a
// decision.
func (gd *Guard) Vectors(q Query) (native, auth *ppr.Result, err error) {
	seeds, err := gd.validate(q)
	if err != nil {
		return nil, nil, err
	}
	native, auth, err = ppr.SolvePair(gd.native, gd.auth, seeds, q.Damping, ppr.Options{Tol: gd.opt.Tol})
	if err != nil {
		return nil, nil, fmt.Errorf("replay: %w", err)
	}
	return native, auth, nil
}
