package ppr_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// One untrusted edge (q-passage3, channel "peer") decides which passage a
// retriever reads: natively passage3 wins, on the authenticated view
// passage1. The scores agree with igraph's PRPACK on the same graph.
func Example() {
	const memory = `q a 1 default
q b 1 default
a passage1 1 default
b passage2 1 default
b passage3 1 default
q passage3 2 peer
`
	g, err := csr.Read(strings.NewReader(memory), "memory", csr.ReadOptions{})
	if err != nil {
		panic(err)
	}
	labels := mask.FromGraph(g)
	native, _ := mask.Native(g, labels)
	auth, _ := mask.Authenticated(g, labels, mask.Trust("default"))
	q, _ := g.ID("q")
	seeds, _ := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: q, Weight: 1}})
	candidates := []uint32{}
	for _, name := range []string{"passage1", "passage2", "passage3"} {
		id, _ := g.ID(name)
		candidates = append(candidates, id)
	}
	for _, view := range []*mask.View{native, auth} {
		res, err := ppr.Solve(view, seeds, 0.5, ppr.Options{Tol: 1e-10})
		if err != nil {
			panic(err)
		}
		top := ppr.TopK(res.Scores, 1, candidates, nil)
		fmt.Printf("%s: %s %.4f\n", view.Name(), g.Name(top[0].Node), top[0].Score)
	}
	// Output:
	// native: passage3 0.1676
	// auth: passage1 0.0407
}

// A solve capped before its tolerance fails with a *NotConvergedError
// that keeps the state it reached: a valid estimate, with its own proved
// error bound.
func ExampleNotConvergedError() {
	const chain = `a b 1 default
b c 1 default
c a 1 default
`
	g, err := csr.Read(strings.NewReader(chain), "chain", csr.ReadOptions{Directed: true})
	if err != nil {
		panic(err)
	}
	a, _ := g.ID("a")
	seeds, _ := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: a, Weight: 1}})
	_, err = ppr.Solve(mask.Full(g), seeds, 0.85, ppr.Options{Tol: 1e-12, MaxSweeps: 3})
	var nc *ppr.NotConvergedError
	if errors.As(err, &nc) {
		partial := nc.Partial[0]
		fmt.Printf("after %d sweeps: error bound %.3f (asked %g)\n", nc.Sweeps, partial.ErrorBound, nc.Tol)
	}
	// Output:
	// after 3 sweeps: error bound 0.232 (asked 1e-12)
}

// A certified top-k stops as soon as the selection, and its order, are
// proved: the exact vector's top-k, usually long before the full vector
// reaches the tolerance.
func ExampleSolveTopK() {
	const memory = `q a 1 default
q b 1 default
a passage1 1 default
b passage2 1 default
b passage3 1 default
a passage3 0.5 default
`
	g, err := csr.Read(strings.NewReader(memory), "memory", csr.ReadOptions{})
	if err != nil {
		panic(err)
	}
	q, _ := g.ID("q")
	seeds, _ := ppr.NewSeeds(g.NumNodes(), []ppr.Seed{{Node: q, Weight: 1}})
	var passages []uint32
	for _, name := range []string{"passage1", "passage2", "passage3"} {
		id, _ := g.ID(name)
		passages = append(passages, id)
	}
	res, err := ppr.SolveTopK(mask.Full(g), seeds, 0.5, 2, passages, ppr.Options{Tol: 1e-10, Ordered: true})
	if err != nil {
		panic(err)
	}
	for _, s := range res.TopK {
		fmt.Printf("%s %.3f\n", g.Name(s.Node), s.Score)
	}
	fmt.Println("certified:", res.Certified, "ordered:", res.Ordered)
	// Output:
	// passage3 0.042
	// passage1 0.031
	// certified: true ordered: true
}
