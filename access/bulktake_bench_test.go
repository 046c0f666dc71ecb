package access

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
)

const benchTakeRows = 10_000_000

// benchTakeTable is benchTakeRows rows of (k int64) in fragments of 1M
// rows on a local store, and 1M random ids of it.
func benchTakeTable(b *testing.B) (*table.Table, []uint64) {
	return benchTakeTableWith(b, table.Options{})
}

// benchTakeTableWith is benchTakeTable written with opts.
func benchTakeTableWith(b *testing.B, opts table.Options) (*table.Table, []uint64) {
	tb := benchKTable(b, opts, benchTakeRows, func(i int) int64 { return int64(i) })
	r := rand.New(rand.NewPCG(1, 1))
	ids := make([]uint64, 1_000_000)
	for i := range ids {
		ids[i] = uint64(r.IntN(benchTakeRows))
	}
	return tb, ids
}

// BenchmarkBulkTake1M: 1M random ids of a 10M-row table (no index: ids
// resolved through the row id sequences), the plain take (resolve, then
// one Table.Take in input order) against the take split by fragment on
// 1, 2 and 4 workers (rows with ord, unordered).
func BenchmarkBulkTake1M(b *testing.B) { benchBulkTake1M(b, table.Options{}) }

// BenchmarkBulkTake1MEncoded: BenchmarkBulkTake1M over FormatEncoded data
// files (table.Options.EncodedDataFiles).
func BenchmarkBulkTake1MEncoded(b *testing.B) {
	benchBulkTake1M(b, table.Options{EncodedDataFiles: true})
}

func benchBulkTake1M(b *testing.B, opts table.Options) {
	tb, ids := benchTakeTableWith(b, opts)
	ctx := context.Background()
	l := New(memory.DefaultAllocator)
	cols := []string{"k", table.RowID}
	b.Run("plain", func(b *testing.B) {
		cpu0 := cpuTime(b)
		defer func() { b.ReportMetric(float64(cpuTime(b)-cpu0)/1e6/float64(b.N), "cpu-ms/op") }()
		for range b.N {
			addrs, found, err := l.locate(ctx, tb, ids)
			if err != nil {
				b.Fatal(err)
			}
			rb, err := tb.Take(ctx, addrs, found, cols, memory.DefaultAllocator)
			if err != nil {
				b.Fatal(err)
			}
			if rb.NumRows() != int64(len(ids)) {
				b.Fatal(rb.NumRows())
			}
			rb.Release()
		}
	})
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("split/workers=%d", w), func(b *testing.B) {
			for range b.N {
				n := 0
				_, err := l.BulkTake(ctx, tb, ids, cols, TakeOptions{Workers: w}, memory.DefaultAllocator, func(rb arrow.RecordBatch) error {
					n += int(rb.NumRows())
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if n != len(ids) {
					b.Fatal(n)
				}
			}
		})
	}
}

// BenchmarkPlanTake1M: PlanTake alone (what GetFlightInfo of a partitioned
// take spends) for 1M random ids of a 10M-row table, resolved through the
// row id sequences ("sequences") and through the _rowid index ("index").
func BenchmarkPlanTake1M(b *testing.B) {
	tb, ids := benchTakeTable(b)
	ctx := context.Background()
	l := New(memory.DefaultAllocator)
	run := func(b *testing.B, tb *table.Table) {
		b.ReportAllocs()
		cpu0 := cpuTime(b)
		defer func() { b.ReportMetric(float64(cpuTime(b)-cpu0)/1e6/float64(b.N), "cpu-ms/op") }()
		for range b.N {
			p, err := l.PlanTake(ctx, tb, ids, TakeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(p.Missing) != 0 {
				b.Fatal(len(p.Missing))
			}
		}
	}
	b.Run("sequences", func(b *testing.B) { run(b, tb) })
	ix, err := l.CreateIndex(ctx, tb, "t", "rid", table.RowID)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) { run(b, ix) })
}

// cpuTime is the process's user+system CPU time in ns: on a shared
// machine a truer measure of the work than wall time.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
