package physexpr_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// TestCaseMaskedColumn: CASE WHEN k = 'a' THEN v END (ELSE NULL implied,
// and written) is v where k = 'a' is TRUE, NULL elsewhere (k NULL: not
// TRUE; v NULL stays NULL), over a sliced batch (non-zero offsets), for
// fixed-width, boolean and string values; the values are v's own buffer,
// not a copy (casemask.go: the selection path took every column's chosen
// rows and took them back into row order). The mirror, CASE WHEN k = 'a'
// THEN NULL ELSE v END (a grouping set's NULL fill of a key), is v where
// k = 'a' is FALSE or NULL, NULL where it is TRUE, its values shared too.
func TestCaseMaskedColumn(t *testing.T) {
	for _, c := range []struct {
		typ  arrow.DataType
		vals []any // per row: v
	}{
		{arrow.PrimitiveTypes.Int64, []any{int64(1), int64(2), nil, int64(4), int64(5), nil, int64(7)}},
		{arrow.FixedWidthTypes.Boolean, []any{true, false, nil, true, false, nil, true}},
		{arrow.BinaryTypes.String, []any{"p", "q", nil, "", "s", nil, "u"}},
	} {
		keys := []any{"a", "b", "a", nil, "a", "b", "a"}
		for _, form := range []string{"implied", "explicit", "mirror"} {
			mem := exectest.Mem(t)
			schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "v", Type: c.typ, Nullable: true}}, nil)
			// Padding rows at both ends, sliced off.
			rows := [][]any{{"a", c.vals[0]}}
			for i := range keys {
				rows = append(rows, []any{keys[i], c.vals[i]})
			}
			rows = append(rows, []any{"a", c.vals[1]})
			full, err := exectest.Batch(mem, schema, rows)
			if err != nil {
				t.Fatal(err)
			}
			b := full.NewSlice(1, int64(len(keys)+1))
			full.Release()
			e := physexpr.Case{Whens: []physexpr.When{{
				Cond: physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "k"}, R: physexpr.Lit{Value: "a"}},
				Then: physexpr.Col{Index: 1, Name: "v"}}}}
			switch form {
			case "explicit":
				e.Else = physexpr.Lit{Type: c.typ}
			case "mirror":
				e.Whens[0].Then, e.Else = physexpr.Lit{Type: c.typ}, physexpr.Col{Index: 1, Name: "v"}
			}
			bd, err := physexpr.Bind(e, schema)
			if err != nil {
				t.Fatal(err)
			}
			a, err := physexpr.EvalArray(t.Context(), mem, bd, b)
			if err != nil {
				t.Fatal(err)
			}
			if in, out := b.Column(1).Data().Buffers(), a.Data().Buffers(); out[1] != in[1] {
				t.Errorf("%s %s: the values were copied, not shared", c.typ, form)
			}
			rb := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "r", Type: a.DataType(), Nullable: true}}, nil), []arrow.Array{a}, int64(a.Len()))
			got, err := exectest.Rows(rb)
			rb.Release()
			if err != nil {
				t.Fatal(err)
			}
			wantNulls := 0
			for i, k := range keys {
				var want any
				if (k == "a") == (form != "mirror") {
					want = c.vals[i]
				}
				if want == nil {
					wantNulls++
				}
				if got[i][0] != want {
					t.Errorf("%s %s row %d: got %v, want %v", c.typ, form, i, got[i][0], want)
				}
			}
			if n := a.NullN(); n != wantNulls {
				t.Errorf("%s %s: %d nulls, want %d", c.typ, form, n, wantNulls)
			}
			a.Release()
			b.Release()
		}
	}
}
