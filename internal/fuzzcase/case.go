package fuzzcase

import (
	"fmt"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
)

// Channels used by decoded cases; a trust policy is a subset of them.
var Channels = []string{"trusted", "peer", "bot", "merge"}

// Case is one decoded problem.
type Case struct {
	Graph   *csr.Graph
	Labels  *mask.Labels
	Policy  mask.Policy
	Seeds   ppr.Seeds
	Damping float64
	K       int
}

// byteReader hands out bytes and zeros once the input is exhausted.
type byteReader struct {
	data []byte
	off  int
}

func (r *byteReader) next() byte {
	if r.off >= len(r.data) {
		return 0
	}
	b := r.data[r.off]
	r.off++
	return b
}

func (r *byteReader) more() bool { return r.off < len(r.data) }

// maxEdges keeps every case small, so each execution is fast; bytes past
// the last edge are ignored.
const maxEdges = 256

var dampings = []float64{0.85, 0.5, 0, 0.99, 0.3, 0.7, 0.9, 0.15}
var weights = []float64{1, 1, 2, 0.5, 0, 3.25, 1e-3, 7}

// Decode turns any byte string into a case:
//
//	byte 0: nodes-1 (mod 32); byte 1: bit 0 undirected, bits 1-3 damping,
//	        bits 4-7 trusted-channel set; byte 2: k; byte 3: seed count;
//	then per seed: node, weight byte; then per edge 4 bytes: src, dst,
//	weight code (low 3 bits) and channel (bits 3-4), and deletion
//	(bits 5-7: nonzero means channel (bits-1)%4 deleted this edge).
func Decode(data []byte) (*Case, error) {
	r := &byteReader{data: data}
	n := 1 + int(r.next()%32)
	flags := r.next()
	directed := flags&1 == 0
	damping := dampings[(flags>>1)&7]
	trustBits := flags >> 4
	k := 1 + int(r.next()%8)
	var trusted []string
	for i, c := range Channels {
		if trustBits&(1<<i) != 0 {
			trusted = append(trusted, c)
		}
	}
	var raw []ppr.Seed
	for range 1 + int(r.next()%4) {
		raw = append(raw, ppr.Seed{Node: uint32(int(r.next()) % n), Weight: float64(1 + r.next()%4)})
	}
	b := csr.NewBuilder(directed)
	for u := range n {
		if _, err := b.AddNode(fmt.Sprint("v", u)); err != nil {
			return nil, err
		}
	}
	type deletion struct {
		edge    uint32
		channel string
	}
	var deletions []deletion
	for edges := 0; r.more() && edges < maxEdges; edges++ {
		src, dst, code := int(r.next())%n, int(r.next())%n, r.next()
		e, err := b.AddEdge(csr.Input{
			Src:     fmt.Sprint("v", src),
			Dst:     fmt.Sprint("v", dst),
			Weight:  weights[code&7],
			Channel: Channels[(code>>3)&3],
		})
		if err != nil {
			return nil, err
		}
		if del := code >> 5; del != 0 {
			deletions = append(deletions, deletion{e, Channels[(del-1)%4]})
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, err
	}
	labels := mask.FromGraph(g)
	for _, d := range deletions {
		if err := labels.Delete(d.channel, d.edge); err != nil {
			return nil, err
		}
	}
	seeds, err := ppr.NewSeeds(n, raw)
	if err != nil {
		return nil, err
	}
	return &Case{Graph: g, Labels: labels, Policy: mask.Trust(trusted...), Seeds: seeds, Damping: damping, K: k}, nil
}

// CopySubgraph builds, from scratch, the graph holding only the edges the
// view keeps: same nodes in the same order, surviving edges in edge-id order.
// It is the plain model every masked kernel is compared against.
func CopySubgraph(v *mask.View) (*csr.Graph, error) {
	g := v.Graph()
	b := csr.NewBuilder(g.Directed())
	for u := range g.NumNodes() {
		if _, err := b.AddNode(g.Name(uint32(u))); err != nil {
			return nil, err
		}
	}
	for e := range g.NumEdges() {
		if v.MaskedEdge(uint32(e)) {
			continue
		}
		edge := g.Edge(uint32(e))
		if _, err := b.AddEdge(csr.Input{
			Src: g.Name(edge.Src), Dst: g.Name(edge.Dst),
			Weight: edge.Weight, Channel: edge.Channel, Relation: edge.Relation,
		}); err != nil {
			return nil, err
		}
	}
	return b.Build()
}
