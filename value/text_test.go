package value

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTextMatchesPostgres: one value of each type as psql shows PostgreSQL
// 15's output of it (SELECT -42::int8, 7::int2, true, 1234567::float8,
// 0.1::float4, 12.50::numeric(4,2), '1970-01-02'::date,
// '1970-01-01 00:00:01.5'::timestamp, 'ab'::text), and a type without a
// SQL text form refused.
func TestTextMatchesPostgres(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	build := func(dt arrow.DataType, v any) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(v.(int64))
		case *array.Int16Builder:
			b.Append(v.(int16))
		case *array.BooleanBuilder:
			b.Append(v.(bool))
		case *array.Float64Builder:
			b.Append(v.(float64))
		case *array.Float32Builder:
			b.Append(v.(float32))
		case *array.Decimal128Builder:
			b.Append(v.(decimal128.Num))
		case *array.Date32Builder:
			b.Append(v.(arrow.Date32))
		case *array.TimestampBuilder:
			b.Append(v.(arrow.Timestamp))
		case *array.StringBuilder:
			b.Append(v.(string))
		case *array.BinaryBuilder:
			b.Append(v.([]byte))
		}
		return b.NewArray()
	}
	for _, c := range []struct {
		dt   arrow.DataType
		v    any
		want string
	}{
		{arrow.PrimitiveTypes.Int64, int64(-42), "-42"},
		{arrow.PrimitiveTypes.Int16, int16(7), "7"},
		{arrow.FixedWidthTypes.Boolean, true, "t"},
		{arrow.FixedWidthTypes.Boolean, false, "f"},
		{arrow.PrimitiveTypes.Float64, 1234567.0, "1234567"},
		{arrow.PrimitiveTypes.Float32, float32(0.1), "0.1"},
		{&arrow.Decimal128Type{Precision: 4, Scale: 2}, decimal128.FromI64(1250), "12.50"},
		{arrow.FixedWidthTypes.Date32, arrow.Date32(1), "1970-01-02"},
		{arrow.FixedWidthTypes.Timestamp_us, arrow.Timestamp(1500000), "1970-01-01 00:00:01.5"},
		{arrow.BinaryTypes.String, "ab", "ab"},
	} {
		a := build(c.dt, c.v)
		got, ok := Text(a, 0)
		a.Release()
		if !ok || got != c.want {
			t.Errorf("Text(%s %v) = %q, %v; want %q", c.dt, c.v, got, ok, c.want)
		}
	}
	a := build(arrow.BinaryTypes.Binary, []byte("x"))
	defer a.Release()
	if s, ok := Text(a, 0); ok {
		t.Errorf("Text(binary) = %q, want no text form", s)
	}
}
