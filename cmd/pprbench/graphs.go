package main

import (
	"fmt"
	"slices"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
)

// csrHooks reach csr's machinery the CLI measures with: memory accounting,
// the weight storage and the order AutoOrder picks.
var csrHooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()

// nodeOrders and weightStorages are the values of --order and --weights.
var (
	nodeOrders     = []string{string(csr.StreamOrder), string(csr.DegreeOrder), string(csr.AutoOrder)}
	weightStorages = []string{"auto", "float64"}
)

// parseOrder reads an --order value ("" is stream).
func parseOrder(s string) (csr.NodeOrder, error) {
	if s != "" && !slices.Contains(nodeOrders, s) {
		return "", fmt.Errorf("node order %q, want %s", s, orList(nodeOrders))
	}
	return csr.NodeOrder(s), nil
}

// parseWeights reads a --weights value: whether it asks for float64.
func parseWeights(s string) (float64Weights bool, err error) {
	if !slices.Contains(weightStorages, s) {
		return false, fmt.Errorf("unknown weight storage %q, want %s", s, orList(weightStorages))
	}
	return s == "float64", nil
}

// orderOf is the order g's nodes are numbered in: degree order when they
// were renumbered (g has ranks), else stream order.
func orderOf(g *csr.Graph) csr.NodeOrder {
	if g.Ranks() != nil {
		return csr.DegreeOrder
	}
	return csr.StreamOrder
}

// hotBytes is the bytes a pull sweep streams from g (its memory parts
// marked hot).
func hotBytes(g *csr.Graph) int64 {
	b := int64(0)
	for _, p := range csrHooks.MemoryParts(g) {
		if p.Hot {
			b += p.Bytes
		}
	}
	return b
}
