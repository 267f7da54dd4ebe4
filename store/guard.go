package store

import (
	"fmt"
	"slices"
	"sync"
	"time"
	"weak"

	"github.com/authppr/authppr/internal/nodeset"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/replay"
)

// Guard answers guarded selections on a store's versions for one trust
// policy: replay's decision core (the same decisions as replay.Guard on
// the materialised version) on the version's patched views, with nothing
// of the graph copied, and the native solve of a recurring seed set warm
// from the state a Cache carried over from the versions before.
//
// A Guard is safe for concurrent use.
type Guard struct {
	trust mask.Policy
	opt   replay.Options
	cache *Cache

	mu     sync.Mutex
	guards map[*Version]*replay.Guard // the guards of the versions asked for lately
	order  []*Version                 // oldest first
	// The rows that differ between the base's native and authenticated
	// views, computed once per base: a version's guard patches them with
	// the rows its delta replaced (replay.Diff.Patch).
	baseOf   *base
	baseDiff *replay.Diff
	// A new base's difference, computed by compaction before the base
	// is published (prepareBase): versionGuard takes it when the base
	// changes.
	preparedOf   *base
	preparedDiff *replay.Diff
	// The last version's difference: the next version on the same base
	// patches it with the rows the writes between them changed (the
	// journal), not every row its delta replaced.
	lastOf   *Version
	lastDiff *replay.Diff
}

// guardsKept is how many versions' guards a Guard keeps: queries usually
// ask for the newest version, and a few in flight may ask for older ones.
const guardsKept = 4

// NewGuard returns a guard for the versions of s under trust (the
// channels the authenticated view keeps) with replay's options. The
// trusted channels need not have written yet. It builds the current
// version's guard (its authenticated view, the rows that differ from the
// native view's, and the first workspace: O(n) once), so that the first
// query pays only for what later ones do; an error there (options replay
// refuses) is the first Select's to report.
func (s *Store) NewGuard(trust mask.Policy, opt replay.Options) *Guard {
	if opt.Workspaces == nil {
		// One pool for the guards of every version: a query on a new
		// version moves a workspace to its views, keeping its arrays.
		opt.Workspaces = &replay.Workspaces{}
	}
	g := &Guard{trust: trust, opt: opt, cache: &Cache{Tol: opt.Tol}, guards: make(map[*Version]*replay.Guard)}
	_, _ = g.versionGuard(s.Current())
	s.guardsMu.Lock()
	s.guards = append(s.guards, weak.Make(g))
	s.guardsMu.Unlock()
	return g
}

// prepareBase builds, for a base compaction is about to publish, what the
// guard's first query on it would build: the base's authenticated view
// (prepared: mask.View.Prepare) and the rows that differ from its native
// view. A view that fails to build is left to the query that needs it.
func (g *Guard) prepareBase(b *base) {
	ba, diff, err := g.baseDifference(b)
	if err != nil {
		return
	}
	ba.Prepare()
	g.mu.Lock()
	g.preparedOf, g.preparedDiff = b, diff
	g.mu.Unlock()
}

// baseDifference returns b's authenticated view and the rows that differ
// between it and b's native view.
func (g *Guard) baseDifference(b *base) (*mask.View, *replay.Diff, error) {
	bn, err := b.view(nil)
	if err != nil {
		return nil, nil, err
	}
	ba, err := b.view(&g.trust)
	if err != nil {
		return nil, nil, err
	}
	return ba, replay.Difference(bn, ba), nil
}

// Select runs the guarded selection q on version v: the native top-k
// (certified, warm from the state the last selection on q's seeds left in
// the guard's cache, brought to v by the residual adjustment), replayed on
// the authenticated view. The decision is replay.Guard.Select's on v
// materialised, with node ids and edge ids the version's. Its NativeTime
// includes building v's native view the first time v is asked for and
// bringing the cached state to v (what an unguarded selection on v
// costs), its ReplayTime the building of v's authenticated view and
// differing rows the first time v is asked for (what the guard adds).
func (g *Guard) Select(v *Version, q replay.Query) (*replay.Decision, error) {
	// The query is checked once: its seeds key the cache and start the
	// guard's solve.
	p, err := replay.Prepare(v.NumNodes(), q)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	var d *replay.Decision
	start := time.Now()
	// The version's native view is the unguarded selection's (built on
	// first use, here when the cache has no state to bring to v): its
	// time is native time, not the guard's.
	if _, err := v.View(nil); err != nil {
		return nil, err
	}
	err = g.cache.withState(v, p.Seeds(), q.Damping, func(warm *replay.WarmStart, keep func(*replay.WarmStart)) error {
		cached := time.Since(start)
		start = time.Now()
		gd, err := g.versionGuard(v)
		if err != nil {
			return err
		}
		built := time.Since(start)
		d, err = gd.SelectPrepared(p, warm, keep)
		if d != nil {
			d.NativeTime += cached
			d.ReplayTime += built
		}
		return err
	})
	return d, err
}

// versionGuard returns v's replay guard, built on first use (O(the rows
// that differ between v's views)).
func (g *Guard) versionGuard(v *Version) (*replay.Guard, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gd := g.guards[v]; gd != nil {
		return gd, nil
	}
	native, err := v.View(nil)
	if err != nil {
		return nil, err
	}
	auth, err := v.View(&g.trust)
	if err != nil {
		return nil, err
	}
	if g.baseOf != v.base && g.preparedOf == v.base {
		g.baseOf, g.baseDiff = v.base, g.preparedDiff
		g.preparedOf, g.preparedDiff = nil, nil
	}
	if g.baseOf != v.base {
		_, diff, err := g.baseDifference(v.base)
		if err != nil {
			return nil, err
		}
		g.baseOf, g.baseDiff = v.base, diff
	}
	diff := g.difference(v, native, auth)
	gd, err := replay.NewFromViews(native, auth, diff, g.trust, v.describe, g.opt)
	if err != nil {
		return nil, err
	}
	g.guards[v] = gd
	g.order = append(g.order, v)
	if len(g.order) > guardsKept {
		delete(g.guards, g.order[0])
		g.order = g.order[1:]
	}
	return gd, nil
}

// difference returns the rows that differ between v's native and
// authenticated views: the last version's difference patched with the rows
// written since, when the last version is an earlier one on the same base
// (every write journals the nodes whose out-rows it changed, in every
// view: an edge's presence in any view changes only when it is added or
// deleted, and both touch its ends), else the base's patched with every
// row v's delta replaced. Called with g.mu held.
func (g *Guard) difference(v *Version, native, auth *mask.View) *replay.Diff {
	var diff *replay.Diff
	if last := g.lastOf; last != nil && last.base == v.base && last.journalOff == v.journalOff && len(last.l.journal) <= len(v.l.journal) {
		changed := slices.Clone(v.l.journal[len(last.l.journal):])
		slices.Sort(changed)
		diff = g.lastDiff.Patch(native, auth, slices.Compact(changed))
	} else {
		diff = g.baseDiff.Patch(native, auth, nodeset.Union(native.ReplacedNodes(), auth.ReplacedNodes()))
	}
	g.lastOf, g.lastDiff = v, diff
	return diff
}

// describe is the version's replay.EdgeSource.
func (v *Version) describe(e uint32) (src, dst uint32, channels, deletedBy []string) {
	info := v.Edge(e)
	channels = append(slices.Clone(info.AddedBy), info.Requires...)
	slices.Sort(channels)
	return info.Src, info.Dst, slices.Compact(channels), info.DeletedBy
}
