package store

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/csrhook"
	"github.com/authppr/authppr/mask"
)

// csrHooks reach csr's machinery: a base graph's arrays, and naming a
// graph built by id.
var csrHooks = csrhook.Get[*csr.Graph, csr.Adjacency, csr.Weights]()

// Version is one immutable state of the store: a base snapshot and a prefix
// of the delta logs. Safe for concurrent use.
type Version struct {
	base       *base
	l          logs
	batches    uint64
	position   uint64
	journalOff uint64

	views sync.Map // policy key -> *lazyView

	namesOnce sync.Once
	nameIDs   map[string]uint32 // delta names, built on first use
}

// Batches returns the number of write batches applied up to this version
// since the store was created: recovery counts the batches it replays on
// top of the count its snapshot records (a snapshot written before
// snapshots recorded it counts as 0). It orders the versions of one store.
func (v *Version) Batches() uint64 { return v.batches }

// Position returns the position of the last batch applied with one
// (Writer.ApplyAt) up to this version, 0 when none was.
func (v *Version) Position() uint64 { return v.position }

// Directed reports whether edges are directed.
func (v *Version) Directed() bool { return v.base.directed }

// NumNodes returns the number of nodes.
func (v *Version) NumNodes() int { return v.base.nodes + len(v.l.names) }

// NumEdges returns the number of edges, deleted ones included (ids run
// from 0 to NumEdges()-1).
func (v *Version) NumEdges() int { return v.base.edges + len(v.l.src) }

// DeltaEdges returns the number of edges not yet compacted into the base.
func (v *Version) DeltaEdges() int { return len(v.l.src) }

// ID returns the id of a named node.
func (v *Version) ID(name string) (uint32, bool) {
	if v.base.g != nil {
		if id, ok := v.base.g.ID(name); ok {
			return id, true
		}
	}
	// The delta's names are indexed per version, on the first lookup that
	// needs them: a map shared with the writer would need a lock or a
	// concurrent map on every node creation (a sync.Map cost the writer
	// about a quarter of its time).
	v.namesOnce.Do(func() {
		v.nameIDs = make(map[string]uint32, len(v.l.names))
		for i, nm := range v.l.names {
			v.nameIDs[nm] = uint32(v.base.nodes + i)
		}
	})
	id, ok := v.nameIDs[name]
	return id, ok
}

// Name returns the name of node u (u < NumNodes()).
func (v *Version) Name(u uint32) string {
	if int(u) < v.base.nodes {
		return v.base.g.Name(u)
	}
	return v.l.names[int(u)-v.base.nodes]
}

// EdgeInfo describes an edge of a version.
type EdgeInfo struct {
	Src, Dst uint32
	Weight   float64
	AddedBy  []string // sorted
	// Requires lists the channels the edge depends on beyond its adders
	// (what it was derived from: mask.Labels.Require), sorted.
	Requires  []string
	DeletedBy []string // sorted
}

// Edge returns edge e (e < NumEdges()).
func (v *Version) Edge(e uint32) EdgeInfo {
	var info EdgeInfo
	if int(e) < v.base.edges {
		ed := v.base.g.Edge(e)
		info = EdgeInfo{Src: ed.Src, Dst: ed.Dst, Weight: ed.Weight,
			AddedBy: v.base.labels.ChannelsOf(e), Requires: v.base.labels.RequiresOf(e), DeletedBy: v.base.labels.DeletersOf(e)}
	} else {
		i := int(e) - v.base.edges
		info = EdgeInfo{Src: v.l.src[i], Dst: v.l.dst[i], Weight: v.l.weight[i],
			AddedBy: []string{v.l.channels[v.l.creator[i]]}}
		for _, c := range v.l.reqSets[v.l.requires[i]] {
			info.Requires = append(info.Requires, v.l.channels[c])
		}
		slices.Sort(info.Requires)
	}
	for _, d := range v.l.dels {
		if d.edge == e {
			info.DeletedBy = append(info.DeletedBy, v.l.channels[d.channel])
		}
	}
	slices.Sort(info.DeletedBy)
	info.DeletedBy = slices.Compact(info.DeletedBy)
	return info
}

// Materialize builds the version as one csr snapshot with its labels: the
// graph compaction produces and the reference that solves on a version are
// tested against. Edge and node ids are the version's.
func (v *Version) Materialize() (*csr.Graph, *mask.Labels, error) {
	n := v.NumNodes()
	if n == 0 {
		return nil, nil, fmt.Errorf("store: materialize: the version has no nodes")
	}
	var g *csr.Graph
	var err error
	if v.base.g != nil && csrHooks.HasRelations(v.base.g) {
		g, err = v.materializeByBuilder()
	} else {
		g, err = v.materializeInBulk()
	}
	if err != nil {
		return nil, nil, err
	}
	labels, err := v.labels(g)
	if err != nil {
		return nil, nil, err
	}
	return g, labels, nil
}

// materializeInBulk builds the version's graph through csr.FromIDs (every
// edge by id, in edge order, with its channel) and then names the nodes
// on the same arrays (csr's named, through csrhook): the graph materializeByBuilder
// makes (TestMaterializeInBulkMatchesBuilder), without the Builder's
// per-name and per-edge work. Graphs with relations take the Builder.
func (v *Version) materializeInBulk() (*csr.Graph, error) {
	n := v.NumNodes()
	m := v.NumEdges()
	pairs := make([]uint32, 0, 2*m)
	weights := make([]float64, 0, m)
	chanOf := make([]uint32, 0, m)
	var chanNames []string
	chanIndex := make(map[string]uint32)
	channel := func(name string) uint32 {
		c, ok := chanIndex[name]
		if !ok {
			c = uint32(len(chanNames))
			chanIndex[name] = c
			chanNames = append(chanNames, name)
		}
		return c
	}
	if bg := v.base.g; bg != nil {
		parts := csrHooks.Parts(bg)
		base := make([]uint32, len(parts.Channels)) // base channel index -> ours
		for i, name := range parts.Channels {
			base[i] = channel(name)
		}
		for e := range v.base.edges {
			pairs = append(pairs, parts.EdgeSrc[e], parts.EdgeDst[e])
			weights = append(weights, parts.EdgeWeight.At(e))
			chanOf = append(chanOf, base[parts.EdgeChannel[e]])
		}
	}
	for i := range v.l.src {
		pairs = append(pairs, v.l.src[i], v.l.dst[i])
		weights = append(weights, v.l.weight[i])
		chanOf = append(chanOf, channel(v.l.channels[v.l.creator[i]]))
	}
	byID, err := csr.FromIDs(csr.IDEdges[uint32, uint32]{Directed: v.base.directed, Nodes: n,
		Pairs: pairs, Weights: weights, ChannelOf: chanOf, ChannelNames: chanNames})
	if err != nil {
		return nil, fmt.Errorf("store: materialize: %w", err)
	}
	names := make([]string, n)
	for u := range n {
		names[u] = v.Name(uint32(u))
	}
	g, err := csrHooks.Named(byID, names)
	if err != nil {
		return nil, fmt.Errorf("store: materialize: %w", err)
	}
	return g, nil
}

// materializeByBuilder is Materialize's plain form: every node and edge
// through a csr.Builder, relations included.
func (v *Version) materializeByBuilder() (*csr.Graph, error) {
	n := v.NumNodes()
	b := csr.NewBuilder(v.base.directed)
	bg := v.base.g
	for u := range n {
		if _, err := b.AddNode(v.Name(uint32(u))); err != nil {
			return nil, fmt.Errorf("store: materialize: node %d: %w", u, err)
		}
	}
	if bg != nil {
		parts := csrHooks.Parts(bg)
		rel := parts.EdgeRelation
		for e := range v.base.edges {
			ch := parts.Channels[parts.EdgeChannel[e]]
			var err error
			if rel != nil && rel[e] != 0 {
				_, err = b.AddEdge(csr.Input{Src: parts.Names[parts.EdgeSrc[e]], Dst: parts.Names[parts.EdgeDst[e]],
					Weight: parts.EdgeWeight.At(e), Channel: ch, Relation: parts.Relations[rel[e]]})
			} else {
				_, err = b.AddEdgeByID(parts.EdgeSrc[e], parts.EdgeDst[e], parts.EdgeWeight.At(e), ch)
			}
			if err != nil {
				return nil, fmt.Errorf("store: materialize: %w", err)
			}
		}
	}
	for i := range v.l.src {
		if _, err := b.AddEdgeByID(v.l.src[i], v.l.dst[i], v.l.weight[i], v.l.channels[v.l.creator[i]]); err != nil {
			return nil, fmt.Errorf("store: materialize: %w", err)
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("store: materialize: %w", err)
	}
	return g, nil
}

// labels returns the version's labels over g (its materialised graph):
// the base labels, each delta edge added by its creator, every deletion.
func (v *Version) labels(g *csr.Graph) (*mask.Labels, error) {
	m := v.NumEdges()
	l := mask.NewLabels(m)
	// Per channel, the ids to add and to delete, in one AddMany each.
	added := make(map[string][]uint32)
	deleted := make(map[string][]uint32)
	required := make(map[string][]uint32)
	if v.base.labels != nil {
		bl := v.base.labels
		for _, c := range bl.Channels() {
			if bm := bl.Added(c); bm != nil {
				added[c] = bm.ToArray()
			}
			if bm := bl.Deleted(c); bm != nil {
				deleted[c] = bm.ToArray()
			}
			if bm := bl.Required(c); bm != nil {
				required[c] = bm.ToArray()
			}
		}
	}
	for i, c := range v.l.creator {
		name := v.l.channels[c]
		added[name] = append(added[name], uint32(v.base.edges+i))
		for _, r := range v.l.reqSets[v.l.requires[i]] {
			rn := v.l.channels[r]
			required[rn] = append(required[rn], uint32(v.base.edges+i))
		}
	}
	for _, d := range v.l.dels {
		name := v.l.channels[d.channel]
		deleted[name] = append(deleted[name], d.edge)
	}
	for c, ids := range added {
		if err := l.Add(c, ids...); err != nil {
			return nil, fmt.Errorf("store: labels: %w", err)
		}
	}
	for c, ids := range deleted {
		if err := l.Delete(c, ids...); err != nil {
			return nil, fmt.Errorf("store: labels: %w", err)
		}
	}
	for c, ids := range required {
		if err := l.Require(c, ids...); err != nil {
			return nil, fmt.Errorf("store: labels: %w", err)
		}
	}
	return l, nil
}

// policyKey names a policy (nil: native) for caches.
func policyKey(p *mask.Policy) string {
	if p == nil {
		return "native"
	}
	return "auth\x00" + strings.Join(p.Trusted(), "\x00")
}

// Channels returns every channel that wrote to the version (in its base's
// labels or its delta), sorted.
func (v *Version) Channels() []string {
	var out []string
	if v.base.labels != nil {
		out = v.base.labels.Channels()
	}
	out = append(out, v.l.channels...)
	slices.Sort(out)
	return slices.Compact(out)
}
