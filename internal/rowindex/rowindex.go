// Package rowindex indexes, by node, the rows a patched mask.View replaces
// (a store version's delta beside its snapshot), in the form the push
// kernels of package ppr read them: Index and Row are O(1) and small
// enough to inline in a loop over the nodes. Package mask builds one per
// patched view and hands it to kernels through View.OutReplaced; users
// read rows through View.OutRow. Ranks is the index alone, which package
// mask also keeps over the nodes whose masked arcs a view lists.
package rowindex

import "math/bits"

// Ranks numbers a set of nodes in ascending order with a rank index: node
// u's number is rank[u/64] + the count of the bits of word u/64 below u's.
type Ranks struct {
	bits []uint64 // bit u set when node u is in the set
	rank []int32  // rank[w]: the nodes of the set below 64*w
}

// NewRanks indexes nodes (ascending, distinct, below n). It owns O(n/64)
// words.
func NewRanks(nodes []uint32, n int) Ranks {
	r := Ranks{bits: make([]uint64, (n+63)/64), rank: make([]int32, (n+63)/64)}
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

// Index returns u's number (u below NewRanks' n), or -1 when u is not in
// the set.
func (r *Ranks) Index(u uint32) int {
	w := r.bits[u/64]
	bit := uint64(1) << (u % 64)
	if w&bit == 0 {
		return -1
	}
	return int(r.rank[u/64]) + bits.OnesCount64(w&(bit-1))
}

// Bits returns the set as a bitmap, one bit per node. Must not be
// modified.
func (r *Ranks) Bits() []uint64 { return r.bits }

// Rows are whole rows, each its own slices (so that the rows a view shares
// with the view it was derived from are not copied), over a view of n
// nodes: the row of node u is number Index(u).
type Rows struct {
	Ranks
	nbr    [][]uint32
	weight [][]float64
}

// New indexes the rows of nodes (ascending, distinct, below n): row i is
// nbr[i] and weight[i], of equal lengths. It keeps the slices, which must
// not be modified afterwards, and owns O(n/64) words.
func New(nodes []uint32, nbr [][]uint32, weight [][]float64, n int) Rows {
	return Rows{Ranks: NewRanks(nodes, n), nbr: nbr, weight: weight}
}

// Row returns row i's arcs.
func (r *Rows) Row(i int) (nbr []uint32, wt []float64) {
	return r.nbr[i], r.weight[i]
}
