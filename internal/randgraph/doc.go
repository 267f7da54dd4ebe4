// Package randgraph makes random graphs, views and deltas for the
// differential tests of several packages (a patched view against the
// materialised graph it stands for), and random contradiction judges for
// consensus's tests and measurements, so that each test draws the same
// kind of cases from one generator.
package randgraph
