// Package golden reads the igraph PRPACK vectors committed under
// ppr/testdata/golden (written by anchors/igraph_oracle.py through the
// regen script there), for the tests that compare against them: ppr's
// solver and the C ABI. One reader, so the two cannot drift apart on the
// file format. The real graphs the cases name are the repository's
// testdata/ (see its README).
package golden
