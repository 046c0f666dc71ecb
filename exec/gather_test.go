package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherTypes are the column types of FuzzFilterGather's batches: every
// typed loop of gather.go and a list, which takes compute.TakeArray.
var gatherTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Date32, &arrow.Decimal128Type{Precision: 15, Scale: 2},
	arrow.FixedWidthTypes.Boolean, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary,
	arrow.ListOf(arrow.PrimitiveTypes.Int64),
}

// FuzzFilterGather checks the filter's selection and gather against
// arrow's FilterRecordBatch (the path it replaces): random NULL-bearing
// columns of every gathered type and a mask with NULLs, each sliced at
// its own offset. Input: row count, a slice offset per column and one for
// the mask, then a byte per value.
func FuzzFilterGather(f *testing.F) {
	f.Add([]byte{70, 3, 0, 5, 1, 9, 2, 7, 4, 63, 8, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 254, 253})
	f.Add([]byte{1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		n := int(in.next())
		skips := make([]int, len(gatherTypes)+1)
		for i := range skips {
			skips[i] = int(in.next() % 67)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		fields := make([]arrow.Field, len(gatherTypes))
		cols := make([]arrow.Array, len(gatherTypes))
		for i, typ := range gatherTypes {
			fields[i] = arrow.Field{Name: typ.String(), Type: typ, Nullable: true}
			cols[i] = fuzzColumn(mem, typ, in, n, skips[i])
		}
		defer releaseAll(cols)
		b := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
		defer b.Release()
		mask := fuzzColumn(mem, arrow.FixedWidthTypes.Boolean, in, n, skips[len(gatherTypes)]).(*array.Boolean)
		defer mask.Release()

		ctx := context.Background()
		want, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), b, mask, compute.DefaultFilterOptions())
		if err != nil {
			t.Fatal(err)
		}
		defer want.Release()
		sel := selection(mask, nil)
		for k := 1; k < len(sel); k++ {
			if sel[k] <= sel[k-1] {
				t.Fatalf("selection not ascending: %v", sel)
			}
		}
		got, err := gatherBatch(ctx, mem, b, sel)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		if got.NumRows() != want.NumRows() {
			t.Fatalf("%d rows kept, want %d", got.NumRows(), want.NumRows())
		}
		for i := range gatherTypes {
			g, w := got.Column(i), want.Column(i)
			if !array.Equal(g, w) || g.NullN() != w.NullN() {
				t.Fatalf("%s:\n got %v\nwant %v", gatherTypes[i], g, w)
			}
		}
	})
}
