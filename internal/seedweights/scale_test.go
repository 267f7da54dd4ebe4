package seedweights

import (
	"math"
	"testing"
)

// Scale is 1 up to 1 and NaN, and beyond brings the largest weight into
// [1/2, 1) by an exact power of two, up to the largest float64.
func TestScale(t *testing.T) {
	t.Parallel()
	for _, top := range []float64{0, 1e-300, 0.5, 1, math.NaN()} {
		if got := Scale(top); got != 1 {
			t.Errorf("Scale(%v) = %v, want 1", top, got)
		}
	}
	for _, top := range []float64{1.0000001, 2, 3, 1e10, 1e300, math.MaxFloat64} {
		s := Scale(top)
		if f, _ := math.Frexp(s); f != 0.5 {
			t.Errorf("Scale(%v) = %v, not a power of two", top, s)
		}
		if v := top * s; !(v >= 0.5 && v < 1) {
			t.Errorf("Scale(%v) = %v brings it to %v, want [1/2, 1)", top, s, v)
		}
	}
}
