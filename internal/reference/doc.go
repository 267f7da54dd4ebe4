// Package reference holds the plain references of ppr's solvers that tests
// outside ppr compare with: the power iteration written independently of
// ppr's engine. It imports no solver, so ppr's own tests use it too; a
// reference is the specification a fast path is tested against, never a
// path production code takes.
package reference
