// Package bench generates the workloads authppr is measured on: graphs made
// by code from a fixed seed (so nothing large is committed) and the queries
// run against them.
//
// Generators are deterministic: the same config gives the same graph, node
// ids and channels on every machine and Go version (math/rand/v2 PCG).
package bench
