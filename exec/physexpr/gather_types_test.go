package physexpr

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestGatherFixedTypes: GatherColumn equals compute.TakeArray (the
// oracle) for every fixed-width type, with NULL values, NULL indices and
// sliced inputs.
func TestGatherFixedTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(19, 20))
	const n = 200
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Timestamp_us,
		&arrow.Decimal128Type{Precision: 20, Scale: 2}}
	for _, typ := range types {
		for _, withNulls := range []bool{false, true} {
			b := array.NewBuilder(mem, typ)
			for i := range n {
				if withNulls && r.IntN(5) == 0 {
					b.AppendNull()
					continue
				}
				v := r.Int64N(1<<40) - 1<<39
				switch bb := b.(type) {
				case *array.Int64Builder:
					bb.Append(v)
				case *array.Int32Builder:
					bb.Append(int32(v))
				case *array.Int16Builder:
					bb.Append(int16(v))
				case *array.Uint64Builder:
					bb.Append(uint64(v))
				case *array.Float64Builder:
					bb.Append(float64(v) / 3)
				case *array.Float32Builder:
					bb.Append(float32(v) / 3)
				case *array.Date32Builder:
					bb.Append(arrow.Date32(int32(v % 100000)))
				case *array.TimestampBuilder:
					bb.Append(arrow.Timestamp(v))
				case *array.Decimal128Builder:
					bb.Append(decimal128.FromI64(v))
				}
				_ = i
			}
			full := b.NewArray()
			b.Release()
			a := array.NewSlice(full, 7, n) // a non-zero offset
			full.Release()
			idx := make([]int32, 300)
			null := make([]bool, len(idx))
			for i := range idx {
				idx[i] = int32(r.IntN(a.Len()))
				null[i] = withNulls && r.IntN(7) == 0
			}
			for _, nl := range [][]bool{nil, null} {
				got, ok := GatherColumn(mem, a, idx, nl)
				if !ok {
					t.Fatalf("%s: declined", typ)
				}
				ib := Int32Array(mem, idx, nl)
				want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), a, ib)
				if err != nil {
					t.Fatal(err)
				}
				if !array.Equal(got, want) {
					t.Fatalf("%s nulls=%v: got %v\nwant %v", typ, withNulls, got, want)
				}
				got.Release()
				want.Release()
				ib.Release()
			}
			a.Release()
		}
	}
}
