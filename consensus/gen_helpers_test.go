package consensus

import (
	"math/rand/v2"
	"slices"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func equalInts(a, b []int) bool { return slices.Equal(a, b) }
