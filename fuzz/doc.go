// Package fuzz holds differential fuzz targets: each decodes arbitrary bytes
// into a small problem (package internal/fuzzcase: graph, labels, trust
// policy, query) and checks a fast path against a plain model of the same
// computation, such as a masked solve on shared arrays against a solve on a
// physically copied subgraph. The package has no code of its own beyond its
// tests.
//
// The seed corpus and the minimised crashers of each target are packed in
// testdata/fuzz/<Target>.zip (internal/fuzzseed), so a plain `go test
// ./fuzz` replays every one of them; `go test ./fuzz -run=NONE
// -fuzz=<Target> -fuzztime=10m` explores further, and writes what it finds
// as loose files under testdata/fuzz/<Target>/, which go test replays too
// until `go run ./internal/fuzzseed/pack fuzz/testdata/fuzz/<Target>` packs
// them.
package fuzz
