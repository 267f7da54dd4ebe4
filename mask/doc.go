// Package mask holds provenance labels over a snapshot's edge ids and turns a
// trust policy into views: the same csr arrays with some edges masked, never
// copied.
//
//	labels := mask.FromGraph(g)                                       // each edge added by its file channel
//	auth, err := mask.Authenticated(g, labels, mask.Trust("default")) // untrusted edges masked
//	native, err := mask.Native(g, labels)                             // every live edge
//	auth.OutWeight(q)                                                 // W(q) over what survives
//
// (ExampleAuthenticated runs it, with an untrusted deletion undone.)
//
// # Labels
//
// Each channel (a principal that writes structure) has three roaring
// bitmaps over edge ids: the edges it added, the edges it deleted, and the
// edges that require it. An edge can be added by several channels and
// deleted by several. An edge requires a channel when it was derived from
// structure that channel wrote: a merge's rewired copy of an edge requires
// the original's writer (and everything the original required), an
// inferred edge requires its sources' writers. This is min-inheritance: an
// edge is only as trustworthy as the least trusted channel it depends on,
// so structure an untrusted writer invented cannot be laundered through a
// trusted process that derives from it.
//
// # Views
//
//   - native: every edge added by some channel and deleted by none;
//   - authenticated: every edge added by a trusted channel, requiring only
//     trusted channels, and deleted by no trusted channel. An untrusted
//     deletion (say, an untrusted entity merge that removed edges) is undone
//     here: the edge is back; a trusted merge of an untrusted edge yields an
//     edge that requires the untrusted writer, masked here.
//
// A View records the edges it masks (a roaring bitmap, plus a dense bitset
// for kernels that test every arc) and, per node, the surviving out-weight
// W_A(u), recomputed by summation in arc order over the surviving arcs so
// that it equals, bit for bit, the out-weight of a physically copied
// subgraph. Nodes whose out-arcs are touched by the mask are listed.
//
// A patched view (WithDelta: a living store's version) replaces the rows
// of the nodes its delta touched and shares everything else with its
// snapshot's view, the per-node out-weights and their inverses included:
// kernels read them through NodeWeights (the snapshot view's array under
// the replaced rows' own values), so deriving a version's view costs the
// rows it replaces and a few bitsets, never a copy of n floats.
//
// # Errors
//
// Edge ids out of range and unknown channels in a policy are errors naming
// the id or channel; deserialising labels validates every bitmap and the
// checksum before anything is used.
package mask
