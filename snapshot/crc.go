package snapshot

import (
	"cmp"
	"hash/crc32"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/authppr/authppr/internal/crc32c"
	"github.com/authppr/authppr/internal/csrhook"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sectionSums returns the CRC-32C of each body, computed on two goroutines
// (the machine's cores) that take the bodies largest first from a shared
// counter, so neither waits long on the other. sectionSumsPlain (in the
// tests) is the one-loop reference.
func sectionSums(bodies [][]byte) []uint32 {
	sums := make([]uint32, len(bodies))
	order := make([]int, len(bodies))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(bodies[b]), len(bodies[a])) })
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1) - 1)
			if k >= len(order) {
				return
			}
			i := order[k]
			sums[i] = crc32.Checksum(bodies[i], castagnoli)
		}
	}
	var wg sync.WaitGroup
	wg.Go(work)
	work()
	wg.Wait()
	return sums
}

// fusedSums checksums the edge and arc sections in the blocks that
// the checked assembly (csrhook.Hooks.Assemble) reports (see csrhook.VisitFunc): per kind of block and per
// lane a running CRC-32C of each section, the lanes joined in order by
// crc32c.Combine at the end. A nil *fusedSums takes no section.
type fusedSums struct {
	kinds [3]fusedKind // indexed by csrhook.BlockKind
}

type fusedKind struct {
	count int // elements the blocks must tile
	secs  []fusedSection
	lanes [csrhook.Lanes]fusedLane
}

type fusedSection struct {
	id     uint32
	size   int // bytes per element
	b      []byte
	stored uint32
	taken  bool
}

type fusedLane struct {
	start, end int // blocks seen so far cover [start, end); start -1 before the first
	broken     bool
	crc        []uint32 // per section of the kind
}

// newFusedSums lists the sections the checked assembly (csrhook.Hooks.Assemble) reads in blocks for a
// graph with these flags and counts: the edge arrays (edge-relation when
// the edges carry relations) and the arc arrays of the out-adjacency, and
// of the in-adjacency when directed.
func newFusedSums(directed, relations, float32Weights bool, m, arcs uint64) *fusedSums {
	f := &fusedSums{}
	ws := 8
	if float32Weights {
		ws = 4
	}
	edges := []fusedSection{{id: secEdgeSrc, size: 4}, {id: secEdgeDst, size: 4}, {id: secEdgeWeight, size: ws}, {id: secEdgeChannel, size: 4}}
	if relations {
		edges = append(edges, fusedSection{id: secEdgeRelation, size: 4})
	}
	f.kinds[csrhook.EdgeBlock] = fusedKind{count: int(m), secs: edges}
	f.kinds[csrhook.OutArcBlock] = fusedKind{count: int(arcs), secs: []fusedSection{{id: secOutNbr, size: 4}, {id: secOutWeight, size: ws}, {id: secOutEdge, size: 4}}}
	if directed {
		f.kinds[csrhook.InArcBlock] = fusedKind{count: int(arcs), secs: []fusedSection{{id: secInNbr, size: 4}, {id: secInWeight, size: ws}, {id: secInEdge, size: 4}}}
	}
	for k := range f.kinds {
		kind := &f.kinds[k]
		for l := range kind.lanes {
			kind.lanes[l] = fusedLane{start: -1, crc: make([]uint32, len(kind.secs))}
		}
	}
	return f
}

// take reports whether section id is checksummed in blocks, and keeps its
// bytes and stored checksum if so.
func (f *fusedSums) take(id uint32, b []byte, stored uint32) bool {
	if f == nil {
		return false
	}
	for k := range f.kinds {
		for j := range f.kinds[k].secs {
			if s := &f.kinds[k].secs[j]; s.id == id {
				s.b, s.stored, s.taken = b, stored, true
				return true
			}
		}
	}
	return false
}

// visit is the csrhook.VisitFunc: it extends the lane's running checksums by
// the block's bytes of each section of the kind. A block that does not
// continue the lane, or lies outside a section (which csr never reports),
// marks the lane broken, and check then fails.
func (f *fusedSums) visit(lane int, kind csrhook.BlockKind, lo, hi int) {
	if int(kind) < 0 || int(kind) >= len(f.kinds) || lane < 0 || lane >= csrhook.Lanes {
		return // check finds the elements untiled
	}
	k := &f.kinds[kind]
	l := &k.lanes[lane]
	if l.broken {
		return
	}
	if (l.start >= 0 && lo != l.end) || lo < 0 || hi < lo {
		l.broken = true
		return
	}
	if l.start < 0 {
		l.start = lo
	}
	l.end = hi
	for j := range k.secs {
		s := &k.secs[j]
		if hi*s.size > len(s.b) {
			l.broken = true
			return
		}
		l.crc[j] = crc32.Update(l.crc[j], castagnoli, s.b[lo*s.size:hi*s.size])
	}
}

// check reports whether every taken section's blocks tiled it and its
// checksum is the stored one; if not, the first section that fails, with
// the checksum computed (0 when the blocks did not tile it).
func (f *fusedSums) check() (name string, got, stored uint32, ok bool) {
	for k := range f.kinds {
		kind := &f.kinds[k]
		// The lanes must follow one another: each starts where the
		// previous one ended (a lane without blocks covers nothing).
		pos, tiled := 0, true
		for _, l := range kind.lanes {
			if l.broken || (l.start >= 0 && l.start != pos) {
				tiled = false
			}
			if l.start >= 0 {
				pos = l.end
			}
		}
		tiled = tiled && pos == kind.count
		for j, s := range kind.secs {
			if !s.taken {
				continue // absent: parse reports it missing before the graph is checked
			}
			if !tiled {
				return sectionNames[s.id], 0, s.stored, false
			}
			var got uint32
			for _, l := range kind.lanes {
				if l.start >= 0 {
					got = crc32c.Combine(got, l.crc[j], uint64((l.end-l.start)*s.size))
				}
			}
			if got != s.stored {
				return sectionNames[s.id], got, s.stored, false
			}
		}
	}
	return "", 0, 0, true
}
