package store

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
)

// maxIDs bounds node and edge ids (csr's uint32 ids).
const maxIDs = math.MaxUint32

// base is an immutable snapshot with its labels. g is nil for an empty base.
type base struct {
	g        *csr.Graph
	labels   *mask.Labels
	directed bool
	nodes    int
	edges    int
	views    sync.Map // policy key -> *lazyBaseView
	recent   sync.Map // policy key -> *builtView: the view of the newest version built
}

// recentView returns the newest version whose view for the policy (key)
// was built, with that view, when v's delta extends its (same base, at
// least its writes); else nil.
func (b *base) recentView(key string, v *Version) (*Version, *mask.View) {
	r, ok := b.recent.Load(key)
	if !ok {
		return nil, nil
	}
	bv := r.(*builtView)
	from := bv.v
	if from.batches > v.batches || len(from.l.src) > len(v.l.src) || len(from.l.dels) > len(v.l.dels) || len(from.l.names) > len(v.l.names) {
		return nil, nil
	}
	return from, bv.view
}

// remember keeps v's view for the policy (key) when v is the newest
// version whose view was built.
func (b *base) remember(key string, v *Version, view *mask.View) {
	next := &builtView{v: v, view: view}
	for {
		r, ok := b.recent.Load(key)
		if !ok {
			if _, loaded := b.recent.LoadOrStore(key, next); !loaded {
				return
			}
			continue
		}
		if r.(*builtView).v.batches >= v.batches || b.recent.CompareAndSwap(key, r, next) {
			return
		}
	}
}

type lazyBaseView struct {
	once sync.Once
	v    *mask.View
	err  error
}

// view returns the base's view for a policy (nil policy: native), built once.
func (b *base) view(p *mask.Policy) (*mask.View, error) {
	if b.g == nil {
		return mask.Full(emptyGraph(b.directed)), nil
	}
	lv, _ := b.views.LoadOrStore(policyKey(p), &lazyBaseView{})
	l := lv.(*lazyBaseView)
	l.once.Do(func() {
		if p == nil {
			l.v, l.err = mask.Native(b.g, b.labels)
		} else {
			l.v, l.err = mask.Authenticated(b.g, b.labels, *p)
		}
	})
	return l.v, l.err
}

func newBase(g *csr.Graph, labels *mask.Labels, directed bool) (*base, error) {
	b := &base{g: g, labels: labels, directed: directed}
	if g == nil {
		return b, nil
	}
	if labels == nil {
		labels = mask.FromGraph(g)
		b.labels = labels
	}
	if labels.NumEdges() != g.NumEdges() {
		return nil, fmt.Errorf("store: labels cover %d edges, snapshot has %d", labels.NumEdges(), g.NumEdges())
	}
	b.directed, b.nodes, b.edges = g.Directed(), g.NumNodes(), g.NumEdges()
	return b, nil
}

// deletion is one deleteEdgeOp label (also written by merges).
type deletion struct {
	edge    uint32
	channel uint32 // index into the store's channel list
}

// logs are the append-only delta logs of one base generation. The writer
// appends; a Version copies the slice headers, so it reads a fixed prefix
// while later appends write past it (or into a new array).
type logs struct {
	names   []string // new nodes; node id = base.nodes + index
	src     []uint32 // new edges; edge id = base.edges + index
	dst     []uint32
	weight  []float64
	creator []uint32 // channel index
	// requires[i] indexes reqSets: the channels delta edge i depends on
	// beyond its creator (min-inheritance; 0: none). reqSets[0] is empty.
	requires []uint32
	reqSets  [][]uint32
	dels     []deletion

	channels []string // every channel the store has seen (global)
	journal  []uint32 // nodes whose out-row a write changed (global, append-only)
}

// Store is a living graph: one writer at a time, any number of readers.
type Store struct {
	mu  sync.Mutex // serialises writers and compaction's swap
	cur atomic.Pointer[Version]

	// Writer state, under mu.
	base       *base
	l          logs
	names      map[string]uint32 // delta node names -> ids
	channelIDs map[string]uint32
	reqIDs     map[string]uint32 // requirement sets -> index in l.reqSets
	deleted    *roaring.Bitmap   // every edge deleted by some channel (merges rewire only live edges)
	batches    uint64
	position   uint64 // of the last batch applied with one (ApplyAt)
	journalOff uint64 // journal entries dropped before l.journal[0]

	ids        []uint32 // validate's node ids of each write's Src and Dst
	durable    *disk    // nil for an in-memory store
	recovery   []LogRecovery
	closed     bool
	compactAt  int
	nice       atomic.Int32
	bgErr      atomic.Pointer[error]
	compacting atomic.Bool

	// The guards made on the store (weakly: a guard nobody holds is
	// dropped), whose views of a new base compaction builds off the
	// readers' path (Guard.prepareBase).
	guardsMu sync.Mutex
	guards   []weak.Pointer[Guard]
}

// Options configure a new store.
type Options struct {
	// Directed is the direction of an empty store's edges (a base graph's
	// own direction wins).
	Directed bool
	// CompactAt, when positive, starts a background compaction after any
	// Apply that leaves at least this many edges in the delta (and none is
	// running). Its error, if any, is kept for CompactionErr.
	CompactAt int
	// CompactNice, when positive, runs compaction's build on an OS thread
	// of that nice value (1..19; Linux only, elsewhere ignored), so that on
	// a busy machine queries get the CPU first.
	CompactNice int
}

// New returns an in-memory store over g (nil: empty) and its labels (nil:
// mask.FromGraph(g)). The store takes g and labels over: they must not be
// modified afterwards.
func New(g *csr.Graph, labels *mask.Labels, opt Options) (*Store, error) {
	b, err := newBase(g, labels, opt.Directed)
	if err != nil {
		return nil, err
	}
	s := &Store{compactAt: opt.CompactAt}
	s.nice.Store(int32(opt.CompactNice))
	s.reset(b)
	s.publish()
	return s, nil
}

// SetCompactNice changes Options.CompactNice for later compactions.
func (s *Store) SetCompactNice(nice int) { s.nice.Store(int32(nice)) }

// CompactionErr returns the error of the last failed background compaction
// started by Options.CompactAt, or nil.
func (s *Store) CompactionErr() error {
	if p := s.bgErr.Load(); p != nil {
		return *p
	}
	return nil
}

// reset makes b the base with an empty delta.
func (s *Store) reset(b *base) {
	s.base = b
	s.l = logs{reqSets: [][]uint32{nil}}
	s.names = make(map[string]uint32)
	s.channelIDs = make(map[string]uint32)
	s.reqIDs = make(map[string]uint32)
	s.deleted = roaring.New()
	if b.labels != nil {
		for _, c := range b.labels.Channels() {
			if bm := b.labels.Deleted(c); bm != nil {
				s.deleted.Or(bm)
			}
		}
	}
}

// publish makes the writer state the current version.
func (s *Store) publish() *Version {
	v := &Version{
		base: s.base, l: s.l, batches: s.batches,
		position: s.position, journalOff: s.journalOff,
	}
	s.cur.Store(v)
	return v
}

// Current returns the newest version. It never blocks.
func (s *Store) Current() *Version { return s.cur.Load() }

// channel interns a channel name.
func (s *Store) channel(name string) uint32 {
	if id, ok := s.channelIDs[name]; ok {
		return id
	}
	id := uint32(len(s.l.channels))
	s.channelIDs[name] = id
	s.l.channels = append(s.l.channels, name)
	return id
}

// lookup returns the id of a named node in the writer's state.
func (s *Store) lookup(name string) (uint32, bool) {
	if s.base.g != nil {
		if id, ok := s.base.g.ID(name); ok {
			return id, true
		}
	}
	id, ok := s.names[name]
	return id, ok
}

func (s *Store) numNodes() int { return s.base.nodes + len(s.l.names) }
func (s *Store) numEdges() int { return s.base.edges + len(s.l.src) }

// node returns id, the id validate found for name, creating the node
// when id is the next one.
func (s *Store) node(name string, id uint32) uint32 {
	if int(id) < s.numNodes() {
		return id
	}
	s.names[name] = id
	s.l.names = append(s.l.names, name)
	return id
}

// Result is what Apply did.
type Result struct {
	Version *Version
	// IDs has one entry per write: the node's id (addNode), the new
	// edge's id (addEdgeOp), the deleted edge (deleteEdgeOp), or for a mergeOp
	// the id of the first rewired edge (the merge's new edges are the
	// Rewired[i] ids from it, in order); for a deleteBetween the first
	// edge it deleted (Rewired[i] counts them).
	IDs     []uint32
	Rewired []int
}

// ErrClosed is returned by writes to a closed durable store.
var ErrClosed = errors.New("store: closed")

// ErrStalePosition is returned by Writer.ApplyAt for a position the store
// already holds (not above the current version's Position).
var ErrStalePosition = errors.New("store: stale position")

// applyBatch applies a batch of writes, each carrying its channel (set by a
// Writer): all of them, then one new version is published; or, when any
// write is invalid, none (the error names it). A durable store makes the
// batch durable (one wal record, fsynced) before it publishes it; when the
// log cannot, the error is returned and nothing published (see the package
// doc's Durability section for ErrLogFailed).
func (s *Store) applyBatch(ops []Op) (Result, error) { return s.applyAt(0, ops) }

// applyAt is applyBatch recording the batch's position pos (0: none; else
// above the store's, or ErrStalePosition) in the same wal record.
func (s *Store) applyAt(pos uint64, ops []Op) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Result{}, ErrClosed
	}
	if pos != 0 && pos <= s.position {
		return Result{}, fmt.Errorf("%w: %d, the store holds position %d", ErrStalePosition, pos, s.position)
	}
	if err := s.validate(ops); err != nil {
		return Result{}, err
	}
	if s.durable != nil {
		if err := s.durable.append(pos, ops); err != nil {
			return Result{}, err
		}
	}
	res := s.apply(ops)
	if pos != 0 {
		s.position = pos
	}
	res.Version = s.publish()
	if s.compactAt > 0 && len(s.l.src) >= s.compactAt && !s.compacting.Load() {
		go func() {
			if err := s.Compact(); err != nil && err != ErrCompacting {
				s.bgErr.Store(&err)
			}
		}()
	}
	return res, nil
}

// validate checks a batch against the writer state without changing it:
// after it succeeds apply cannot fail. Weights are csr's (0 or within
// [csr.MinWeight, csr.MaxWeight]): the store's edges are bounded as a
// graph's are, so every row of every version and view, merges included
// (they copy weights onto new edges), keeps a finite out-weight with a
// finite reciprocal, and so does the graph compaction or Materialize
// builds, without a per-row sum kept here.
// It records in s.ids the node ids of every write's Src and Dst, as apply
// will find or create them (new names are numbered in write order).
func (s *Store) validate(ops []Op) error {
	s.ids = slices.Grow(s.ids[:0], 2*len(ops))[:2*len(ops)]
	bc := batchCheck{s: s, nodes: s.numNodes(), edges: s.numEdges()}
	for i, op := range ops {
		if op.channel == "" {
			return fmt.Errorf("store: write %d: no channel (writes go through a Writer)", i)
		}
		var err error
		switch op.kind {
		case addNode:
			err = bc.create(i, 0, op.src)
		case addEdgeOp, addInferred:
			err = bc.addByName(i, op)
		case addEdgeByID:
			err = bc.addByID(i, op)
		case deleteEdgeOp:
			if int64(op.edge) >= int64(bc.edges) {
				err = fmt.Errorf("store: write %d: delete edge %d: no such edge (%d edges)", i, op.edge, bc.edges)
			}
		case mergeOp:
			err = bc.merge(i, op)
		case deleteBetween:
			err = bc.known2(i, op, "delete %q -> %q")
		default:
			err = fmt.Errorf("store: write %d: unknown kind %d", i, op.kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// batchCheck is validate's state: the node and edge counts the batch has
// reached, the names it creates, the edges it adds.
type batchCheck struct {
	s            *Store
	nodes, edges int
	pending      map[string]uint32 // names the batch creates -> ids
	batchEdges   int
}

// known returns the id of a name in the store or created earlier in the
// batch.
func (bc *batchCheck) known(name string) (uint32, bool) {
	if id, ok := bc.s.lookup(name); ok {
		return id, true
	}
	id, ok := bc.pending[name]
	return id, ok
}

// create records in s.ids the id write i's name in slot takes: its own,
// or the next one when it is new.
func (bc *batchCheck) create(i, slot int, name string) error {
	if name == "" {
		return fmt.Errorf("store: write %d: empty node name", i)
	}
	id, ok := bc.known(name)
	if !ok {
		if bc.nodes >= maxIDs {
			return fmt.Errorf("store: write %d: more than %d nodes", i, maxIDs)
		}
		if bc.pending == nil {
			bc.pending = make(map[string]uint32)
		}
		id = uint32(bc.nodes)
		bc.pending[name] = id
		bc.nodes++
	}
	bc.s.ids[2*i+slot] = id
	return nil
}

// known2 records the ids of write i's two names, which must exist;
// format names the write (with the two names) for the error.
func (bc *batchCheck) known2(i int, op Op, format string) error {
	for slot, name := range []string{op.src, op.dst} {
		id, ok := bc.known(name)
		if !ok {
			return fmt.Errorf("store: write %d: "+format+": unknown node %q", i, op.src, op.dst, name)
		}
		bc.s.ids[2*i+slot] = id
	}
	return nil
}

// newEdge counts one more edge.
func (bc *batchCheck) newEdge(i int) error {
	if bc.edges >= maxIDs {
		return fmt.Errorf("store: write %d: more than %d edges", i, maxIDs)
	}
	bc.edges++
	bc.batchEdges++
	return nil
}

// addByName checks an edge (plain or inferred) between named nodes.
func (bc *batchCheck) addByName(i int, op Op) error {
	if op.kind == addInferred {
		if err := bc.s.validateInferred(i, op, bc.edges); err != nil {
			return err
		}
	} else if err := csr.CheckWeight(op.weight); err != nil {
		return fmt.Errorf("store: write %d: edge %s -> %s: %w", i, op.src, op.dst, err)
	}
	if err := bc.create(i, 0, op.src); err != nil {
		return err
	}
	if err := bc.create(i, 1, op.dst); err != nil {
		return err
	}
	return bc.newEdge(i)
}

// addByID checks an edge between nodes given by id.
func (bc *batchCheck) addByID(i int, op Op) error {
	if err := csr.CheckWeight(op.weight); err != nil {
		return fmt.Errorf("store: write %d: edge %d -> %d: %w", i, op.srcID, op.dstID, err)
	}
	if int64(op.srcID) >= int64(bc.nodes) || int64(op.dstID) >= int64(bc.nodes) {
		return fmt.Errorf("store: write %d: edge %d -> %d: no such node (%d nodes)", i, op.srcID, op.dstID, bc.nodes)
	}
	return bc.newEdge(i)
}

// merge checks a merge and counts the edges it can create: the merged
// node's live edges now (its base degree, both directions) plus every edge
// the delta and the batch add before it.
func (bc *batchCheck) merge(i int, op Op) error {
	s := bc.s
	if op.src == "" || op.dst == "" {
		return fmt.Errorf("store: write %d: merge: empty node name", i)
	}
	if op.src == op.dst {
		return fmt.Errorf("store: write %d: merge %q into itself", i, op.src)
	}
	if err := bc.known2(i, op, "merge %q into %q"); err != nil {
		return err
	}
	bound := len(s.l.src) + bc.batchEdges
	if s.base.g != nil {
		if id, ok := s.base.g.ID(op.src); ok {
			bound += s.base.g.Out().Offsets[id+1] - s.base.g.Out().Offsets[id]
			bound += s.base.g.In().Offsets[id+1] - s.base.g.In().Offsets[id]
		}
	}
	if int64(bc.edges)+int64(bound) > maxIDs {
		return fmt.Errorf("store: write %d: merge could exceed %d edges", i, maxIDs)
	}
	bc.edges += bound
	return nil
}

// apply applies a validated batch.
func (s *Store) apply(ops []Op) Result {
	res := Result{IDs: make([]uint32, len(ops))}
	for i, op := range ops {
		c := s.channel(op.channel)
		switch op.kind {
		case addNode:
			res.IDs[i] = s.node(op.src, s.ids[2*i])
		case addEdgeOp:
			src := s.node(op.src, s.ids[2*i])
			res.IDs[i] = s.addEdge(src, s.node(op.dst, s.ids[2*i+1]), op.weight, c, nil)
		case addEdgeByID:
			res.IDs[i] = s.addEdge(op.srcID, op.dstID, op.weight, c, nil)
		case addInferred:
			var req []uint32
			for _, e := range op.from {
				req = append(req, s.dependsOn(e)...)
			}
			src := s.node(op.src, s.ids[2*i])
			res.IDs[i] = s.addEdge(src, s.node(op.dst, s.ids[2*i+1]), op.weight, c, req)
		case deleteEdgeOp:
			s.deleteEdge(op.edge, c)
			res.IDs[i] = op.edge
		case mergeOp:
			first, n := s.merge(s.ids[2*i], s.ids[2*i+1], c)
			res.IDs[i] = first
			if res.Rewired == nil {
				res.Rewired = make([]int, len(ops))
			}
			res.Rewired[i] = n
		case deleteBetween:
			between := s.liveBetween(s.ids[2*i], s.ids[2*i+1])
			for _, e := range between {
				s.deleteEdge(e, c)
			}
			if res.Rewired == nil {
				res.Rewired = make([]int, len(ops))
			}
			res.Rewired[i] = len(between)
			if len(between) > 0 {
				res.IDs[i] = between[0]
			}
		}
	}
	s.batches++
	return res
}

func (s *Store) touch(u, v uint32) {
	s.l.journal = append(s.l.journal, u)
	if !s.base.directed && v != u {
		s.l.journal = append(s.l.journal, v)
	}
}

func (s *Store) addEdge(u, v uint32, w float64, c uint32, requires []uint32) uint32 {
	id := uint32(s.numEdges())
	s.l.src = append(s.l.src, u)
	s.l.dst = append(s.l.dst, v)
	s.l.weight = append(s.l.weight, w+0) // +0 turns -0 into 0, as csr does
	s.l.creator = append(s.l.creator, c)
	s.l.requires = append(s.l.requires, s.requirement(requires, c))
	s.touch(u, v)
	return id
}

// requirement interns a set of channels an edge created by c depends on
// (c itself left out) and returns its index in reqSets (0: none).
func (s *Store) requirement(channels []uint32, c uint32) uint32 {
	set := slices.DeleteFunc(slices.Clone(channels), func(x uint32) bool { return x == c })
	if len(set) == 0 {
		return 0
	}
	slices.Sort(set)
	set = slices.Compact(set)
	key := fmt.Sprint(set)
	if id, ok := s.reqIDs[key]; ok {
		return id
	}
	id := uint32(len(s.l.reqSets))
	s.l.reqSets = append(s.l.reqSets, set)
	s.reqIDs[key] = id
	return id
}

// dependsOn returns the channels edge e depends on in the writer state:
// the channels that added it and those it requires.
func (s *Store) dependsOn(e uint32) []uint32 {
	if int(e) < s.base.edges {
		var out []uint32
		for _, name := range s.base.labels.DependsOn(e) {
			out = append(out, s.channel(name))
		}
		return out
	}
	i := int(e) - s.base.edges
	return append([]uint32{s.l.creator[i]}, s.l.reqSets[s.l.requires[i]]...)
}

// endpoints returns edge e's endpoints in the writer state.
func (s *Store) endpoints(e uint32) (uint32, uint32, float64) {
	if int(e) < s.base.edges {
		ed := s.base.g.Edge(e)
		return ed.Src, ed.Dst, ed.Weight
	}
	i := int(e) - s.base.edges
	return s.l.src[i], s.l.dst[i], s.l.weight[i]
}

func (s *Store) deleteEdge(e uint32, c uint32) {
	s.l.dels = append(s.l.dels, deletion{edge: e, channel: c})
	s.deleted.Add(e)
	u, v, _ := s.endpoints(e)
	s.touch(u, v)
}

// merge rewires every native-live edge incident to from onto into, for
// channel c, and returns the first new edge id and the count. Cost: from's
// base degree plus the delta's edges (merges are rare; the delta keeps no
// per-node index so that adding an edge stays cheap).
func (s *Store) merge(from, into, c uint32) (uint32, int) {
	var incident []uint32
	if s.base.g != nil && int(from) < s.base.nodes {
		for _, a := range []csr.Adjacency{s.base.g.Out(), s.base.g.In()} {
			lo, hi := a.Span(from)
			incident = append(incident, a.Edge[lo:hi]...)
			if !s.base.directed {
				break // In is Out
			}
		}
		// Adjacencies list edges by neighbour: by id, the copies come out
		// in the order they would have while the edges were in the delta,
		// so a merge does the same whether or not a compaction ran.
		slices.Sort(incident)
	}
	for i := range s.l.src {
		if s.l.src[i] == from || s.l.dst[i] == from {
			incident = append(incident, uint32(s.base.edges+i))
		}
	}
	seen := make(map[uint32]bool, len(incident))
	first := uint32(s.numEdges())
	n := 0
	for _, e := range incident { // base ids ascending, then delta ids ascending; dedupe keeps the first
		if seen[e] || s.deleted.Contains(e) {
			continue
		}
		seen[e] = true
		u, v, w := s.endpoints(e)
		if u == from {
			u = into
		}
		if v == from {
			v = into
		}
		// The copy depends on everything the original did
		// (min-inheritance): a trusted merge of an untrusted edge yields
		// an untrusted edge.
		req := s.dependsOn(e)
		s.deleteEdge(e, c)
		s.addEdge(u, v, w, c, req)
		n++
	}
	return first, n
}

// validateInferred checks an addInferred write's weight and sources: at
// least one, each an edge that exists when the write applies (edges counts
// them, earlier writes of the batch included).
func (s *Store) validateInferred(i int, op Op, edges int) error {
	if w := op.weight; math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
		return fmt.Errorf("store: write %d: inferred edge %s -> %s: weight %v, want finite and non-negative", i, op.src, op.dst, w)
	}
	if len(op.from) == 0 {
		return fmt.Errorf("store: write %d: inferred edge %s -> %s: no source edges (a plain edge is addEdgeOp)", i, op.src, op.dst)
	}
	for _, e := range op.from {
		if int64(e) >= int64(edges) {
			return fmt.Errorf("store: write %d: inferred edge %s -> %s: source edge %d: no such edge (%d edges)", i, op.src, op.dst, e, edges)
		}
	}
	return nil
}

// liveBetween returns the edges from u to v live in the native view (also
// from v to u on an undirected store), ascending. Cost: u's base degree
// plus the delta's edges.
func (s *Store) liveBetween(u, v uint32) []uint32 {
	var out []uint32
	if s.base.g != nil && int(u) < s.base.nodes {
		a := s.base.g.Out()
		lo, hi := a.Span(u)
		for p := lo; p < hi; p++ {
			if a.Nbr[p] == v && (len(out) == 0 || out[len(out)-1] != a.Edge[p]) {
				out = append(out, a.Edge[p]) // an undirected self-loop's two arcs are consecutive
			}
		}
	}
	for i := range s.l.src {
		a, b := s.l.src[i], s.l.dst[i]
		if a == u && b == v || !s.base.directed && a == v && b == u {
			out = append(out, uint32(s.base.edges+i))
		}
	}
	return slices.DeleteFunc(out, func(e uint32) bool { return s.deleted.Contains(e) })
}

// Writer applies writes as one channel: the principal that holds it. Its
// writes carry no channel of their own, so code given one principal's
// writer cannot write as another; hand each principal (an agent, a
// replicated stream's subject, an ingest job) its own.
type Writer struct {
	s       *Store
	channel string
}

// ErrNoChannel is returned for a writer of the empty channel.
var ErrNoChannel = errors.New("store: a writer needs a channel name")

// Writer returns the writer for channel (not empty).
func (s *Store) Writer(channel string) (*Writer, error) {
	if channel == "" {
		return nil, ErrNoChannel
	}
	return &Writer{s: s, channel: channel}, nil
}

// Apply applies a batch of writes as the writer's channel: all of them,
// then one new version; or, when any write is invalid, none (the error
// names it). A durable store makes the batch durable (one wal record,
// fsynced) before it returns; when the log cannot, the error is returned
// and nothing published (see the package doc's Durability section for
// ErrLogFailed).
func (w *Writer) Apply(ops ...Op) (Result, error) { return w.ApplyAt(0, ops...) }

// ApplyAt is Apply for a batch that has a position in an external log (a
// replicated stream's sequence): pos must be above the current version's
// Position, else ErrStalePosition and nothing is applied. The position is
// written in the batch's own wal record and kept by compaction's
// snapshots, so after a crash the reopened store holds the batch and its
// position, or neither: a follower that resumes after the current
// version's Position applies no batch twice and skips none. A refused batch (invalid, or ErrStalePosition) leaves the
// position as it was. Pos 0 is Apply.
func (w *Writer) ApplyAt(pos uint64, ops ...Op) (Result, error) {
	batch := make([]Op, len(ops))
	for i, op := range ops {
		op.channel = w.channel
		batch[i] = op
	}
	return w.s.applyAt(pos, batch)
}
