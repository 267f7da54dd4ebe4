package mask

import (
	"fmt"
	"slices"
	"strings"
)

// Policy is a trust policy: the set of authenticated channels.
type Policy struct {
	trusted map[string]bool
}

// Trust returns the policy that trusts exactly the given channels.
func Trust(channels ...string) Policy {
	p := Policy{trusted: make(map[string]bool, len(channels))}
	for _, c := range channels {
		p.trusted[c] = true
	}
	return p
}

// Trusts reports whether channel is authenticated.
func (p Policy) Trusts(channel string) bool { return p.trusted[channel] }

// Trusted returns the trusted channels, sorted.
func (p Policy) Trusted() []string {
	out := make([]string, 0, len(p.trusted))
	for c := range p.trusted {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Check returns an error naming every trusted channel that labels nothing in
// l: a typo in a policy would otherwise silently mask every edge.
func (p Policy) Check(l *Labels) error {
	known := make(map[string]bool)
	for _, c := range l.Channels() {
		known[c] = true
	}
	var unknown []string
	for _, c := range p.Trusted() {
		if !known[c] {
			unknown = append(unknown, c)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("mask: trusted channel(s) %s label no edge; channels present: %s",
			strings.Join(unknown, ", "), strings.Join(l.Channels(), ", "))
	}
	return nil
}
