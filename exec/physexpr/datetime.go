package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// Date arithmetic over columns; dates and timestamps as PostgreSQL reads
// and prints them, and their valid range, are value/datetime.go's.

// DateArith is PostgreSQL's date arithmetic: date + int4 and date - int4
// are dates ("date out of range" past the valid dates), date - date is
// the int4 number of days between them. L is the date; R an int32 (for
// OpAdd and OpSub) or a date (OpSub). NULL in, NULL out.
type DateArith struct {
	Op   Op
	L, R Expr
}

func (e DateArith) String() string                                   { return infixString(e.Op, e.L, e.R) }
func (e DateArith) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e DateArith) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e DateArith) Bind(s *arrow.Schema) (Bound, error) {
	l, err := Bind(e.L, s)
	if err != nil {
		return nil, err
	}
	r, err := Bind(e.R, s)
	if err != nil {
		return nil, err
	}
	lt, rt := l.Type().ID(), r.Type().ID()
	switch {
	case lt == arrow.DATE32 && rt == arrow.DATE32 && e.Op == OpSub:
		return boundDateArith{exprOf: exprOf[DateArith]{e}, l: l, r: r, ofType: ofType{arrow.PrimitiveTypes.Int32}}, nil
	case lt == arrow.DATE32 && rt == arrow.INT32 && (e.Op == OpAdd || e.Op == OpSub):
		return boundDateArith{exprOf: exprOf[DateArith]{e}, l: l, r: r, ofType: ofType{arrow.FixedWidthTypes.Date32}}, nil
	}
	return nil, fmt.Errorf("%w: %s on %s and %s", ErrSchema, opInfo[e.Op].sym, l.Type(), r.Type())
}

type boundDateArith struct {
	exprOf[DateArith]
	l, r Bound
	ofType
}

// Eval names the value errors this node raises (evalNamed).
func (e boundDateArith) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundDateArith) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	args, err := evalBound(ctx, mem, b, e.l, e.r)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(args)
	n := int(b.NumRows())
	if e.typ.ID() == arrow.INT32 { // date - date: the difference always fits int32
		return arith(mem, e.typ, n, args, func(a, b int32) (int32, error) { return a - b, nil })
	}
	sign := int64(1)
	if e.src.Op == OpSub {
		sign = -1
	}
	return arith(mem, e.typ, n, args, func(a, b int32) (arrow.Date32, error) {
		d, err := value.DateAddDays(a, sign*int64(b))
		return arrow.Date32(d), err
	})
}
