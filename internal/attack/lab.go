package attack

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// Config shapes a lab run.
type Config struct {
	Budget   int // largest number of writes greedy may make
	PerStep  int // candidate writes greedy tries per step, per kind and target
	Targets  int // targets greedy tries per query and selector (best unselected first)
	MaxMerge int // largest arc count of an entity an attack may merge
	Workers  int // queries solved at once (results do not depend on it)
	Kinds    []Kind
	// Selectors to measure. PPR is the selector the guard replays; it
	// need not be among them.
	Selectors []Selector
	PPR       PPR
	Attacker  string // the untrusted channel the attacks write from
	Trusted   string // the channel of every clean edge
	// Merger is the trusted entity-resolution channel whose merges
	// laundering attacks route their edges through. The policy trusts it
	// and Trusted.
	Merger string
}

// DefaultConfig measures every selector and kind with budgets 1..6.
func DefaultConfig() Config {
	return Config{
		Budget: 6, PerStep: 6, Targets: 2, MaxMerge: 64, Workers: 1,
		Kinds:     Kinds,
		Selectors: []Selector{HippoPPR, FixedPool{Pool: 20, MaxHops: 8}, BFSPool{Hops: 2}, Content{}},
		PPR:       HippoPPR,
		Attacker:  "peer", Trusted: csr.DefaultChannel, Merger: "resolver",
	}
}

func (c Config) validate() error {
	if c.Budget < 1 || c.PerStep < 1 || c.Targets < 1 || c.MaxMerge < 1 {
		return fmt.Errorf("attack: config budget %d, per step %d, targets %d, max merge %d: want each at least 1", c.Budget, c.PerStep, c.Targets, c.MaxMerge)
	}
	if len(c.Selectors) == 0 || len(c.Kinds) == 0 {
		return fmt.Errorf("attack: config needs at least one selector and one kind")
	}
	if !slices.Contains(c.Selectors, Selector(c.PPR)) {
		return fmt.Errorf("attack: config: the guarded PPR selector %+v must be among the selectors", c.PPR)
	}
	if c.Attacker == "" || c.Attacker == c.Trusted || c.Attacker == c.Merger {
		return fmt.Errorf("attack: attacker channel %q must be named and differ from the trusted channel %q and the merger %q", c.Attacker, c.Trusted, c.Merger)
	}
	if c.Trusted == "" || c.Merger == "" {
		return fmt.Errorf("attack: config: trusted channel %q, merger %q: want both named", c.Trusted, c.Merger)
	}
	return nil
}

// SelectorReport is what one selector showed over the queries.
type SelectorReport struct {
	Name string `json:"name"`
	// Reliance is the mean over queries of 1 - Jaccard(top-k on the clean
	// graph, top-k with every edge masked).
	Reliance float64 `json:"structural_reliance"`
	// SAdv maps a kind to S_adv(b) for b = 1..Budget.
	SAdv map[string][]float64 `json:"s_adv"`
	// SInj is S_inj(b) for b = 1..Budget: the share of queries (those whose
	// clean selection lacks it) in which edge insertion gets one fixed
	// passage of middling content score, chosen per query, selected.
	SInj       []float64 `json:"s_inj"`
	InjQueries int       `json:"s_inj_queries"`
	// RelianceCostPearson is the Pearson correlation over queries between
	// a query's reliance and the edges edge insertion needed to change its
	// top-k (Budget+1 when it failed): if reliance predicted evictability
	// it would be clearly negative. Nil when either is constant.
	RelianceCostPearson *float64 `json:"reliance_cost_pearson"`
	// OutOfPool counts evaluated selections (clean and attacked) holding a
	// candidate outside a fixed pool; only FixedPool has one.
	OutOfPool int `json:"out_of_pool_selections"`
	Evaluated int `json:"selections_evaluated"`
}

// DefenceReport is the PPR selector's divergence set for one attack kind
// and what each defence let through. Each query is attacked on its own
// with the writes of its cheapest successful greedy attack (or, when none
// succeeded, the full-budget attack on its first target).
type DefenceReport struct {
	Kind    string `json:"kind"`
	Queries int    `json:"queries"`
	// D: every selected passage authenticated, selection different from
	// the authenticated selection (a from-scratch solve on the clean view).
	D int `json:"divergence_set"`
	// Harm: queries whose accepted selection differs from the authenticated
	// one, with no defence, with provenance checks only, with the guard.
	NoDefence  int `json:"harm_no_defence"`
	Provenance int `json:"harm_provenance"`
	Guard      int `json:"harm_guard"`
	// GuardRefused: divergences the guard reported; GuardTies: ties it
	// reported; FalseAlarms: divergences reported where the native
	// selection was the authenticated one.
	GuardRefused int `json:"guard_refused"`
	GuardTies    int `json:"guard_ties"`
	FalseAlarms  int `json:"guard_false_alarms"`
	// The counterfactual: the same guard on the same labels with every
	// Require dropped (no min-inheritance). NoInheritance counts queries
	// whose accepted selection differs from the authenticated one (with
	// min-inheritance), NoInheritanceRefused the divergences it reported.
	// Only a laundering attack, whose edges a trusted channel rewrote,
	// separates them from Guard and GuardRefused.
	NoInheritance        int `json:"harm_guard_no_inheritance"`
	NoInheritanceRefused int `json:"guard_no_inheritance_refused"`
}

// Report is one lab run.
type Report struct {
	Graph      string           `json:"graph"`
	Nodes      int              `json:"nodes"`
	Edges      int              `json:"edges"`
	Candidates int              `json:"candidates"`
	Queries    int              `json:"queries"`
	K          int              `json:"k"`
	Budget     int              `json:"budget"`
	PerStep    int              `json:"candidates_per_step"`
	Targets    int              `json:"targets_per_query"`
	Selectors  []SelectorReport `json:"selectors"`
	Defences   []DefenceReport  `json:"defences"`
	// The guard on the clean graph (no untrusted write): queries and
	// divergences reported (over-blocking, must be 0).
	CleanQueries      int `json:"clean_queries"`
	CleanOverBlocking int `json:"clean_over_blocking"`
	// SelectorPearsonSAdv and SelectorPearsonSInj correlate mean reliance
	// with S_adv(Budget) of edge insertion and with S_inj(Budget) across
	// selectors (nil when either is constant).
	SelectorPearsonSAdv *float64 `json:"selector_reliance_sadv_pearson"`
	SelectorPearsonSInj *float64 `json:"selector_reliance_sinj_pearson"`
}

// queryResult is one query's outcome.
type queryResult struct {
	reliance  []float64     // per selector
	success   [][]int       // [kind][selector]: writes needed, 0 = none within budget
	injected  []int         // per selector: edges needed to inject the fixed target, 0 = none, -1 = selected already
	outOfPool []int         // per selector
	evaluated []int         // per selector
	defence   []defenceCase // per kind
	cleanDiv  bool
}

type defenceCase struct {
	native, auth, selected []uint32
	provenanceOK           bool
	outcome                replay.Outcome
	// What a guard without min-inheritance selected and reported.
	selectedNoInherit []uint32
	outcomeNoInherit  replay.Outcome
}

// Run attacks every query on its own and aggregates.
func Run(m *Memory, queries []Query, c Config) (*Report, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	g := m.Graph
	for i := range queries {
		if err := queries[i].Validate(g.NumNodes()); err != nil {
			return nil, err
		}
	}
	all := roaring.New()
	all.AddRange(0, uint64(g.NumEdges()))
	bare, err := mask.FromMasked(g, "no-structure", all)
	if err != nil {
		return nil, err
	}
	trust := mask.Trust(c.Trusted, c.Merger)
	cleanGuard, err := replay.New(g, mask.FromGraph(g), trust, replay.Options{Tol: c.PPR.Tol})
	if err != nil {
		return nil, err
	}
	l := &lab{m: m, c: c, bare: bare, clean: mask.Full(g), cleanGuard: cleanGuard, trust: trust,
		roles: roles{attacker: c.Attacker, merger: c.Merger}}
	results := make([]*queryResult, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, c.Workers) {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = l.query(&queries[i])
			}
		})
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("attack: %s query %s: %w", m.Name, queries[i].ID, err)
		}
	}
	return l.aggregate(queries, results), nil
}

type lab struct {
	m           *Memory
	c           Config
	bare, clean *mask.View
	cleanGuard  *replay.Guard
	trust       mask.Policy
	roles       roles
}

// pooler is a selector whose pool is fixed before structure is read.
type pooler interface {
	InPool(q *Query) []bool
}

// InPool marks the candidates in the fixed pool of q.
func (f FixedPool) InPool(q *Query) []bool {
	in := make([]bool, len(q.Candidates))
	for _, i := range Top(q.Content, q, f.Pool) {
		in[i] = true
	}
	return in
}

// query attacks one query: its clean selections and structural reliance
// (clean), the candidate writes of every kind, selector and target and
// of the injection, appended to one attacked snapshot (plan), greedy
// injection (inject) and attacks with the guard's defence of each kind
// (attack), and whether the guard diverges on the clean graph.
func (l *lab) query(q *Query) (*queryResult, error) {
	r := newQueryRun(l, q)
	if err := r.clean(); err != nil {
		return nil, err
	}
	if err := r.plan(); err != nil {
		return nil, err
	}
	if err := r.inject(); err != nil {
		return nil, err
	}
	if err := r.attack(); err != nil {
		return nil, err
	}
	c := l.c
	d, err := l.cleanGuard.Select(replay.Query{Seeds: c.PPR.Seeds(q), K: q.K, Candidates: q.Candidates, Damping: c.PPR.Damping})
	if err != nil {
		return nil, err
	}
	r.res.cleanDiv = d.Divergent
	return r.res, nil
}

// queryRun is one query's attack: what its steps share.
type queryRun struct {
	l     *lab
	q     *Query
	res   *queryResult
	pools [][]bool       // per selector: the fixed pool, or nil
	index map[uint32]int // candidate node -> index in q.Candidates
	// The clean graph's selection and keys, per selector.
	cleanSel  [][]uint32
	cleanKeys [][]float64
	// The candidate writes: per kind and selector a plan per target, and
	// the injection's; all of them are in the attacked snapshot ag, whose
	// clean edges are base.
	plans        [][][]plan
	injectTarget uint32
	injectWrites []*Write
	ag           *csr.Graph
	base         *roaring.Bitmap
}

// plan is one greedy attack's target and candidate writes.
type plan struct {
	target uint32
	writes []*Write
}

func newQueryRun(l *lab, q *Query) *queryRun {
	ns := len(l.c.Selectors)
	r := &queryRun{l: l, q: q,
		res:   &queryResult{reliance: make([]float64, ns), outOfPool: make([]int, ns), evaluated: make([]int, ns)},
		pools: make([][]bool, ns), index: make(map[uint32]int, len(q.Candidates)),
		cleanSel: make([][]uint32, ns), cleanKeys: make([][]float64, ns)}
	for i, u := range q.Candidates {
		r.index[u] = i
	}
	return r
}

// check counts a selection selector s made, and whether it left s's pool.
func (r *queryRun) check(s int, sel []uint32) {
	r.res.evaluated[s]++
	if r.pools[s] == nil {
		return
	}
	for _, u := range sel {
		if !r.pools[s][r.index[u]] {
			r.res.outOfPool[s]++
			return
		}
	}
}

// clean selects on the clean graph and on the graph without structure,
// per selector: the clean selections and the structural reliance.
func (r *queryRun) clean() error {
	for s, sel := range r.l.c.Selectors {
		if p, ok := sel.(pooler); ok {
			r.pools[s] = p.InPool(r.q)
		}
		keys, err := sel.Keys(r.l.clean, r.q)
		if err != nil {
			return err
		}
		r.cleanKeys[s], r.cleanSel[s] = keys, Select(keys, r.q)
		r.check(s, r.cleanSel[s])
		bareKeys, err := sel.Keys(r.l.bare, r.q)
		if err != nil {
			return err
		}
		bareSel := Select(bareKeys, r.q)
		r.check(s, bareSel)
		r.res.reliance[s] = 1 - Jaccard(r.cleanSel[s], bareSel)
	}
	return nil
}

// plan proposes the candidate writes: per kind, selector and target, and
// for the injection (one passage of middling content score, fixed per
// query, that the attacker wants selected, by edge insertion), all
// appended to one attacked snapshot.
func (r *queryRun) plan() error {
	c, q := r.l.c, r.q
	scores, err := c.PPR.Scores(r.l.clean, q)
	if err != nil {
		return err
	}
	wr := newWriter(r.l.m, q, scores, c.PerStep, c.MaxMerge, r.l.trust)
	var every []*Write
	r.plans = make([][][]plan, len(c.Kinds)) // [kind][selector]
	for k, kind := range c.Kinds {
		r.plans[k] = make([][]plan, len(c.Selectors))
		for s := range c.Selectors {
			n := c.Targets
			if kind == Delete {
				n = 1 // deletions do not depend on the target: one greedy run
			}
			for _, t := range targets(r.cleanKeys[s], r.cleanSel[s], q, n) {
				var ws []*Write
				for _, w := range wr.propose(kind, t, r.cleanSel[s]) {
					ws = append(ws, &w)
				}
				every = append(every, ws...)
				r.plans[k][s] = append(r.plans[k][s], plan{t, ws})
			}
		}
	}
	r.injectTarget = q.Candidates[Ranking(q.Content, q)[len(q.Candidates)/2]]
	for _, w := range wr.propose(EdgeInsert, r.injectTarget, nil) {
		r.injectWrites = append(r.injectWrites, &w)
	}
	every = append(every, r.injectWrites...)
	r.ag, r.base, err = attackGraph(r.l.m.Graph, every, r.l.roles)
	return err
}

// inject runs greedy injection per selector: the writes it needs to get
// the injection target selected (-1: selected already).
func (r *queryRun) inject() error {
	c, q, target := r.l.c, r.q, r.injectTarget
	r.res.injected = make([]int, len(c.Selectors))
	for s, sel := range c.Selectors {
		if slices.Contains(r.cleanSel[s], target) {
			r.res.injected[s] = -1 // already selected: not counted
			continue
		}
		entered := func(x []uint32) bool { return slices.Contains(x, target) }
		b, _, err := greedy(sel, q, r.ag, r.base, r.injectWrites, c.Budget, entered, r.index[target], func(x []uint32) { r.check(s, x) })
		if err != nil {
			return err
		}
		r.res.injected[s] = b
	}
	return nil
}

// attack runs greedy attacks of every kind, selector and target: the
// fewest writes that change each selector's selection; and per kind the
// guard's defence against the writes that changed PPR's (its first
// target's when none did).
func (r *queryRun) attack() error {
	c, q := r.l.c, r.q
	r.res.success = make([][]int, len(c.Kinds))
	for k := range c.Kinds {
		success := make([]int, len(c.Selectors))
		r.res.success[k] = success
		var guardWrites []*Write
		for s, sel := range c.Selectors {
			for ti, p := range r.plans[k][s] {
				changed := func(x []uint32) bool { return !SameSet(x, r.cleanSel[s]) }
				b, chosen, err := greedy(sel, q, r.ag, r.base, p.writes, c.Budget, changed, r.index[p.target], func(x []uint32) { r.check(s, x) })
				if err != nil {
					return err
				}
				if b > 0 && (success[s] == 0 || b < success[s]) {
					success[s] = b
					if sel == Selector(c.PPR) {
						guardWrites = chosen
					}
				}
				if ti == 0 && success[s] == 0 && sel == Selector(c.PPR) {
					guardWrites = chosen
				}
			}
		}
		dc, err := r.l.defend(q, r.ag, r.base, guardWrites)
		if err != nil {
			return err
		}
		r.res.defence = append(r.res.defence, dc)
	}
	return nil
}

// targets returns the n best unselected candidates by key, then content,
// then lower id.
func targets(keys []float64, selected []uint32, q *Query, n int) []uint32 {
	order := indexes(len(q.Candidates))
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case keys[a] != keys[b]:
			if keys[a] > keys[b] {
				return -1
			}
			return 1
		case q.Content[a] != q.Content[b]:
			if q.Content[a] > q.Content[b] {
				return -1
			}
			return 1
		}
		return cmp.Compare(q.Candidates[a], q.Candidates[b])
	})
	var out []uint32
	for _, i := range order {
		if len(out) == n {
			break
		}
		if u := q.Candidates[i]; !slices.Contains(selected, u) {
			out = append(out, u)
		}
	}
	return out
}

// greedy makes up to budget writes from cands, each step trying every
// unused candidate and keeping the one that most raises the target's
// margin; it stops at the first write after which done holds for the
// selection and returns the writes made (0 and the full-budget writes when
// done never held).
func greedy(sel Selector, q *Query, ag *csr.Graph, base *roaring.Bitmap, cands []*Write, budget int, done func([]uint32) bool, target int, seen func([]uint32)) (int, []*Write, error) {
	var chosen []*Write
	used := make([]bool, len(cands))
	for b := 1; b <= budget; b++ {
		best, bestMargin := -1, math.Inf(-1)
		for i, w := range cands {
			if used[i] {
				continue
			}
			trial := append(slices.Clip(chosen), w)
			v, err := stateView(ag, base, trial)
			if err != nil {
				return 0, nil, err
			}
			keys, err := sel.Keys(v, q)
			if err != nil {
				return 0, nil, err
			}
			s := Select(keys, q)
			seen(s)
			if done(s) {
				return b, trial, nil
			}
			if m := margin(keys, q, target); best < 0 || m > bestMargin {
				best, bestMargin = i, m
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		chosen = append(chosen, cands[best])
	}
	return 0, chosen, nil
}

// margin is the target's key minus the k-th best key among the other
// candidates: positive means the target is selected. -Inf when the target
// cannot be selected, +Inf when fewer than k others can.
func margin(keys []float64, q *Query, target int) float64 {
	if math.IsInf(keys[target], -1) {
		return math.Inf(-1)
	}
	seen := 0
	for _, i := range Top(keys, q, q.K+1) {
		if i == target {
			continue
		}
		if seen++; seen == q.K {
			if math.IsInf(keys[i], -1) {
				break
			}
			return keys[target] - keys[i]
		}
	}
	return math.Inf(1)
}

// defend computes the authenticated selection from scratch (on
// trustedState, not from labels), labels the attacked snapshot with the
// writes, runs the guard with and without min-inheritance and records
// what each defence would accept.
func (l *lab) defend(q *Query, ag *csr.Graph, base *roaring.Bitmap, writes []*Write) (defenceCase, error) {
	labels, err := labelsFor(ag, l.m.Graph.NumEdges(), writes, l.roles)
	if err != nil {
		return defenceCase{}, err
	}
	authView, err := l.trustedState(ag, base, writes)
	if err != nil {
		return defenceCase{}, err
	}
	authKeys, err := l.c.PPR.Keys(authView, q)
	if err != nil {
		return defenceCase{}, err
	}
	d, err := l.guard(q, ag, labels)
	if err != nil {
		return defenceCase{}, err
	}
	bare, err := dropRequires(labels)
	if err != nil {
		return defenceCase{}, err
	}
	dn, err := l.guard(q, ag, bare)
	if err != nil {
		return defenceCase{}, err
	}
	dc := defenceCase{native: nodes(d.Native), selected: nodes(d.Selected), auth: Select(authKeys, q), outcome: d.Outcome, provenanceOK: true,
		selectedNoInherit: nodes(dn.Selected), outcomeNoInherit: dn.Outcome}
	for _, u := range dc.native {
		if !authenticated(ag, labels, l.trust, u) {
			dc.provenanceOK = false
		}
	}
	return dc, nil
}

// trustedState is the reference authenticated view of the attacked
// snapshot with writes applied, built from the writes rather than from
// labels: the clean graph plus what trusted channels wrote, that is a
// Launder write's merge of clean edges (its deletions and its copies of
// clean edges), not the copies of planted edges, which depend on the
// attacker.
func (l *lab) trustedState(ag *csr.Graph, base *roaring.Bitmap, writes []*Write) (*mask.View, error) {
	var trusted []*Write
	for _, w := range writes {
		if l.trust.Trusts(l.roles.by(w)) {
			trusted = append(trusted, &Write{Delete: w.Delete, added: w.added[:len(w.from)]})
		}
	}
	return stateView(ag, base, trusted)
}

// guard runs the replay guard (policy reject) for q on ag labelled labels.
func (l *lab) guard(q *Query, ag *csr.Graph, labels *mask.Labels) (*replay.Decision, error) {
	g, err := replay.New(ag, labels, l.trust, replay.Options{Tol: l.c.PPR.Tol})
	if err != nil {
		return nil, err
	}
	return g.Select(replay.Query{Seeds: l.c.PPR.Seeds(q), K: q.K, Candidates: q.Candidates, Damping: l.c.PPR.Damping})
}

// authenticated is the provenance check: some edge at u was added by a
// trusted channel (the node came from an authenticated source).
func authenticated(g *csr.Graph, labels *mask.Labels, trust mask.Policy, u uint32) bool {
	out := g.Out()
	lo, hi := out.Span(u)
	for p := lo; p < hi; p++ {
		if slices.ContainsFunc(labels.ChannelsOf(out.Edge[p]), trust.Trusts) {
			return true
		}
	}
	return false
}

func nodes(s []ppr.Scored) []uint32 {
	out := make([]uint32, len(s))
	for i, x := range s {
		out[i] = x.Node
	}
	return out
}

// shareWithin returns, for b = 1..budget, the share of needed (writes an
// attack needed, 0 = failed) that is at most b: counted, then divided once.
func shareWithin(needed []int, budget int) []float64 {
	out := make([]float64, budget)
	if len(needed) == 0 {
		return out
	}
	for b := 1; b <= budget; b++ {
		count := 0
		for _, x := range needed {
			if x > 0 && x <= b {
				count++
			}
		}
		out[b-1] = float64(count) / float64(len(needed))
	}
	return out
}

func (l *lab) aggregate(queries []Query, results []*queryResult) *Report {
	c := l.c
	g := l.m.Graph
	r := &Report{Graph: l.m.Name, Nodes: g.NumNodes(), Edges: g.NumEdges(), Candidates: len(l.m.Passages),
		Queries: len(queries), Budget: c.Budget, PerStep: c.PerStep, Targets: c.Targets}
	if len(queries) > 0 {
		r.K = queries[0].K
	}
	n := float64(len(queries))
	var meanRel, fullAdv, fullInj []float64
	for s, sel := range c.Selectors {
		sr := SelectorReport{Name: sel.Name(), SAdv: map[string][]float64{}}
		var rel, cost []float64
		for _, qr := range results {
			sr.Reliance += qr.reliance[s]
			sr.OutOfPool += qr.outOfPool[s]
			sr.Evaluated += qr.evaluated[s]
			rel = append(rel, qr.reliance[s])
		}
		sr.Reliance /= n
		var inj []int
		for _, qr := range results {
			if qr.injected[s] >= 0 {
				sr.InjQueries++
				inj = append(inj, qr.injected[s])
			}
		}
		sr.SInj = shareWithin(inj, c.Budget)
		for k, kind := range c.Kinds {
			var needed []int
			for _, qr := range results {
				needed = append(needed, qr.success[k][s])
			}
			curve := shareWithin(needed, c.Budget)
			for _, qr := range results {
				if kind == EdgeInsert {
					b := qr.success[k][s]
					if b == 0 {
						b = c.Budget + 1
					}
					cost = append(cost, float64(b))
				}
			}
			sr.SAdv[kind.String()] = curve
			if kind == EdgeInsert {
				meanRel = append(meanRel, sr.Reliance)
				fullAdv = append(fullAdv, curve[c.Budget-1])
				fullInj = append(fullInj, sr.SInj[c.Budget-1])
			}
		}
		sr.RelianceCostPearson = pearson(rel, cost)
		r.Selectors = append(r.Selectors, sr)
	}
	r.SelectorPearsonSAdv = pearson(meanRel, fullAdv)
	r.SelectorPearsonSInj = pearson(meanRel, fullInj)
	for k, kind := range c.Kinds {
		dr := DefenceReport{Kind: kind.String(), Queries: len(queries)}
		for _, qr := range results {
			dc := qr.defence[k]
			differs := !SameSet(dc.native, dc.auth)
			if differs && dc.provenanceOK {
				dr.D++
			}
			if differs {
				dr.NoDefence++
			}
			if differs && dc.provenanceOK {
				dr.Provenance++ // provenance accepts: every selected passage is authenticated
			}
			if !SameSet(dc.selected, dc.auth) {
				dr.Guard++
			}
			switch dc.outcome {
			case replay.Divergent:
				dr.GuardRefused++
				if !differs {
					dr.FalseAlarms++
				}
			case replay.Tie:
				dr.GuardTies++
			}
			if !SameSet(dc.selectedNoInherit, dc.auth) {
				dr.NoInheritance++
			}
			if dc.outcomeNoInherit == replay.Divergent {
				dr.NoInheritanceRefused++
			}
		}
		r.Defences = append(r.Defences, dr)
	}
	for _, qr := range results {
		r.CleanQueries++
		if qr.cleanDiv {
			r.CleanOverBlocking++
		}
	}
	return r
}

// pearson is the sample correlation of x and y, nil when either is
// constant (or there are fewer than two points).
func pearson(x, y []float64) *float64 {
	if len(x) != len(y) || len(x) < 2 {
		return nil
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return nil
	}
	r := sxy / math.Sqrt(sxx*syy)
	return &r
}
