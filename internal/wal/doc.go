// Package wal is a write-ahead log: an append-only file of records, each
// made durable (fsync) before Append returns, so a record acknowledged
// before a crash is there after restart.
//
// # Format
//
// A log that holds a record starts with the 8-byte magic "authwal2" (the
// last byte is the format's version), written with its first append; an
// empty log is an empty file. Records follow, each (little-endian):
//
//	uint32 payload length (at most MaxRecord)
//	uint32 CRC-32C (Castagnoli) of the payload
//	uint32 CRC-32C of the 8 bytes before it (the header checksum)
//	payload
//
// The header checksum makes the length trustworthy before the payload is
// read, and a header of zero bytes never valid (the CRC-32C of 8 zero
// bytes is not 0), so zero bytes are never read as a record; an empty
// record is still a record.
//
// # Versions
//
// Version 2 is the format above. Version 1, the format before it, has no
// magic and 8-byte headers (uint32 payload length, uint32 CRC-32C of the
// payload): its zero bytes read as empty records (the CRC-32C of no bytes
// is 0) and its lengths cannot be told from garbage. Open and Replay tell
// them apart by the first bytes:
//
//   - The magic, or a file that holds no record yet (empty, a prefix of
//     the magic, zero bytes only): version 2, recovered as the Recovery
//     section says. Open appends to it.
//   - Anything else that opens, after any empty version-1 records, with a
//     whole version-1 record that is not empty (a length and a payload
//     checksum that agree): version 1. Replay reads it as it is. Open reads
//     it and converts it to version 2 before it returns, so that every
//     append is version 2: it writes the records to path + ".v2-tmp",
//     fsyncs that file, renames it over the log and fsyncs the directory. A
//     crash at any point leaves under path either the version-1 log, which
//     the next Open converts again, or the version-2 one, with the same
//     records; a conversion that fails before the rename fails Open and
//     leaves the log as it was. Recovered.Version says what Open found.
//   - A file that opens with a version-1 header it ends inside, or whose
//     length (at most MaxRecord) runs past its end: what a crash leaves of
//     a version-1 log's first append, or a file of another kind. Nothing
//     proves it a log, so its bytes are damage: Open keeps them aside,
//     reports them and converts the log to an empty version-2 one (unless
//     a whole record follows the header: an error).
//   - Anything else (text, another format, a version-1 log whose first
//     record is damaged) is refused with an error at byte 0, and the file
//     is left as it was.
//
// A version-1 log is recovered with version 2's rules on version 1's
// records. Torn: the file ends inside a header, or a length runs past the
// end of the file with no whole record (one that is not empty) after its
// header; if one follows, the length is damaged and the log corrupted
// inside: an error. Damaged: a length over MaxRecord, a payload that fails
// its checksum, or zero bytes from a record boundary to the end of the file
// (empty records, or space a crash allocated and never wrote: version 1
// cannot tell, so they are neither replayed nor dropped as torn). Other
// damage followed by a whole record, or by more bytes than a record holds,
// is an error; otherwise Open keeps it aside as below, leaves it out of the
// converted log and reports it. A header has no checksum, so the search
// for a whole record checks every offset whose length fits. One case
// version 1 cannot catch: a last record whose length was damaged to run
// past the end reads as a torn tail (version 2's header checksum catches
// it). Offsets in errors and in Damage are the version-1 log's.
//
// # Recovery
//
// Open reads the records in order and decides what the bytes after the
// last whole record are:
//
//   - A torn tail: the file ends before the end a valid header declares,
//     or before a whole header, or holds only zero bytes from the record
//     boundary on (a crash after the file's size reached the disk and
//     before its data). This is an append that never returned: Open cuts
//     it off and reports its length in Recovered.TornBytes. No
//     acknowledged record is lost.
//   - Damage: a whole record whose payload fails its checksum, or a header
//     that fails its own (with bytes that are not all zero). The log cannot
//     tell an acknowledged record damaged since from an append that never
//     returned whose pages a crash of the machine wrote out of order, so it
//     never drops the bytes without a word. Open searches them for a whole
//     record at any offset: if one follows, the damage is inside the log
//     and Open fails with an error naming the record, its byte offset and
//     the record that follows, changing nothing. If none does, Open keeps
//     the bytes in a new file beside the log (path + ".damaged-at-OFFSET-*",
//     synced before anything is cut), cuts them off and reports them in
//     Recovered.Damaged; the caller decides what to do with them (the store
//     reports them to its caller).
//
// Replay reads a log the same way and reports the same findings without
// changing the file. Either way the next Append starts on a clean record
// boundary.
//
// # Failures
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
//
// # Errors
//
// Errors start with "wal:" and name the file and the byte offset (and
// record number) where reading or writing failed.
package wal
