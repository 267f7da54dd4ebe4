// Package rowindex indexes, by node, the rows a patched mask.View replaces
// (a store version's delta beside its snapshot), in the form the push
// kernels of package ppr read them: Index and Row are O(1) and small
// enough to inline in a loop over the nodes. Package mask builds one per
// patched view and hands it to kernels through View.OutReplaced; users
// read rows through View.OutRow. Ranks is the same index without rows,
// which package mask keeps over the nodes whose masked arcs a view lists.
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
	b, rank := rankIndex(nodes, n)
	return Rows{bits: b, rank: rank, nbr: nbr, weight: weight}
}

// Index returns u's row number (u below New's n), or -1 when u has no row.
// (Ranks.Index is the same lines: the push kernels inline this one, and
// their code is sensitive to the shape of what they inline.)
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

// Ranks numbers a set of nodes in ascending order with Rows' rank index:
// node u's number is rank[u/64] + the count of the bits of word u/64
// below u's.
type Ranks struct {
	bits []uint64 // bit u set when node u is in the set
	rank []int32  // rank[w]: the nodes of the set below 64*w
}

// NewRanks indexes nodes (ascending, distinct, below n). It owns O(n/64)
// words.
func NewRanks(nodes []uint32, n int) Ranks {
	b, rank := rankIndex(nodes, n)
	return Ranks{bits: b, rank: rank}
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

// rankIndex returns the bitmap of nodes (ascending, distinct, below n)
// and, per word, the count of the nodes below it.
func rankIndex(nodes []uint32, n int) ([]uint64, []int32) {
	b, rank := make([]uint64, (n+63)/64), make([]int32, (n+63)/64)
	for _, u := range nodes {
		b[u/64] |= 1 << (u % 64)
	}
	count := int32(0)
	for i, w := range b {
		rank[i] = count
		count += int32(bits.OnesCount64(w))
	}
	return b, rank
}
