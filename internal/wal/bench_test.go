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

// BenchmarkAppendBatch measures group commit: 1,000 records per fsync.
func BenchmarkAppendBatch(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "log"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	batch := make([][]byte, 1000)
	for i := range batch {
		batch[i] = make([]byte, 32) // about a structural write: two ids, weight, channel
	}
	for range b.N {
		if _, err := l.AppendBatch(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "writes/s")
}
