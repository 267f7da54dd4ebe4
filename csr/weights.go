package csr

import (
	"fmt"
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

// Float64Weights returns w as Weights (not copied).
func Float64Weights(w []float64) Weights { return Weights{f64: w} }

// Float32Weights returns w as Weights (not copied).
func Float32Weights(w []float32) Weights { return Weights{f32: w} }

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

// Is32 reports whether the weights are stored as float32.
func (w Weights) Is32() bool { return w.f32 != nil }

// Slice returns weights [lo, hi) in the same storage.
func (w Weights) Slice(lo, hi int) Weights {
	if w.f32 != nil {
		return Weights{f32: w.f32[lo:hi]}
	}
	return Weights{f64: w.f64[lo:hi]}
}

// AsFloat64 returns the weights as float64: the backing array itself when
// stored as float64 (must not be modified), else a widened copy.
func (w Weights) AsFloat64() []float64 {
	if w.f32 == nil {
		return w.f64
	}
	out := make([]float64, len(w.f32))
	for i, x := range w.f32 {
		out[i] = float64(x)
	}
	return out
}

// data returns the address of the backing array (for MemoryParts' sharing).
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
func (w Weights) bytes() int64 { return int64(8*len(w.f64) + 4*len(w.f32)) }

// WeightStorage chooses how a graph stores its weights.
type WeightStorage int

const (
	// AutoWeights stores every weight array as float32 when every weight
	// of the graph is exactly representable in float32, else as float64.
	// Never rounds a weight. The default.
	AutoWeights WeightStorage = iota
	// Float64Storage stores every weight array as float64.
	Float64Storage
)

func (s WeightStorage) String() string {
	if s == Float64Storage {
		return "float64"
	}
	return "auto"
}

// ParseWeightStorage accepts "auto" or "float64".
func ParseWeightStorage(s string) (WeightStorage, error) {
	switch s {
	case "auto":
		return AutoWeights, nil
	case "float64":
		return Float64Storage, nil
	}
	return 0, fmt.Errorf("csr: unknown weight storage %q, want auto or float64", s)
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

// Float32Weights reports whether g's weights are stored as float32 (its
// out-adjacency's; Build, FromIDs, WithWeightStorage and snapshot files
// store every weight array of a graph alike).
func (g *Graph) Float32Weights() bool { return g.out.Weight.Is32() }

// WithWeightStorage returns a graph on g's arrays (shared, not copied)
// except the weight arrays, stored as s asks: for comparing the two
// storages on one graph (the results are the same bits), or for a caller
// that wants float64. It returns g itself when nothing changes.
func (g *Graph) WithWeightStorage(s WeightStorage) *Graph {
	want32 := s == AutoWeights && (g.edgeWeight.Is32() || float32Exact(g.edgeWeight.f64))
	if want32 == g.out.Weight.Is32() && want32 == g.in.Weight.Is32() && want32 == g.edgeWeight.Is32() {
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
		if w.Is32() == want32 {
			return w
		}
		if want32 {
			return Float32Weights(narrow(w.f64))
		}
		return Float64Weights(w.AsFloat64())
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
