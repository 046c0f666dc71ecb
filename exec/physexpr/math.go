package physexpr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// PostgreSQL's mathematical functions over its integer and double
// precision types, with its errors: abs of the smallest integer is out of
// range (abs(-9223372036854775808) raises "bigint out of range"), mod of
// zero is division by zero, sqrt and power refuse the arguments their
// results would be complex or undefined for, and power's overflow and
// underflow raise as float8 arithmetic does. round(double precision) is
// rint, half to even (round(2.5) is 2); floor/ceil/round keep the sign
// of zero (round(-0.4) is -0), as PostgreSQL prints them.

func init() {
	register("abs", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if len(ts) != 1 {
			return nil, nil, fmt.Errorf("%d arguments, want 1", len(ts))
		}
		t := ts[0]
		switch t.ID() {
		case arrow.INT8:
			return t, absInt[int8](t), nil
		case arrow.INT16:
			return t, absInt[int16](t), nil
		case arrow.INT32:
			return t, absInt[int32](t), nil
		case arrow.INT64:
			return t, absInt[int64](t), nil
		case arrow.FLOAT64:
			return t, floatMap(math.Abs), nil
		case arrow.FLOAT32: // PostgreSQL's float4abs: abs(real) is real
			return t, fixedRows(t, func(a []arg, i int) (float32, error) { return float32(math.Abs(a[0].f(i))), nil }), nil
		case arrow.DECIMAL128: // numeric_abs: the same precision and scale
			return t, decimalRows(t.(*arrow.Decimal128Type), func(a []arg, i int) (decimal128.Num, error) { return a[0].d(i).Abs(), nil }), nil
		}
		return nil, nil, fmt.Errorf("argument 1 has type %s", t)
	})
	register("round", floatFn(math.RoundToEven))
	register("floor", floatFn(math.Floor))
	register("ceil", floatFn(math.Ceil))
	register("trunc", floatFn(math.Trunc)) // dtrunc: toward zero, keeps -0 (trunc(-0.5) is -0)
	register("sqrt", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isF64); err != nil {
			return nil, nil, err
		}
		return tFloat64, fixedRows(tFloat64, func(a []arg, i int) (float64, error) { return sqrt(a[0].f(i)) }), nil
	})
	register("power", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isF64, isF64); err != nil {
			return nil, nil, err
		}
		return tFloat64, fixedRows(tFloat64, func(a []arg, i int) (float64, error) { return power(a[0].f(i), a[1].f(i)) }), nil
	})
	// mod(x, y) of integers is x % y: the remainder takes the dividend's
	// sign (mod(-7, 3) is -1) and mod(x, 0) is division by zero.
	register("mod", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if len(ts) != 2 || !arrow.TypeEqual(ts[0], ts[1]) {
			return nil, nil, fmt.Errorf("want two integers of one type")
		}
		t := ts[0]
		switch t.ID() {
		case arrow.INT8:
			return t, modInt(t, intOp[int8](OpMod, "tinyint", math.MinInt8)), nil
		case arrow.INT16:
			return t, modInt(t, intOp[int16](OpMod, "smallint", math.MinInt16)), nil
		case arrow.INT32:
			return t, modInt(t, intOp[int32](OpMod, "integer", math.MinInt32)), nil
		case arrow.INT64:
			return t, modInt(t, intOp[int64](OpMod, "bigint", math.MinInt64)), nil
		}
		return nil, nil, fmt.Errorf("argument 1 has type %s", t)
	})
}

func isF64(t arrow.DataType) bool { return t.ID() == arrow.FLOAT64 }

func floatMap(f func(float64) float64) kernel {
	return fixedRows(tFloat64, func(a []arg, i int) (float64, error) { return f(a[0].f(i)), nil })
}

// floatFn is a double precision -> double precision function.
func floatFn(f func(float64) float64) funcDef {
	return func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isF64); err != nil {
			return nil, nil, err
		}
		return tFloat64, floatMap(f), nil
	}
}

func absInt[T signed](t arrow.DataType) kernel {
	lo := T(int64(math.MinInt64) >> (64 - 8*t.(arrow.FixedWidthDataType).Bytes()))
	overflow := fmt.Errorf("%w: %s out of range", ErrOutOfRange, pgTypeName(t))
	return fixedRows(t, func(a []arg, i int) (T, error) {
		v := T(a[0].i(i))
		switch {
		case v == lo:
			return 0, overflow
		case v < 0:
			return -v, nil
		}
		return v, nil
	})
}

func modInt[T signed](t arrow.DataType, op func(a, b T) (T, error)) kernel {
	return fixedRows(t, func(a []arg, i int) (T, error) { return op(T(a[0].i(i)), T(a[1].i(i))) })
}

// sqrt is PostgreSQL's dsqrt.
func sqrt(x float64) (float64, error) {
	if x < 0 {
		return 0, &fnError{fn: "sqrt", msg: "cannot take square root of a negative number", kind: ErrPowerArgument}
	}
	return math.Sqrt(x), nil
}

// power is PostgreSQL's dpow: NaN and infinity rules first (1^NaN and
// NaN^0 are 1), then the domain errors, then pow with float8's overflow
// and underflow errors.
func power(x, y float64) (float64, error) {
	switch {
	case math.IsNaN(x):
		if math.IsNaN(y) || y != 0 {
			return math.NaN(), nil
		}
		return 1, nil
	case math.IsNaN(y):
		if x != 1 {
			return math.NaN(), nil
		}
		return 1, nil
	case x == 0 && y < 0:
		return 0, fmt.Errorf("%w: zero raised to a negative power is undefined", ErrPowerArgument)
	case x < 0 && math.Floor(y) != y:
		return 0, fmt.Errorf("%w: a negative number raised to a non-integer power yields a complex result", ErrPowerArgument)
	case math.IsInf(y, 0):
		ax := math.Abs(x)
		switch {
		case ax == 1:
			return 1, nil
		case (ax > 1) == (y > 0):
			return math.Inf(1), nil
		}
		return 0, nil
	case math.IsInf(x, 0):
		if y == 0 {
			return 1, nil
		}
		if x > 0 {
			if y > 0 {
				return x, nil
			}
			return 0, nil
		}
		odd := math.Floor(y/2) != y/2
		if y > 0 {
			if odd {
				return x, nil
			}
			return -x, nil
		}
		if odd {
			return math.Copysign(0, -1), nil
		}
		return 0, nil
	}
	if x == 0 {
		return math.Pow(x, y), nil // ±0 for y > 0, 1 for y = 0: exact
	}
	r := pow(x, y)
	if math.IsInf(r, 0) {
		return 0, fmt.Errorf("%w: value out of range: overflow", ErrOutOfRange)
	}
	if r == 0 && x != 0 {
		return 0, fmt.Errorf("%w: value out of range: underflow", ErrOutOfRange)
	}
	return r, nil
}
