// Package faultfile is the file a wal log reads and writes through, and a
// fault-injecting one for tests: writes that fail part-way or come back
// short, fsyncs and truncations that fail, and crashes that keep only what
// was synced (or some of what was not).
//
// # Invariants
//
//   - Outside tests the file is the *os.File the wal opened: Wrap returns
//     it unchanged unless a test installed a hook with SetHook.
//   - A Faulty's faults are decided by its Plan, operation by operation, so
//     a test (or a fuzzer reading its bytes) scripts them exactly.
//   - A Faulty fails an operation instead of doing it, or (a write) after
//     doing part of it: the bytes it reports written are in the file.
//   - Fault model of a crash: a successful Sync makes the whole file as it
//     then is durable; a failed Sync makes nothing durable (durability is
//     simulated: a Faulty never calls the real fsync). Crash replaces
//     the file by its durable content, by its current content, or by the
//     durable content followed by part (or a zero-filled stretch) of what
//     was appended since.
//
// # Errors
//
// Injected errors are the ones the Plan returns; an operation on a crashed
// Faulty fails with ErrCrashed.
package faultfile
