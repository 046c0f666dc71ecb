package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Expr is a scalar expression: an immutable plan-side tree. Operators do
// not evaluate it directly; they Bind it to their input schema once and
// evaluate the Bound per batch (bind.go).
//
// Evaluate is the one-shot form kept for callers outside the operators: it
// binds against the batch's schema and returns a new array of
// batch.NumRows() the caller must Release. DataType binds too, so both
// cost time linear in the expression's size.
type Expr interface {
	Evaluate(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error)
	DataType(schema *arrow.Schema) (arrow.DataType, error)
	String() string
}

// dataType is Expr.DataType for this package's expressions.
func dataType(e Binder, s *arrow.Schema) (arrow.DataType, error) {
	b, err := e.Bind(s)
	if err != nil {
		return nil, err
	}
	return b.Type(), nil
}

// Col references column Index (Name is for display).
type Col struct {
	Index int
	Name  string
}

func (c Col) String() string                                   { return fmt.Sprintf("%s@%d", c.Name, c.Index) }
func (c Col) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(c, s) }
func (c Col) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, c, b)
}
func (c Col) Bind(s *arrow.Schema) (Bound, error) {
	if c.Index < 0 || c.Index >= s.NumFields() {
		return nil, fmt.Errorf("%w: column %d out of range", ErrInvalidArgument, c.Index)
	}
	return boundCol{exprOf[Col]{c}, ofType{s.Field(c.Index).Type}}, nil
}

// Lit is a literal; Value is a Go value accepted by scalar.MakeScalar (nil:
// typed NULL of Type). It evaluates to a scalar: however long a string
// literal is, it is never copied once per row.
type Lit struct {
	Value any
	Type  arrow.DataType // required when Value is nil
}

func (l Lit) scalar() (scalar.Scalar, error) {
	if l.Value == nil {
		if l.Type == nil {
			return nil, fmt.Errorf("%w: NULL literal without type", ErrInvalidArgument)
		}
		return scalar.MakeNullScalar(l.Type), nil
	}
	var s scalar.Scalar
	switch v := l.Value.(type) {
	case decimal128.Num:
		// Values whose Go type does not say the Arrow type in full
		// (MakeScalar knows no decimal; a timestamp needs its unit).
		if l.Type == nil {
			return nil, fmt.Errorf("%w: decimal literal without type", ErrInvalidArgument)
		}
		s = scalar.NewDecimal128Scalar(v, l.Type)
	default:
		s = scalar.MakeScalar(l.Value)
		if l.Type != nil && s != nil && !arrow.TypeEqual(s.DataType(), l.Type) {
			ps, err := scalar.MakeScalarParam(l.Value, l.Type)
			if err != nil {
				return nil, fmt.Errorf("%w: literal %v of type %s: %w", ErrInvalidArgument, l.Value, l.Type, err)
			}
			s = ps
		}
	}
	if s == nil || s.DataType().ID() == arrow.NULL {
		return nil, fmt.Errorf("%w: literal of type %T", ErrInvalidArgument, l.Value)
	}
	return s, nil
}
func (l Lit) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(l, s) }
func (l Lit) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, l, b)
}
func (l Lit) Bind(*arrow.Schema) (Bound, error) {
	s, err := l.scalar()
	if err != nil {
		return nil, err
	}
	return boundLit{exprOf: exprOf[Lit]{l}, s: s}, nil
}
