package physexpr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/arrowtest"
	"github.com/stablerow/stablerow/value"
)

// TestWidenDecimal: CAST of a numeric(7,2) column to numeric(12,2) is the
// column's own value buffer under the new type (a new buffer filled row
// by row through a builder before), and to numeric(38,21) each value
// scaled; both equal RescaleDecimal's value on every valid row, of a
// sliced column with NULLs (garbage under them raises nothing). A value
// past the new precision still raises "numeric field overflow".
func TestWidenDecimal(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	from := &arrow.Decimal128Type{Precision: 7, Scale: 2}
	vals := make([]decimal128.Num, 300)
	valid := make([]bool, len(vals))
	for i := range vals {
		vals[i] = decimal128.FromI64(int64(i*7919%19999999 - 9999999))
		valid[i] = i%7 != 3
	}
	vals[3] = decimal128.FromI64(1e18) // under a NULL: never checked
	whole := arrowtest.DecimalArray(mem, from, vals, valid)
	defer whole.Release()
	col := array.NewSlice(whole, 2, 290)
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: from, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	for _, to := range []*arrow.Decimal128Type{{Precision: 12, Scale: 2}, {Precision: 38, Scale: 21}, {Precision: 9, Scale: 4}} {
		out, err := Cast{E: Col{Index: 0}, To: to}.Evaluate(t.Context(), mem, rec)
		require.NoError(t, err, to)
		d := out.(*array.Decimal128)
		require.True(t, arrow.TypeEqual(to, d.DataType()))
		require.Equal(t, col.Len(), d.Len())
		in := col.(*array.Decimal128)
		for i := range d.Len() {
			require.Equal(t, in.IsNull(i), d.IsNull(i), "row %d", i)
			if in.IsNull(i) {
				continue
			}
			want, err := value.RescaleDecimal(in.Value(i), from.Scale, to.Precision, to.Scale)
			require.NoError(t, err)
			require.Equal(t, want, d.Value(i), "%s row %d", to, i)
		}
		if to.Scale == from.Scale {
			require.Same(t, &col.Data().Buffers()[1].Bytes()[0], &d.Data().Buffers()[1].Bytes()[0], "the same scale shares the value buffer")
		}
		out.Release()
	}
	// 99999.99 does not fit numeric(6,2).
	_, err := Cast{E: Col{Index: 0}, To: &arrow.Decimal128Type{Precision: 6, Scale: 2}}.Evaluate(t.Context(), mem, rec)
	require.ErrorIs(t, err, value.ErrNumericOverflow)
}
