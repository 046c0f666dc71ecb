package physexpr_test

import (
	"math"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
)

func cast(e physexpr.Expr, to arrow.DataType) physexpr.Expr { return physexpr.Cast{E: e, To: to} }

var (
	str = arrow.BinaryTypes.String
	i32 = arrow.PrimitiveTypes.Int32
	f32 = arrow.PrimitiveTypes.Float32
	bln = arrow.FixedWidthTypes.Boolean
)

// TestCastFollowsPostgres: casts as PostgreSQL performs them. The expected
// values are PostgreSQL's own: float8out for text (1234567 and 1e+15,
// float.c), rint() for float to bigint (regression test float8.sql,
// "check rounding when casting from float": -2.5 -> -2, -1.5 -> -2,
// -0.5 -> 0, 0.5 -> 0, 1.5 -> 2, 2.5 -> 2; the docs, §8.1.2: "the real and
// double precision types round ties to the nearest even number"), i8tod's
// round-to-nearest for bigint to double, int8in/float8in/boolin for text.
func TestCastFollowsPostgres(t *testing.T) {
	cases := []evalCase{
		{"1234567.0::text", f64, 1234567.0, cast(colX, str), "1234567", nil},
		{"1e15::text", f64, 1e15, cast(colX, str), "1e+15", nil},
		{"0.1::text", f64, 0.1, cast(colX, str), "0.1", nil},
		{"-0::text", f64, math.Copysign(0, -1), cast(colX, str), "-0", nil},
		{"NaN::text", f64, math.NaN(), cast(colX, str), "NaN", nil},
		{"-inf::text", f64, math.Inf(-1), cast(colX, str), "-Infinity", nil},
		{"float4 0.1::text", f64, 0.1, cast(cast(colX, f32), str), "0.1", nil},
		{"bigint::text", i64, minI, cast(colX, str), "-9223372036854775808", nil},
		{"bool::text", bln, true, cast(colX, str), "true", nil},
		{"2^53+1::float8", i64, int64(1<<53 + 1), cast(colX, f64), float64(1 << 53), nil},
		{"max::float8", i64, maxI, cast(colX, f64), 9223372036854775807.0, nil},
		{"2.5::bigint", f64, 2.5, cast(colX, i64), int64(2), nil},
		{"1.5::bigint", f64, 1.5, cast(colX, i64), int64(2), nil},
		{"0.5::bigint", f64, 0.5, cast(colX, i64), int64(0), nil},
		{"-0.5::bigint", f64, -0.5, cast(colX, i64), int64(0), nil},
		{"-1.5::bigint", f64, -1.5, cast(colX, i64), int64(-2), nil},
		{"-2.5::bigint", f64, -2.5, cast(colX, i64), int64(-2), nil},
		{"2.6::bigint", f64, 2.6, cast(colX, i64), int64(3), nil},
		{"-2^63::bigint", f64, -9223372036854775808.0, cast(colX, i64), minI, nil},
		{"2^63::bigint", f64, 9223372036854775808.0, cast(colX, i64), nil, physexpr.ErrOutOfRange},
		{"NaN::bigint", f64, math.NaN(), cast(colX, i64), nil, physexpr.ErrOutOfRange},
		{"inf::bigint", f64, math.Inf(1), cast(colX, i64), nil, physexpr.ErrOutOfRange},
		{"2147483647.5::int4", f64, 2147483647.5, cast(colX, i32), nil, physexpr.ErrOutOfRange},
		{"1e39::float4", f64, 1e39, cast(colX, f32), nil, physexpr.ErrOutOfRange},
		{"1e-50::float4", f64, 1e-50, cast(colX, f32), nil, physexpr.ErrOutOfRange},
		{"' 42 '::bigint", str, " 42\n", cast(colX, i64), int64(42), nil},
		{"'+7'::bigint", str, "+7", cast(colX, i64), int64(7), nil},
		{"'abc'::bigint", str, "abc", cast(colX, i64), nil, physexpr.ErrInvalidArgument},
		{"''::bigint", str, "", cast(colX, i64), nil, physexpr.ErrInvalidArgument},
		{"'1.5'::bigint", str, "1.5", cast(colX, i64), nil, physexpr.ErrInvalidArgument},
		{"'9223372036854775808'::bigint", str, "9223372036854775808", cast(colX, i64), nil, physexpr.ErrOutOfRange},
		{"'-9223372036854775808'::bigint", str, "-9223372036854775808", cast(colX, i64), minI, nil},
		{"'99999'::int4->int2", str, "99999", cast(colX, arrow.PrimitiveTypes.Int16), nil, physexpr.ErrOutOfRange},
		{"' NaN'::float8", str, " NaN", cast(colX, f64), math.NaN(), nil},
		{"'-Infinity'::float8", str, "-Infinity", cast(colX, f64), math.Inf(-1), nil},
		{"'1e400'::float8", str, "1e400", cast(colX, f64), nil, physexpr.ErrOutOfRange},
		{"'1e-400'::float8", str, "1e-400", cast(colX, f64), nil, physexpr.ErrOutOfRange},
		{"'0e-400'::float8", str, "0e-400", cast(colX, f64), 0.0, nil},
		{"'x1'::float8", str, "x1", cast(colX, f64), nil, physexpr.ErrInvalidArgument},
		{"'yes'::bool", str, "yes", cast(colX, bln), true, nil},
		{"' f '::bool", str, " f ", cast(colX, bln), false, nil},
		{"'of'::bool", str, "of", cast(colX, bln), false, nil},
		{"'o'::bool", str, "o", cast(colX, bln), nil, physexpr.ErrInvalidArgument},
		{"5::bool", i64, int64(5), cast(colX, bln), true, nil},
		{"NULL::text", f64, nil, cast(colX, str), nil, nil},
		{"bool::float8", bln, true, cast(colX, f64), nil, physexpr.ErrSchema},
	}
	runEvalCases(t, cases)
}
