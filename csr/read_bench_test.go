package csr_test

import (
	"errors"
	"testing"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/internal/bench"
)

// BenchmarkReadFile times ReadFile on the readers' inputs
// (internal/bench.Input): the anchors' KG as PPREDGE1 and as a text edge
// list, and R-MAT scale 18 as PPREDGE1 in stream and in degree order
// (docs/benchmarks.md, package csr, has a run):
//
//	go test ./csr -run '^$' -bench ReadFile -count 10
func BenchmarkReadFile(b *testing.B) {
	for _, c := range []struct {
		name, input string
		opt         csr.ReadOptions
	}{
		{"ppredge/kg", "kg", csr.ReadOptions{Format: csr.FormatPPREDGE1}},
		{"ppredge/rmat18", "rmat18", csr.ReadOptions{Format: csr.FormatPPREDGE1}},
		{"ppredge/rmat18-degree", "rmat18", csr.ReadOptions{Format: csr.FormatPPREDGE1, Order: csr.DegreeOrder}},
		{"edges/kg", "kg.txt", csr.ReadOptions{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			path, err := bench.Input(c.input)
			if errors.Is(err, bench.ErrNoInput) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := csr.ReadFile(path, c.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
