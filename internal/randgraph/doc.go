// Package randgraph makes random graphs, views and deltas for the
// differential tests of several packages (a patched view against the
// materialised graph it stands for), so that each test draws the same kind
// of cases from one generator.
package randgraph
