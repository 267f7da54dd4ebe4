package mask

import (
	"slices"

	"github.com/authppr/authppr/internal/rowindex"
)

// NodeWeights is a per-node value of a view (W(u), or 1/W(u)) as kernels
// read it: an array over the snapshot's nodes, and on a patched view the
// replaced rows' own values, which take precedence (every node beyond the
// snapshot's has a replaced row). A patched view shares its snapshot
// view's array and owns a value per replaced row, so deriving a version's
// view costs no O(n) copy. At is O(1) and small enough to inline.
type NodeWeights struct {
	flat  []float64      // the snapshot view's values
	bits  []uint64       // the nodes whose rows are replaced; nil: none
	rows  *rowindex.Rows // their index (bits is rows.Bits())
	nodes []uint32       // the replaced rows' nodes, ascending
	vals  []float64      // per replaced row
}

// At returns u's value.
func (w *NodeWeights) At(u uint32) float64 {
	if w.bits != nil && w.bits[u/64]&(1<<(u%64)) != 0 {
		return w.replaced(u)
	}
	return w.flat[u]
}

func (w *NodeWeights) replaced(u uint32) float64 { return w.vals[w.rows.Index(u)] }

// Flat returns the values as the array they mostly are and the nodes it
// does not hold: u's value is flat[u] unless u >= len(flat) or bit u of
// replaced is set (nil: none is), and At(u) otherwise. A pass over every
// node loads one word of replaced per 64 nodes and reads flat directly
// where its bit is clear (At rereads both slices through w at every call).
func (w *NodeWeights) Flat() (flat []float64, replaced []uint64) { return w.flat, w.bits }

// materialize returns the values as one array of n entries (n at least
// the flat array's).
func (w *NodeWeights) materialize(n int) []float64 {
	if w.bits == nil && len(w.flat) == n {
		return w.flat
	}
	out := extend(w.flat, n)
	for i, u := range w.nodes {
		out[u] = w.vals[i]
	}
	return out
}

// extend returns a copy of w with zeros up to n entries (n >= len(w)),
// written once: a copy made by append is not cleared first, as make's is.
func extend(w []float64, n int) []float64 {
	if n == len(w) {
		return slices.Clone(w)
	}
	return append(w[:len(w):len(w)], make([]float64, n-len(w))...)
}
