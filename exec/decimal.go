package exec

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// PostgreSQL's numeric(p, s) as Arrow decimal128(p, s): an integer v with
// the value v / 10^s, at most p digits, p <= 38. Conversions round half
// away from zero, as numeric does (0.125 to scale 2 is 0.13, -0.125 is
// -0.13), and a value with more than p - s integer digits is "numeric
// field overflow". Arithmetic works on exact integers (math/big), so a
// result is exact before it is rounded to its type.

// MaxDecimalPrecision is decimal128's: 38 digits.
const MaxDecimalPrecision = 38

var errNumericOverflow = fmt.Errorf("%w: numeric field overflow", ErrOutOfRange)

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

func pow10(n int32) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// FormatDecimal writes v (scale digits after the point) as PostgreSQL's
// numeric_out: every one of the scale digits, a leading 0 before the
// point, a '-' for negatives.
func FormatDecimal(v decimal128.Num, scale int32) string {
	return formatBig(v.BigInt(), scale)
}

func formatBig(b *big.Int, scale int32) string {
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

// roundDiv is a / 10^n rounded half away from zero.
func roundDiv(a *big.Int, n int32) *big.Int {
	if n <= 0 {
		return new(big.Int).Mul(a, pow10(-n))
	}
	d := pow10(n)
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
	r := roundDiv(b, from-to)
	if new(big.Int).Abs(r).Cmp(pow10(p)) >= 0 {
		return decimal128.Num{}, errNumericOverflow
	}
	return decimal128.FromBigInt(r), nil
}

// ParseDecimal reads s as numeric_in does (blanks around, a sign, digits
// with an optional point, an optional exponent) and fits it to
// numeric(p, scale).
func ParseDecimal(s string, p, scale int32) (decimal128.Num, error) {
	t := strings.Trim(s, pgSpace)
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
		return decimal128.Num{}, errNumericOverflow
	}
	b, _ := new(big.Int).SetString(digits, 10)
	if neg {
		b.Neg(b)
	}
	return fitDecimal(b, int32(len(frac))-int32(exp), scale, p)
}

// DecimalFromInt is an integer as numeric(p, scale).
func DecimalFromInt(i int64, p, scale int32) (decimal128.Num, error) {
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
	r := roundDiv(v.BigInt(), scale)
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
		r, ok := mul128(v, pow10x128[to-from])
		if !ok || !r.FitsInPrecision(p) {
			return decimal128.Num{}, errNumericOverflow
		}
		return r, nil
	}
	return fitDecimal(v.BigInt(), from, to, p)
}

// DecimalResult is the decimal128 type of a op b for operands of
// precision/scale (p1, s1) and (p2, s2), as the exact result needs it:
// + and - keep the larger scale and one more integer digit, * adds the
// scales (PostgreSQL's numeric_add/mul keep every digit), % keeps the
// larger scale (numeric_mod), / has DecimalDivScale (numdiv.go: rounded
// where PostgreSQL rounds each value, then widened); precision is capped
// at 38, past which a result is "numeric field overflow".
func DecimalResult(op Op, p1, s1, p2, s2 int32) (p, s int32, ok bool) {
	switch op {
	case OpAdd, OpSub:
		s = max(s1, s2)
		p = max(p1-s1, p2-s2) + s + 1
	case OpMul:
		s = s1 + s2
		p = p1 + p2 + 1
	case OpMod:
		// numeric_mod: x - trunc(x / y) * y, scale max(s1, s2); the
		// remainder is smaller than both operands in magnitude.
		s = max(s1, s2)
		p = min(p1-s1, p2-s2) + s
	case OpDiv:
		s, p = DecimalDivScale(s1, s2), MaxDecimalPrecision
	default:
		return 0, 0, false
	}
	if s > MaxDecimalPrecision {
		return 0, 0, false
	}
	return min(p, MaxDecimalPrecision), s, true
}

// decimalColumn views a decimal datum (array or scalar) row by row.
type decimalColumn struct {
	a      *array.Decimal128
	s      decimal128.Num
	scalar bool
	null   bool
}

func decimalOf(d compute.Datum) (decimalColumn, error) {
	switch d := d.(type) {
	case *compute.ArrayDatum:
		a, ok := d.MakeArray().(*array.Decimal128)
		if !ok {
			return decimalColumn{}, fmt.Errorf("%w: %s is not decimal128", ErrSchema, d.Type())
		}
		return decimalColumn{a: a}, nil
	case *compute.ScalarDatum:
		s, ok := d.Value.(*scalar.Decimal128)
		if !ok {
			return decimalColumn{}, fmt.Errorf("%w: %s is not decimal128", ErrSchema, d.Type())
		}
		return decimalColumn{s: s.Value, scalar: true, null: !s.IsValid()}, nil
	}
	return decimalColumn{}, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
}

func (c decimalColumn) release() {
	if c.a != nil {
		c.a.Release()
	}
}
func (c decimalColumn) valid(i int) bool {
	if c.scalar {
		return !c.null
	}
	return c.a.IsValid(i)
}
func (c decimalColumn) at(i int) decimal128.Num {
	if c.scalar {
		return c.s
	}
	return c.a.Value(i)
}

// DecimalArith is numeric + - * % numeric with exact results (no
// rounding), and / rounded as numdiv.go says:
// the result type is DecimalResult's; a result wider than 38 digits is
// "numeric field overflow". The operands may differ in precision and
// scale.
type DecimalArith struct {
	Op   Op
	L, R Expr
}

func (e DecimalArith) String() string                                   { return infixString(e.Op, e.L, e.R) }
func (e DecimalArith) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e DecimalArith) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e DecimalArith) Bind(s *arrow.Schema) (Bound, error) {
	l, err := Bind(e.L, s)
	if err != nil {
		return nil, err
	}
	r, err := Bind(e.R, s)
	if err != nil {
		return nil, err
	}
	lt, lok := l.Type().(*arrow.Decimal128Type)
	rt, rok := r.Type().(*arrow.Decimal128Type)
	if !lok || !rok {
		return nil, fmt.Errorf("%w: numeric %s on %s and %s", ErrSchema, opInfo[e.Op].sym, l.Type(), r.Type())
	}
	p, sc, ok := DecimalResult(e.Op, lt.Precision, lt.Scale, rt.Precision, rt.Scale)
	if !ok {
		return nil, fmt.Errorf("%w: numeric %s", ErrSchema, opInfo[e.Op].sym)
	}
	return newBoundDecimalArith(e, l, r, lt, rt, &arrow.Decimal128Type{Precision: p, Scale: sc}), nil
}

type boundDecimalArith struct {
	src    DecimalArith
	l, r   Bound
	ls, rs int32
	typ    *arrow.Decimal128Type
	max    decimal128.Num // the largest magnitude of typ's precision
	lane   decLane        // decarith.go's kernel for these types
	kx, ky decimal128.Num // + -: 10^k aligning each operand to typ's scale
	mx, my decimal128.Num // the largest magnitude of each operand's precision
	fused  *fusedDecimal  // the whole tree in int64 (decfused.go); nil when it does not fuse
}

func (e boundDecimalArith) Type() arrow.DataType { return e.typ }
func (e boundDecimalArith) String() string       { return e.src.String() }

// Eval names the value errors this node raises (evalNamed).
func (e boundDecimalArith) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundDecimalArith) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	if e.fused != nil {
		d, ok, err := e.fused.eval(ctx, mem, b, e.typ)
		if err != nil || ok {
			return d, err
		}
	}
	args, err := evalBound(ctx, mem, b, e.l, e.r)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(args)
	l, err := decOperandOf(args[0])
	if err != nil {
		return nil, err
	}
	r, err := decOperandOf(args[1])
	if err != nil {
		return nil, err
	}
	n, asScalar := rowsFor(int(b.NumRows()), args...)
	a, err := e.kernel(mem, n, &l, &r)
	if err != nil {
		return nil, err
	}
	return result(a, asScalar)
}
