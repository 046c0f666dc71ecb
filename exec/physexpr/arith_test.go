package physexpr_test

import (
	"math"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/errkind"
)

func bin(op physexpr.Op, l, r physexpr.Expr) physexpr.Expr {
	return physexpr.Binary{Op: op, L: l, R: r}
}

// TestIntegerOverflow: bigint arithmetic raises PostgreSQL's "bigint out of
// range" instead of wrapping (int8.c: int8um, int8pl, int8mi, int8mul,
// int8div), "division by zero" for / and % by 0, and MinInt64 % -1 is 0.
// -k is planned as 0 - k.
func TestIntegerOverflow(t *testing.T) {
	cases := []evalCase{
		{"-k", i64, minI, bin(physexpr.OpSub, i64of(0), colX), nil, physexpr.ErrOutOfRange},
		{"k / -1", i64, minI, bin(physexpr.OpDiv, colX, i64of(-1)), nil, physexpr.ErrOutOfRange},
		{"2 - k", i64, minI, bin(physexpr.OpSub, i64of(2), colX), nil, physexpr.ErrOutOfRange},
		{"k - 1", i64, minI, bin(physexpr.OpSub, colX, i64of(1)), nil, physexpr.ErrOutOfRange},
		{"k + -1", i64, minI, bin(physexpr.OpAdd, colX, i64of(-1)), nil, physexpr.ErrOutOfRange},
		{"k * -1", i64, minI, bin(physexpr.OpMul, colX, i64of(-1)), nil, physexpr.ErrOutOfRange},
		{"-1 * k", i64, minI, bin(physexpr.OpMul, i64of(-1), colX), nil, physexpr.ErrOutOfRange},
		{"k * 2", i64, maxI, bin(physexpr.OpMul, colX, i64of(2)), nil, physexpr.ErrOutOfRange},
		{"max + 1", i64, maxI, bin(physexpr.OpAdd, colX, i64of(1)), nil, physexpr.ErrOutOfRange},
		{"-1 - max", i64, maxI, bin(physexpr.OpSub, i64of(-2), colX), nil, physexpr.ErrOutOfRange},
		{"3037000500^2", i64, int64(3037000500), bin(physexpr.OpMul, colX, colX), nil, physexpr.ErrOutOfRange},
		{"3037000499^2", i64, int64(3037000499), bin(physexpr.OpMul, colX, colX), int64(9223372030926249001), nil},
		{"k % -1", i64, minI, bin(physexpr.OpMod, colX, i64of(-1)), int64(0), nil},
		{"k / 1", i64, minI, bin(physexpr.OpDiv, colX, i64of(1)), minI, nil},
		{"k + max", i64, minI, bin(physexpr.OpAdd, colX, i64of(maxI)), int64(-1), nil},
		{"-1 - k", i64, minI, bin(physexpr.OpSub, i64of(-1), colX), maxI, nil},
		{"-7 / 2", i64, int64(-7), bin(physexpr.OpDiv, colX, i64of(2)), int64(-3), nil},
		{"-7 % 2", i64, int64(-7), bin(physexpr.OpMod, colX, i64of(2)), int64(-1), nil},
		{"7 % -2", i64, int64(7), bin(physexpr.OpMod, colX, i64of(-2)), int64(1), nil},
		{"k / 0", i64, int64(5), bin(physexpr.OpDiv, colX, i64of(0)), nil, physexpr.ErrDivisionByZero},
		{"k % 0", i64, int64(5), bin(physexpr.OpMod, colX, i64of(0)), nil, physexpr.ErrDivisionByZero},
		{"NULL / 0", i64, nil, bin(physexpr.OpDiv, colX, i64of(0)), nil, nil},
		{"int4 min / -1", i64, int64(math.MinInt32), bin(physexpr.OpDiv, physexpr.Cast{E: colX, To: arrow.PrimitiveTypes.Int32}, physexpr.Lit{Value: int32(-1)}), nil, physexpr.ErrOutOfRange},
		{"int4 max + 1", i64, int64(math.MaxInt32), bin(physexpr.OpAdd, physexpr.Cast{E: colX, To: arrow.PrimitiveTypes.Int32}, physexpr.Lit{Value: int32(1)}), nil, physexpr.ErrOutOfRange},
		{"int4 to int2 overflow", i64, int64(40000), physexpr.Cast{E: physexpr.Cast{E: colX, To: arrow.PrimitiveTypes.Int32}, To: arrow.PrimitiveTypes.Int16}, nil, physexpr.ErrOutOfRange},
	}
	runEvalCases(t, cases)
	// Out of range is errkind.OutOfRange for any caller.
	mem := exectestMem(t)
	_, err := evalOver(t, mem, i64, []any{minI}, bin(physexpr.OpSub, i64of(0), colX))
	if !errkindIs(err, errkind.OutOfRange) || err.Error() != "exec: value out of range: bigint out of range in 0 - x@0 (row: x = -9223372036854775808)" {
		t.Fatalf("got %v", err)
	}
}

// TestFloatArithmetic: float8 arithmetic as PostgreSQL's float.h checks it:
// a finite result turning infinite is "value out of range: overflow", a
// non-zero product or quotient turning 0 is "underflow", x / 0 is
// "division by zero" (but NaN / 0 is NaN); infinite operands are fine.
func TestFloatArithmetic(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []evalCase{
		{"1e308 * 10", f64, 1e308, bin(physexpr.OpMul, colX, f64of(10)), nil, physexpr.ErrOutOfRange},
		{"1e308 + 1e308", f64, 1e308, bin(physexpr.OpAdd, colX, colX), nil, physexpr.ErrOutOfRange},
		{"-1e308 - 1e308", f64, -1e308, bin(physexpr.OpSub, colX, f64of(1e308)), nil, physexpr.ErrOutOfRange},
		{"1e-308 * 1e-308", f64, 1e-308, bin(physexpr.OpMul, colX, colX), nil, physexpr.ErrOutOfRange},
		{"1e-308 / 1e308", f64, 1e-308, bin(physexpr.OpDiv, colX, f64of(1e308)), nil, physexpr.ErrOutOfRange},
		{"1e308 / 1e-308", f64, 1e308, bin(physexpr.OpDiv, colX, f64of(1e-308)), nil, physexpr.ErrOutOfRange},
		{"1 / 0", f64, 1.0, bin(physexpr.OpDiv, colX, f64of(0)), nil, physexpr.ErrDivisionByZero},
		{"0 / 0", f64, 0.0, bin(physexpr.OpDiv, colX, f64of(0)), nil, physexpr.ErrDivisionByZero},
		{"NaN / 0", f64, nan, bin(physexpr.OpDiv, colX, f64of(0)), nan, nil},
		{"inf + 1", f64, inf, bin(physexpr.OpAdd, colX, f64of(1)), inf, nil},
		{"inf - inf", f64, inf, bin(physexpr.OpSub, colX, colX), nan, nil},
		{"inf * 0", f64, inf, bin(physexpr.OpMul, colX, f64of(0)), nan, nil},
		{"1 / inf", f64, 1.0, bin(physexpr.OpDiv, colX, f64of(inf)), 0.0, nil},
		{"0 * -1", f64, 0.0, bin(physexpr.OpMul, colX, f64of(-1)), math.Copysign(0, -1), nil},
		{"1.5 * 2", f64, 1.5, bin(physexpr.OpMul, colX, f64of(2)), 3.0, nil},
		{"5.5 % 2", f64, 5.5, bin(physexpr.OpMod, colX, f64of(2)), 1.5, nil},
		{"5.5 % 0", f64, 5.5, bin(physexpr.OpMod, colX, f64of(0)), nil, physexpr.ErrDivisionByZero},
	}
	runEvalCases(t, cases)
}

// TestFloatCompare: floats compare as PostgreSQL orders them: NaN = NaN,
// NaN above +Infinity, -0 = 0.
func TestFloatCompare(t *testing.T) {
	nan := math.NaN()
	cases := []evalCase{
		{"NaN = NaN", f64, nan, bin(physexpr.OpEq, colX, f64of(nan)), true, nil},
		{"NaN > inf", f64, nan, bin(physexpr.OpGt, colX, f64of(math.Inf(1))), true, nil},
		{"1 < NaN", f64, 1.0, bin(physexpr.OpLt, colX, f64of(nan)), true, nil},
		{"NaN <> 1", f64, nan, bin(physexpr.OpNe, colX, f64of(1)), true, nil},
		{"-0 = 0", f64, math.Copysign(0, -1), bin(physexpr.OpEq, colX, f64of(0)), true, nil},
		{"NULL = 1", f64, nil, bin(physexpr.OpEq, colX, f64of(1)), nil, nil},
		{"NaN IN (NaN)", f64, nan, physexpr.In{E: colX, List: []physexpr.Lit{f64of(1), f64of(nan)}}, true, nil},
		{"-0 IN (0)", f64, math.Copysign(0, -1), physexpr.In{E: colX, List: []physexpr.Lit{f64of(0), f64of(2)}}, true, nil},
		{"NaN IN (1, NULL)", f64, nan, physexpr.In{E: colX, List: []physexpr.Lit{f64of(1), {Type: f64}}}, nil, nil},
	}
	runEvalCases(t, cases)
}

// TestBoolCompare: booleans order as in PostgreSQL, false < true (arrow-go
// has no ordering kernel for them).
func TestBoolCompare(t *testing.T) {
	f := physexpr.Lit{Value: false}
	runEvalCases(t, []evalCase{
		{"true > false", bln, true, bin(physexpr.OpGt, colX, f), true, nil},
		{"false < false", bln, false, bin(physexpr.OpLt, colX, f), false, nil},
		{"false <= false", bln, false, bin(physexpr.OpLe, colX, f), true, nil},
		{"true >= NULL", bln, true, bin(physexpr.OpGe, colX, physexpr.Lit{Type: bln}), nil, nil},
		{"true <> false", bln, true, bin(physexpr.OpNe, colX, f), true, nil},
	})
}
