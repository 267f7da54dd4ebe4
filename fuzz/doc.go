// Package fuzz holds differential fuzz targets: each decodes arbitrary bytes
// into a small problem (graph, labels, trust policy, query) and checks a fast
// path against a plain model of the same computation, such as a masked solve
// on shared arrays against a solve on a physically copied subgraph.
//
// Corpus seeds and minimised crashers live in testdata/fuzz/<Target>/, so a
// plain `go test ./fuzz` replays every one of them; `go test ./fuzz -run=NONE
// -fuzz=<Target> -fuzztime=10m` explores further. Decoding never fails: every
// byte string is a valid case, so the fuzzer spends no time on rejects.
package fuzz
