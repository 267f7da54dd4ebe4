// Package fuzz holds differential fuzz targets: each decodes arbitrary bytes
// into a small problem (package internal/fuzzcase: graph, labels, trust
// policy, query) and checks a fast path against a plain model of the same
// computation, such as a masked solve on shared arrays against a solve on a
// physically copied subgraph. The package has no code of its own beyond its
// tests.
//
// Corpus seeds and minimised crashers live in testdata/fuzz/<Target>/, so a
// plain `go test ./fuzz` replays every one of them; `go test ./fuzz -run=NONE
// -fuzz=<Target> -fuzztime=10m` explores further.
package fuzz
