// Package snapshot stores a graph snapshot and its provenance labels in one
// file and loads it back by memory-mapping it: the numeric arrays of the
// loaded graph are the file's bytes, not copies.
//
// The format is documented in FORMAT.md: a header, a section table, and
// little-endian sections each protected by a CRC-32C. Save is atomic
// (temporary file, fsync, rename, fsync of the directory), so a crash
// leaves either the old file or the new one. Load checks the header, every
// section's bounds, alignment and checksum, and then every graph invariant
// (csr.Assemble) and every label bitmap (mask.ReadLabels) before it returns:
// a truncated, corrupted or wrong-version file is an error naming the
// section that failed, never a panic or a wrong graph. The checksums of the
// edge and arc sections are computed in the blocks csr.AssembleVisit
// checks, while those are in cache, so a load reads the file from memory
// once; when anything fails, the plain order (every checksum, then the
// graph) runs again to name the fault.
//
// A loaded Snapshot must be closed when its graph is no longer used; using
// the graph after Close is a programming error (the memory is unmapped).
// Hosts must be little-endian and 64-bit (amd64, arm64 and the like); Load
// and Save say so otherwise.
package snapshot
