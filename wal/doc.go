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
package wal
