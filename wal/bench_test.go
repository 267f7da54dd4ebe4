package wal

import (
	"path/filepath"
	"testing"
)

// BenchmarkAppend measures one durable append (write + fsync) per record.
func BenchmarkAppend(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "log"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := make([]byte, 64)
	b.SetBytes(int64(len(rec)))
	for range b.N {
		if _, err := l.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
