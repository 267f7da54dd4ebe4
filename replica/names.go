package replica

import (
	"fmt"
	"strings"
)

// CheckName reports whether s can be a memory or channel name: a subject
// token and part of stream and bucket names, so letters, digits, '-' and
// '_' only, 1 to 64 bytes.
func CheckName(what, s string) error {
	if s == "" || len(s) > 64 {
		return fmt.Errorf("replica: %s %q: want 1 to 64 letters, digits, '-' or '_'", what, s)
	}
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("replica: %s %q: byte %d is %q: want letters, digits, '-' or '_'", what, s, i, c)
		}
	}
	return nil
}

// streamName is the JetStream stream of a memory.
func streamName(memory string) string { return "AUTHPPR_" + memory }

// snapshotBucket is the object store holding a memory's snapshots.
func snapshotBucket(memory string) string { return "AUTHPPR_" + memory + "_snapshots" }

// Subject is the subject channel's write batches are published on.
func subjectOf(memory, channel string) string { return "authppr." + memory + ".w." + channel }

// subjects is the stream's subject filter.
func subjects(memory string) string { return "authppr." + memory + ".w.>" }

// channelOf returns the channel a message's subject names.
func channelOf(memory, subject string) (string, bool) {
	c, ok := strings.CutPrefix(subject, "authppr."+memory+".w.")
	if !ok || c == "" || strings.Contains(c, ".") {
		return "", false
	}
	return c, true
}
