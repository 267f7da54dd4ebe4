package replay_test

import (
	"fmt"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// One untrusted edge (channel mallory) makes passage p3 the one to read;
// the guard replays the selection without it, refuses p3 and names the edge.
func ExampleGuard_Select() {
	const memory = `q alice 1 default
q bob 1 default
alice p1 1 default
bob p2 1 default
alice p2 0.5 default
carol p3 1 default
bob carol 0.2 default
q p3 3 mallory
`
	g, err := csr.Read(strings.NewReader(memory), "memory", csr.ReadOptions{})
	if err != nil {
		panic(err)
	}
	guard, err := replay.New(g, mask.FromGraph(g), mask.Trust("default"), replay.Options{})
	if err != nil {
		panic(err)
	}
	id := func(name string) uint32 { v, _ := g.ID(name); return v }
	d, err := guard.Select(replay.Query{
		Seeds:      []ppr.Seed{{Node: id("q"), Weight: 1}},
		K:          1,
		Candidates: []uint32{id("p1"), id("p2"), id("p3")},
		Damping:    0.5,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("native:", g.Name(d.Native[0].Node), "auth:", g.Name(d.Auth[0].Node), "divergent:", d.Divergent)
	fmt.Println("selected:", g.Name(d.Selected[0].Node))
	s := d.Suspects[0]
	fmt.Println("suspect:", g.Name(s.Src), "-", g.Name(s.Dst), s.Channels)
	// Output:
	// native: p3 auth: p2 divergent: true
	// selected: p2
	// suspect: q - p3 [mallory]
}
