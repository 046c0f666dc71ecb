package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTakeString: the join's string gather equals compute.TakeArray (the
// oracle) with NULL values, NULL indices, empty strings and a sliced
// input.
func TestTakeString(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	for i := range 40 {
		switch {
		case i%7 == 3:
			b.AppendNull()
		case i%5 == 0:
			b.Append("")
		default:
			b.Append(fuzzKeyStrings[i%len(fuzzKeyStrings)] + string(rune('a'+i%26)))
		}
	}
	full := b.NewArray()
	b.Release()
	defer full.Release()
	for _, a := range []arrow.Array{full, array.NewSlice(full, 5, 33)} {
		for _, withNull := range []bool{false, true} {
			var idx []int32
			var idxNull []bool
			for i := range 3 * a.Len() {
				idx = append(idx, int32((i*13)%a.Len()))
				idxNull = append(idxNull, withNull && i%4 == 1)
			}
			if !withNull {
				idxNull = nil
			}
			got, ok := gatherColumn(mem, a, idx, idxNull)
			if !ok {
				t.Fatal("gatherColumn declined a string column")
			}
			ib := array.NewInt32Builder(mem)
			for i, j := range idx {
				if idxNull != nil && idxNull[i] {
					ib.AppendNull()
				} else {
					ib.Append(j)
				}
			}
			ia := ib.NewArray()
			ib.Release()
			want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), a, ia)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(got, want) {
				t.Fatalf("takeString:\n got %v\nwant %v", got, want)
			}
			got.Release()
			want.Release()
			ia.Release()
		}
		if a != full {
			a.Release()
		}
	}
}

// TestGatherFixed: the join's typed fixed-width gather equals
// compute.TakeArray (the oracle) for each width it takes, with NULL
// values, NULL indices and a sliced input, and declines booleans.
func TestGatherFixed(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		typ  arrow.DataType
		json string
	}{
		{arrow.PrimitiveTypes.Int8, `[1, null, -3, 4, 5, null, 7, -8, 9, 10]`},
		{arrow.PrimitiveTypes.Uint16, `[1, 2, null, 4, 65535, 6, 7, null, 9, 10]`},
		{arrow.PrimitiveTypes.Int32, `[null, 2, 3, -4, 5, 6, null, 8, 9, 2147483647]`},
		{arrow.FixedWidthTypes.Date32, `["2020-01-01", null, "1999-12-31", "2000-02-29", "1970-01-01", null, "2024-06-30", "1992-01-02", "1998-12-01", "1995-03-15"]`},
		{arrow.PrimitiveTypes.Int64, `[1, 2, 3, null, -5, 6, 7, 8, null, 10]`},
		{arrow.PrimitiveTypes.Float64, `[1.5, null, -0.0, 4, 5, 6, 7.25, 8, 9, null]`},
		{&arrow.Decimal128Type{Precision: 20, Scale: 2}, `["1.50", null, "-3.25", "4.00", "123456789012345.67", null, "0.01", "-0.01", "9", "10"]`},
	}
	for _, c := range cases {
		full, _, err := array.FromJSON(mem, c.typ, strings.NewReader(c.json))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []arrow.Array{full, array.NewSlice(full, 3, 9)} {
			for _, withNull := range []bool{false, true} {
				var idx []int32
				var idxNull []bool
				for i := range 2*a.Len() + 1 {
					idx = append(idx, int32((i*7)%a.Len()))
					idxNull = append(idxNull, withNull && i%3 == 1)
				}
				if !withNull {
					idxNull = nil
				}
				got, ok := gatherFixed(mem, a, idx, idxNull)
				if !ok {
					t.Fatalf("%s: gatherFixed declined", c.typ)
				}
				ib := array.NewInt32Builder(mem)
				for i, j := range idx {
					if idxNull != nil && idxNull[i] {
						ib.AppendNull()
					} else {
						ib.Append(j)
					}
				}
				ia := ib.NewArray()
				ib.Release()
				want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), a, ia)
				if err != nil {
					t.Fatal(err)
				}
				if !array.Equal(got, want) {
					t.Fatalf("%s:\n got %v\nwant %v", c.typ, got, want)
				}
				got.Release()
				want.Release()
				ia.Release()
			}
			if a != full {
				a.Release()
			}
		}
		full.Release()
	}
	b, _, err := array.FromJSON(mem, arrow.FixedWidthTypes.Boolean, strings.NewReader(`[true, null, false]`))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if _, ok := gatherFixed(mem, b, []int32{0, 1}, nil); ok {
		t.Fatal("gatherFixed took a boolean column")
	}
}
