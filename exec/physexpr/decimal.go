package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/value"
)

// Decimal arithmetic over columns. numeric(p, s) as decimal128 and its
// single-value conversions (numeric_in, numeric_out, rounding half away
// from zero, the 128-bit checked arithmetic) are value/decimal.go's.

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
		s, p = DecimalDivScale(s1, s2), value.MaxDecimalPrecision
	default:
		return 0, 0, false
	}
	if s > value.MaxDecimalPrecision {
		return 0, 0, false
	}
	return min(p, value.MaxDecimalPrecision), s, true
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
	exprOf[DecimalArith]
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
