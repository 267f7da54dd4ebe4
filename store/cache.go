package store

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// Answer is a Cache's answer: the PPR vector with the evidence of its
// accuracy, as ppr.Solve gives it, and how the cache got there.
type Answer struct {
	// Result holds the scores (the caller's), the residual and the error
	// bound. Its Sweeps counts every pass over the cached vectors that
	// made them (sweeps, scans, the cache's updates): the rounding a
	// proof on them must count (ppr.Options.PriorPasses).
	ppr.Result
	// Stats is the work of this answer: the solve's, or the update's.
	Stats ppr.Stats
	// How says how the cache answered, for diagnostics: "fresh" (solved
	// from the native start state), "hit" (the cached vector was exact for
	// this version already), "updated" (brought to this version by the
	// residual adjustment over the changed rows and a push) or "warm"
	// (started from the vector of nearby seeds, its residual recomputed
	// exactly for the new seeds).
	How string
}

// The values of Answer.How.
const (
	howFresh   = "fresh"
	howHit     = "hit"
	howUpdated = "updated"
	howWarm    = "warm"
)

// Cache keeps solved PPR states (x, r) per (seeds, damping, policy) and
// brings them up to date instead of solving again. It is safe for concurrent
// use; queries on the same entry take turns.
type Cache struct {
	// Tol is the L1 error bound of every answer (ppr.DefaultTol when 0).
	// Entries are kept at half of it, so an update has room to stop early.
	Tol float64
	// Max is the number of entries kept (64 when 0); the least recently
	// used goes first.
	Max int
	// WarmDistance is the largest L1 distance between two seed vectors for
	// which a query starts from the other's entry (0.5 when 0; negative
	// turns warm starts off).
	WarmDistance float64

	mu      sync.Mutex
	entries map[string]*entry
	clock   uint64
	// The seeds of the digests that key entries (seedsDigest).
	hashSeeds [2]maphash.Seed
	hashed    bool
}

type entry struct {
	mu      sync.Mutex
	key     string
	group   string // damping and policy: warm starts stay within a group
	seeds   ppr.Seeds
	damping float64
	policy  *mask.Policy
	v       *Version
	x, r    []float64
	passes  int     // passes over x and r since they were made (ppr.Options.PriorPasses)
	level   float64 // the largest |r(u)|/W(u) when a guard's selection kept them (0: unknown)
	used    uint64
	stats   ppr.Stats // work of the last answer
}

func (c *Cache) tol() float64 {
	if c.Tol == 0 {
		return ppr.DefaultTol
	}
	return c.Tol
}

func groupKey(p *mask.Policy, damping float64) string {
	return policyKey(p) + "\x01" + strconv.FormatFloat(damping, 'g', -1, 64)
}

// seedsKey is the seeds' exact bytes (each node and its weight's bits), so
// equal keys are equal seeds: the key of an entry whose digest another
// seed set has already (seedsDigest). O(len(seeds)) with no formatting.
func seedsKey(s ppr.Seeds) string {
	b := make([]byte, 0, 12*len(s.Nodes))
	for i, u := range s.Nodes {
		b = binary.LittleEndian.AppendUint32(b, u)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Weights[i]))
	}
	return string(b)
}

// seedsDigest is 128 bits of hash of the seeds' exact bytes (two maphash
// sums under the cache's seeds): an entry's key, 16 bytes where the bytes
// themselves are 12 a seed (a dense reset has tens of thousands). Entries
// compare their seeds on a hit, so a collision costs a second entry, never
// another seed set's state. Called with c.mu held.
func (c *Cache) seedsDigest(s ppr.Seeds) string {
	if !c.hashed {
		c.hashSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
		c.hashed = true
	}
	var h [2]maphash.Hash
	for k := range h {
		h[k].SetSeed(c.hashSeeds[k])
	}
	var buf [12 * digestChunk]byte
	for lo := 0; lo < len(s.Nodes); lo += digestChunk {
		b := buf[:0]
		for i := lo; i < min(lo+digestChunk, len(s.Nodes)); i++ {
			b = binary.LittleEndian.AppendUint32(b, s.Nodes[i])
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Weights[i]))
		}
		h[0].Write(b)
		h[1].Write(b)
	}
	var out [16]byte
	binary.LittleEndian.PutUint64(out[:8], h[0].Sum64())
	binary.LittleEndian.PutUint64(out[8:], h[1].Sum64())
	return string(out[:])
}

// digestChunk is how many seeds' bytes seedsDigest writes at a time: a
// Write per seed cost more than the hashing.
const digestChunk = 256

// sameSeeds reports whether two seed vectors are equal, bit for bit.
func sameSeeds(a, b ppr.Seeds) bool {
	return slices.Equal(a.Nodes, b.Nodes) && slices.EqualFunc(a.Weights, b.Weights, func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y)
	})
}

// Query returns PPR on version v for the seeds, damping and policy (nil:
// native), within Tol in L1, and how it got there. The returned scores are
// the caller's.
func (c *Cache) Query(v *Version, p *mask.Policy, seeds ppr.Seeds, damping float64) (*Answer, error) {
	e, near := c.entry(p, seeds, damping, true)
	e.mu.Lock()
	defer e.mu.Unlock()
	// Answers are within T = tol*alpha in residual L1; fresh solves and
	// scans go to T/4, so that updates have room to stop early.
	T := c.tol() * (1 - damping)
	switch {
	case e.v == nil:
		how := howFresh
		if near != nil && c.warmStart(e, near, v) {
			how = howWarm
		} else {
			eng, res, err := v.solve(p, seeds, damping, c.tol()/4)
			if err != nil {
				return nil, err
			}
			e.x, e.r, e.stats, e.passes = eng.X, eng.R, eng.Stats, res.Sweeps
		}
		e.v = v
		return c.answerOf(e, how, T)
	case e.v == v || e.v.batches <= v.batches:
		same := e.v == v || e.v.batches == v.batches && len(e.x) == v.NumNodes()
		frontier, lv, err := c.adjust(e, v)
		if err != nil {
			return nil, err
		}
		e.stats = ppr.Stats{}
		pushed, err := c.settle(e, lv, frontier, T)
		if err != nil {
			return nil, err
		}
		if same && !pushed {
			return c.answerOf(e, howHit, T)
		}
		return c.answerOf(e, howUpdated, T)
	}
	// A query on a version older than the entry's: solve it on its own.
	eng, res, err := v.solve(p, seeds, damping, c.tol())
	if err != nil {
		return nil, err
	}
	return &Answer{Result: *res, Stats: eng.Stats, How: howFresh}, nil
}

// answerOf returns a copy of e's state as an Answer.
func (c *Cache) answerOf(e *entry, how string, bound float64) (*Answer, error) {
	l1 := 0.0
	for _, x := range e.r {
		l1 += math.Abs(x)
	}
	if l1 > bound*(1+1e-9) {
		return nil, fmt.Errorf("store: cache: residual %.3g over the bound %.3g (internal error)", l1, bound)
	}
	alpha := 1 - e.damping
	if err := ppr.CheckFinite(l1/alpha, e.x); err != nil {
		return nil, err
	}
	res := ppr.Result{Scores: slices.Clone(e.x), ResidualL1: l1, ErrorBound: l1 / alpha, Sweeps: e.passes}
	return &Answer{Result: res, Stats: e.stats, How: how}, nil
}

// nearest returns the entry of the group whose seed vector is closest in
// L1 to seeds, if within WarmDistance. Called with c.mu held.
func (c *Cache) nearest(group string, seeds ppr.Seeds) *entry {
	limit := c.WarmDistance
	if limit == 0 {
		limit = 0.5
	}
	var best *entry
	bestD := math.Inf(1)
	for _, e := range c.entries {
		if e.group != group {
			continue
		}
		if d := seedDistance(e.seeds, seeds); d <= limit && d < bestD {
			best, bestD = e, d
		}
	}
	return best
}

// seedDistance is the L1 distance of two sparse seed vectors.
func seedDistance(a, b ppr.Seeds) float64 {
	d := 0.0
	i, j := 0, 0
	for i < len(a.Nodes) || j < len(b.Nodes) {
		switch {
		case j == len(b.Nodes) || i < len(a.Nodes) && a.Nodes[i] < b.Nodes[j]:
			d += a.Weights[i]
			i++
		case i == len(a.Nodes) || b.Nodes[j] < a.Nodes[i]:
			d += b.Weights[j]
			j++
		default:
			d += math.Abs(a.Weights[i] - b.Weights[j])
			i++
			j++
		}
	}
	return d
}

// evict drops the least recently used entries beyond Max, never keep.
// Called with c.mu held.
func (c *Cache) evict(keep *entry) {
	limit := c.Max
	if limit == 0 {
		limit = 64
	}
	for len(c.entries) > limit {
		var old *entry
		for _, e := range c.entries {
			if e != keep && (old == nil || e.used < old.used) {
				old = e
			}
		}
		delete(c.entries, old.key)
	}
}

// warmStart sets e's state from near's x with the residual recomputed
// exactly for e's seeds on v, then solves to a quarter of the bound. It
// reports false when near has no state yet.
func (c *Cache) warmStart(e, near *entry, v *Version) bool {
	near.mu.Lock()
	if near.v == nil {
		near.mu.Unlock()
		return false
	}
	n := v.NumNodes()
	x := make([]float64, n)
	copy(x, near.x)
	passes := near.passes
	near.mu.Unlock()

	view, err := v.View(e.policy)
	if err != nil {
		return false
	}
	eng, err := ppr.NewEngine(view, e.seeds, e.damping)
	if err != nil {
		return false
	}
	eng.X = x
	eng.SetResidual()
	if _, err := eng.SolveSweeps(ppr.Options{Tol: c.tol() / 4}); err != nil {
		return false
	}
	e.x, e.r, e.stats, e.passes = eng.X, eng.R, eng.Stats, passes+1+eng.Stats.Sweeps
	return true
}

// eps0 is the first push threshold of an update: the residual mass spread
// evenly over the view's out-weight (vol) and its n nodes.
func eps0(l1, vol float64, n int) float64 {
	return l1 / (vol + float64(n))
}

// adjust brings e's state from its version to v (a later one, or the
// same): for every node u whose out-row changed (the journal between the
// versions), r += d*x(u)*(P_new[u] - P_old[u]), which keeps r = alpha*s +
// d*x*P_new - x exactly; where the rows share most of their arcs, as the
// same state with x(u) moved (see below), through the arcs that differ
// alone. It returns the nodes whose residual it changed (x changes at no
// other node), ascending, and v's view for e's policy. One pass over the
// changed rows.
func (c *Cache) adjust(e *entry, v *Version) ([]uint32, *lazyView, error) {
	lv, err := v.lazyView(e.policy)
	if err != nil {
		return nil, nil, err
	}
	old := e.v
	if old == v {
		return nil, lv, nil
	}
	changed := slices.Clone(v.l.journal[len(old.l.journal):])
	slices.Sort(changed)
	changed = slices.Compact(changed)
	n := v.NumNodes()
	x, r := e.x, e.r
	if len(x) < n {
		x = append(x, make([]float64, n-len(x))...)
		r = append(r, make([]float64, n-len(r))...)
	}
	oldView, err := old.View(e.policy)
	if err != nil {
		return nil, nil, err
	}
	newView := lv.v
	// The nodes reached, once each: a hub's row is spread twice per change,
	// and a list with repeats ran to three times the graph's nodes.
	reached := nodeset.New(n)
	// What dangling rows send to the seeds, spread once at the end (a
	// dense reset has tens of thousands of seeds; the engine's pushes do
	// the same).
	toSeeds := 0.0
	spread := func(view *mask.View, u uint32, c float64) {
		w := view.OutWeight(u)
		if w == 0 {
			toSeeds += c
			return
		}
		k := c / w
		row := view.OutRow(u)
		for p, t := range row.Nbr {
			if row.Live(p) {
				r[t] += k * row.Weight.At(p)
				reached.Add(t)
			}
		}
	}
	// Where a row's two versions share most of their arcs, the same state
	// is reached with part of x(u) moved into r(u), through fewer arcs:
	// with rho = x(u)*(1 - W_new/W_old),
	//
	//	d*x(u)*(P_new[u] - P_old[u]) = d*rho*P_new[u] + d*x(u)*(new-only arcs - old-only arcs)/W_old,
	//
	// and a residual d*rho*P_new[u] is the same state as moving rho from
	// x(u) into r(u) (replay's correction does the same): O(the arcs that
	// differ), not O(both rows). A row left dangling (a merge's source)
	// is the seeds, P_new[u] = s, so spreading it costs a write per seed
	// (tens of thousands on a dense reset): there rho = x(u), every old
	// arc differs, and no seed is touched.
	var diff []rowArc
	for _, u := range changed {
		if int(u) >= oldView.NumNodes() || x[u] == 0 {
			continue // a node new since old has x = 0: nothing flowed through its row
		}
		xu := x[u]
		oldRow, newRow := oldView.OutRow(u), newView.OutRow(u)
		wOld, wNew := oldView.OutWeight(u), newView.OutWeight(u)
		spreadNew := newRow.Len()
		if wNew == 0 {
			spreadNew = len(e.seeds.Nodes)
		}
		var ok bool
		if wOld > 0 {
			diff, ok = differingArcs(oldRow, newRow, (oldRow.Len()+spreadNew)/2, diff[:0])
		}
		if !ok {
			c := e.damping * xu
			spread(oldView, u, -c)
			spread(newView, u, c)
			continue
		}
		if rho := xu * (1 - wNew/wOld); rho != 0 {
			x[u] -= rho
			r[u] += rho
			reached.Add(u)
		}
		c := e.damping * xu / wOld
		for _, a := range diff {
			r[a.nbr] += c * a.weight
			reached.Add(a.nbr)
		}
	}
	if toSeeds != 0 {
		for i, sd := range e.seeds.Nodes {
			r[sd] += toSeeds * e.seeds.Weights[i]
			reached.Add(sd)
		}
	}
	e.x, e.r, e.v = x, r, v
	if len(changed) > 0 {
		e.passes++
	}
	return reached.AppendNodes(nil), lv, nil
}

// rowArc is an arc of one of two rows: weight > 0 when only the newer row
// has it, < 0 when only the older one does.
type rowArc struct {
	nbr    uint32
	weight float64
}

// differingArcs appends to diff the live arcs of a node's rows in the
// views of two versions (old, new; an edge id names one edge in every
// version, compactions included) that only one of them has, and reports
// whether it found them: false once more than limit differ (spreading both
// rows then costs no more).
func differingArcs(old, new mask.Row, limit int, diff []rowArc) ([]rowArc, bool) {
	for a := range mask.PairArcs(old, new) {
		if a.InA == a.InB {
			continue
		}
		w := a.Weight
		if a.InA {
			w = -w
		}
		if diff = append(diff, rowArc{a.Nbr, w}); len(diff) > limit {
			return diff, false
		}
	}
	return diff, true
}

// settle pushes e's state (on lv's version) until its residual is within
// bound in L1: from the nodes the adjustment changed until none it reaches
// is over its threshold, then lower thresholds (the first pass stays local,
// later ones scan only as far as the mass has to go). It reports whether
// it pushed.
func (c *Cache) settle(e *entry, lv *lazyView, frontier []uint32, bound float64) (bool, error) {
	l1 := 0.0
	for _, x := range e.r {
		l1 += math.Abs(x)
	}
	if l1 <= bound {
		return false, nil
	}
	eng, err := ppr.NewEngine(lv.v, e.seeds, e.damping)
	if err != nil {
		return false, err
	}
	n := len(e.x)
	eng.X, eng.R = e.x, e.r
	if len(frontier) > 0 {
		eng.PushRounds(eps0(l1, lv.volume(), n), frontier, 0)
		l1 = residualL1(eng.R)
	}
	eps := eps0(l1, lv.volume(), n)
	for i := 0; l1 > bound; i++ {
		if i == 200 {
			return true, fmt.Errorf("store: cache: update stuck at residual %.3g over %.3g", l1, bound)
		}
		for eng.PushScan(eps) > 0 && residualL1(eng.R) > bound {
		}
		l1 = residualL1(eng.R)
		eps /= 4
	}
	// The rounds are a pass; every scan one more.
	e.x, e.r, e.stats, e.passes = eng.X, eng.R, eng.Stats, e.passes+1+eng.Stats.Sweeps
	return true, nil
}

// entry returns the cache's entry for (seeds, damping, policy), creating an
// empty one when there is none, and then, when warm is set, the nearest
// entry of its group for a warm start (O(the entries' seeds)).
func (c *Cache) entry(p *mask.Policy, seeds ppr.Seeds, damping float64, warm bool) (e, near *entry) {
	group := groupKey(p, damping)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[string]*entry)
	}
	c.clock++
	key := group + "\x02" + c.seedsDigest(seeds)
	e = c.entries[key]
	if e != nil && !sameSeeds(e.seeds, seeds) {
		// Another seed set has the digest: these seeds go by their bytes.
		key = group + "\x03" + seedsKey(seeds)
		e = c.entries[key]
	}
	if e == nil {
		// Entries are created in order and a new entry only waits on an
		// older one, so entry locks cannot form a cycle.
		if warm {
			near = c.nearest(group, seeds)
		}
		e = &entry{key: key, group: group, seeds: seeds, damping: damping, policy: p}
		c.entries[key] = e
		c.evict(e)
	}
	e.used = c.clock
	return e, near
}

// withState calls f with the state the cache keeps for the seeds and
// damping on the native view, brought to v by the residual adjustment alone
// (exact, with no push: a warm start, not an answer within Tol), or with
// nil when the cache has none, or only one for a later version than v.
// warm's slices are the cache's, lent to f: f may push them in place (x
// and its residual on v's native view) and then hands them to keep, or
// fails, which drops the entry's state (its passes no longer count what
// made it). keep stores a state of the seeds on v's native view (R must be
// X's residual there, Passes the passes that made it) for later queries to
// start from: a certified selection's state, say; it copies slices other
// than the lent ones. The entry stays locked during f, so queries on the
// same seeds take turns.
func (c *Cache) withState(v *Version, seeds ppr.Seeds, damping float64, f func(warm *replay.WarmStart, keep func(*replay.WarmStart)) error) error {
	e, _ := c.entry(nil, seeds, damping, false)
	e.mu.Lock()
	defer e.mu.Unlock()
	var warm *replay.WarmStart
	if e.v != nil && e.v.batches <= v.batches {
		frontier, _, err := c.adjust(e, v)
		if err != nil {
			return err
		}
		warm = &replay.WarmStart{X: e.x, R: e.r, Passes: e.passes, Level: e.level, Frontier: frontier}
	}
	kept := false
	keep := func(w *replay.WarmStart) {
		if e.v != nil && e.v.batches > v.batches {
			return // a later version's state serves more queries
		}
		if warm == nil || !sameArray(w.X, e.x) || !sameArray(w.R, e.r) {
			e.x, e.r = append(e.x[:0], w.X...), append(e.r[:0], w.R...)
		}
		e.v, e.passes, e.level = v, w.Passes, w.Level
		kept = true
	}
	err := f(warm, keep)
	if warm != nil && !kept {
		e.v, e.x, e.r = nil, nil, nil
	}
	return err
}

// sameArray reports whether a and b are the same slice of the same array.
func sameArray(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
