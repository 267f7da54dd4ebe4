package replay

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/internal/reuse"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Options configure a Guard. Zero values take the defaults.
type Options struct {
	// Tol is the precision at which the certified selections give up
	// proving (ties): their L1 error bound (default ppr.DefaultTol).
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
	// OnDivergence says what the caller gets on a divergence (default
	// Reject).
	OnDivergence OnDivergence
	// Force starts the replay at this path (PathDelta or PathFull) instead
	// of the cheapest; for tests and measurements.
	Force Path
	// MaxSuspects caps the suspect edges named on a divergence (default 5).
	MaxSuspects int
	// Workspaces, when not nil, is a pool of per-query workspaces shared
	// with other guards (a host's guards of successive versions), so a
	// guard on a new version reuses the arrays earlier queries made
	// instead of allocating O(n) again (default: the guard's own pool).
	Workspaces *Workspaces

	explicitBudget bool // DeltaBudget was given by the caller
}

// Guard replays selections on the authenticated view of one graph (a
// snapshot, or a store version presented as patched views). It is safe for
// concurrent use: per-query state lives in pooled workspaces.
type Guard struct {
	native *mask.View
	auth   *mask.View
	trust  mask.Policy
	edges  EdgeSource
	opt    Options

	touched          // rows that differ between the views (see touchedRows)
	differ  []uint32 // nodes whose out- or in-rows differ (ppr.Engine.ShareEstimates)
	gainers []uint32 // nodes of differ with an arc only the authenticated view has
	rows    diffRows // touched, as ppr.Engine.ShareEstimates reads it

	pool *Workspaces
}

// Workspaces pools the per-query state of guards (engines, their arrays
// and scratch, all O(n)): a workspace made for one guard's views serves
// another's after its engines move to them (ppr.Engine.Rebind), keeping
// their storage. It keeps as many workspaces as queries ran at once, up
// to twice GOMAXPROCS (a sync.Pool would drop them at every collection,
// and a living store's next version would allocate them again). Safe for
// concurrent use; the zero value is ready.
type Workspaces struct {
	mu     sync.Mutex
	free   []*workspace
	primed bool // a guard has put a first workspace in (Guard.prime)
}

// startPriming reports whether the pool has not been primed yet, and
// marks it primed.
func (w *Workspaces) startPriming() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	first := !w.primed
	w.primed = true
	return first
}

func (w *Workspaces) get() *workspace {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := len(w.free)
	if k == 0 {
		return nil
	}
	ws := w.free[k-1]
	w.free[k-1] = nil
	w.free = w.free[:k-1]
	return ws
}

func (w *Workspaces) put(ws *workspace) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.free) < 2*runtime.GOMAXPROCS(0) {
		w.free = append(w.free, ws)
	}
}

// EdgeSource describes the edges a guard names as suspects: the endpoints
// of edge e, the channels it depends on (its writer, and on a derived edge
// what it was derived from) and the channels that deleted it.
type EdgeSource func(e uint32) (src, dst uint32, channels, deletedBy []string)

// New builds a guard for g with the given labels and trust policy.
func New(g *csr.Graph, labels *mask.Labels, trust mask.Policy, opt Options) (*Guard, error) {
	native, err := mask.Native(g, labels)
	if err != nil {
		return nil, err
	}
	auth, err := mask.Authenticated(g, labels, trust)
	if err != nil {
		return nil, err
	}
	edges := func(e uint32) (uint32, uint32, []string, []string) {
		ed := g.Edge(e)
		return ed.Src, ed.Dst, labels.DependsOn(e), labels.DeletersOf(e)
	}
	return NewFromViews(native, auth, nil, trust, edges, opt)
}

// NewFromViews builds a guard from two views of one graph (both from the
// same snapshot, patched or not: a store version's views), the trust
// policy the authenticated view applies and the source of edge
// descriptions for suspects. diff holds the rows that differ between the
// views (nil: computed, reading each of them): a host that keeps
// Difference's result for a snapshot patches it per version instead.
// The first guard on a pool of workspaces also makes what its first query
// would otherwise allocate and first touch (see prime), so that no query
// allocates an array of the graph's size.
func NewFromViews(native, auth *mask.View, diff *Diff, trust mask.Policy, edges EdgeSource, opt Options) (*Guard, error) {
	if native.Graph() != auth.Graph() || native.NumNodes() != auth.NumNodes() {
		return nil, errors.New("replay: the native and authenticated views are not views of one graph")
	}
	if opt.Tol == 0 {
		opt.Tol = ppr.DefaultTol
	}
	if !(opt.Tol > 0) || math.IsInf(opt.Tol, 0) {
		return nil, fmt.Errorf("replay: tolerance %v, want a positive finite number", opt.Tol)
	}
	if opt.TieTol == 0 {
		opt.TieTol = 10 * opt.Tol
	}
	if !(opt.TieTol > 0) || math.IsInf(opt.TieTol, 0) {
		return nil, fmt.Errorf("replay: tie tolerance %v, want a positive finite number", opt.TieTol)
	}
	if opt.DeltaBudget < 0 {
		return nil, fmt.Errorf("replay: delta budget %d, want positive (0: the default)", opt.DeltaBudget)
	}
	opt.explicitBudget = opt.DeltaBudget != 0
	if opt.DeltaBudget == 0 {
		opt.DeltaBudget = max(8*int64(native.Graph().NumArcs()), 1024)
	}
	if opt.MaxSuspects == 0 {
		opt.MaxSuspects = 5
	}
	if opt.MaxSuspects < 0 {
		return nil, fmt.Errorf("replay: %d suspects, want positive (0: the default)", opt.MaxSuspects)
	}
	if opt.Force != PathAuto && opt.Force != PathDelta && opt.Force != PathFull {
		return nil, fmt.Errorf("replay: cannot force path %s (only delta or full)", opt.Force)
	}
	gd := &Guard{native: native, auth: auth, trust: trust, edges: edges, opt: opt, pool: opt.Workspaces}
	if gd.pool == nil {
		gd.pool = &Workspaces{}
	}
	if diff == nil {
		diff = Difference(native, auth)
	}
	gd.touched = diff.t
	// The nodes whose out-rows (touched) or in-rows (the heads of the
	// differing arcs) differ.
	gd.differ = append([]uint32(nil), gd.touched.nodes...)
	gd.differ = append(gd.differ, gd.touched.arcs.nbr...)
	for i, u := range gd.touched.nodes {
		lo, hi := gd.touched.span(i)
		if slices.ContainsFunc(gd.touched.arcs.weight[lo:hi], func(w float64) bool { return w > 0 }) {
			gd.gainers = append(gd.gainers, u)
		}
	}
	gd.rows.t, gd.rows.n = &gd.touched, native.NumNodes()
	if err := gd.prime(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
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

// workspace holds one query's engines and scratch. The native engine's
// state becomes the authenticated one in place (the authenticated engine
// reads the same X and R), so a query allocates nothing proportional to
// the graph after the pool has a workspace.
type workspace struct {
	nativeEng *ppr.Engine // native view
	authEng   *ppr.Engine // authenticated view, on nativeEng's X and R
	x, r      []float64   // the arrays both engines share
	support   *nodeset.Set
	left      ppr.Leftover // the account of what the delta path's push rounds leave
	changed   []uint32     // scratch: the nodes changed since the native proof
	unvisited []uint32     // scratch: the touched rows outside the support
	inSel     []bool
	authMark  []bool    // scratch: an authenticated selection's marks
	xTouched  []float64 // x_G on the guard's touched nodes, kept for attribution
	sel       []uint32  // scratch: a selection's nodes
}

// workspace returns a workspace on the guard's views for the seeds and
// damping: the native engine at the native start state, or, with warm
// set, with X and R left for the caller to fill. It reports the time
// spent on the native engine (what an unguarded selection's own engine
// costs: moving it to the views, its start state); the rest is the
// guard's.
func (gd *Guard) workspace(seeds ppr.Seeds, damping float64, warm bool) (*workspace, time.Duration, error) {
	start := time.Now()
	ws := gd.pool.get()
	if ws == nil {
		var err error
		if ws, err = gd.newWorkspace(seeds, damping); err != nil {
			return nil, 0, err
		}
	}
	ws.nativeEng.Rebind(gd.native)
	ws.x, ws.r = ws.nativeEng.X, ws.nativeEng.R
	var err error
	if warm {
		err = ws.nativeEng.SetProblem(seeds, damping)
		ws.nativeEng.Stats = ppr.Stats{}
	} else {
		err = ws.nativeEng.Restart(seeds, damping)
	}
	if err != nil {
		gd.release(ws)
		return nil, 0, err
	}
	native := time.Since(start)
	// The authenticated engine, on the native engine's arrays (resized
	// already: its Rebind keeps them), and the marks (all false between
	// queries) sized to the views.
	n := gd.native.NumNodes()
	ws.authEng.X, ws.authEng.R = ws.x, ws.r
	ws.authEng.Rebind(gd.auth)
	ws.support.Resize(n)
	ws.inSel, ws.authMark = reuse.Slice(ws.inSel, n), reuse.Slice(ws.authMark, n)
	if err := ws.authEng.SetProblem(seeds, damping); err != nil {
		gd.release(ws)
		return nil, 0, err
	}
	ws.authEng.Stats = ppr.Stats{}
	return ws, native, nil
}

// newWorkspace makes a workspace on the guard's views, its engines' arrays
// and refinement scratch written once (ppr.Engine.Reserve): what a query
// would otherwise allocate and first touch.
func (gd *Guard) newWorkspace(seeds ppr.Seeds, damping float64) (*workspace, error) {
	n := gd.native.NumNodes()
	ws := &workspace{support: nodeset.New(n), inSel: make([]bool, n), authMark: make([]bool, n),
		xTouched: make([]float64, 0, len(gd.touched.nodes)), unvisited: make([]uint32, 0, len(gd.touched.nodes))}
	var err error
	if ws.nativeEng, err = ppr.NewEngine(gd.native, seeds, damping); err != nil {
		return nil, err
	}
	if ws.authEng, err = ppr.NewEngine(gd.auth, seeds, damping); err != nil {
		return nil, err
	}
	ws.x, ws.r = ws.nativeEng.X, ws.nativeEng.R
	ws.authEng.X, ws.authEng.R = ws.x, ws.r
	ws.authEng.Support = ws.support
	ws.nativeEng.Reserve()
	ws.authEng.Reserve()
	return ws, nil
}

// prime puts a first workspace in a pool that never had one, so that the
// guard's first query finds one, as every later query does, and builds
// what the views build on first use (mask.View.Prepare; a pool serving
// later versions' guards leaves theirs to their first use: a patched
// view's are small, and its snapshot view's are built); a guard on a graph
// with no node has nothing to prime.
func (gd *Guard) prime() error {
	if gd.native.NumNodes() == 0 || !gd.pool.startPriming() {
		return nil
	}
	gd.native.Prepare()
	gd.auth.Prepare()
	seeds, err := ppr.NewSeeds(gd.native.NumNodes(), []ppr.Seed{{Node: 0, Weight: 1}})
	if err != nil {
		return err
	}
	ws, err := gd.newWorkspace(seeds, 0.5)
	if err != nil {
		return err
	}
	gd.pool.put(ws)
	return nil
}

// release returns ws to the pool (the next query restarts its state).
func (gd *Guard) release(ws *workspace) {
	ws.support.Reset()
	gd.pool.put(ws)
}

// Prepared is a query checked for graphs of a given number of nodes, its
// seeds in ppr's canonical form (ppr.NewSeeds, a copy). A caller that
// needs the seeds itself (a cache keyed by them) prepares the query once
// and selects with SelectPrepared, so the seeds are validated once a
// query. It keeps the query's candidates, not a copy: they must not change
// while it is in use.
type Prepared struct {
	q     Query
	seeds ppr.Seeds
	n     int
}

// Prepare checks q for graphs of n nodes as Select does: k at least 1, the
// candidates (when not nil) non-empty, distinct and below n, the seeds as
// ppr.NewSeeds wants them.
func Prepare(n int, q Query) (*Prepared, error) {
	seeds, err := validate(n, q)
	if err != nil {
		return nil, err
	}
	return &Prepared{q: q, seeds: seeds, n: n}, nil
}

// Query returns the query as prepared (its slices are the caller's).
func (p *Prepared) Query() Query { return p.q }

// Seeds returns the query's seeds in ppr's canonical form, shared: not to
// be modified.
func (p *Prepared) Seeds() ppr.Seeds { return p.seeds }

// selectionSize returns how many nodes q selects on a graph of n nodes:
// k, or every candidate (every node) when there are fewer.
func selectionSize(q Query, n int) int {
	if q.Candidates != nil {
		return min(q.K, len(q.Candidates))
	}
	return min(q.K, n)
}

// validate checks a query at the API boundary.
func validate(n int, q Query) (ppr.Seeds, error) {
	if q.K < 1 {
		return ppr.Seeds{}, fmt.Errorf("replay: k = %d, want at least 1", q.K)
	}
	if q.Candidates != nil {
		if len(q.Candidates) == 0 {
			return ppr.Seeds{}, errors.New("replay: empty candidate set")
		}
		seen := nodeset.New(n) // a bitset, not a map: a dense query names most nodes
		for i, c := range q.Candidates {
			if int64(c) >= int64(n) {
				return ppr.Seeds{}, fmt.Errorf("replay: candidate %d: node %d out of range (graph has %d nodes)", i, c, n)
			}
			if seen.Has(c) {
				return ppr.Seeds{}, fmt.Errorf("replay: candidate %d: node %d repeated", i, c)
			}
			seen.Add(c)
		}
	}
	seeds, err := ppr.NewSeeds(n, q.Seeds)
	if err != nil {
		return ppr.Seeds{}, fmt.Errorf("replay: %w", err)
	}
	return seeds, nil
}

// Select proves the native top-k (ppr's certified top-k, the selection an
// unguarded caller would make), replays it on the authenticated view from
// the same state and returns the decision. Under the Escalate policy a
// divergence also returns a *DivergenceError (with the same decision, whose
// Selected is nil: the selection is refused).
func (gd *Guard) Select(q Query) (*Decision, error) {
	return gd.SelectFrom(q, nil, nil)
}

// WarmStart is a state (x, r) of a query's seeds and damping on a guard's
// native view, as a cache keeps it: R is X's residual there, alpha*s +
// d*X*P - X (nil: recomputed, a pass over the arcs), and Passes counts
// the passes that made it (its rounding, see ppr.Options.PriorPasses).
type WarmStart struct {
	X, R   []float64
	Passes int
	// Level, when positive, is the largest ratio |r(u)|/W(u) the state
	// had when its selection was proved, and Frontier the nodes whose
	// residual changed since (a cache's adjustment to a later version):
	// the native solve first pushes from them down to Level
	// (ppr.Engine.PushRounds), so that what the changes brought settles
	// where it landed before any pass over every node.
	Level    float64
	Frontier []uint32
}

// SelectFrom is Select with the native solve warm-started from warm (nil:
// the native start) and, when keep is not nil, the native state handed to
// keep once the native selection is proved. With keep and warm.R set the
// caller lends warm's vectors: the native solve runs in them (they stay a
// state of the seeds, X and its residual) and keep receives them, so that
// a cache keeps the solved state without a copy; the replay works on a
// copy. Otherwise warm's vectors are copied, never written, and keep's
// slices are valid during the call only. The decision does not depend on
// where the native solve starts beyond the certified top-k's own ties.
func (gd *Guard) SelectFrom(q Query, warm *WarmStart, keep func(*WarmStart)) (*Decision, error) {
	p, err := Prepare(gd.native.NumNodes(), q)
	if err != nil {
		return nil, err
	}
	return gd.SelectPrepared(p, warm, keep)
}

// SelectPrepared is SelectFrom for a prepared query. A query prepared for
// another number of nodes than the guard's graph has is refused.
func (gd *Guard) SelectPrepared(p *Prepared, warm *WarmStart, keep func(*WarmStart)) (*Decision, error) {
	if p == nil {
		return nil, errors.New("replay: nil prepared query")
	}
	n := gd.native.NumNodes()
	if p.n != n {
		return nil, fmt.Errorf("replay: query prepared for a graph of %d nodes, the guard's has %d", p.n, n)
	}
	q, seeds := p.q, p.seeds
	if warm != nil && (len(warm.X) != n || warm.R != nil && len(warm.R) != n) {
		return nil, fmt.Errorf("replay: warm start of %d and %d entries for a graph of %d nodes", len(warm.X), len(warm.R), n)
	}
	start := time.Now()
	ws, nativeSetup, err := gd.workspace(seeds, q.Damping, warm != nil)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer gd.release(ws)
	guardSetup := time.Since(start) - nativeSetup

	start = time.Now()
	prior := 0
	lent := warm != nil && warm.R != nil && keep != nil
	if warm != nil {
		prior = warm.Passes + 1
		switch {
		case lent:
			ws.nativeEng.X, ws.nativeEng.R = warm.X, warm.R
		case warm.R != nil:
			copy(ws.x, warm.X)
			copy(ws.r, warm.R)
		default:
			copy(ws.x, warm.X)
			ws.nativeEng.SetResidual()
		}
	}
	k := selectionSize(q, gd.native.NumNodes())
	if warm != nil && warm.Level > 0 && len(warm.Frontier) > 0 {
		ws.nativeEng.PushRounds(warm.Level, warm.Frontier, 0)
		prior++
	}
	res, err := ws.nativeEng.SolveTopK(k, q.Candidates, ppr.Options{Tol: gd.opt.Tol, PriorPasses: prior})
	if lent {
		// The replay turns the native state into the authenticated one
		// in place: in the workspace's arrays, the lent ones left as the
		// native solve made them.
		copy(ws.x, ws.nativeEng.X)
		copy(ws.r, ws.nativeEng.R)
		ws.nativeEng.X, ws.nativeEng.R = ws.x, ws.r
	}
	if err != nil {
		return nil, fmt.Errorf("replay: native selection: %w", err)
	}
	if keep != nil {
		x, r := ws.x, ws.r
		if lent {
			x, r = warm.X, warm.R
		}
		keep(&WarmStart{X: x, R: r, Passes: prior + res.Sweeps, Level: res.Proof.MaxRatio()})
	}
	d := &Decision{Native: slices.Clone(res.TopK), NativeSweeps: res.Sweeps, NativeGap: res.Gap}
	d.NativeTime = nativeSetup + time.Since(start)

	start = time.Now()
	rn := &run{gd: gd, ws: ws, q: q, k: k, d: d, seeds: seeds, passes: prior + res.Sweeps + 1, nativeProof: res.Proof, provedWarm: warm != nil && res.Sweeps == 0}
	rn.decide()
	d.ReplayTime = guardSetup + time.Since(start)
	d.Divergent = d.Outcome == Divergent
	d.Selected = d.Native
	if d.Divergent && gd.opt.OnDivergence == Reject {
		d.Selected = d.Auth
	}
	if d.Divergent && gd.opt.OnDivergence == Escalate {
		d.Selected = nil // refused: a caller that drops the error gets nothing
		return d, &DivergenceError{Decision: d}
	}
	return d, nil
}
