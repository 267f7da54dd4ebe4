package csr

import (
	"strconv"
	"testing"
)

// BenchmarkUniqueNames: the names check of assemble on a million names (the
// size of the R-MAT scale-20 graph), the table against the plain map.
func BenchmarkUniqueNames(b *testing.B) {
	names := make([]string, 1<<20)
	for i := range names {
		names[i] = strconv.Itoa(i * 7919)
	}
	for _, bc := range []struct {
		name  string
		check func([]string) error
	}{{"table", uniqueNames}, {"map", uniqueNamesMap}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.check(names); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/name")
		})
	}
}
