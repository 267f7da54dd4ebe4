package store

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Solution is a PPR vector on one version and view, with its residual.
type Solution struct {
	Version    *Version
	X, R       []float64 // indexed by node id; R = alpha*s + d*X*P - X
	ResidualL1 float64
	ErrorBound float64 // ResidualL1/alpha >= ||pi - X||_1
	Stats      ppr.Stats
}

// solver is the residual engine of ppr (same pushes, same identity) reading
// an overlay. When the overlay replaces no row it hands the work to a
// ppr.Engine on the base view, so a freshly compacted version solves with
// the project's kernels.
type solver struct {
	o       *overlay
	seeds   ppr.Seeds
	d       float64
	alpha   float64
	x, r    []float64
	eng     *ppr.Engine // fast path, nil when the overlay replaces rows
	cur     []uint64    // round frontiers
	next    []uint64
	stats   ppr.Stats
	nodeCnt int
}

func (v *Version) newSolver(p *mask.Policy, seeds ppr.Seeds, damping float64) (*solver, error) {
	o, err := v.overlay(p)
	if err != nil {
		return nil, err
	}
	if !(damping >= 0 && damping < 1) {
		return nil, fmt.Errorf("store: damping %v, want 0 <= d < 1", damping)
	}
	for _, u := range seeds.Nodes {
		if int(u) >= o.n {
			return nil, fmt.Errorf("store: seed node %d out of range (version has %d nodes)", u, o.n)
		}
	}
	s := &solver{o: o, seeds: seeds, d: damping, alpha: 1 - damping, nodeCnt: o.n}
	if len(o.rows) == 0 && o.view != nil && o.n == o.baseN {
		if s.eng, err = ppr.NewEngine(o.view, seeds, damping); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// setState installs x and r (length n) as the solver's state.
func (s *solver) setState(x, r []float64) {
	s.x, s.r = x, r
	if s.eng != nil {
		s.eng.X, s.eng.R = x, r
	}
}

func (s *solver) isTouched(u uint32) bool { return s.o.touched[u/64]&(1<<(u%64)) != 0 }

// push pushes u at threshold eps (see ppr.Engine.PushUntil): x(u) += r(u),
// r(u) spread over u's row, marking every node it changes in mark (when not
// nil). A dangling node's mass is returned for the caller to send to the
// seeds once per pass.
func (s *solver) push(u uint32, eps float64, mark []uint64) (dangling float64, pushed bool) {
	val := s.r[u]
	if val == 0 {
		return 0, false
	}
	o := s.o
	var wu float64
	touched := s.isTouched(u)
	var row *row
	switch {
	case touched:
		row = &o.rows[o.rowIdx[u]]
		wu = row.w
	case int(u) < o.baseN:
		wu = o.view.OutWeight(u)
	}
	if wu == 0 {
		if math.Abs(val) <= eps {
			return 0, false
		}
		s.r[u] = 0
		s.x[u] += val
		s.stats.Pushes++
		return val, true
	}
	if math.Abs(val) <= eps*wu {
		return 0, false
	}
	s.r[u] = 0
	s.x[u] += val
	s.stats.Pushes++
	c := s.d * val / wu
	r := s.r
	if touched {
		s.stats.ArcOps += int64(len(row.nbr))
		wt := row.wt[:len(row.nbr)]
		for i, v := range row.nbr {
			r[v] += c * wt[i]
			if mark != nil {
				mark[v/64] |= 1 << (v % 64)
			}
		}
		return 0, true
	}
	out := o.view.Graph().Out()
	lo, hi := out.Offsets[u], out.Offsets[u+1]
	nbr, wt, eid := out.Nbr[lo:hi], out.Weight.Slice(lo, hi), out.Edge[lo:hi]
	eid = eid[:len(nbr)]
	s.stats.ArcOps += int64(len(nbr))
	mbits, tb := o.view.MaskedBits(), o.view.TouchedBits()
	check := mbits != nil && tb[u/64]&(1<<(u%64)) != 0
	for i, v := range nbr {
		if check && mbits[eid[i]/64]&(1<<(eid[i]%64)) != 0 {
			continue
		}
		r[v] += c * wt.At(i)
		if mark != nil {
			mark[v/64] |= 1 << (v % 64)
		}
	}
	return 0, true
}

// toSeeds sends dangling mass to the seeds.
func (s *solver) toSeeds(mass float64, mark []uint64) {
	if mass == 0 {
		return
	}
	for i, u := range s.seeds.Nodes {
		s.r[u] += s.d * mass * s.seeds.Weights[i]
		if mark != nil {
			mark[u/64] |= 1 << (u % 64)
		}
	}
}

// scan pushes every node with residual once, in id order, in place
// (ppr.Engine.PushScan at eps 0).
func (s *solver) scan() { s.scanEps(0) }

// scanEps pushes, in one pass in id order, every node over its threshold
// at eps (ppr.Engine.PushScan) and returns the pushes made.
func (s *solver) scanEps(eps float64) int {
	if s.eng != nil {
		return s.eng.PushScan(eps)
	}
	before := s.stats.Pushes
	dangling := 0.0
	o := s.o
	// The body of push, inlined for both kinds of row (as in
	// ppr.Engine.PushScan); TestSolveMatchesMaterialized and FuzzStore
	// compare the result with ppr on a materialised copy.
	var out struct {
		off []int
		nbr []uint32
		wt  csr.Weights
		eid []uint32
	}
	var bw, x, r []float64
	var mbits, tb []uint64
	if o.view != nil {
		a := o.view.Graph().Out()
		out.off, out.nbr, out.wt, out.eid = a.Offsets, a.Nbr, a.Weight, a.Edge
		bw, mbits, tb = o.view.OutWeights(), o.view.MaskedBits(), o.view.TouchedBits()
	}
	x, r = s.x[:s.nodeCnt], s.r[:s.nodeCnt]
	d := s.d
	for u := range s.nodeCnt {
		val := r[u]
		if val == 0 {
			continue
		}
		// The row: replaced by the delta, or the base row (masked arcs
		// tested only at nodes the base view masks something at).
		var wu float64
		var nbr, eid []uint32
		var wt []float64
		var wt32 []float32 // the base row's weights when stored as float32
		masked := false
		switch {
		case o.touched[u/64]&(1<<(u%64)) != 0:
			row := &o.rows[o.rowIdx[u]]
			wu, nbr, wt = row.w, row.nbr, row.wt
		case u < o.baseN:
			wu = bw[u]
			lo, hi := out.off[u], out.off[u+1]
			nbr, eid = out.nbr[lo:hi], out.eid[lo:hi]
			if w := out.wt.Float32s(); w != nil {
				wt32 = w[lo:hi]
			} else {
				wt = out.wt.Float64s()[lo:hi]
			}
			masked = mbits != nil && tb[u/64]&(1<<(u%64)) != 0
		}
		if wu == 0 {
			if math.Abs(val) > eps {
				r[u] = 0
				x[u] += val
				s.stats.Pushes++
				dangling += val
			}
			continue
		}
		if math.Abs(val) <= eps*wu {
			continue
		}
		r[u] = 0
		x[u] += val
		s.stats.Pushes++
		c := d * val / wu
		s.stats.ArcOps += int64(len(nbr))
		if !masked {
			eid = nil
		}
		if wt32 != nil {
			scatterRow(r, nbr, wt32, eid, mbits, c)
		} else {
			scatterRow(r, nbr, wt, eid, mbits, c)
		}
	}
	s.toSeeds(dangling, nil)
	s.stats.Sweeps++
	return int(s.stats.Pushes - before)
}

// rounds is ppr.Engine.PushRounds on the overlay: push the frontier's nodes
// over threshold in id order, mark what they change, repeat until a round
// pushes nothing.
func (s *solver) rounds(eps float64, frontier []uint32) {
	if s.eng != nil {
		s.eng.PushRounds(eps, frontier, 0)
		return
	}
	words := (s.nodeCnt + 63) / 64
	if s.cur == nil {
		s.cur, s.next = make([]uint64, words), make([]uint64, words)
	}
	cur, next := s.cur, s.next
	for _, u := range frontier {
		cur[u/64] |= 1 << (u % 64)
	}
	for {
		active := false
		dangling := 0.0
		for wi := range cur {
			word := cur[wi]
			cur[wi] = 0
			for word != 0 {
				u := uint32(wi*64 + bits.TrailingZeros64(word))
				word &= word - 1
				m, pushed := s.push(u, eps, next)
				dangling += m
				active = active || pushed
			}
		}
		s.toSeeds(dangling, next)
		if !active {
			clear(next)
			return
		}
		cur, next = next, cur
	}
}

func (s *solver) residualL1() float64 {
	l1 := 0.0
	for _, v := range s.r {
		l1 += math.Abs(v)
	}
	return l1
}

// solveTo scans until ||r||_1 <= target, capped like ppr's solve.
func (s *solver) solveTo(target float64) (float64, error) {
	l1 := s.residualL1()
	limit := 20 + 4*int(math.Log(math.Max(l1, target)/target)/math.Log(1/math.Max(s.d, 1e-3)))
	for i := 0; ; i++ {
		// A NaN residual would end the loop as if it were below target.
		if err := ppr.CheckFinite(l1/s.alpha, nil); err != nil {
			return l1, err
		}
		if l1 <= target {
			break
		}
		if i >= limit {
			return l1, fmt.Errorf("store: error bound %.3g after %d sweeps, tolerance %.3g not reached", l1/s.alpha, i, target/s.alpha)
		}
		s.scan()
		l1 = s.residualL1()
	}
	return l1, nil
}

func (s *solver) solution(v *Version, l1 float64) *Solution {
	st := s.stats
	if s.eng != nil {
		st.Sweeps += s.eng.Stats.Sweeps
		st.Pushes += s.eng.Stats.Pushes
		st.ArcOps += s.eng.Stats.ArcOps
	}
	return &Solution{Version: v, X: s.x, R: s.r, ResidualL1: l1, ErrorBound: l1 / s.alpha, Stats: st}
}

// Solve computes PPR on the version's view for policy p (nil: native) from
// the native start state, to an L1 error bound tol (ppr.DefaultTol when 0).
func (v *Version) Solve(p *mask.Policy, seeds ppr.Seeds, damping, tol float64) (*Solution, error) {
	if tol == 0 {
		tol = ppr.DefaultTol
	}
	if !(tol > 0) || math.IsInf(tol, 0) {
		return nil, fmt.Errorf("store: tolerance %v, want a positive finite number", tol)
	}
	s, err := v.newSolver(p, seeds, damping)
	if err != nil {
		return nil, err
	}
	n := v.NumNodes()
	x, r := make([]float64, n), make([]float64, n)
	for i, u := range seeds.Nodes {
		r[u] = s.alpha * seeds.Weights[i]
	}
	s.setState(x, r)
	l1, err := s.solveTo(tol * s.alpha)
	if err != nil {
		return nil, err
	}
	if err := ppr.CheckFinite(l1/s.alpha, s.x); err != nil {
		return nil, err
	}
	return s.solution(v, l1), nil
}

// Seeds validates seeds for the version (ppr.NewSeeds).
func (v *Version) Seeds(seeds []ppr.Seed) (ppr.Seeds, error) {
	return ppr.NewSeeds(v.NumNodes(), seeds)
}

// scatterRow is the scan's arc loop: r[nbr[i]] += c*wt[i] for every arc,
// except, when eid is not nil, the arcs whose edge ids are set in mbits;
// wt is a delta row's float64 weights or the base graph's in their storage
// (csr.Weights), widened as read.
func scatterRow[W float32 | float64](r []float64, nbr []uint32, wt []W, eid []uint32, mbits []uint64, c float64) {
	wt = wt[:len(nbr)]
	if eid == nil {
		for i, v := range nbr {
			r[v] += c * float64(wt[i])
		}
		return
	}
	eid = eid[:len(nbr)]
	for i, v := range nbr {
		if mbits[eid[i]/64]&(1<<(eid[i]%64)) == 0 {
			r[v] += c * float64(wt[i])
		}
	}
}
