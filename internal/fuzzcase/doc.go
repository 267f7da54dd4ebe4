// Package fuzzcase decodes arbitrary bytes into a small problem (graph,
// labels, trust policy, seeds, damping, k) for the differential fuzz
// targets of package fuzz, and builds the plain model a masked solve is
// compared with (CopySubgraph: the subgraph a view keeps, copied edge by
// edge). Decoding never fails: every byte string is a valid case, so the
// fuzzer spends no time on rejects.
package fuzzcase
