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
	// GOAMD64=v1 build tests the CPU feature at every call and measured
	// 1.1-1.4x slower than this one (BenchmarkPullKernelsInterleaved).
	Unrolled
	// Unchecked runs the Unrolled loops without bounds checks (unsafe
	// pointer arithmetic), on arrays whose bounds the caller proves once:
	// the arrays of a validated graph, checked in O(1) at kernel entry. It
	// sums in Unrolled's order, so its results are Unrolled's bits; a pull
	// takes about 0.72-0.83 of Unrolled's time on the anchors' graphs (ppr's
	// kernel_unchecked.go has the proof and the numbers). Not in purego
	// builds.
	Unchecked
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
	}
	return "unknown"
}

// Features are the CPU features a level could depend on, read once. No
// level needs one yet: the pull kernels are bound by random loads, and
// simd/archsimd (GOEXPERIMENT=simd) has no gather to speed those up.
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
	return []Level{Generic, Unrolled, Unchecked}
}

// Supported lists the levels this CPU and build can run, ascending.
func Supported() []Level { return append([]Level(nil), supported...) }

// Best returns the highest supported level.
func Best() Level { return supported[len(supported)-1] }
