package mask_test

import (
	"fmt"
	"strings"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// Labels record which channel wrote (and deleted) each edge; a trust policy
// turns them into the authenticated view: the same arrays, untrusted edges
// masked, out-weights recomputed over what survives.
func ExampleAuthenticated() {
	g, err := csr.Read(strings.NewReader("q a 1 default\nq b 3 mallory\na b 1 default\n"), "g", csr.ReadOptions{Directed: true})
	if err != nil {
		panic(err)
	}
	labels := mask.FromGraph(g)
	// A trusted edge mallory deleted: the native view drops it, the
	// authenticated one (which does not trust mallory) keeps it.
	if err := labels.Delete("mallory", 2); err != nil {
		panic(err)
	}
	native, err := mask.Native(g, labels)
	if err != nil {
		panic(err)
	}
	auth, err := mask.Authenticated(g, labels, mask.Trust("default"))
	if err != nil {
		panic(err)
	}
	q, _ := g.ID("q")
	a, _ := g.ID("a")
	fmt.Println("native: W(q) =", native.OutWeight(q), "W(a) =", native.OutWeight(a))
	fmt.Println("auth:   W(q) =", auth.OutWeight(q), "W(a) =", auth.OutWeight(a))
	fmt.Println("masked in auth:", auth.Masked().ToArray())
	// Output:
	// native: W(q) = 4 W(a) = 0
	// auth:   W(q) = 1 W(a) = 1
	// masked in auth: [1]
}
