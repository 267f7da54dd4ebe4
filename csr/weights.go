package csr

import (
	"fmt"
	"math"
	"unsafe"
)

// Weights is one weight array of a snapshot (per arc of an adjacency, or
// per edge of the edge table), stored as float64 or, when every weight of
// the graph is exactly a float32 (float64(float32(w)) == w), as float32:
// half the bytes a sweep streams per arc, and the same values, since
// widening a float32 to float64 is exact. Readers get float64 either way
// (At); hot loops take the backing slice of the storage in use (Float64s or
// Float32s, exactly one of which is non-nil for a non-empty array) and
// widen as they read, so every result is the bits float64 storage gives.
// The arrays belong to the snapshot and must not be modified.
type Weights struct {
	f64 []float64
	f32 []float32
}

// weights64 returns w as Weights (not copied).
func weights64(w []float64) Weights { return Weights{f64: w} }

// weights32 returns w as Weights (not copied).
func weights32(w []float32) Weights { return Weights{f32: w} }

// Len returns the number of weights.
func (w Weights) Len() int { return len(w.f64) + len(w.f32) }

// At returns weight p, widened to float64 when stored as float32.
func (w Weights) At(p int) float64 {
	if w.f32 != nil {
		return float64(w.f32[p])
	}
	return w.f64[p]
}

// Float64s returns the backing array when stored as float64, else nil.
func (w Weights) Float64s() []float64 { return w.f64 }

// Float32s returns the backing array when stored as float32, else nil.
func (w Weights) Float32s() []float32 { return w.f32 }

// is32 reports whether the weights are stored as float32.
func (w Weights) is32() bool { return w.f32 != nil }

// Slice returns weights [lo, hi) in the same storage.
func (w Weights) Slice(lo, hi int) Weights {
	if w.f32 != nil {
		return Weights{f32: w.f32[lo:hi]}
	}
	return Weights{f64: w.f64[lo:hi]}
}

// asFloat64 returns the weights as float64: the backing array itself when
// stored as float64 (must not be modified), else a widened copy.
func (w Weights) asFloat64() []float64 {
	if w.f32 == nil {
		return w.f64
	}
	out := make([]float64, len(w.f32))
	for i, x := range w.f32 {
		out[i] = float64(x)
	}
	return out
}

// data returns the address of the backing array (for memoryParts' sharing).
func (w Weights) data() unsafe.Pointer {
	if w.f32 != nil {
		return unsafe.Pointer(unsafe.SliceData(w.f32))
	}
	return unsafe.Pointer(unsafe.SliceData(w.f64))
}

// allOnes reports whether every weight is 1.
func (w Weights) allOnes() bool {
	for _, x := range w.f32 {
		if x != 1 {
			return false
		}
	}
	for _, x := range w.f64 {
		if x != 1 {
			return false
		}
	}
	return true
}

// bytes returns the bytes the weights occupy.
func (w Weights) bytes() int64 { return int64(weightBytes*len(w.f64) + weightBytes/2*len(w.f32)) }

// weightStorage chooses how a graph stores its weights.
type weightStorage int

const (
	// autoWeights stores every weight array as float32 when every weight
	// of the graph is exactly representable in float32, else as float64.
	// Never rounds a weight. The default.
	autoWeights weightStorage = iota
	// float64Storage stores every weight array as float64.
	float64Storage
)

func (s weightStorage) String() string {
	if s == float64Storage {
		return "float64"
	}
	return "auto"
}

// storageOf is the storage a Float64Weights option asks for.
func storageOf(float64Weights bool) weightStorage {
	if float64Weights {
		return float64Storage
	}
	return autoWeights
}

// float32Exact reports whether every weight is exactly a float32.
func float32Exact(w []float64) bool {
	for _, x := range w {
		if float64(float32(x)) != x {
			return false
		}
	}
	return true
}

// narrow returns w as float32 (the caller checked float32Exact).
func narrow(w []float64) []float32 {
	out := make([]float32, len(w))
	for i, x := range w {
		out[i] = float32(x)
	}
	return out
}

// weightValue is a storage type of Weights; generic fills and sums take
// either.
type weightValue interface{ float32 | float64 }

// sumWeightsOf sums w in order, widening each weight: the same additions,
// in the same order and on the same values, as sumWeights on the float64
// array.
func sumWeightsOf[W weightValue](w []W) float64 {
	s := 0.0
	for _, x := range w {
		s += float64(x)
	}
	return s
}

// sumWeightsAt is sumWeightsOf on weights [lo, hi) of w.
func sumWeightsAt(w Weights, lo, hi int) float64 {
	if w.f32 != nil {
		return sumWeightsOf(w.f32[lo:hi])
	}
	return sumWeightsOf(w.f64[lo:hi])
}

// storesFloat32 reports whether g's weights are stored as float32 (its
// out-adjacency's; Build, FromIDs, withWeightStorage and snapshot files
// store every weight array of a graph alike).
func (g *Graph) storesFloat32() bool { return g.out.Weight.is32() }

// withWeightStorage returns a graph on g's arrays (shared, not copied)
// except the weight arrays, stored as s asks: for comparing the two
// storages on one graph (the results are the same bits), or for a caller
// that wants float64. It returns g itself when nothing changes.
func (g *Graph) withWeightStorage(s weightStorage) *Graph {
	want32 := s == autoWeights && (g.edgeWeight.is32() || float32Exact(g.edgeWeight.f64))
	if want32 == g.out.Weight.is32() && want32 == g.in.Weight.is32() && want32 == g.edgeWeight.is32() {
		return g
	}
	h := g.withArrays()
	h.decimalNames, h.idOfRank = g.decimalNames, g.idOfRank
	// The names and the dictionary as far as they are fixed: a FromIDs
	// graph's names are made on demand (h makes its own), an assembled
	// graph's dictionary under g's sync.Once (shared once built).
	if !g.decimalNames {
		h.names = g.names
		g.needIDs()
		h.ids = g.ids
	}
	h.restore(want32)
	return h
}

// restore sets every weight array of g to the storage asked (float32 when
// want32), converting the arrays not already in it, and keeps the sharing
// shareArrays makes: one array of ones for unit weights; the edge table's
// weights in the out-adjacency's when its edge ids are the identity.
func (g *Graph) restore(want32 bool) {
	conv := func(w Weights) Weights {
		if w.is32() == want32 {
			return w
		}
		if want32 {
			return weights32(narrow(w.f64))
		}
		return weights64(w.asFloat64())
	}
	sameInOut := sameAdjacency(g.in, g.out)
	g.out.Weight = conv(g.out.Weight)
	if sameInOut {
		g.in = g.out
	} else {
		g.in.Weight = conv(g.in.Weight)
	}
	g.edgeWeight = conv(g.edgeWeight)
	g.shareArrays()
}

// The range of a positive weight. Every weight of a graph is 0 or lies in
// [MinWeight, MaxWeight]; readers and builders refuse others (CheckWeight),
// naming the edge. The range is what makes every out-weight W(u), in every
// view of every graph (a view keeps any subset of a node's arcs), a normal
// float64 with a normal reciprocal, so that the kernels' r(u)*(1/W(u))*w
// never overflows and P[u][v] = w/W(u) is a probability:
//
//   - Upper: a node has fewer than 2^33 arcs (fewer than 2^32 edges, each
//     at most two arcs at one node). Each rounded addition of non-negative
//     terms gains at most a factor 1+2^-53 over the exact sum, so a sum of
//     k < 2^33 arcs of at most MaxWeight = 2^988 is at most
//     2^33*2^988*(1+2^-53)^(2^33) <= 2^1021*(1+2^-19) < 2^1022: finite,
//     and 1/W > 2^-1022 is normal. The same holds for any sum of a graph's
//     arcs (a view's volume) and for a store's rows, whose edges are
//     bounded alike.
//   - Lower: a rounded sum of non-negative terms is at least its largest
//     term, so W(u) >= MinWeight = 2^-1022 (the smallest normal float64)
//     whenever one of the arcs is positive, and 1/W(u) <= 2^1022 is
//     finite. A subnormal weight could be a view's whole row (the other
//     arcs masked), whose reciprocal overflows: no test of W alone
//     in the full graph can rule that out, so the weight is refused.
//
// Scaling every weight by one power of two would bring many graphs back
// into the range without changing P (exactly, in floating point), but
// the weights are user-visible (Edge, snapshots, a store's writes) and a
// range wider than 2^2010 cannot be brought in at all; refusing is the one
// rule every reader, builder and store write applies alike. PPREDGE1's
// float32 weights always lie in the range.
const (
	MinWeight = 0x1p-1022
	MaxWeight = 0x1p988
)

// CheckWeight returns nil when w is a weight a graph accepts (0, or
// within [MinWeight, MaxWeight]), else an error saying what w is and what
// was expected, without the package prefix or location: callers wrap it
// with the edge ("csr: edge 3 (a -> b): " + err).
func CheckWeight(w float64) error {
	switch {
	case w >= MinWeight && w <= MaxWeight, w == 0:
		return nil
	case math.IsNaN(w) || math.IsInf(w, 0) || w < 0:
		return fmt.Errorf("weight %v, want finite and non-negative", w)
	case w > MaxWeight:
		return fmt.Errorf("weight %v above 2^988 (%.4g), the largest accepted: a node's out-weight, a sum of up to 2^33 arcs, must not overflow (weights are 0 or in [2^-1022, 2^988])", w, MaxWeight)
	}
	return fmt.Errorf("weight %v below 2^-1022 (%.4g), the smallest positive weight accepted: a row of subnormal out-weight has a reciprocal that overflows (weights are 0 or in [2^-1022, 2^988])", w, MinWeight)
}
