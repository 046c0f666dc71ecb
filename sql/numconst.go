package sql

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// foldNumericConstants computes +, - and * of two decimal constants
// exactly, as PostgreSQL's numeric does (0.06 + 0.01 is 0.07, where
// double precision gives 0.06999999999999999 and a BETWEEN with it loses
// the rows at 0.07: TPC-H Q6). The result is a decimal constant again (its
// text in num), of scale max(s1, s2) for + and -, s1 + s2 for *. ok is
// false unless both operands are numeric constants and one has a
// fraction (integers fold as integers).
func (l *lowerer) foldNumericConstants(op string, lv, rv value) (value, bool) {
	if op != "+" && op != "-" && op != "*" {
		return value{}, false
	}
	a, okA := constantText(lv)
	b, okB := constantText(rv)
	if !okA || !okB || (!strings.Contains(a, ".") && !strings.Contains(b, ".")) {
		return value{}, false
	}
	x, okX := new(big.Rat).SetString(a)
	y, okY := new(big.Rat).SetString(b)
	if !okX || !okY {
		return value{}, false
	}
	sa, sb := fractionDigits(a), fractionDigits(b)
	var r *big.Rat
	scale := max(sa, sb)
	switch op {
	case "+":
		r = new(big.Rat).Add(x, y)
	case "-":
		r = new(big.Rat).Sub(x, y)
	default:
		r = new(big.Rat).Mul(x, y)
		scale = sa + sb
	}
	v, err := l.decimalConstant(r.FloatString(scale), lv.loc)
	return v, err == nil
}

// constantText is a numeric constant's exact text: a decimal constant's
// num, or an integer literal's digits.
func constantText(v value) (string, bool) {
	if v.how != typed {
		return "", false
	}
	if v.num != "" {
		return v.num, true
	}
	lit, ok := literalOf(v.e)
	if !ok {
		return "", false
	}
	switch x := lit.(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

func fractionDigits(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// maxLiteralExponent bounds the exponent of a decimal constant (1e1000):
// its plain text has that many digits.
const maxLiteralExponent = 1000

// plainDecimal writes a decimal constant as PostgreSQL's numeric_in reads
// it: without an exponent, with the scale numeric_in gives it (the
// fraction's digits less the exponent, at least 0: 1.5e2 is 150, 1.50e1
// is 15.0, 1e-3 is 0.001). ok is false for anything else (hex, '_').
func plainDecimal(s string) (string, bool) {
	mant, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil || e > maxLiteralExponent || e < -maxLiteralExponent {
			return "", false
		}
		mant, exp = s[:i], e
	}
	sign := ""
	if mant != "" && (mant[0] == '-' || mant[0] == '+') {
		if mant[0] == '-' {
			sign = "-"
		}
		mant = mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	scale := int64(len(frac)) - exp
	if scale <= 0 {
		digits += strings.Repeat("0", int(-scale))
		scale = 0
	} else if int64(len(digits)) <= scale {
		digits = strings.Repeat("0", int(scale)-len(digits)+1) + digits
	}
	whole, fraction := digits[:len(digits)-int(scale)], digits[len(digits)-int(scale):]
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	if strings.Trim(whole+fraction, "0") == "" {
		sign = "" // numeric has no negative zero
	}
	if fraction == "" {
		return sign + whole, true
	}
	return sign + whole + "." + fraction, true
}

// decimalConstant is a decimal constant (1.50, 1e3, 12345678901234567890)
// as PostgreSQL types it: numeric, exactly its digits (numeric(3, 2) for
// 1.50), so SELECT 1.50 prints 1.50 and CAST(1e3 AS bigint) is 1000. A
// constant of more than the 38 digits a numeric holds here (1e300) is
// kept as the nearest double precision, its exact text in num for the
// contexts that read it exactly (a cast to an integer type raises that
// type's range error; numericConstant).
func (l *lowerer) decimalConstant(text string, loc int32) (value, error) {
	num, ok := plainDecimal(text)
	if !ok {
		return value{}, fmt.Errorf("%w: numeric literal %s out of range%s", ErrType, text, l.src.at(loc))
	}
	if k, fits := numericConstantKind(num); fits {
		d, err := sqlvalue.ParseDecimal(num, k.N, k.S)
		if err == nil {
			return value{e: newLiteral(decLit{v: d, p: k.N, s: k.S}, false), loc: loc, num: num}, nil
		}
	}
	// Beyond double precision too (1e400), the literal is its infinity:
	// every use as a double reads num again and raises (floatConstant).
	f, _ := strconv.ParseFloat(num, 64)
	return value{e: expr.NewPrimitiveLiteral(f, false), loc: loc, num: num}, nil
}

// floatConstant converts a decimal constant to real or double precision
// as numeric_float8/numeric_float4 do, through its exact text: the
// nearest float, and out of range an error, never Inf or 0
// (CAST(1e-400 AS double precision)). ok is false when v is no decimal
// constant or k no float.
//
// A constant out of k's range is not an error here: it becomes the cast
// of its text to k (deferredCast), which raises when the constant folder
// evaluates it. PostgreSQL's numeric-to-float cast is a function call
// that eval_const_expressions folds, so it raises only where the folding
// reaches it: CASE WHEN FALSE THEN c <= 1e400 END and
// coalesce(TRUE, 1e400 >= c) do not raise (seed 20261206 cases 61484,
// 155710); SELECT 1e400 > c FROM t WHERE FALSE does (raiseConstants).
func (l *lowerer) floatConstant(v value, k kind) (expr.Expression, bool, error) {
	if v.num == "" || v.how != typed || !k.Float() {
		return nil, false, nil
	}
	bits := 64
	if k == kindF32 {
		bits = 32
	}
	f, err := sqlvalue.ParseFloat(v.num, bits)
	if err != nil {
		return deferredCast(expr.NewPrimitiveLiteral(v.num, false), k), true, nil
	}
	if k == kindF32 {
		return newLiteral(float32(f), false), true, nil
	}
	return newLiteral(f, false), true, nil
}

// numericConstantKind is numericLiteralKind of a constant's plain text,
// and whether a numeric here holds it (at most 38 digits).
func numericConstantKind(num string) (kind, bool) {
	t := strings.TrimLeft(num, "+-")
	intPart, frac, _ := strings.Cut(t, ".")
	intPart = strings.TrimLeft(intPart, "0")
	return numericLiteralKind(num), len(intPart)+len(frac) <= sqlvalue.MaxDecimalPrecision
}

// constantToInt converts a decimal constant's exact text to integer kind
// k as numeric_int4 and friends do: rounded half away from zero, and
// k's range error when it does not fit (CAST(1e300 AS integer)).
func constantToInt(num string, k kind) (int64, error) {
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("%w: invalid input syntax for type numeric: %q", sqlvalue.ErrInvalidArgument, num)
	}
	half := new(big.Rat).SetFrac64(1, 2)
	if r.Sign() < 0 {
		r.Sub(r, half)
	} else {
		r.Add(r, half)
	}
	n := new(big.Int).Quo(r.Num(), r.Denom()) // truncates toward zero
	lo, hi := intRange(k)
	if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
		return 0, fmt.Errorf("%w: %s out of range", sqlvalue.ErrOutOfRange, k)
	}
	return n.Int64(), nil
}

// deferredCast is the cast of the constant lit to k, left unfolded for
// the constant folder: a conversion the lowering cannot do (it is out of
// k's range) raises when plan.EvalConst evaluates it (raiseConstants),
// and not at all where PostgreSQL's folding drops it first (a CASE arm
// after a constant condition, a COALESCE argument after a constant).
func deferredCast(lit expr.Expression, k kind) expr.Expression {
	return &expr.Cast{Type: k.Type(false), Input: lit, FailureBehavior: types.BehaviorThrowException}
}
