package table_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// smallFragmentTable is benchRows rows (int64 + float64) on a local store
// in fragments of 100,000 rows: 100 fragments for compaction to merge.
func smallFragmentTable(b *testing.B, n int) *table.Table {
	ctx := context.Background()
	st, err := store.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tb, err := table.Create(ctx, st, benchSchema, table.Options{MaxRowsPerFragment: 100_000})
	if err != nil {
		b.Fatal(err)
	}
	bs := benchBatches(n)
	defer func() {
		for _, x := range bs {
			x.Release()
		}
	}()
	if tb, err = tb.AppendBatches(ctx, bs, memory.DefaultAllocator); err != nil {
		b.Fatal(err)
	}
	return tb
}

// BenchmarkCompact10M: compacting 10M rows in 100 fragments into 10 of
// 1M rows (10 tasks), on 1, 2 and 4 local workers.
func BenchmarkCompact10M(b *testing.B) {
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				tb := smallFragmentTable(b, benchRows)
				b.StartTimer()
				nt, err := tb.Compact(context.Background(), table.CompactOptions{TargetRows: 1_000_000, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				if len(nt.Fragments()) != 10 || nt.LiveRows() != benchRows {
					b.Fatalf("%d fragments, %d rows", len(nt.Fragments()), nt.LiveRows())
				}
			}
		})
	}
}
