package consensus_test

import (
	"fmt"

	"github.com/authppr/authppr/consensus"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/replay"
)

// Five retrieved passages, best first, with their extracted answers; a
// passage contradicts another when their answers differ. The exact
// selection keeps the consistent majority; an untrusted judge's extra
// edges are caught by the replay.
func Example() {
	answers := []string{"Paris", "Paris", "Lyon", "Paris", "Lyon"}
	judge := consensus.JudgeFunc(func(i, j int) (bool, error) { return answers[i] != answers[j], nil })
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
