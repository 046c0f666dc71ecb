package physexpr

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzInStrings checks IN over a string column (the raw-byte scan of a
// short list and the map probe of a long one) against SQL's definition
// evaluated row by row here: TRUE on a match, else NULL when the row or
// an item is NULL, else FALSE. The column has NULLs and is sliced at an
// offset. Input: list length, whether the list holds a NULL, row count,
// offset, then the pieces of the items and of each row.
func FuzzInStrings(f *testing.F) {
	f.Add([]byte{2, 0, 40, 3, 1, 1, 2, 1, 1, 2, 1, 1, 2, 2, 5, 1, 1, 0})
	f.Add([]byte{11, 1, 90, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5})
	f.Add([]byte{1, 1, 10, 60, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		k, listNull := int(in.next()%13)+1, in.next()&1 == 1
		n, skip := int(in.next()%150), int(in.next()%67)
		var list []Lit
		var items []string
		for range k {
			s := likeString(in, int(in.next()%3))
			list = append(list, Lit{Value: s})
			items = append(items, s)
		}
		if listNull {
			list = append(list, Lit{Type: arrow.BinaryTypes.String})
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		sb := array.NewStringBuilder(mem)
		defer sb.Release()
		var rows []*string
		for i := 0; i < n+skip+1; i++ {
			if in.next()%5 == 4 {
				sb.AppendNull()
				rows = append(rows, nil)
				continue
			}
			s := likeString(in, int(in.next()%3))
			sb.Append(s)
			rows = append(rows, &s)
		}
		whole := sb.NewArray()
		defer whole.Release()
		col := array.NewSlice(whole, int64(skip), int64(skip+n))
		defer col.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
		b := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
		defer b.Release()
		got, err := EvalArray(context.Background(), mem, mustBind(t, In{E: Col{Index: 0, Name: "s"}, List: list}, schema), b)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		gb := got.(*array.Boolean)
		for i := 0; i < n; i++ {
			r := rows[skip+i]
			hit := false
			for _, it := range items {
				hit = hit || r != nil && *r == it
			}
			null := r == nil || !hit && listNull
			if gb.IsNull(i) != null || !null && gb.Value(i) != hit || gb.IsNull(i) && gb.Value(i) {
				t.Fatalf("row %d %v IN %q (NULL item %v): got %v", i, r, items, listNull, gb.GetOneForMarshal(i))
			}
		}
	})
}

func mustBind(t *testing.T, e Expr, s *arrow.Schema) Bound {
	t.Helper()
	b, err := Bind(e, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzInInts checks IN over an integer column (the item-by-item scan of a
// short list, the map probe of a long one) against SQL's definition row
// by row, on a NULL-bearing column sliced at an offset. Input: type, list
// length, whether the list holds a NULL, row count, offset, the items,
// then a byte per row.
func FuzzInInts(f *testing.F) {
	f.Add([]byte{0, 3, 0, 70, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 11, 1, 130, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
	f.Add([]byte{2, 1, 1, 5, 9, 4, 4, 9, 4, 14})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		typ := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int8}[in.next()%3]
		k, listNull := int(in.next()%12)+1, in.next()&1 == 1
		n, skip := int(in.next()%200), int(in.next()%67)
		var list []Lit
		items := map[int64]bool{}
		for range k {
			v := int64(in.next()%9) - 4
			items[v] = true
			switch typ.ID() {
			case arrow.INT64:
				list = append(list, Lit{Value: v})
			case arrow.INT32:
				list = append(list, Lit{Value: int32(v)})
			default:
				list = append(list, Lit{Value: int8(v)})
			}
		}
		if listNull {
			list = append(list, Lit{Type: typ})
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		bd := array.NewBuilder(mem, typ)
		defer bd.Release()
		var rows []*int64
		for i := 0; i < n+skip+1; i++ {
			c := in.next()
			if c%5 == 4 {
				bd.AppendNull()
				rows = append(rows, nil)
				continue
			}
			v := int64(c/5%11) - 5
			switch bd := bd.(type) {
			case *array.Int64Builder:
				bd.Append(v)
			case *array.Int32Builder:
				bd.Append(int32(v))
			case *array.Int8Builder:
				bd.Append(int8(v))
			}
			rows = append(rows, &v)
		}
		whole := bd.NewArray()
		defer whole.Release()
		col := array.NewSlice(whole, int64(skip), int64(skip+n))
		defer col.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
		b := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
		defer b.Release()
		got, err := EvalArray(context.Background(), mem, mustBind(t, In{E: Col{Index: 0, Name: "x"}, List: list}, schema), b)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		gb := got.(*array.Boolean)
		for i := 0; i < n; i++ {
			r := rows[skip+i]
			hit := r != nil && items[*r]
			null := r == nil || !hit && listNull
			if gb.IsNull(i) != null || !null && gb.Value(i) != hit || gb.IsNull(i) && gb.Value(i) {
				t.Fatalf("%s row %d %v IN %v (NULL item %v): got %v", typ, i, r, items, listNull, gb.GetOneForMarshal(i))
			}
		}
	})
}
