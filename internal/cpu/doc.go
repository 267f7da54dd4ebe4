// Package cpu decides once, at start-up, which kernel level this CPU and
// this build run, so that fast kernels never test CPU features in their
// loops.
//
// # Invariants
//
//   - Detection happens once (package initialisation, klauspost/cpuid/v2);
//     Best never changes while the program runs.
//   - Generic is always supported: every package keeps a plain reference
//     loop for it, always compiled, and tests compare every level the host
//     supports (Supported) with it.
//   - The purego build tag makes Best return Generic, so a whole build runs
//     the reference loops.
//
// # Errors
//
// None: an unsupported level is simply absent from Supported; asking a
// package to run it is a programmer error that the package reports.
package cpu
