// Package snapshot stores a graph snapshot and its provenance labels in one
// file and loads it back by memory-mapping it: the numeric arrays of the
// loaded graph are the file's bytes, not copies.
//
//	err := snapshot.Save("memory.snap", g, labels) // atomic
//	s, err := snapshot.Load("memory.snap")         // mapped, every section checked
//	defer s.Close()                                // s.Graph, s.Labels
//
// (Example runs it.)
//
// The format is documented in FORMAT.md: a header, a section table, and
// little-endian sections each protected by a CRC-32C. Save is atomic
// (temporary file, fsync, rename, fsync of the directory), so a crash
// leaves either the old file or the new one. Load checks the header, every
// section's bounds, alignment and checksum, and then every graph invariant
// (csr's checked assembly, reached through internal/csrhook), every label
// bitmap (mask.ReadLabels) and the labels against the edge-channel section
// (every edge added by exactly the channel it records; Save refuses labels
// that are not) before it returns: a truncated, corrupted or wrong-version
// file is an error naming the section that failed, never a panic or a
// wrong graph. The checksums of the edge and arc sections are computed in
// the blocks csr's checks read (csrhook.VisitFunc), while those are in
// cache, so a load reads the file from memory once; when anything fails,
// the plain order (every checksum, then the graph) runs again to name the
// fault.
//
// Hosts must be little-endian and 64-bit (amd64, arm64 and the like); Load
// and Save say so otherwise.
//
// # Memory
//
// The one rule for the mapping, which every view of it follows: numeric
// arrays may be views of the mapping, and whatever can reach such a view
// holds the mapping's owner; everything else is copied into Go memory at
// Load.
//
//   - The graph's numeric arrays (edges, adjacencies, weights, out-weights,
//     ranks) are unsafe.Slice views of the mapping (viewAs). The graph holds
//     the owner (csrhook.Parts.Owner), and so does every graph made on its
//     arrays (csr.Reorder, and csrhook's Named, WithWeightStorage and
//     Assemble of its Parts); a cleanup unmaps the file once the owner is unreachable,
//     that is once no such graph is. A slice taken from the graph is valid
//     while a graph holding it is reachable (csr's Memory section).
//   - Names, channels and relations are strings sliced from one Go copy of
//     their section (decodeStrings): they end up in results, maps and the
//     graphs a store's compaction builds, which no owner can follow.
//   - The labels are decoded into Go memory (mask.ReadLabels shares none
//     with the section's bytes).
//
// Close drops the Snapshot's own hold and never unmaps under a graph in
// use: a graph kept after Close stays valid, and the file is unmapped when
// the last graph viewing it is collected. Not calling Close is not a leak.
package snapshot
