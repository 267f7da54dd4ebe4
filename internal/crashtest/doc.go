// Package crashtest is the harness of the kill -9 durability tests (wal,
// store): it runs a test binary's child that writes and acknowledges,
// kills it with SIGKILL mid-stream and says what the child acknowledged,
// so each test only checks that those writes survived. RunChild runs a
// child that may crash (a fault kills the whole test binary) and fails the
// test with the child's output unless it passes.
package crashtest
