// Package anchors holds the references authppr is measured against: the
// scripts and the C loop in this directory (see README.md there), which
// run with Debian's Python packages and gcc, never with the Go build.
//
// The Go package only carries two of them for pprbench: IgraphOracle, the
// igraph PRPACK oracle that 'pprbench compare' runs, and PPRLoop, the C
// loop that 'pprbench sweep --c build' compiles. They are the files of this
// directory, embedded, so there is one copy of each.
package anchors

import _ "embed"

// IgraphOracle is igraph_oracle.py: igraph PRPACK on an edge list, a triple
// file or a PPREDGE1 file and a JSON-lines query file (its docstring gives
// the command line and the output).
//
//go:embed igraph_oracle.py
var IgraphOracle []byte

// PPRLoop is c/ppr_csr.c: a plain C pull-CSR power iteration on a PPREDGE1
// file, built with OpenMP (its header comment gives the build line and the
// output).
//
//go:embed c/ppr_csr.c
var PPRLoop []byte
