package access

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// BenchmarkCreateIndex2M: CREATE INDEX on k (shuffled values) of a 2M-row
// table in 20 fragments, as 1, 2 and 4 scan tasks on as many workers
// (runs merged at the commit; one task's run is adopted as is).
func BenchmarkCreateIndex2M(b *testing.B) {
	ctx := context.Background()
	for _, column := range []string{"k", table.RowID} {
		for _, w := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", column, w), func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					tb := indexBenchTable(b)
					b.StartTimer()
					l := New(nil)
					l.SetWorkers(w)
					nt, err := l.CreateIndex(ctx, tb, "t", "ix", column)
					if err != nil {
						b.Fatal(err)
					}
					if nt.Index("ix") == nil {
						b.Fatal("no index")
					}
				}
			})
		}
	}
}

// indexBenchTable is 2M rows of shuffled k in 20 fragments, on a fresh
// local store.
func indexBenchTable(b *testing.B) *table.Table {
	const n, per = 2_000_000, 100_000
	ctx := context.Background()
	st, err := store.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tb, err := table.Create(ctx, st, schema, table.Options{MaxRowsPerFragment: per})
	if err != nil {
		b.Fatal(err)
	}
	var bs []arrow.RecordBatch
	for off := 0; off < n; off += 1 << 16 {
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		for i := off; i < min(off+1<<16, n); i++ {
			kb.Append(int64(uint64(i) * 0x9E3779B97F4A7C15 >> 40))
		}
		k := kb.NewArray()
		bs = append(bs, array.NewRecordBatch(schema, []arrow.Array{k}, int64(k.Len())))
		k.Release()
		kb.Release()
	}
	if tb, err = tb.AppendBatches(ctx, bs, memory.DefaultAllocator); err != nil {
		b.Fatal(err)
	}
	for _, x := range bs {
		x.Release()
	}
	return tb
}
