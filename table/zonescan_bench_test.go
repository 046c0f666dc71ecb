package table_test

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// A clustered table (k ascending, as after a recluster on k) of
// STABLEROW_ZONE_BENCH_ROWS rows (default 10M) with a payload: the
// range benchmark reads 0.1% of it by k, through range reads that count
// the bytes the store serves.
var zoneBenchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32},
	{Name: "s", Type: arrow.BinaryTypes.String},
}, nil)

func zoneBenchRows() int {
	if n, err := strconv.Atoi(os.Getenv("STABLEROW_ZONE_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 10_000_000
}

var zoneBenchOnce = sync.OnceValues(func() (*table.Table, error) {
	ctx := context.Background()
	cs := &byteCountingStore{Store: store.NewMemory()}
	tb, err := table.Create(ctx, cs, zoneBenchSchema, table.Options{})
	if err != nil {
		return nil, err
	}
	rows := zoneBenchRows()
	const per = 1 << 16
	for off := 0; off < rows; off += per {
		n := min(per, rows-off)
		bld := array.NewRecordBuilder(memory.DefaultAllocator, zoneBenchSchema)
		for i := off; i < off+n; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			bld.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i%100_000) * 37))
			bld.Field(2).(*array.Date32Builder).Append(arrow.Date32(8000 + i%2500))
			bld.Field(3).(*array.StringBuilder).Append("payload " + strconv.Itoa(i%9973))
		}
		b := bld.NewRecordBatch()
		bld.Release()
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, memory.DefaultAllocator)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	return tb, nil
})

// BenchmarkZoneRange: SELECT-like read of all columns of the rows with
// k in [lo, lo + 0.1% of the rows): "full" scans every batch and filters
// (the scan before zone maps), "zones" passes the range as zone
// predicates. Reports the store's bytes read per op and the batches read.
func BenchmarkZoneRange(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 10M-row table")
	}
	tb, err := zoneBenchOnce()
	if err != nil {
		b.Fatal(err)
	}
	cs := tb.Store().(*byteCountingStore)
	// What the zone maps cost the manifest, read at every open.
	var zones int
	for _, f := range tb.Fragments() {
		zones += len(f.File.Zones)
	}
	mb, err := tb.Manifest().MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := table.UnmarshalManifest(mb); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d fragments, zone maps %d bytes of a %d-byte manifest, decoded and checked in %s", len(tb.Fragments()), zones, len(mb), time.Since(start))
	rows := int64(zoneBenchRows())
	lo, hi := rows/2, rows/2+rows/1000
	where := []table.ZonePred{
		{Column: "k", Op: table.ZoneGe, Values: []any{lo}},
		{Column: "k", Op: table.ZoneLt, Values: []any{hi}},
	}
	for _, c := range []struct {
		name  string
		where []table.ZonePred
	}{{"full", nil}, {"zones", where}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var bytes, batches int64
			for range b.N {
				cs.n.Store(0)
				sc, err := tb.Scan(ctx, table.ScanOptions{Where: c.where})
				if err != nil {
					b.Fatal(err)
				}
				var match int64
				for sc.Next() {
					k := sc.RecordBatch().Column(0).(*array.Int64).Int64Values()
					for _, x := range k {
						if x >= lo && x < hi {
							match++
						}
					}
				}
				if err := sc.Err(); err != nil {
					b.Fatal(err)
				}
				if match != hi-lo {
					b.Fatalf("%d rows match, want %d", match, hi-lo)
				}
				bytes += cs.n.Load()
				batches += sc.Stats().BatchesRead
				sc.Release()
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "store-bytes/op")
			b.ReportMetric(float64(batches)/float64(b.N), "batches/op")
		})
	}
}
