package value

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// PostgreSQL's numeric(p, s) as Arrow decimal128(p, s): an integer v with
// the value v / 10^s, at most p digits, p <= 38. Conversions round half
// away from zero, as numeric does (0.125 to scale 2 is 0.13, -0.125 is
// -0.13), and a value with more than p - s integer digits is "numeric
// field overflow". Arithmetic works on exact integers (math/big), so a
// result is exact before it is rounded to its type.

// MaxDecimalPrecision is decimal128's: 38 digits.
const MaxDecimalPrecision = 38

// ErrNumericOverflow is numeric_in's "numeric field overflow": a value
// with more integer digits than its precision leaves (also ErrOutOfRange).
var ErrNumericOverflow = fmt.Errorf("%w: numeric field overflow", ErrOutOfRange)

// ErrNumericSpecial: NaN, Infinity or -Infinity as numeric. PostgreSQL's
// numeric holds them; stablerow's numeric is a decimal128, which has no
// such values, so 'NaN'::numeric is this typed refusal rather than an
// "invalid input syntax" (the input is valid) or a wrong value.
var ErrNumericSpecial = fmt.Errorf("%w: numeric NaN and Infinity (stablerow's numeric is decimal128, which has neither)", ErrUnsupported)

// numericSpecial reports whether t (trimmed) is numeric_in's spelling of
// NaN or an infinity.
func numericSpecial(t string) bool {
	switch strings.ToLower(t) {
	case "nan", "infinity", "+infinity", "-infinity", "inf", "+inf", "-inf":
		return true
	}
	return false
}

var bigTen = big.NewInt(10)

// Pow10 is 10^n as a big integer (the exact paths of the decimal kernels),
// the caller's to keep or change. Up to 2*38 digits it copies a table
// entry: big.Int's Exp per call was most of TPC-H Q11's CPU (an integer
// column cast to numeric per row, DecimalFromInt, went through here).
func Pow10(n int32) *big.Int {
	if n >= 0 && int(n) < len(pow10Big) {
		return new(big.Int).Set(pow10Big[n])
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// pow10Big is 10^n for n in [0, 2*38]: every power a product or quotient
// of two decimal128 values rescales by.
var pow10Big = func() (t [2*MaxDecimalPrecision + 1]*big.Int) {
	t[0] = big.NewInt(1)
	for n := 1; n < len(t); n++ {
		t[n] = new(big.Int).Mul(t[n-1], bigTen)
	}
	return t
}()

// beyondPrecision: |r| needs more than p digits (p >= 0).
func beyondPrecision(r *big.Int, p int32) bool {
	if int(p) < len(pow10Big) {
		return r.CmpAbs(pow10Big[p]) >= 0
	}
	return r.CmpAbs(Pow10(p)) >= 0
}

// FormatDecimal writes v (scale digits after the point) as PostgreSQL's
// numeric_out: every one of the scale digits, a leading 0 before the
// point, a '-' for negatives.
func FormatDecimal(v decimal128.Num, scale int32) string {
	return FormatBigDecimal(v.BigInt(), scale)
}

// FormatBigDecimal is FormatDecimal of an exact integer b of any size
// (a result before it is fitted to its type).
func FormatBigDecimal(b *big.Int, scale int32) string {
	neg := b.Sign() < 0
	ds := new(big.Int).Abs(b).String()
	if scale > 0 {
		if len(ds) <= int(scale) {
			ds = strings.Repeat("0", int(scale)-len(ds)+1) + ds
		}
		ds = ds[:len(ds)-int(scale)] + "." + ds[len(ds)-int(scale):]
	}
	if neg {
		return "-" + ds
	}
	return ds
}

// RoundDiv is a / 10^n rounded half away from zero.
func RoundDiv(a *big.Int, n int32) *big.Int {
	if n <= 0 {
		return new(big.Int).Mul(a, Pow10(-n))
	}
	d := Pow10(n)
	q, r := new(big.Int).QuoRem(a, d, new(big.Int))
	r.Abs(r).Mul(r, big.NewInt(2))
	if r.Cmp(d) >= 0 {
		if a.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// fitDecimal is b (at scale from) rounded to scale to and checked
// against precision p.
func fitDecimal(b *big.Int, from, to, p int32) (decimal128.Num, error) {
	r := RoundDiv(b, from-to)
	if beyondPrecision(r, p) {
		return decimal128.Num{}, ErrNumericOverflow
	}
	return decimal128.FromBigInt(r), nil
}

// ParseDecimal reads s as numeric_in does (blanks around, a sign, digits
// with an optional point, an optional exponent) and fits it to
// numeric(p, scale).
func ParseDecimal(s string, p, scale int32) (decimal128.Num, error) {
	t := strings.Trim(s, InputSpace)
	if numericSpecial(t) {
		return decimal128.Num{}, fmt.Errorf("%w: %q", ErrNumericSpecial, s)
	}
	bad := fmt.Errorf("%w: invalid input syntax for type numeric: %q", ErrInvalidArgument, s)
	mant, exp := t, int64(0)
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.ParseInt(t[i+1:], 10, 32)
		if err != nil {
			return decimal128.Num{}, bad
		}
		mant, exp = t[:i], e
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg, mant = mant[0] == '-', mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return decimal128.Num{}, bad
	}
	if exp > 1000 || exp < -1000 {
		return decimal128.Num{}, ErrNumericOverflow
	}
	b, _ := new(big.Int).SetString(digits, 10)
	if neg {
		b.Neg(b)
	}
	return fitDecimal(b, int32(len(frac))-int32(exp), scale, p)
}

// DecimalFromInt is an integer as numeric(p, scale).
func DecimalFromInt(i int64, p, scale int32) (decimal128.Num, error) {
	// One 128-bit multiply and a precision check, not big.Int: a CAST of
	// an integer column to numeric runs per row (TPC-H Q11's
	// ps_supplycost * ps_availqty).
	if scale >= 0 && scale <= MaxDecimalPrecision && p >= 1 && p <= MaxDecimalPrecision {
		r, ok := Mul128(decimal128.FromI64(i), pow10x128[scale])
		if !ok || !r.FitsInPrecision(p) {
			return decimal128.Num{}, ErrNumericOverflow
		}
		return r, nil
	}
	return fitDecimal(big.NewInt(i), 0, scale, p)
}

// DecimalFromFloat is float8 (bits 64) or float4 (bits 32) to numeric as
// PostgreSQL converts it: through its text with DBL_DIG (15) or FLT_DIG
// (6) significant digits, then numeric_in; NaN and the infinities have no
// numeric(p, s).
func DecimalFromFloat(f float64, bits int, p, scale int32) (decimal128.Num, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal128.Num{}, fmt.Errorf("%w: %s", ErrNumericSpecial, FormatFloat(f, bits))
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	return ParseDecimal(strconv.FormatFloat(f, 'e', digits-1, 64), p, scale)
}

// DecimalToInt is numeric to an integer type in [lo, hi], rounded half
// away from zero.
func DecimalToInt(v decimal128.Num, scale int32, lo, hi int64, name string) (int64, error) {
	r := RoundDiv(v.BigInt(), scale)
	if !r.IsInt64() || r.Int64() < lo || r.Int64() > hi {
		return 0, fmt.Errorf("%w: %s out of range", ErrOutOfRange, name)
	}
	return r.Int64(), nil
}

// DecimalToFloat is numeric to float8 as numeric_float8 does: the
// nearest float to the exact value (decfloat.go, without the text round
// trip numeric_float8 takes; its tests hold it to that text path).
func DecimalToFloat(v decimal128.Num, scale int32) float64 {
	return decimalFloat64(v, scale)
}

// RescaleDecimal is v from numeric(·, from) to numeric(p, to).
func RescaleDecimal(v decimal128.Num, from, p, to int32) (decimal128.Num, error) {
	// Widening the scale is exact: one 128-bit multiply and a precision
	// check, not big.Int (a CAST of a column to a wider numeric, as the
	// planner inserts to compare with an aggregate's result, runs per row).
	if to >= from && to-from <= MaxDecimalPrecision && p >= 1 && p <= MaxDecimalPrecision {
		r, ok := Mul128(v, pow10x128[to-from])
		if !ok || !r.FitsInPrecision(p) {
			return decimal128.Num{}, ErrNumericOverflow
		}
		return r, nil
	}
	return fitDecimal(v.BigInt(), from, to, p)
}

// DecimalRoundScale is the result scale of rounding to digits places.
func DecimalRoundScale(digits int32) int32 { return max(digits, 0) }
