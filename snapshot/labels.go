package snapshot

import (
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/mask"
)

// checkLabels reports whether labels agree with the edge-channel section:
// every edge e is added by exactly one channel, the one it records,
// channels[edgeChannel[e]] (deletions are free: any channel may delete any
// edge). That is what every writer of snapshots makes: mask.FromGraph, and
// a store's compaction, which adds each new edge by the channel that wrote
// it, the channel its edge-channel entry names. The error names the first
// edge, in id order, that disagrees, the channels adding it and the one it
// records. edgeChannel[e] < len(channels) for every e (csr checks it).
func checkLabels(edgeChannel []uint32, channels []string, labels *mask.Labels) error {
	if labelsAgree(edgeChannel, channels, labels) {
		return nil
	}
	return labelsDisagree(edgeChannel, channels, labels)
}

// labelsAgree decides checkLabels. Each channel's added edges must record
// that channel, so no edge is added twice (it records one channel) and the
// bitmaps are disjoint; their sizes then sum to the edge count exactly when
// they cover every edge. With one channel every edge records it, so only
// the sizes are counted.
func labelsAgree(edgeChannel []uint32, channels []string, labels *mask.Labels) bool {
	index := make(map[string]uint32, len(channels))
	for k, c := range channels {
		index[c] = uint32(k)
	}
	var buf []uint32
	total := uint64(0)
	for _, c := range labels.Channels() {
		added := labels.Added(c)
		if added == nil || added.IsEmpty() {
			continue // a channel that only deletes
		}
		k, ok := index[c]
		if !ok {
			return false
		}
		total += added.GetCardinality()
		if len(channels) == 1 {
			continue
		}
		if buf == nil {
			buf = make([]uint32, 4096)
		}
		it := added.ManyIterator()
		for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
			for _, e := range buf[:n] {
				if edgeChannel[e] != k {
					return false
				}
			}
		}
	}
	return total == uint64(len(edgeChannel))
}

// labelsDisagree names the first edge labelsAgree found fault with: the
// least edge that a channel adds without recording it, or that no channel
// adds.
func labelsDisagree(edgeChannel []uint32, channels []string, labels *mask.Labels) error {
	m := uint64(len(edgeChannel))
	first := m
	covered := roaring.New()
	for _, c := range labels.Channels() {
		added := labels.Added(c)
		if added == nil {
			continue
		}
		covered.Or(added)
		for it := added.Iterator(); it.HasNext(); {
			e := it.Next()
			if uint64(e) >= first {
				break
			}
			if channels[edgeChannel[e]] != c {
				first = uint64(e)
				break
			}
		}
	}
	if missing := roaring.Flip(covered, 0, m); !missing.IsEmpty() {
		first = min(first, uint64(missing.Minimum()))
	}
	if first == m {
		return fmt.Errorf("labels and the edge-channel section disagree, but no edge was found at fault (a bug)")
	}
	e := uint32(first)
	recorded := channels[edgeChannel[e]]
	adders := labels.ChannelsOf(e)
	if len(adders) == 0 {
		return fmt.Errorf("edge %d is added by no channel; the edge-channel section records %q", e, recorded)
	}
	return fmt.Errorf("edge %d is added by %s; the edge-channel section records %q (an edge is added by exactly the channel it records)",
		e, quoteAll(adders), recorded)
}

// quoteAll lists channel names, quoted.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, c := range names {
		q[i] = fmt.Sprintf("%q", c)
	}
	return strings.Join(q, " and ")
}
