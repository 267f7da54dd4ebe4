// Package crashtest is the harness of the kill -9 durability tests (wal,
// store): it runs a test binary's child that writes and acknowledges,
// kills it with SIGKILL mid-stream and says what the child acknowledged,
// so each test only checks that those writes survived.
package crashtest
