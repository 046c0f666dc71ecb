package table_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// A table shaped like TPC-H's lineitem (16 columns: keys, decimals, dates,
// flags and a comment) in the memory store, the store the TPC-H runner's
// in-memory database reads from. The scan benchmarks read 4 of its columns
// (Q6's) and report the cost per row per column read, so a change to what
// a scan verifies or copies per batch shows up whatever the table width.
var lineitemSchema = func() *arrow.Schema {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	i64, i32, str, date := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32
	return arrow.NewSchema([]arrow.Field{
		{Name: "l_orderkey", Type: i64}, {Name: "l_partkey", Type: i64}, {Name: "l_suppkey", Type: i64},
		{Name: "l_linenumber", Type: i32}, {Name: "l_quantity", Type: dec}, {Name: "l_extendedprice", Type: dec},
		{Name: "l_discount", Type: dec}, {Name: "l_tax", Type: dec}, {Name: "l_returnflag", Type: str},
		{Name: "l_linestatus", Type: str}, {Name: "l_shipdate", Type: date}, {Name: "l_commitdate", Type: date},
		{Name: "l_receiptdate", Type: date}, {Name: "l_shipinstruct", Type: str}, {Name: "l_shipmode", Type: str},
		{Name: "l_comment", Type: str},
	}, nil)
}()

const lineitemRows = 6_000_000

var lineitemOnce = sync.OnceValues(func() (store.Store, error) { return lineitemStore(table.Options{}) })

// lineitemEncodedOnce is the same table in FormatEncoded data files.
var lineitemEncodedOnce = sync.OnceValues(func() (store.Store, error) {
	return lineitemStore(table.Options{EncodedDataFiles: true})
})

func lineitemStore(opts table.Options) (store.Store, error) {
	ctx := context.Background()
	st := store.NewMemory()
	tb, err := table.Create(ctx, st, lineitemSchema, opts)
	if err != nil {
		return nil, err
	}
	const per = 1 << 16
	words := []string{"carefully", "final", "deposits", "ironic", "packages", "sleep", "quickly", "express"}
	for off := 0; off < lineitemRows; off += per {
		n := min(per, lineitemRows-off)
		bld := array.NewRecordBuilder(memory.DefaultAllocator, lineitemSchema)
		for i := off; i < off+n; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i / 4))
			bld.Field(1).(*array.Int64Builder).Append(int64(i*7919) % 200_000)
			bld.Field(2).(*array.Int64Builder).Append(int64(i*31) % 10_000)
			bld.Field(3).(*array.Int32Builder).Append(int32(i%7 + 1))
			for c, v := range []int64{int64(i%50+1) * 100, int64(i%100_000) * 37, int64(i % 11), int64(i % 9)} {
				bld.Field(4 + c).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
			}
			bld.Field(8).(*array.StringBuilder).Append([]string{"A", "N", "R"}[i%3])
			bld.Field(9).(*array.StringBuilder).Append([]string{"F", "O"}[i%2])
			for c := range 3 {
				bld.Field(10 + c).(*array.Date32Builder).Append(arrow.Date32(8036 + (i*13+c*30)%2500))
			}
			bld.Field(13).(*array.StringBuilder).Append([]string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}[i%4])
			bld.Field(14).(*array.StringBuilder).Append([]string{"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"}[i%7])
			bld.Field(15).(*array.StringBuilder).Append(words[i%8] + " " + words[(i/8)%8] + " " + words[(i/64)%8] + " about the")
		}
		b := bld.NewRecordBatch()
		bld.Release()
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, memory.DefaultAllocator)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

// q6Columns are the columns TPC-H Q6 reads.
var q6Columns = []string{"l_shipdate", "l_discount", "l_quantity", "l_extendedprice"}

// benchLineitemScan scans columns of the lineitem table; cold opens a new
// snapshot for every scan, warm reuses one. Verification marks live with
// the store's mapping of each file, so neither hashes after the first scan
// (before they lived with the snapshot and cold hashed every part it read):
// cold is what a query pays on a freshly opened snapshot.
func benchLineitemScan(b *testing.B, cols []string, cold, encoded bool) {
	ctx := context.Background()
	once := lineitemOnce
	if encoded {
		once = lineitemEncodedOnce
	}
	st, err := once()
	if err != nil {
		b.Fatal(err)
	}
	tb, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		b.Fatal(err)
	}
	scan := func() {
		sc, err := tb.Scan(ctx, table.ScanOptions{Columns: cols})
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for sc.Next() {
			n += sc.RecordBatch().NumRows()
		}
		if sc.Err() != nil || n != lineitemRows {
			b.Fatal(sc.Err(), n)
		}
		sc.Release()
	}
	if !cold {
		scan() // the checks a warm scan skips
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		if cold {
			if tb, err = table.Open(ctx, st, table.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		scan()
	}
	b.StopTimer()
	per := float64(b.N) * lineitemRows * float64(len(cols))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/row/col")
	// CPU time (user + system, all threads, GC included) is what a loaded
	// machine does not distort the way it does wall time.
	b.ReportMetric(float64(cpuTime()-cpu0)/per, "cpu-ns/row/col")
}

// cpuTime is the process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkScanLineitem: 6M rows, one date column, Q6's 4 of 16 columns
// and all 16, cold and warm, in FormatColumns and FormatEncoded files.
func BenchmarkScanLineitem(b *testing.B) {
	for _, cold := range []bool{true, false} {
		for _, cols := range [][]string{{"l_shipdate"}, q6Columns, nil} {
			for _, encoded := range []bool{false, true} {
				benchScanLineitemCase(b, cols, cold, encoded)
			}
		}
	}
}

func benchScanLineitemCase(b *testing.B, cols []string, cold, encoded bool) {
	n := len(cols)
	if cols == nil {
		n = lineitemSchema.NumFields()
	}
	format := "columns"
	if encoded {
		format = "encoded"
	}
	b.Run(fmt.Sprintf("cols=%d/cold=%v/format=%s", n, cold, format), func(b *testing.B) {
		if cols == nil {
			cols = make([]string, 0, n)
			for _, f := range lineitemSchema.Fields() {
				cols = append(cols, f.Name)
			}
		}
		benchLineitemScan(b, cols, cold, encoded)
	})
}
