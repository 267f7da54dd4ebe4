// Package prefetch asks the CPU to bring cache lines into its caches
// ahead of their use (PREFETCHT0 on amd64; nothing elsewhere and under
// the purego tag). A loop that knows the nodes it will read a few steps
// from now (ppr's push rounds: the marked nodes they visit, the block of
// pushes they list before making them) asks for their lines while it
// works on the current one, so that their memory latencies overlap instead
// of adding up.
//
// A prefetch is a hint: it reads and writes no memory a program can see
// and never faults, whatever the address, so results are the same with it
// and without (test.sh runs the ppr tests under purego too).
package prefetch
