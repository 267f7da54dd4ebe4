package consensus_test

import (
	"errors"
	"fmt"

	"github.com/authppr/authppr/consensus"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/replay"
	"github.com/authppr/authppr/store"
)

// Five retrieved passages, best first, with their extracted answers; a
// passage contradicts another when their answers differ. The exact
// selection keeps the consistent majority; an untrusted judge's extra
// edges are caught by the replay.
func Example() {
	answers := []string{"Paris", "Paris", "Lyon", "Paris", "Lyon"}
	var judge consensus.Judge = consensus.JudgeFunc(func(i, j int) (bool, error) { return answers[i] != answers[j], nil })
	g, err := consensus.BuildGraph(len(answers), judge)
	if err != nil {
		panic(err)
	}
	sel, err := consensus.Select(g, consensus.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("selected:", sel.Items, "exact:", sel.Exact)

	// The same edges from a trusted NLI channel, plus two from an
	// untrusted peer that cut passage 0 off from its allies.
	var edges []consensus.Contradiction
	for i := range answers {
		for j := i + 1; j < len(answers); j++ {
			if answers[i] != answers[j] {
				edges = append(edges, consensus.Contradiction{I: i, J: j, Channel: "nli"})
			}
		}
	}
	edges = append(edges, consensus.Contradiction{I: 0, J: 1, Channel: "peer"}, consensus.Contradiction{I: 0, J: 3, Channel: "peer"})
	guarded, err := consensus.NewGuarded(len(answers), edges, mask.Trust("nli").Trusts, consensus.Options{})
	if err != nil {
		panic(err)
	}
	d, err := guarded.Replay(replay.Reject)
	if err != nil {
		panic(err)
	}
	fmt.Println("native:", d.Native.Items, "auth:", d.Auth.Items, "divergent:", d.Divergent, "selected:", d.Selected.Items)
	// Output:
	// selected: [0 1 3] exact: true
	// native: [1 3] auth: [0 1 3] divergent: true selected: [0 1 3]
}

// Contradictions kept in a living store as edges between item nodes, each
// written by its channel's writer: the selection is guarded on a version
// of the store as a PPR selection is.
func ExampleFromViews() {
	st, err := store.New(nil, nil, store.Options{})
	if err != nil {
		panic(err)
	}
	judge, _ := st.Writer("nli")
	peer, _ := st.Writer("peer")
	items := []string{"p0", "p1", "p2", "p3"} // rank order, best first
	for _, op := range []store.Op{store.Edge("p0", "p2", 1), store.Edge("p1", "p2", 1), store.Edge("p3", "p2", 1)} {
		if _, err := judge.Apply(op); err != nil {
			panic(err)
		}
	}
	if _, err := peer.Apply(store.Edge("p0", "p1", 1)); err != nil { // an untrusted contradiction
		panic(err)
	}

	v := st.Current()
	ids := make([]uint32, len(items))
	for i, name := range items {
		ids[i], _ = v.ID(name)
	}
	trust := mask.Trust("nli")
	native, err := v.View(nil)
	if err != nil {
		panic(err)
	}
	auth, err := v.View(&trust)
	if err != nil {
		panic(err)
	}
	g, err := consensus.FromViews(ids, native, auth, consensus.Options{})
	if err != nil {
		panic(err)
	}
	d, err := g.Replay(replay.Reject)
	if err != nil {
		panic(err)
	}
	fmt.Println("native:", d.Native.Items, "auth:", d.Auth.Items, "divergent:", d.Divergent, "selected:", d.Selected.Items)
	// Output:
	// native: [0 3] auth: [0 1 3] divergent: true selected: [0 1 3]
}

// A node budget too small to prove the answer: Select returns the best set
// it found, not marked exact, with an error matching ErrBudget.
func ExampleErrBudget() {
	// Ten items in two camps (even and odd) that contradict each other.
	g, err := consensus.BuildGraph(10, consensus.JudgeFunc(func(i, j int) (bool, error) { return (i+j)%2 == 1, nil }))
	if err != nil {
		panic(err)
	}
	sel, err := consensus.Select(g, consensus.Options{MaxNodes: 1})
	if errors.Is(err, consensus.ErrBudget) {
		fmt.Println("best found:", sel.Items, "exact:", sel.Exact, "maximum at most:", sel.UpperBound)
	} else if err != nil {
		panic(err)
	}
	sel, err = consensus.Select(g, consensus.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("selected:", sel.Items, "exact:", sel.Exact)
	// Output:
	// best found: [0 2 4 6 8] exact: false maximum at most: 5
	// selected: [0 2 4 6 8] exact: true
}
