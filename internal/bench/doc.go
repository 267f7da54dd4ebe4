// Package bench generates the workloads authppr is measured on, for the
// CLI (cmd/pprbench) and the tests and benchmarks of the other packages:
// graphs made by code from a fixed seed (so nothing large is committed),
// the queries run against them, and the memory floor of a sweep (a STREAM
// copy and a random gather measured in the same process). It is not a user
// API.
//
// Generators are deterministic: the same config gives the same graph, node
// ids and channels on every machine and Go version (math/rand/v2 PCG).
package bench
