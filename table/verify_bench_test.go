package table_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
)

// BenchmarkVerify measures what data file verification costs on the 10M-row
// bench table (local store, mmap): scans and point takes of the data
// columns, warm (one snapshot) and cold (a fresh snapshot per operation,
// opened outside the timer). Since verification marks live with the
// mapping, not the snapshot, cold no longer hashes what an earlier
// operation verified; BenchmarkSpanCRC is the hashing a first read adds.
func BenchmarkVerify(b *testing.B) {
	ctx := context.Background()
	tb := benchTable(b, benchRows)
	fresh := func(b *testing.B) *table.Table {
		b.StopTimer()
		defer b.StartTimer()
		t, err := table.OpenVersion(ctx, tb.Store(), tb.Version(), table.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	scan := func(b *testing.B, cold bool) {
		t := tb
		for range b.N {
			if cold {
				t = fresh(b)
			}
			sc, err := t.Scan(ctx, table.ScanOptions{Columns: []string{"k", "v"}})
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for sc.Next() {
				n += sc.RecordBatch().NumRows()
			}
			if sc.Err() != nil || n != benchRows {
				b.Fatal(sc.Err(), n)
			}
			sc.Release()
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	take := func(b *testing.B, n int, cold bool) {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		frags := tb.Fragments()
		sets := make([][]uint64, 64)
		for i := range sets {
			for range n {
				f := frags[r.IntN(len(frags))]
				sets[i] = append(sets[i], uint64(rowid.NewAddress(f.ID, uint32(r.Uint64N(f.PhysicalRows)))))
			}
		}
		t := tb
		b.ResetTimer()
		for i := range b.N {
			if cold {
				t = fresh(b)
			}
			out, err := t.Take(ctx, sets[i%len(sets)], nil, []string{"k", "v"}, memory.DefaultAllocator)
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
	}
	b.Run("scan/warm", func(b *testing.B) { scan(b, false) })
	b.Run("scan/cold", func(b *testing.B) { scan(b, true) })
	b.Run("take1/warm", func(b *testing.B) { take(b, 1, false) })
	b.Run("take1/cold", func(b *testing.B) { take(b, 1, true) })
	b.Run("take10K/warm", func(b *testing.B) { take(b, 10_000, false) })
	b.Run("take10K/cold", func(b *testing.B) { take(b, 10_000, true) })
}
