package physexpr

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// fuzzBytes reads a fuzz input a byte at a time (zeros once it runs out).
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) next() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

// kernelTypes are the column types the vectorized kernels cover.
var kernelTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Timestamp_us,
	&arrow.Decimal128Type{Precision: 38, Scale: 2}, &arrow.Decimal128Type{Precision: 15, Scale: 2},
	arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString,
}

// fuzzValue appends one value drawn from a small domain (so that equal
// values are common), with the extremes and the decimal words' sign
// boundaries among them.
func fuzzValue(bd array.Builder, c byte) {
	k := int64(c%9) - 4
	switch bd := bd.(type) {
	case *array.Int8Builder:
		bd.Append(int8(k * 31))
	case *array.Int16Builder:
		bd.Append(int16(k) * 1000)
	case *array.Int32Builder:
		bd.Append(int32(k) << 29)
	case *array.Int64Builder:
		bd.Append(k << 61)
	case *array.Uint8Builder:
		bd.Append(uint8(k) * 31)
	case *array.Uint16Builder:
		bd.Append(uint16(k) << 13)
	case *array.Uint32Builder:
		bd.Append(uint32(k) << 29)
	case *array.Uint64Builder:
		bd.Append(uint64(k) << 61)
	case *array.Date32Builder:
		bd.Append(arrow.Date32(k * 10000))
	case *array.TimestampBuilder:
		bd.Append(arrow.Timestamp(k << 50))
	case *array.Decimal128Builder:
		// high words -1, 0, 1; low words across the unsigned sign bit
		bd.Append(decimal128.New(int64(c%3)-1, []uint64{0, 1, 1 << 63, 1<<64 - 1}[(c/3)%4]))
	case *array.StringBuilder:
		bd.Append([]string{"", "a", "ab", "b", "é", "a\x00", "abc", "B", "ab"}[c%9])
	case *array.LargeStringBuilder:
		bd.Append([]string{"", "a", "ab", "b", "é", "a\x00", "abc", "B", "ab"}[c%9])
	case *array.BooleanBuilder:
		bd.Append(c&1 == 1)
	case *array.Float64Builder:
		bd.Append(float64(k) / 3)
	case *array.ListBuilder: // a list column: the gather's fallback path
		bd.Append(true)
		for i := 0; i < int(c%3); i++ {
			bd.ValueBuilder().(*array.Int64Builder).Append(k + int64(i))
		}
	case *array.BinaryBuilder:
		bd.Append([][]byte{nil, {0}, {0xFF}, {1, 2}, {1}, {1, 2, 3}, {0xFF, 0}, {2}, {1, 2}}[c%9])
	default:
		panic(fmt.Sprintf("fuzzValue: %T", bd))
	}
}

// fuzzColumn is a column of n rows of typ (NULL where the input says),
// sliced at an offset when skip > 0 so the kernels see offset bitmaps,
// with one row more past its end that they must not read. (The extra row
// is never empty: arrow-go v18.8.0's binary builder leaks a buffer when
// every value it holds is empty.)
func fuzzColumn(mem memory.Allocator, typ arrow.DataType, in *fuzzBytes, n, skip int) arrow.Array {
	bd := array.NewBuilder(mem, typ)
	defer bd.Release()
	for i := 0; i < n+skip; i++ {
		c := in.next()
		if c%5 == 4 {
			bd.AppendNull()
			continue
		}
		fuzzValue(bd, c/5)
	}
	fuzzValue(bd, 1)
	a := bd.NewArray()
	defer a.Release()
	return array.NewSlice(a, int64(skip), int64(skip+n))
}

// referenceCompare is the general path: arrow's kernels, or the row-by-row
// decimal comparison.
func referenceCompare(ctx context.Context, mem memory.Allocator, op Op, l, r compute.Datum) (arrow.Array, error) {
	var d compute.Datum
	var err error
	if l.(compute.ArrayLikeDatum).Type().ID() == arrow.DECIMAL128 {
		n := 1
		if a, ok := l.(*compute.ArrayDatum); ok {
			n = int(a.Len())
		} else if a, ok := r.(*compute.ArrayDatum); ok {
			n = int(a.Len())
		}
		d, err = compareDecimal(mem, op, n, l, r)
	} else {
		d, err = compute.CallFunction(compute.WithAllocator(ctx, mem), opInfo[op].fn, nil, l, r)
	}
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return d.(*compute.ArrayDatum).MakeArray(), nil
}

// FuzzCompareKernels checks the vectorized comparisons against the general
// path on random columns with NULLs, sliced at odd offsets, against a
// constant on either side (NULL constants too) or another column.
// Input: type, operator, row count, the two slice offsets, the operand
// shape, then a byte per row.
func FuzzCompareKernels(f *testing.F) {
	f.Add([]byte{3, 2, 70, 3, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{10, 5, 130, 1, 7, 1, 255, 0, 4, 9, 14, 19})
	f.Add([]byte{12, 0, 64, 0, 0, 2, 10, 20, 30, 40, 3, 9})
	f.Add([]byte{11, 3, 65, 63, 5, 3, 1, 1, 1, 2, 2, 2, 0, 0})
	f.Add([]byte{6, 4, 1, 0, 0, 4, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		typ := kernelTypes[int(in.next())%len(kernelTypes)]
		op := Op(in.next() % 6)
		n := int(in.next()) % 200
		lskip, rskip := int(in.next()%67), int(in.next()%67)
		shape := in.next() % 5 // 0: col-col, 1: col-const, 2: const-col, 3: col-NULL, 4: NULL-col
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		ctx := context.Background()
		la := fuzzColumn(mem, typ, in, n, lskip)
		defer la.Release()
		rn := n
		if shape != 0 { // the constant is the right column's first row
			rn = max(n, 1)
		}
		ra := fuzzColumn(mem, typ, in, rn, rskip)
		defer ra.Release()
		var l, r compute.Datum = compute.NewDatum(la), compute.NewDatum(ra)
		defer l.Release()
		defer r.Release()
		if shape != 0 {
			var s scalar.Scalar
			if shape >= 3 || ra.IsNull(0) {
				s = scalar.MakeNullScalar(typ)
			} else {
				var err error
				if s, err = scalarAt(ra, 0); err != nil {
					t.Fatal(err)
				}
			}
			sd := compute.NewDatum(s) // a reference of its own
			defer sd.Release()
			if rs, ok := s.(scalar.Releasable); ok {
				rs.Release()
			}
			if shape == 1 || shape == 3 {
				r = sd
			} else {
				l, r = sd, l
			}
		}
		got, ok, err := compareVectorized(mem, op, l, r)
		if err != nil || !ok {
			t.Fatalf("%s %s: ok %v, err %v", typ, opInfo[op].sym, ok, err)
		}
		defer got.Release()
		ga := got.(*compute.ArrayDatum).MakeArray()
		defer ga.Release()
		want, err := referenceCompare(ctx, mem, op, l, r)
		if err != nil {
			t.Fatal(err)
		}
		defer want.Release()
		if ga.Len() != want.Len() {
			t.Fatalf("%d rows, want %d", ga.Len(), want.Len())
		}
		gb, wb := ga.(*array.Boolean), want.(*array.Boolean)
		for i := 0; i < gb.Len(); i++ {
			if gb.IsNull(i) != wb.IsNull(i) || gb.IsValid(i) && gb.Value(i) != wb.Value(i) {
				t.Fatalf("%s %s shape %d row %d: got %v, want %v", typ, opInfo[op].sym, shape, i, gb.GetOneForMarshal(i), wb.GetOneForMarshal(i))
			}
			if gb.IsNull(i) && gb.Value(i) {
				t.Fatalf("row %d: NULL with its value bit set", i)
			}
		}
		if gb.NullN() != wb.NullN() {
			t.Fatalf("%d NULLs, want %d", gb.NullN(), wb.NullN())
		}
	})
}
