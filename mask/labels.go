package mask

import (
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
)

// Labels records, per channel, which edges it added, which it deleted and
// which depend on it (see Require).
type Labels struct {
	numEdges int
	added    map[string]*roaring.Bitmap
	deleted  map[string]*roaring.Bitmap
	requires map[string]*roaring.Bitmap
}

// NewLabels returns empty labels for a snapshot with numEdges edges.
func NewLabels(numEdges int) *Labels {
	return &Labels{
		numEdges: numEdges,
		added:    make(map[string]*roaring.Bitmap),
		deleted:  make(map[string]*roaring.Bitmap),
		requires: make(map[string]*roaring.Bitmap),
	}
}

// FromGraph labels every edge as added by the channel the stream gave it.
func FromGraph(g *csr.Graph) *Labels {
	l := NewLabels(g.NumEdges())
	channels := g.Channels()
	perChannel := make([][]uint32, len(channels))
	for e, c := range csrHooks.EdgeChannels(g) {
		perChannel[c] = append(perChannel[c], uint32(e))
	}
	for c, edges := range perChannel {
		l.added[channels[c]] = roaring.BitmapOf(edges...)
	}
	return l
}

// NumEdges returns the edge count the labels were made for.
func (l *Labels) NumEdges() int { return l.numEdges }

// Add records that channel added the given edges.
func (l *Labels) Add(channel string, edges ...uint32) error {
	return l.record(l.added, "add", channel, edges)
}

// Delete records that channel deleted the given edges.
func (l *Labels) Delete(channel string, edges ...uint32) error {
	return l.record(l.deleted, "delete", channel, edges)
}

// Require records that the given edges depend on channel beyond the
// channel that added them: they were derived from structure channel wrote
// (a merge's rewired copy depends on the original edge's writer, an
// inferred edge on its sources' writers). Min-inheritance: an edge is only
// as trustworthy as the least trusted channel it depends on, so an
// authenticated view keeps it only if it trusts every channel it requires.
func (l *Labels) Require(channel string, edges ...uint32) error {
	return l.record(l.requires, "require", channel, edges)
}

func (l *Labels) record(set map[string]*roaring.Bitmap, verb, channel string, edges []uint32) error {
	if channel == "" {
		return fmt.Errorf("mask: %s: empty channel name", verb)
	}
	for _, e := range edges {
		if int64(e) >= int64(l.numEdges) {
			return fmt.Errorf("mask: %s by %q: edge %d out of range (snapshot has %d edges)", verb, channel, e, l.numEdges)
		}
	}
	if len(edges) == 0 {
		// Recording nothing must not create an empty bitmap: the channel
		// would be listed by Channels and pass Policy.Check while labelling
		// no edge, and it would vanish in a WriteTo/ReadLabels round trip.
		return nil
	}
	bm := set[channel]
	if bm == nil {
		bm = roaring.New()
		set[channel] = bm
	}
	bm.AddMany(edges)
	return nil
}

// Channels returns every channel that added, deleted or is required by
// something, sorted.
func (l *Labels) Channels() []string {
	var out []string
	for _, set := range []map[string]*roaring.Bitmap{l.added, l.deleted, l.requires} {
		for c := range set {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Added returns the edges channel added (nil if none). Must not be modified.
func (l *Labels) Added(channel string) *roaring.Bitmap { return l.added[channel] }

// Deleted returns the edges channel deleted (nil if none). Must not be modified.
func (l *Labels) Deleted(channel string) *roaring.Bitmap { return l.deleted[channel] }

// ChannelsOf returns the channels that added edge e, sorted.
func (l *Labels) ChannelsOf(e uint32) []string { return holders(l.added, e) }

// DeletersOf returns the channels that deleted edge e, sorted.
func (l *Labels) DeletersOf(e uint32) []string { return holders(l.deleted, e) }

// Required returns the edges that require channel (nil if none). Must not
// be modified.
func (l *Labels) Required(channel string) *roaring.Bitmap { return l.requires[channel] }

// RequiresOf returns the channels edge e requires beyond its adders, sorted.
func (l *Labels) RequiresOf(e uint32) []string { return holders(l.requires, e) }

// DependsOn returns every channel edge e depends on: its adders and the
// channels it requires, sorted.
func (l *Labels) DependsOn(e uint32) []string {
	out := append(l.ChannelsOf(e), l.RequiresOf(e)...)
	slices.Sort(out)
	return slices.Compact(out)
}

func holders(set map[string]*roaring.Bitmap, e uint32) []string {
	var out []string
	for c, bm := range set {
		if bm.Contains(e) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// present returns the edges added by a selected channel, requiring no
// channel that is not selected, and deleted by no selected channel.
func (l *Labels) present(selected func(string) bool) *roaring.Bitmap {
	in := roaring.New()
	for c, bm := range l.added {
		if selected(c) {
			in.Or(bm)
		}
	}
	for c, bm := range l.requires {
		if !selected(c) {
			in.AndNot(bm)
		}
	}
	for c, bm := range l.deleted {
		if selected(c) {
			in.AndNot(bm)
		}
	}
	return in
}
