package physexpr

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherStrings are short, empty, NUL-holding and long strings, so a
// gathered column crosses the inline and the out-of-line string forms.
var gatherStrings = []string{"", "a", "b", "ab", "a\x00", "a long string that is longer than a word or two"}

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
			b.Append(gatherStrings[i%len(gatherStrings)] + string(rune('a'+i%26)))
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
			got, ok := GatherColumn(mem, a, idx, idxNull)
			if !ok {
				t.Fatal("GatherColumn declined a string column")
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

// TestGatherFixed: the typed fixed-width and boolean gather equals
// compute.TakeArray (the oracle) for each width it takes, with NULL
// values, NULL indices and a sliced input.
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
		{arrow.FixedWidthTypes.Boolean, `[true, null, false, true, true, null, false, false, true, false]`},
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
				got, ok := GatherColumn(mem, a, idx, idxNull)
				if !ok {
					t.Fatalf("%s: GatherColumn declined", c.typ)
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
}

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
		defer ReleaseAll(cols)
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
		sel := Selection(mask, nil)
		for k := 1; k < len(sel); k++ {
			if sel[k] <= sel[k-1] {
				t.Fatalf("selection not ascending: %v", sel)
			}
		}
		got, err := GatherBatch(ctx, mem, b, sel)
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
		// The join's shape: the kept rows backwards, each twice, every
		// third one with no source row (idxNull).
		var idx []int32
		var idxNull []bool
		for k := len(sel) - 1; k >= 0; k-- {
			idx = append(idx, sel[k], sel[k])
			idxNull = append(idxNull, k%3 == 1, false)
		}
		ia := Int32Array(mem, idx, idxNull)
		defer ia.Release()
		for i, c := range b.Columns() {
			g, ok := GatherColumn(mem, c, idx, idxNull)
			if !ok {
				continue
			}
			w, err := compute.TakeArray(compute.WithAllocator(ctx, mem), c, ia)
			if err != nil {
				t.Fatal(err)
			}
			eq := array.Equal(g, w) && g.NullN() == w.NullN()
			g.Release()
			w.Release()
			if !eq {
				t.Fatalf("%s: gather with idxNull differs from TakeArray", gatherTypes[i])
			}
		}
	})
}

// TestGatherMixedColumns: Gather, the one "typed loop, else TakeArray"
// of the filter, the join and the sort, gives every column what
// compute.TakeArray gives (the oracle) when typed columns and a column
// without a loop (a list: TakeArray's, through the index array Gather
// makes once) alternate, with NULL indices (an outer join's missing
// side), repeats and a NULL value; and it appends after what out held.
func TestGatherMixedColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{10, 11, 12, 13}, []bool{true, false, true, true})
	ints := ib.NewArray()
	ib.Release()
	defer ints.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	for i := range 4 {
		if i == 2 {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for j := range i + 1 {
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(i*10 + j))
		}
	}
	lists := lb.NewArray()
	lb.Release()
	defer lists.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"w", "", "y", gatherStrings[5]}, nil)
	strs := sb.NewArray()
	sb.Release()
	defer strs.Release()

	idx := []int32{3, 0, 0, 2, 1, 3}
	idxNull := []bool{false, false, true, false, false, false}
	first := array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Int8, len(idx))
	cols := []arrow.Array{ints, lists, strs, lists}
	out, err := Gather(context.Background(), mem, cols, idx, idxNull, []arrow.Array{first})
	defer func() { ReleaseAll(out) }()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1+len(cols) || out[0] != first {
		t.Fatalf("Gather returned %d columns, want what out held and then %d", len(out), len(cols))
	}
	ia := Int32Array(mem, idx, idxNull)
	defer ia.Release()
	for i, c := range cols {
		want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), c, ia)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(out[1+i], want) {
			t.Errorf("column %d (%s): got %v, want %v", i, c.DataType(), out[1+i], want)
		}
		want.Release()
	}
}
