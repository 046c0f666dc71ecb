package table_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

var benchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.PrimitiveTypes.Float64},
}, nil)

const benchRows = 10_000_000

// benchBatches returns batches of 65,536 rows totalling n rows.
func benchBatches(n int) []arrow.RecordBatch {
	const per = 1 << 16
	var out []arrow.RecordBatch
	for off := 0; off < n; off += per {
		m := min(per, n-off)
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		vb := array.NewFloat64Builder(memory.DefaultAllocator)
		for i := 0; i < m; i++ {
			kb.Append(int64(off + i))
			vb.Append(float64(off+i) / 2)
		}
		k, v := kb.NewArray(), vb.NewArray()
		out = append(out, array.NewRecordBatch(benchSchema, []arrow.Array{k, v}, int64(m)))
		k.Release()
		v.Release()
	}
	return out
}

func benchTable(b *testing.B, n int) *table.Table { return benchTableWith(b, n, table.Options{}) }

func benchTableWith(b *testing.B, n int, opts table.Options) *table.Table {
	ctx := context.Background()
	st, err := store.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tb, err := table.Create(ctx, st, benchSchema, opts)
	if err != nil {
		b.Fatal(err)
	}
	bs := benchBatches(n)
	tb, err = tb.AppendBatches(ctx, bs, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	return tb
}

// BenchmarkAppend10M: append 10M rows (int64 + float64) to a local table.
func BenchmarkAppend10M(b *testing.B) {
	ctx := context.Background()
	bs := benchBatches(benchRows)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		st, err := store.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		tb, err := table.Create(ctx, st, benchSchema, table.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := tb.AppendBatches(ctx, bs, memory.DefaultAllocator); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// benchScan scans cols of a 10M-row table in each data file format: the
// default (FormatEncoded) and FormatColumns (plain Arrow buffers).
func benchScan(b *testing.B, cols []string) {
	for _, plain := range []bool{false, true} {
		name := "format=encoded"
		if plain {
			name = "format=columns"
		}
		b.Run(name, func(b *testing.B) { benchScanFormat(b, cols, table.Options{EncodedDataFiles: !plain}) })
	}
}

func benchScanFormat(b *testing.B, cols []string, opts table.Options) {
	ctx := context.Background()
	tb := benchTableWith(b, benchRows, opts)
	b.ResetTimer()
	for range b.N {
		sc, err := tb.Scan(ctx, table.ScanOptions{Columns: cols})
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

// BenchmarkScan10MWithRowID: a data column plus _rowid and _rowaddr.
func BenchmarkScan10MWithRowID(b *testing.B) { benchScan(b, []string{"k", "_rowid", "_rowaddr"}) }

// BenchmarkScan10MRowIDOnly: system columns only (no data file is read).
func BenchmarkScan10MRowIDOnly(b *testing.B) { benchScan(b, []string{"_rowid", "_rowaddr"}) }
