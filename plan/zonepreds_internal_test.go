package plan

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

func decLit(t *testing.T, unscaled int64, precision, scale int32) expr.Literal {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, uint64(unscaled))
	if unscaled < 0 {
		binary.LittleEndian.PutUint64(b[8:], math.MaxUint64)
	}
	l, err := expr.NewLiteral(&substraitpb.Expression_Literal_Decimal{Value: b, Precision: precision, Scale: scale}, false)
	require.NoError(t, err)
	return l
}

// TestZoneConstTypeRules: a constant becomes a zone predicate's value only
// when the engine compares it with the column exactly, in the column's
// order (unify's exact paths: integers of any width, a decimal at a scale
// the column holds, floats with floats, a date with a date); a float
// against an integer or decimal column, a decimal finer than the column,
// a date against a timestamp are not used, nor is a cast that changes
// the order.
func TestZoneConstTypeRules(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 12, Scale: 2}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	for _, c := range []struct {
		name string
		lit  expr.Expression
		col  arrow.DataType
		want any // nil: not used
	}{
		{"int32 column, int64 constant", expr.NewPrimitiveLiteral(int64(5_000_000_000), false), arrow.PrimitiveTypes.Int32, int64(5_000_000_000)},
		{"int64 column, int16 constant", expr.NewPrimitiveLiteral(int16(-3), false), arrow.PrimitiveTypes.Int64, int64(-3)},
		{"int column, float constant", expr.NewPrimitiveLiteral(2.5, false), arrow.PrimitiveTypes.Int64, nil},
		{"int column, numeric constant", decLit(t, 25, 2, 1), arrow.PrimitiveTypes.Int64, nil},
		{"decimal(12,2), numeric(2,1)", decLit(t, -25, 2, 1), dec, decimal128.FromI64(-250)},
		{"decimal(12,2), numeric(4,3)", decLit(t, 2505, 4, 3), dec, nil},
		{"decimal(12,2), integer", expr.NewPrimitiveLiteral(int32(7), false), dec, decimal128.FromI64(700)},
		{"decimal column, float constant", expr.NewPrimitiveLiteral(2.5, false), dec, nil},
		{"float4 column, float8 constant", expr.NewPrimitiveLiteral(0.1, false), arrow.PrimitiveTypes.Float32, 0.1},
		{"float8 column, int constant", expr.NewPrimitiveLiteral(int32(1), false), arrow.PrimitiveTypes.Float64, nil},
		{"date column, date constant", expr.NewPrimitiveLiteral(types.Date(19000), false), arrow.FixedWidthTypes.Date32, int64(19000)},
		{"timestamp column, date constant", expr.NewPrimitiveLiteral(types.Date(19000), false), ts, nil},
		{"text column, text constant", expr.NewPrimitiveLiteral("ab", false), arrow.BinaryTypes.String, "ab"},
		{"text column, int constant", expr.NewPrimitiveLiteral(int64(1), false), arrow.BinaryTypes.String, nil},
		{"bool column", expr.NewPrimitiveLiteral(true, false), arrow.FixedWidthTypes.Boolean, int64(1)},
		{"uint column", expr.NewPrimitiveLiteral(int64(1), false), arrow.PrimitiveTypes.Uint32, nil},
	} {
		v, null, ok := zoneConst(c.lit, c.col)
		require.False(t, null, c.name)
		if c.want == nil {
			require.False(t, ok, c.name)
			continue
		}
		require.True(t, ok, c.name)
		require.Equal(t, c.want, v, c.name)
	}
	_, null, ok := zoneConst(expr.NewNullLiteral(&types.Int64Type{Nullability: types.NullabilityNullable}), arrow.PrimitiveTypes.Int64)
	require.True(t, ok && null, "a NULL constant")

	require.True(t, orderPreservingCast(arrow.PrimitiveTypes.Int16, &types.Int64Type{}))
	require.False(t, orderPreservingCast(arrow.PrimitiveTypes.Int64, &types.Int32Type{}), "narrowing")
	require.False(t, orderPreservingCast(arrow.PrimitiveTypes.Int64, &types.Float64Type{}), "int8 to float8 rounds")
	require.False(t, orderPreservingCast(arrow.PrimitiveTypes.Int32, &types.DecimalType{Precision: 10}), "to numeric: the constant side is then numeric")
	require.True(t, orderPreservingCast(arrow.PrimitiveTypes.Float32, &types.Float64Type{}))
	require.False(t, orderPreservingCast(arrow.BinaryTypes.String, &types.StringType{}))
}
