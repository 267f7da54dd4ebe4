// Package rowindex indexes, by node, the rows a patched mask.View replaces
// (a store version's delta beside its snapshot), in the form the push
// kernels of package ppr read them: Index and Row are O(1) and small
// enough to inline in a loop over the nodes. Package mask builds one per
// patched view and hands it to kernels through View.OutReplaced; users
// read rows through View.OutRow.
package rowindex

import "math/bits"

// Rows are whole rows, each its own slices (so that the rows a view shares
// with the view it was derived from are not copied), over a view of n
// nodes, with a rank index: the row of node u is number rank[u/64] + the
// count of the bits of word u/64 below u's.
type Rows struct {
	bits   []uint64 // bit u set when node u has a row
	rank   []int32  // rank[w]: the rows of the nodes below 64*w
	nbr    [][]uint32
	weight [][]float64
}

// New indexes the rows of nodes (ascending, distinct, below n): row i is
// nbr[i] and weight[i], of equal lengths. It keeps the slices, which must
// not be modified afterwards, and owns O(n/64) words.
func New(nodes []uint32, nbr [][]uint32, weight [][]float64, n int) Rows {
	r := Rows{bits: make([]uint64, (n+63)/64), rank: make([]int32, (n+63)/64), nbr: nbr, weight: weight}
	for _, u := range nodes {
		r.bits[u/64] |= 1 << (u % 64)
	}
	count := int32(0)
	for i, w := range r.bits {
		r.rank[i] = count
		count += int32(bits.OnesCount64(w))
	}
	return r
}

// Index returns u's row number (u below New's n), or -1 when u has no row.
func (r *Rows) Index(u uint32) int {
	w := r.bits[u/64]
	bit := uint64(1) << (u % 64)
	if w&bit == 0 {
		return -1
	}
	return int(r.rank[u/64]) + bits.OnesCount64(w&(bit-1))
}

// Row returns row i's arcs.
func (r *Rows) Row(i int) (nbr []uint32, wt []float64) {
	return r.nbr[i], r.weight[i]
}

// Bits returns the nodes that have a row as a bitmap, one bit per node.
// Must not be modified.
func (r *Rows) Bits() []uint64 { return r.bits }
