package replay

import (
	"math"

	"github.com/authppr/authppr/ppr"
)

// Reverse refinement of candidate scores on directed views.
//
// On a directed view the only bound is in L1: |pi_A(v) - x(v)| <=
// ||r||_1/alpha for every v, and the full path used to sweep until that fell
// below half the boundary gap. The candidates near the boundary are few, so
// it pays to learn, for each of them, how much of the residual can actually
// reach it: ppr's reverse pushes (ppr/reverse.go proves the identity
// pi_A = N/(1 - c) with N = x + r*G' and |c| <= d*||r||_1/alpha^2, and the
// bracket r.q - ||r||_1*max(s)/alpha <= (r*G')(v) <= r.q +
// ||r||_1*max(s)/alpha of a reverse push from v, for a signed r too).
// The estimate depends on the view, d and v only, so one push serves every
// later sweep; a smaller threshold only tightens it.

// maxRefined caps the candidates refined at once: more than this near the
// boundary means the L1 bound is still far too loose, and a sweep is the
// cheaper next step.
const maxRefined = 64

// reversePusher is ppr's reverse pusher with the marks refineDirected
// keeps on the candidates holding a refined interval.
type reversePusher struct {
	*ppr.ReversePusher
	marked []bool
}

func newReversePusher(n int) *reversePusher {
	return &reversePusher{ReversePusher: ppr.NewReversePusher(n), marked: make([]bool, n)}
}

// refinement holds the reverse estimates of one query's full path.
type refinement struct {
	pusher   *reversePusher // the workspace's
	startOps int64          // pusher.Ops when this query started using it
	est      map[uint32]*ppr.ReverseEstimate
}

// ops returns the arcs this query's reverse pushes read.
func (ref *refinement) ops() int64 {
	if ref.pusher == nil {
		return 0
	}
	return ref.pusher.Ops - ref.startOps
}

// Reverse push thresholds: the coarsest is cheap (about the in-degree of
// the candidate) and already tightens the L1 term tenfold; below the finest
// a reverse push costs more than the sweeps it would save (R-MAT 16,
// one-percent regime, all 200 queries' replay time over their native time:
// 31.8% with 1e-3, 23.4% with 1e-2, 21.6% with 3e-2 in one loaded
// session, and in another 22.4% with 1e-2 against 32.5% without
// refinement; `pprbench overhead --workload rmat`).
const (
	coarsestReverse = 0.1
	finestReverse   = 1e-2
)

// reverseArcCost is what a reverse-push arc costs against a sweep arc
// (random reads of s, the mask and 1/W_A against a sequential scan): 3-5x,
// measured with a CPU profile of `pprbench overhead --workload rmat`.
// Reverse pushes get the sweeps' arcs divided by it.
const reverseArcCost = 4

// refineDirected tries to decide with reverse-refined candidate intervals
// (see the comment at the top of this file). l1 is ||r||_1 of the dense
// authenticated state. Reverse pushes never spend more than the full path
// has swept so far (counted in sweep arcs, see reverseArcCost), so
// refinement at most doubles the path's work. It reports whether it decided.
func (r *run) refineDirected(l1 float64) bool {
	gd, ws := r.gd, r.ws
	alpha, d := r.alpha(), r.damping()
	cmax := d * l1 / (alpha * alpha)
	if cmax >= 0.5 {
		return false // too far from converged for the scaling to be useful
	}
	L := l1/alpha + roundingSlack
	x := r.x
	// The ambiguous candidates: within 2L of the k-th estimate t. Any
	// other candidate's interval [x-L, x+L] lies wholly above or below
	// every interval that reaches t, so refining it cannot change the
	// decision's bounds.
	t, gapEst := r.boundaryEstimate()
	var amb []uint32
	over := false
	forCandidates(len(x), r.q.Candidates, func(v uint32) {
		if math.Abs(x[v]-t) < 2*L {
			if len(amb) == maxRefined {
				over = true
				return
			}
			amb = append(amb, v)
		}
	})
	if over {
		return false
	}
	// Aim each candidate's term at a third of the estimated boundary gap
	// (or of the tie band, when the gap is inside it): then the refined
	// intervals separate the boundary if the estimate is right.
	need := max(gapEst, gd.opt.TieTol) / 3
	eps := min(coarsestReverse, need*alpha/l1)
	if eps < finestReverse {
		return false // sweeps are cheaper until the L1 term shrinks
	}
	ref := &r.refine
	if ref.pusher == nil {
		if ws.reverse == nil {
			ws.reverse = newReversePusher(gd.g.NumNodes())
		}
		ref.pusher, ref.startOps = ws.reverse, ws.reverse.Ops
		ref.est = make(map[uint32]*ppr.ReverseEstimate)
	}
	allowance := ws.authEng.Stats.ArcOps/reverseArcCost - ref.ops()
	for _, v := range amb {
		if e := ref.est[v]; e != nil && e.MaxS <= eps {
			continue
		}
		if allowance <= 0 {
			break
		}
		before := ref.pusher.Ops
		e := ref.pusher.Push(gd.auth, d, v, eps, allowance)
		allowance -= ref.pusher.Ops - before
		if old := ref.est[v]; old == nil || e.MaxS < old.MaxS {
			ref.est[v] = &e
		}
	}
	bounds := make(map[uint32][2]float64, len(amb))
	marked := ref.pusher.marked
	// The marks and r.refined serve this call only: finish ranks the
	// estimates (score) before it returns.
	defer func() {
		for v := range bounds {
			marked[v] = false
		}
		r.refined, r.refinedMark = nil, nil
	}()
	widest := 0.0
	for _, v := range amb {
		e := ref.est[v]
		if e == nil {
			continue
		}
		marked[v] = true
		mid := e.Dot(ws.authEng.R)
		half := l1*e.MaxS/alpha + roundingSlack
		// Both intervals hold (N(v) - x(v) is within +-L unrefined); keep
		// their intersection.
		bounds[v] = [2]float64{x[v] + max(mid-half, -L), x[v] + min(mid+half, L)}
		widest = max(widest, half)
	}
	iv := refinedGap(x, marked, bounds, L, cmax, ws.inSel, r.q.Candidates)
	out, ok := classify(iv, gd.opt.TieTol)
	if !ok {
		return false
	}
	r.refined, r.refinedMark = bounds, marked
	if out == Divergent {
		proved := false
		r.withAuthSelection(func(mark []bool) {
			proved = refinedGap(x, marked, bounds, L, cmax, mark, r.q.Candidates).Lo >= -gd.opt.TieTol
		})
		if !proved {
			return false
		}
	}
	r.finish(PathFull, out, iv, widest)
	r.d.Refined = len(bounds)
	return true
}

// refinedGap bounds gapA from per-candidate intervals for N = (1-c)*pi_A:
// [x-L, x+L] by default, iv[v] for refined ones (marked), then divides by 1 - c with
// |c| <= cmax < 1 (see the top of this file). Each candidate's interval
// holds on its own, so min over sel of the lower ends minus max over the
// rest of the upper ends bounds the gap of N from below, and the reverse
// pairing from above; dividing by a positive 1 - c keeps the sign and
// scales the size by at most 1/(1 -+ cmax).
func refinedGap(x []float64, marked []bool, iv map[uint32][2]float64, L, cmax float64, inSel []bool, cands []uint32) Interval {
	gapN := selectionGap(len(x), cands, inSel, func(v uint32) (float64, float64) {
		if marked[v] {
			b := iv[v]
			return b[0], b[1]
		}
		return x[v] - L, x[v] + L
	})
	if math.IsInf(gapN.Lo, 1) {
		return gapN
	}
	scale := func(g float64, low bool) float64 {
		a, b := g/(1+cmax), g/(1-cmax)
		if low {
			return min(a, b)
		}
		return max(a, b)
	}
	return Interval{Lo: scale(gapN.Lo, true), Hi: scale(gapN.Hi, false)}
}
