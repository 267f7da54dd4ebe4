package store_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
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
	if _, err := cache.Query(v, nil, seeds, 0.5); err != nil {
		panic(err)
	}

	res, err := mallory.Apply(store.MergeInto("alice", "bob"))
	if err != nil {
		panic(err)
	}
	v = res.Version
	p2, _ := v.ID("p2")
	trust := mask.Trust("default")
	authView, err := v.View(&trust) // PPR on a version is ppr's on its view
	if err != nil {
		panic(err)
	}
	auth, err := ppr.Solve(authView, seeds, 0.5, ppr.Options{Tol: 1e-9})
	if err != nil {
		panic(err)
	}
	native, err := cache.Query(v, nil, seeds, 0.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("rewired %d edges; p2 native %.3f (%s), authenticated %.3f\n", res.Rewired[0], native.Scores[p2], native.How, auth.Scores[p2])
	// By hand: native edges q-bob, bob-p1, bob-p2 (alice is left isolated),
	// so pi(bob) = 1/3 and pi(p2) = pi(bob)/6 = 1/18.
	// Output: rewired 2 edges; p2 native 0.056 (updated), authenticated 0.000
}

// Guarded retrieval on a memory that is written while it is read: each
// principal writes through its own writer, and every selection on the
// current version is replayed without the untrusted writer's structure.
func ExampleGuard_Select() {
	s, err := store.New(nil, nil, store.Options{})
	if err != nil {
		panic(err)
	}
	agent, _ := s.Writer("agent")
	peer, _ := s.Writer("peer")
	if _, err := agent.Apply(
		store.Edge("q", "alice", 1), store.Edge("alice", "p1", 1),
		store.Edge("q", "bob", 1), store.Edge("bob", "p2", 1), store.Edge("alice", "p2", 0.5),
	); err != nil {
		panic(err)
	}
	guard := s.NewGuard(mask.Trust("agent"), replay.Options{})
	query := func() *replay.Decision {
		v := s.Current()
		id := func(name string) uint32 { u, _ := v.ID(name); return u }
		d, err := guard.Select(v, replay.Query{
			Seeds: []ppr.Seed{{Node: id("q"), Weight: 1}}, K: 1,
			Candidates: []uint32{id("p1"), id("p2"), id("p3")}, Damping: 0.5,
		})
		if err != nil {
			panic(err)
		}
		fmt.Println("native", v.Name(d.Native[0].Node), "auth", v.Name(d.Auth[0].Node), "divergent", d.Divergent)
		return d
	}
	// p3 does not exist yet: the peer writes it and a heavy edge to it.
	if _, err := agent.Apply(store.Node("p3")); err != nil {
		panic(err)
	}
	query()
	if _, err := peer.Apply(store.Edge("q", "p3", 5)); err != nil {
		panic(err)
	}
	d := query()
	s0 := d.Suspects[0]
	v := s.Current()
	fmt.Println("suspect", v.Name(s0.Src), "-", v.Name(s0.Dst), s0.Channels)
	// Output:
	// native p2 auth p2 divergent false
	// native p3 auth p2 divergent true
	// suspect q - p3 [peer]
}

// Each principal writes through its own writer, and every edge records who
// added it, what it was inferred from (the channels it requires beyond its
// adders) and who deleted it.
func ExampleWriter() {
	s, err := store.New(nil, nil, store.Options{})
	if err != nil {
		panic(err)
	}
	agent, _ := s.Writer("agent")
	resolver, _ := s.Writer("resolver")
	res, err := agent.Apply(store.Edge("alice", "acme", 1), store.Edge("acme", "paris", 1))
	if err != nil {
		panic(err)
	}
	// The resolver infers alice -> paris from the agent's two edges.
	if _, err := resolver.Apply(store.Inferred("alice", "paris", 0.5, res.IDs...)); err != nil {
		panic(err)
	}
	res, err = agent.Apply(store.DeleteEdges("acme", "paris"))
	if err != nil {
		panic(err)
	}
	v := res.Version
	for e := range uint32(v.NumEdges()) {
		info := v.Edge(e)
		fmt.Printf("%s -> %s: added by %v, requires %v, deleted by %v\n",
			v.Name(info.Src), v.Name(info.Dst), info.AddedBy, info.Requires, info.DeletedBy)
	}
	// Output:
	// alice -> acme: added by [agent], requires [], deleted by []
	// acme -> paris: added by [agent], requires [], deleted by [agent]
	// alice -> paris: added by [resolver], requires [agent], deleted by []
}

// A batch with a position in an external log (a replicated stream's
// sequence) is applied once: a position the store holds already is
// refused, so a follower that replays its stream from an earlier point
// applies nothing twice.
func ExampleWriter_ApplyAt() {
	s, err := store.New(nil, nil, store.Options{})
	if err != nil {
		panic(err)
	}
	w, _ := s.Writer("stream")
	if _, err := w.ApplyAt(7, store.Edge("a", "b", 1)); err != nil {
		panic(err)
	}
	_, err = w.ApplyAt(7, store.Edge("a", "b", 1))
	fmt.Println("position", s.Current().Position(), "edges", s.Current().NumEdges(), "stale:", errors.Is(err, store.ErrStalePosition))
	// Output: position 7 edges 1 stale: true
}

// A durable store logs every batch before Apply returns; Open replays the
// logs and reports what it found in each.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "store-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		panic(err)
	}
	w, _ := s.Writer("agent")
	for _, op := range []store.Op{store.Edge("a", "b", 1), store.Edge("b", "c", 1)} {
		if _, err := w.Apply(op); err != nil {
			panic(err)
		}
	}
	if err := s.Close(); err != nil {
		panic(err)
	}
	_, err = w.Apply(store.Edge("c", "a", 1))
	fmt.Println("write after close:", errors.Is(err, store.ErrClosed))

	r, err := store.Open(dir, store.Options{})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	for _, l := range r.Recovery() {
		fmt.Println("replayed", l.Records, "batches; torn bytes", l.TornBytes, "damaged", l.Damaged != nil)
	}
	fmt.Println(r.Current().NumEdges(), "edges")
	// Output:
	// write after close: true
	// replayed 2 batches; torn bytes 0 damaged false
	// 2 edges
}
