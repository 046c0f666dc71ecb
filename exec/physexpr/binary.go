package physexpr

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// Op is a binary operator.
type Op int

const (
	OpEq Op = iota
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd // Kleene
	OpOr  // Kleene
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMod // remainder with the dividend's sign (Postgres %); x % 0 is an error
)

var opInfo = [...]struct{ sym, fn string }{
	{"=", "equal"}, {"<>", "not_equal"}, {"<", "less"}, {"<=", "less_equal"}, {">", "greater"}, {">=", "greater_equal"},
	{"AND", "and_kleene"}, {"OR", "or_kleene"},
	{"+", "add"}, {"-", "subtract"}, {"*", "multiply"}, {"/", "divide"}, {"%", "modulus"},
}

func (op Op) valid() bool { return op >= 0 && int(op) < len(opInfo) }

// Binary applies Op to L and R (operands must have the same type).
type Binary struct {
	Op   Op
	L, R Expr
}

// String renders the tree into one buffer: formatting each level from its
// operands' strings copied a left-deep chain's text once per level, which
// is quadratic in its length (a WHERE of 100,000 OR-ed terms, rendered for
// the plan a Result carries, took minutes: issue 32).
func (e Binary) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e Binary) write(b *strings.Builder) {
	if !e.Op.valid() {
		b.WriteString("?")
		return
	}
	writeInfix(b, e.Op, e.L, e.R)
}

func (e Binary) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Binary) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// Bind compiles the operator: AND and OR chains flatten into one n-ary
// node (a 2,000-term AND is one loop, not 2,000 nested ones), comparisons
// and arithmetic get their kernel for the operand type.
func (e Binary) Bind(s *arrow.Schema) (Bound, error) {
	if !e.Op.valid() {
		return nil, fmt.Errorf("%w: operator %d", ErrInvalidArgument, e.Op)
	}
	if e.Op == OpAnd || e.Op == OpOr {
		return bindLogic(e.Op, flatten(e.Op, e, nil), s)
	}
	l, err := Bind(e.L, s)
	if err != nil {
		return nil, err
	}
	r, err := Bind(e.R, s)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(l.Type(), r.Type()) {
		return nil, fmt.Errorf("%w: %s: operand types %s and %s differ (add a Cast)", ErrSchema, e, l.Type(), r.Type())
	}
	if e.Op <= OpGe {
		return bindCompare(e.Op, l, r)
	}
	bd, err := bindArith(e.Op, l, r)
	if a, ok := bd.(boundArith); ok {
		a.src = e
		return a, nil
	}
	return bd, err
}

// flatten appends the operands of a chain of op to out, left to right.
func flatten(op Op, e Expr, out []Expr) []Expr {
	if b, ok := unmemo(e).(Binary); ok && b.Op == op {
		return flatten(op, b.R, flatten(op, b.L, out))
	}
	return append(out, e)
}

// boundCompare is a comparison. A column against a constant or another
// column of the integer, date, timestamp, decimal and string types binds
// to a WordEval instead (cmp_range.go, cmp_words.go); the kernels of
// cmp_kernels.go also serve boundCompare when such a column comes from
// an expression. Floats compare as PostgreSQL orders
// them (NaN equals NaN and sorts above every number, -0 equals 0); the
// rest (two constants) use arrow's kernels, which accept scalars as they are.
type boundCompare struct {
	predicate
	op   Op
	l, r Bound
}

func bindCompare(op Op, l, r Bound) (Bound, error) {
	switch l.Type().ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.BOOL,
		arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128:
		if g, ok := asRange(op, l, r); ok {
			return g, nil
		}
		if c, ok := asCmpWords(op, l, r); ok {
			return c, nil
		}
		return boundCompare{op: op, l: l, r: r}, nil
	}
	return nil, fmt.Errorf("%w: cannot compare %s values", ErrSchema, l.Type())
}

func (e boundCompare) String() string {
	return fmt.Sprintf("%s %s %s", e.l, opInfo[e.op].sym, e.r)
}

// Eval names the value errors this node raises (evalNamed).
func (e boundCompare) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundCompare) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	args, err := evalBound(ctx, mem, b, e.l, e.r)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(args)
	if res, ok, err := compareVectorized(mem, e.op, args[0], args[1]); ok || err != nil {
		return res, err
	}
	switch e.l.Type().ID() {
	case arrow.FLOAT64:
		return compareFloat[float64](mem, e.op, int(b.NumRows()), args[0], args[1])
	case arrow.FLOAT32:
		return compareFloat[float32](mem, e.op, int(b.NumRows()), args[0], args[1])
	case arrow.BOOL: // arrow orders no booleans; PostgreSQL has false < true
		return compareBool(mem, e.op, int(b.NumRows()), args[0], args[1])
	case arrow.DECIMAL128: // one type on both sides: the values compare as integers
		return compareDecimal(mem, e.op, int(b.NumRows()), args[0], args[1])
	}
	res, err := compute.CallFunction(compute.WithAllocator(ctx, mem), opInfo[e.op].fn, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSchema, e, err)
	}
	return res, nil
}

func cmpHolds(op Op, c int) bool {
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	}
	return c >= 0
}

func compareFloat[T float32 | float64](mem memory.Allocator, op Op, n int, ld, rd compute.Datum) (compute.Datum, error) {
	l, err := operandOf[T](ld)
	if err != nil {
		return nil, err
	}
	r, err := operandOf[T](rd)
	if err != nil {
		return nil, err
	}
	n, asScalar := rowsFor(n, ld, rd)
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		if !l.valid(i) || !r.valid(i) {
			out.setNull(i)
			continue
		}
		out.set(i, cmpHolds(op, value.CompareFloat(l.at(i), r.at(i))))
	}
	return result(out.array(), asScalar)
}

func compareBool(mem memory.Allocator, op Op, n int, ld, rd compute.Datum) (compute.Datum, error) {
	n, asScalar := rowsFor(n, ld, rd)
	lv, lm, err := boolBits(ld, n)
	if err != nil {
		return nil, err
	}
	rv, rm, err := boolBits(rd, n)
	if err != nil {
		return nil, err
	}
	out := newBoolOut(mem, n)
	for i := 0; i < n; i++ {
		if lm != nil && !bitutil.BitIsSet(lm, i) || rm != nil && !bitutil.BitIsSet(rm, i) {
			out.setNull(i)
			continue
		}
		a, b := bitutil.BitIsSet(lv, i), bitutil.BitIsSet(rv, i)
		c := 0
		if a != b {
			c = 1
			if b {
				c = -1
			}
		}
		out.set(i, cmpHolds(op, c))
	}
	return result(out.array(), asScalar)
}
