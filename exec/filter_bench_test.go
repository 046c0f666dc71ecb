package exec_test

import (
	"context"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// lineitemBatches are 8 batches of 8192 rows shaped like TPC-H's lineitem
// columns a filter reads: l_shipdate date, l_discount, l_quantity and
// l_extendedprice numeric(15,2), l_shipmode text (every 7th row NULL).
func lineitemBatches(b *testing.B, mem memory.Allocator) (*arrow.Schema, []arrow.RecordBatch) {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "l_discount", Type: dec, Nullable: true},
		{Name: "l_quantity", Type: dec, Nullable: true},
		{Name: "l_extendedprice", Type: dec, Nullable: true},
		{Name: "l_shipmode", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	modes := []string{"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "REG AIR", "FOB"}
	var out []arrow.RecordBatch
	x := uint32(1)
	for range 8 {
		rb := array.NewRecordBuilder(mem, schema)
		for i := range 8192 {
			x = x*1664525 + 1013904223 // a fixed LCG: the same rows every run
			rb.Field(0).(*array.Date32Builder).Append(arrow.Date32(8036 + x%2526))
			rb.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(x>>8) % 11))
			rb.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(100 * (1 + int64(x>>12)%50)))
			rb.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(x>>4) % 10000000))
			if i%7 == 6 {
				rb.Field(4).AppendNull()
			} else {
				rb.Field(4).(*array.StringBuilder).Append(modes[(x>>16)%7])
			}
		}
		out = append(out, rb.NewRecordBatch())
		rb.Release()
	}
	return schema, out
}

// BenchmarkFilter runs FilterExec over 65,536 lineitem-like rows; ns/row
// is the cost per input row of evaluating the predicate and gathering
// the kept rows.
func BenchmarkFilter(b *testing.B) {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	col := func(i int, name string) physexpr.Col { return physexpr.Col{Index: i, Name: name} }
	ship, disc, qty := col(0, "l_shipdate"), col(1, "l_discount"), col(2, "l_quantity")
	mode := col(4, "l_shipmode")
	d := func(v int64) physexpr.Lit { return physexpr.Lit{Value: decimal128.FromI64(v), Type: dec} }
	date := func(v int32) physexpr.Lit { return physexpr.Lit{Value: arrow.Date32(v)} }
	and := func(es ...physexpr.Expr) physexpr.Expr {
		e := es[0]
		for _, x := range es[1:] {
			e = physexpr.Binary{Op: physexpr.OpAnd, L: e, R: x}
		}
		return e
	}
	for _, c := range []struct {
		name string
		e    physexpr.Expr
	}{
		// Q6: about 2% of the rows
		{"q6", and(
			physexpr.Binary{Op: physexpr.OpGe, L: ship, R: date(8766)}, physexpr.Binary{Op: physexpr.OpLt, L: ship, R: date(9131)},
			physexpr.Binary{Op: physexpr.OpGe, L: disc, R: d(5)}, physexpr.Binary{Op: physexpr.OpLe, L: disc, R: d(7)},
			physexpr.Binary{Op: physexpr.OpLt, L: qty, R: d(2400)})},
		// one quarter of shipdates, about 3.6% of the rows: a range on one column
		{"date-quarter", and(
			physexpr.Binary{Op: physexpr.OpGe, L: ship, R: date(9496)}, physexpr.Binary{Op: physexpr.OpLt, L: ship, R: date(9587)})},
		// Q19-like: BETWEEN on a decimal
		{"decimal-between", and(
			physexpr.Binary{Op: physexpr.OpGe, L: qty, R: d(1000)}, physexpr.Binary{Op: physexpr.OpLe, L: qty, R: d(2000)})},
		{"date-half", physexpr.Binary{Op: physexpr.OpLt, L: ship, R: date(9299)}},
		{"decimal-cols", physexpr.Binary{Op: physexpr.OpLt, L: disc, R: col(3, "l_extendedprice")}},
		{"text-eq", physexpr.Binary{Op: physexpr.OpEq, L: mode, R: physexpr.Lit{Value: "MAIL"}}},
		{"all-kept", physexpr.Binary{Op: physexpr.OpGe, L: ship, R: date(0)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			schema, batches := lineitemBatches(b, mem)
			defer func() {
				for _, bt := range batches {
					bt.Release()
				}
			}()
			vals, err := exec.NewValuesExec(schema, batches)
			if err != nil {
				b.Fatal(err)
			}
			f, err := exec.NewFilterExec(vals, c.e)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			kept := 0
			b.ResetTimer()
			for b.Loop() {
				s, err := f.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 8192})
				if err != nil {
					b.Fatal(err)
				}
				out, err := exec.Collect(ctx, s)
				if err != nil {
					b.Fatal(err)
				}
				kept = 0
				for _, o := range out {
					kept += int(o.NumRows())
					o.Release()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(8*8192), "ns/row")
			b.ReportMetric(float64(kept)/(8*8192)*100, "%kept")
		})
	}
}

// BenchmarkFilterDateRange is the filter of
//
//	SELECT count(*) FROM lineitem WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-04-01'
//
// as it runs on the SF 1 table: one date column in batches of 4096 rows,
// 3.6% kept; ns/batch is the cost per input batch.
func BenchmarkFilterDateRange(b *testing.B) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}, nil)
	var batches []arrow.RecordBatch
	x := uint32(1)
	for range 16 {
		bd := array.NewDate32Builder(mem)
		for range 4096 {
			x = x*1664525 + 1013904223
			bd.Append(arrow.Date32(8036 + x%2526))
		}
		col := bd.NewArray()
		bd.Release()
		batches = append(batches, array.NewRecordBatch(schema, []arrow.Array{col}, 4096))
		col.Release()
	}
	defer func() {
		for _, bt := range batches {
			bt.Release()
		}
	}()
	ship := physexpr.Col{Index: 0, Name: "l_shipdate"}
	pred := physexpr.Binary{Op: physexpr.OpAnd,
		L: physexpr.Binary{Op: physexpr.OpGe, L: ship, R: physexpr.Lit{Value: arrow.Date32(9496)}},
		R: physexpr.Binary{Op: physexpr.OpLt, L: ship, R: physexpr.Lit{Value: arrow.Date32(9587)}}}
	vals, err := exec.NewValuesExec(schema, batches)
	if err != nil {
		b.Fatal(err)
	}
	f, err := exec.NewFilterExec(vals, pred)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		s, err := f.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 4096})
		if err != nil {
			b.Fatal(err)
		}
		out, err := exec.Collect(ctx, s)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range out {
			o.Release()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/16, "ns/batch")
}
