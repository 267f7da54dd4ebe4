package consensus

import (
	"testing"

	"github.com/authppr/authppr/internal/fuzzseed"
)

// FuzzSelect compares Select with selectBrute on graphs decoded from the
// input: the first byte gives k (mod maxBruteItems+1), the following bits,
// read pair by pair (i < j in row order), give the edges; missing bytes are
// zero. A third of the inputs also run under a small node budget, which
// must either give the exact answer or say it ran out.
func FuzzSelect(f *testing.F) {
	f.Add([]byte{5, 0b10110})
	f.Add([]byte{20, 0xff, 0x00, 0x0f, 0xf0, 0x55, 0xaa, 0x33, 0xcc, 0x01, 0x80, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22, 0x44, 0x88, 0x99})
	f.Add([]byte{0})
	f.Add([]byte{12, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	fuzzseed.Add(f) // the packed corpus, testdata/fuzz/FuzzSelect.zip
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		k := int(data[0]) % (maxBruteItems + 1)
		g, err := newGraph(k)
		if err != nil {
			t.Fatal(err)
		}
		bit := 0
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				byteIdx := 1 + bit/8
				if byteIdx < len(data) && data[byteIdx]>>(bit%8)&1 == 1 {
					if err := g.addContradiction(i, j); err != nil {
						t.Fatal(err)
					}
				}
				bit++
			}
		}
		want, err := selectBrute(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Select(g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Exact || !equalInts(got.Items, want) || got.UpperBound != len(want) {
			t.Fatalf("k=%d: Select %v (exact %v, bound %d), brute force %v", k, got.Items, got.Exact, got.UpperBound, want)
		}
		if data[0]%3 == 0 {
			small, err := Select(g, Options{MaxNodes: 3})
			switch {
			case err == nil && !equalInts(small.Items, want):
				t.Fatalf("k=%d: budget 3 gave %v without an error, want %v", k, small.Items, want)
			case err != nil && (small.Exact || !g.independent(small.Items) || small.UpperBound < len(want)):
				t.Fatalf("k=%d: budget 3: %v with exact=%v, independent=%v, bound %d < %d", k, small.Items, small.Exact, g.independent(small.Items), small.UpperBound, len(want))
			}
		}
	})
}
