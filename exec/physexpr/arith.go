package physexpr

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arithmetic follows PostgreSQL's int2/int4/int8 and float4/float8
// operators: a result that does not fit is an error ("bigint out of
// range"), never a wrapped value; x / 0 and x % 0 are "division by zero";
// a float result that overflows to ±Infinity from finite operands, or
// underflows to 0 from non-zero ones, is "value out of range". arrow-go's
// own kernels are not used: its unchecked variants wrap, and its checked
// ones do not cover MinInt64 / -1 or the float checks.

// boundArith is L op R over one numeric type.
type boundArith struct {
	op     Op
	l, r   Bound
	ofType      // l's, kept: asking l again would walk a left-deep chain
	src    Expr // the Binary bound, for its text (parenthesized as SQL)
}

func bindArith(op Op, l, r Bound) (Bound, error) {
	switch l.Type().ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64:
		return boundArith{op: op, l: l, r: r, ofType: ofType{l.Type()}}, nil
	}
	return nil, fmt.Errorf("%w: %s on %s", ErrSchema, opInfo[op].sym, l.Type())
}

func (e boundArith) String() string {
	if e.src != nil {
		return e.src.String()
	}
	return fmt.Sprintf("%s %s %s", e.l, opInfo[e.op].sym, e.r)
}

// Eval names the value errors this node raises (evalNamed).
func (e boundArith) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundArith) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	args, err := evalBound(ctx, mem, b, e.l, e.r)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(args)
	n := int(b.NumRows())
	t := e.typ
	switch t.ID() {
	case arrow.INT8:
		return arith(mem, t, n, args, intOp[int8](e.op, "tinyint", math.MinInt8))
	case arrow.INT16:
		return arith(mem, t, n, args, intOp[int16](e.op, "smallint", math.MinInt16))
	case arrow.INT32:
		return arith(mem, t, n, args, intOp[int32](e.op, "integer", math.MinInt32))
	case arrow.INT64:
		return arith(mem, t, n, args, intOp[int64](e.op, "bigint", math.MinInt64))
	case arrow.UINT64:
		return arith(mem, t, n, args, uintOp(e.op))
	case arrow.FLOAT32:
		return arith(mem, t, n, args, floatOp[float32](e.op))
	}
	return arith(mem, t, n, args, floatOp[float64](e.op))
}

// arith runs a row kernel over two operands (of types L and R) into a
// column of t (Go type T): the integer and float operators (L = R = T) and
// the date ones (date - date, date ± int4: L = R = int32) alike. NULL in,
// NULL out (the kernel never sees a NULL row, so 1/NULL is NULL, not an
// error).
func arith[L, R, T fixed](mem memory.Allocator, t arrow.DataType, n int, args []compute.Datum, f func(a L, b R) (T, error)) (compute.Datum, error) {
	l, err := operandOf[L](args[0])
	if err != nil {
		return nil, err
	}
	r, err := operandOf[R](args[1])
	if err != nil {
		return nil, err
	}
	n, asScalar := rowsFor(n, args...)
	out := newFixedOut[T](mem, t, n)
	for i := 0; i < n; i++ {
		if !l.valid(i) || !r.valid(i) {
			out.setNull(i)
			continue
		}
		v, err := f(l.at(i), r.at(i))
		if err != nil {
			out.release()
			return nil, err
		}
		out.v[i] = v
	}
	return result(out.array(), asScalar)
}

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// intOp is the checked kernel for op on a signed integer type named name
// in errors (PostgreSQL's names: smallint, integer, bigint), whose
// smallest value is lo.
func intOp[T signed](op Op, name string, lo T) func(a, b T) (T, error) {
	overflow := fmt.Errorf("%w: %s out of range", ErrOutOfRange, name)
	switch op {
	case OpAdd:
		return func(a, b T) (T, error) {
			r := a + b
			if (b > 0 && r < a) || (b < 0 && r > a) {
				return 0, overflow
			}
			return r, nil
		}
	case OpSub:
		return func(a, b T) (T, error) {
			r := a - b
			if (b > 0 && r > a) || (b < 0 && r < a) {
				return 0, overflow
			}
			return r, nil
		}
	case OpMul:
		return func(a, b T) (T, error) {
			if a == 0 || b == 0 {
				return 0, nil
			}
			r := a * b
			if (a == -1 && b == lo) || (b == -1 && a == lo) || r/b != a {
				return 0, overflow
			}
			return r, nil
		}
	case OpDiv:
		return func(a, b T) (T, error) {
			if b == 0 {
				return 0, fmt.Errorf("%w", ErrDivisionByZero)
			}
			if b == -1 && a == lo {
				return 0, overflow
			}
			return a / b, nil // truncates toward zero, as PostgreSQL
		}
	}
	return func(a, b T) (T, error) {
		if b == 0 {
			return 0, fmt.Errorf("%w", ErrDivisionByZero)
		}
		if b == -1 { // MinInt % -1 would trap; the remainder is 0
			return 0, nil
		}
		return a % b, nil
	}
}

// uintOp is the checked kernel for op on uint64 (row ids).
func uintOp(op Op) func(a, b uint64) (uint64, error) {
	overflow := fmt.Errorf("%w: uint64 out of range", ErrOutOfRange)
	return func(a, b uint64) (uint64, error) {
		switch op {
		case OpAdd:
			r, c := bits.Add64(a, b, 0)
			if c != 0 {
				return 0, overflow
			}
			return r, nil
		case OpSub:
			r, c := bits.Sub64(a, b, 0)
			if c != 0 {
				return 0, overflow
			}
			return r, nil
		case OpMul:
			hi, lo := bits.Mul64(a, b)
			if hi != 0 {
				return 0, overflow
			}
			return lo, nil
		}
		if b == 0 {
			return 0, fmt.Errorf("%w", ErrDivisionByZero)
		}
		if op == OpDiv {
			return a / b, nil
		}
		return a % b, nil
	}
}

// floatOp is PostgreSQL's float4/float8 arithmetic (float.h's
// float8_pl/mi/mul/div with their overflow and underflow checks). % has no
// PostgreSQL float operator; it is fmod with the dividend's sign.
func floatOp[T float32 | float64](op Op) func(a, b T) (T, error) {
	inf := func(x T) bool { return math.IsInf(float64(x), 0) }
	overflow := fmt.Errorf("%w: value out of range: overflow", ErrOutOfRange)
	underflow := fmt.Errorf("%w: value out of range: underflow", ErrOutOfRange)
	switch op {
	case OpAdd, OpSub:
		return func(a, b T) (T, error) {
			r := a + b
			if op == OpSub {
				r = a - b
			}
			if inf(r) && !inf(a) && !inf(b) {
				return 0, overflow
			}
			return r, nil
		}
	case OpMul:
		return func(a, b T) (T, error) {
			r := a * b
			if inf(r) && !inf(a) && !inf(b) {
				return 0, overflow
			}
			if r == 0 && a != 0 && b != 0 {
				return 0, underflow
			}
			return r, nil
		}
	case OpDiv:
		return func(a, b T) (T, error) {
			if b == 0 && !math.IsNaN(float64(a)) {
				return 0, fmt.Errorf("%w", ErrDivisionByZero)
			}
			r := a / b
			if inf(r) && !inf(a) {
				return 0, overflow
			}
			if r == 0 && a != 0 && !inf(b) {
				return 0, underflow
			}
			return r, nil
		}
	}
	return func(a, b T) (T, error) {
		if b == 0 && !math.IsNaN(float64(a)) {
			return 0, fmt.Errorf("%w", ErrDivisionByZero)
		}
		return T(math.Mod(float64(a), float64(b))), nil
	}
}
