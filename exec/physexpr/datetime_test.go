package physexpr

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

func TestDateArith(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	db := array.NewDate32Builder(mem)
	db.AppendValues([]arrow.Date32{19782, 0, value.EndDate - 1}, []bool{true, false, true})
	nb := array.NewInt32Builder(mem)
	nb.AppendValues([]int32{1, 5, 0}, nil)
	da, na := db.NewArray(), nb.NewArray()
	db.Release()
	nb.Release()
	b := array.NewRecordBatch(sc, []arrow.Array{da, na}, 3)
	da.Release()
	na.Release()
	defer b.Release()
	ctx := context.Background()
	out, err := DateArith{Op: OpAdd, L: Col{Index: 0}, R: Col{Index: 1}}.Evaluate(ctx, mem, b)
	require.NoError(t, err)
	require.Equal(t, "2024-03-01", value.FormatDate(int32(out.(*array.Date32).Value(0))), "2024-02-29 + 1")
	require.True(t, out.IsNull(1))
	out.Release()
	out, err = DateArith{Op: OpSub, L: Col{Index: 0}, R: Col{Index: 0}}.Evaluate(ctx, mem, b)
	require.NoError(t, err)
	require.Equal(t, arrow.INT32, out.DataType().ID())
	out.Release()
	_, err = DateArith{Op: OpAdd, L: Col{Index: 0}, R: Lit{Value: int32(1)}}.Evaluate(ctx, mem, b)
	require.ErrorIs(t, err, errkind.OutOfRange, "the last date + 1")
	_, err = DateArith{Op: OpMul, L: Col{Index: 0}, R: Col{Index: 1}}.Evaluate(ctx, mem, b)
	require.Error(t, err)
}

func TestCastDates(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"2024-02-29", "1999-12-31 23:59:59.5"}, nil)
	sb.AppendNull()
	s := sb.NewArray()
	sb.Release()
	defer s.Release()
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	out, err := castArray(mem, s, ts)
	require.NoError(t, err)
	back, err := castArray(mem, out, arrow.BinaryTypes.String)
	require.NoError(t, err)
	require.Equal(t, "2024-02-29 00:00:00", back.(*array.String).Value(0))
	require.Equal(t, "1999-12-31 23:59:59.5", back.(*array.String).Value(1))
	require.True(t, back.IsNull(2))
	d, err := castArray(mem, out, arrow.FixedWidthTypes.Date32)
	require.NoError(t, err)
	require.Equal(t, "1999-12-31", value.FormatDate(int32(d.(*array.Date32).Value(1))))
	out.Release()
	back.Release()
	d.Release()
	sb = array.NewStringBuilder(mem)
	sb.Append("2023-02-29")
	bad := sb.NewArray()
	sb.Release()
	defer bad.Release()
	_, err = castArray(mem, bad, arrow.FixedWidthTypes.Date32)
	require.True(t, errors.Is(err, errkind.OutOfRange), "%v", err)
	_, err = Cast{E: Lit{Value: int64(1)}, To: arrow.FixedWidthTypes.Date32}.Bind(arrow.NewSchema(nil, nil))
	require.ErrorIs(t, err, ErrSchema, "PostgreSQL has no cast from bigint to date")
}
