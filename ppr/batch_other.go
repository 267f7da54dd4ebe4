//go:build !amd64 || purego

package ppr

import "github.com/authppr/authppr/internal/cpu"

// simdBatchSet reports that this build has no assembly batch kernels
// (batch_amd64.go is built for amd64 without the purego tag).
func simdBatchSet(cpu.Level) (pullSet, bool) { return pullSet{}, false }
