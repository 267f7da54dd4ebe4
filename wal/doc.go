// Package wal is a write-ahead log: an append-only file of records, each
// made durable (fsync) before Append returns, so a record acknowledged
// before a crash is there after restart.
//
// Record layout (little-endian): uint32 payload length, uint32 CRC-32C
// (Castagnoli) of the payload, payload bytes. A crash can leave a torn last
// record; Open reads every whole, intact record, reports the torn tail in
// Log.Recovered and truncates it, so the next Append starts on a clean
// record boundary. A bad record before the tail is not a torn write but
// corruption, and is an error naming its byte offset: nothing is silently
// dropped.
//
// A failed append (a write that fails part-way or comes back short, a
// failed fsync) is cut back: the log truncates the file to the end of the
// last acknowledged record and fsyncs, so no later record is ever written
// after bytes of unknown content, and none of the failed batch is found on
// reopening. A failed fsync is never retried and trusted: its batch's bytes
// may be durable, so they are cut off like any others. When the cut back
// fails too, the log is failed: the append's error and every later one's
// wrap ErrFailed, the batch may be found on reopening (as after a crash
// during the call), and the log refuses appends until it is reopened.
package wal
