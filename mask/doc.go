// Package mask holds provenance labels over a snapshot's edge ids and turns a
// trust policy into views: the same csr arrays with some edges masked, never
// copied.
//
// # Labels
//
// Each channel (a principal that writes structure) has two roaring bitmaps
// over edge ids: the edges it added and the edges it deleted. An edge can be
// added by several channels and deleted by several.
//
// # Views
//
//   - native: every edge added by some channel and deleted by none;
//   - authenticated: every edge added by a trusted channel and deleted by no
//     trusted channel. An untrusted deletion (say, an untrusted entity merge
//     that removed edges) is undone here: the edge is back.
//
// A View records the edges it masks (a roaring bitmap, plus a dense bitset
// for kernels that test every arc) and, per node, the surviving out-weight
// W_A(u), recomputed by summation in arc order over the surviving arcs so
// that it equals, bit for bit, the out-weight of a physically copied
// subgraph. Nodes whose out-arcs are touched by the mask are listed.
//
// # Errors
//
// Edge ids out of range and unknown channels in a policy are errors naming
// the id or channel; deserialising labels validates every bitmap and the
// checksum before anything is used.
package mask
