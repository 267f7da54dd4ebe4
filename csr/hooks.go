package csr

import "github.com/authppr/authppr/internal/csrhook"

// init hands the other packages of the module the machinery they need and
// users do not call (see package internal/csrhook).
func init() {
	csrhook.Set(&csrhook.Hooks[*Graph, Adjacency, Weights]{
		Parts:          (*Graph).parts,
		Assemble:       assembleVisit,
		Named:          named,
		HasRelations:   (*Graph).hasRelations,
		Empty:          emptyGraph,
		Float64Weights: weights64,
		Float32Weights: weights32,

		MemoryParts:      (*Graph).memoryParts,
		FromIDsBytes:     fromIDsBytes,
		CheckMemory:      checkMemory,
		DefaultMaxMemory: defaultMaxMemory,

		WithWeightStorage: func(g *Graph, float64 bool) *Graph { return g.withWeightStorage(storageOf(float64)) },
		Float32:           (*Graph).storesFloat32,

		Validate:     (*Graph).checkAll,
		EdgeChannels: (*Graph).edgeChannels,
		OutWeights:   (*Graph).outWeights,

		ResolveOrder: func(order string, nodes int) string { return string(NodeOrder(order).resolve(nodes)) },
	})
}
