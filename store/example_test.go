package store_test

import (
	"fmt"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/store"
)

// An untrusted merge changes the native view and is undone by the
// authenticated one; a cache brings a solved vector up to date.
func Example() {
	s, err := store.New(nil, nil, store.Options{})
	if err != nil {
		panic(err)
	}
	// Each principal writes through its own writer.
	trusted, _ := s.Writer("default")
	mallory, _ := s.Writer("mallory")
	_, err = trusted.Apply(
		store.Edge("q", "alice", 1),
		store.Edge("alice", "p1", 1),
		store.Edge("bob", "p2", 1),
	)
	if err != nil {
		panic(err)
	}
	cache := &store.Cache{Tol: 1e-9}
	v := s.Current()
	q, _ := v.ID("q")
	seeds, _ := ppr.NewSeeds(v.NumNodes(), []ppr.Seed{{Node: q, Weight: 1}})
	if _, _, err := cache.Query(v, nil, seeds, 0.5); err != nil {
		panic(err)
	}

	res, err := mallory.Apply(store.MergeInto("alice", "bob"))
	if err != nil {
		panic(err)
	}
	v = res.Version
	p2, _ := v.ID("p2")
	trust := mask.Trust("default")
	auth, err := v.Solve(&trust, seeds, 0.5, 1e-9)
	if err != nil {
		panic(err)
	}
	native, how, err := cache.Query(v, nil, seeds, 0.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("rewired %d edges; p2 native %.3f (%s), authenticated %.3f\n", res.Rewired[0], native.X[p2], how, auth.X[p2])
	// By hand: native edges q-bob, bob-p1, bob-p2 (alice is left isolated),
	// so pi(bob) = 1/3 and pi(p2) = pi(bob)/6 = 1/18.
	// Output: rewired 2 edges; p2 native 0.056 (updated), authenticated 0.000
}
