package randgraph

import (
	"math/rand/v2"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// DeltaCase is a random base graph with a masked view of it, a delta over
// that view (new nodes, added edges, removed edges), and the materialised
// graph of every edge with the view that masks what the delta drops:
// mask.WithDelta(Base, Delta) must present Material's rows.
type DeltaCase struct {
	Base     *mask.View
	Delta    mask.Delta
	Material *mask.View
}

// NewDeltaCase draws a case with up to maxNodes base nodes.
func NewDeltaCase(r *rand.Rand, directed bool, maxNodes int) (DeltaCase, error) {
	n := 1 + r.IntN(maxNodes)
	mBase := r.IntN(4 * n)
	nodes := n + r.IntN(5)
	mAdd := r.IntN(3 * n)
	var pairs []uint32
	var weights []float64
	weight := func() float64 {
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return 1
		case 2:
			return float64(float32(r.Float64())) // exactly a float32
		}
		return r.Float64() * 4
	}
	for range mBase {
		pairs = append(pairs, uint32(r.IntN(n)), uint32(r.IntN(n)))
		weights = append(weights, weight())
	}
	float64Weights := r.IntN(2) == 0
	base, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: directed, Nodes: n, Pairs: pairs, Weights: weights, Float64Weights: float64Weights})
	if err != nil {
		return DeltaCase{}, err
	}
	for range mAdd {
		pairs = append(pairs, uint32(r.IntN(nodes)), uint32(r.IntN(nodes)))
		weights = append(weights, weight())
	}
	all, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: directed, Nodes: nodes, Pairs: pairs, Weights: weights, Float64Weights: float64Weights})
	if err != nil {
		return DeltaCase{}, err
	}
	baseMasked := roaring.New()
	for e := range mBase {
		if r.IntN(5) == 0 {
			baseMasked.Add(uint32(e))
		}
	}
	bv, err := mask.FromMasked(base, "auth", baseMasked)
	if err != nil {
		return DeltaCase{}, err
	}
	d := mask.Delta{Nodes: nodes}
	dropped := baseMasked.Clone()
	for i := range mAdd {
		e := uint32(mBase + i)
		if r.IntN(4) == 0 { // an added edge this view does not have
			dropped.Add(e)
			continue
		}
		d.Src = append(d.Src, pairs[2*e])
		d.Dst = append(d.Dst, pairs[2*e+1])
		d.Weight = append(d.Weight, weights[e])
		d.Edge = append(d.Edge, e)
	}
	for e := range mBase + mAdd {
		if r.IntN(6) == 0 {
			d.Removed = append(d.Removed, uint32(e))
			dropped.Add(uint32(e))
		}
	}
	mv, err := mask.FromMasked(all, "auth", dropped)
	if err != nil {
		return DeltaCase{}, err
	}
	return DeltaCase{Base: bv, Delta: d, Material: mv}, nil
}
