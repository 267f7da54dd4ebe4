package reference

// Tol is the L1 tolerance of the solves decisions are checked against: the
// authenticated solve of replay.Reference, and the vector a test hands
// replay.CheckDecision. Far below any tolerance a guard is run with, so
// the reference's own error (|gap error| <= Tol) never decides a case.
const Tol = 1e-14
