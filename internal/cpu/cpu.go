package cpu

import (
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// Level is a kernel level, from the plain reference loops up.
type Level int

const (
	// Generic runs the reference loops: one accumulator, no unrolling.
	Generic Level = iota
	// Unrolled runs portable Go loops with independent accumulators and
	// bounds checks hoisted out of the loops. A GOAMD64=v3 build fuses
	// their multiply-adds into FMA instructions by itself (the spec allows
	// it), so no separate FMA level exists: an explicit math.FMA loop in a
	// GOAMD64=v1 build tests the CPU feature at every call and was slower
	// than this one (docs/benchmarks.md, "Pull kernels").
	Unrolled
	// Unchecked runs the Unrolled loops without bounds checks (unsafe
	// pointer arithmetic), on arrays whose bounds the caller proves once:
	// the arrays of a validated graph, checked in O(1) at kernel entry. It
	// sums in Unrolled's order, so its results are Unrolled's bits (ppr's
	// kernel_unchecked.go has the proof; docs/benchmarks.md, "Pull
	// kernels", what it buys). Not in purego builds.
	Unchecked
	// AVX2 is Unchecked plus the batched kernels (ppr.SolveBatch) in amd64
	// assembly on 256-bit vectors: two YMM registers per eight-query cache
	// line. They keep every lane's operations and order (multiply then add,
	// never FMA), so their results are the reference's bits. amd64 only, not
	// in purego builds.
	AVX2
	// AVX512 is AVX2 with the batched kernels on 512-bit vectors (one ZMM
	// register per line, AVX-512F instructions only), and a wide layout of
	// 16 queries (two lines per node) for batches of more than eight.
	AVX512
)

// String names the level.
func (l Level) String() string {
	switch l {
	case Generic:
		return "generic"
	case Unrolled:
		return "unrolled"
	case Unchecked:
		return "unchecked"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return "unknown"
}

// Features are the CPU features a level could depend on, read once
// (cpuid/v2 reports AVX2 and AVX512F only when the OS saves their
// registers). AVX2 and AVX512 need the features of their names.
var Features = struct {
	FMA3, AVX2, AVX512F bool
}{
	FMA3:    cpuid.CPU.Supports(cpuid.FMA3) || runtime.GOARCH == "arm64",
	AVX2:    cpuid.CPU.Supports(cpuid.AVX2),
	AVX512F: cpuid.CPU.Supports(cpuid.AVX512F),
}

var supported = detect()

func detect() []Level {
	if purego {
		return []Level{Generic}
	}
	levels := []Level{Generic, Unrolled, Unchecked}
	if runtime.GOARCH == "amd64" && Features.AVX2 {
		levels = append(levels, AVX2)
		if Features.AVX512F {
			levels = append(levels, AVX512)
		}
	}
	return levels
}

// Supported lists the levels this CPU and build can run, ascending.
func Supported() []Level { return append([]Level(nil), supported...) }

// Best returns the highest supported level.
func Best() Level { return supported[len(supported)-1] }

// L2Bytes returns the size of one core's L2 cache in bytes as cpuid reports
// it, or 0 when the CPU does not say.
func L2Bytes() int { return max(cpuid.CPU.Cache.L2, 0) }
