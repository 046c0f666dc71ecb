package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// The one kernel of the character(n) and varchar(n) expressions (CharPad,
// CharCast): a string operand mapped value by value by a Go function of
// one value, NULL staying NULL, a scalar to a scalar and an array to one
// new array. The expressions differ only in the function (and in how
// much data they reserve), so they bind through bindCharMap.

// charMap is the function of one value and, optionally, the data bytes
// the output of an array needs (reserved once; nil: the builder grows).
type charMap struct {
	apply    func(string) (string, error)
	dataSize func(in *array.String) int
}

// bindCharMap binds e's string operand in over s, after e's own check of
// its arguments (valid false: ErrInvalidArgument naming e).
func bindCharMap(e Expr, in Expr, s *arrow.Schema, valid bool, m charMap) (Bound, error) {
	if !valid {
		return nil, fmt.Errorf("%w: %s", ErrInvalidArgument, e)
	}
	b, err := Bind(in, s)
	if err != nil {
		return nil, err
	}
	if b.Type().ID() != arrow.STRING {
		return nil, fmt.Errorf("%w: %s of %s", ErrSchema, e, b.Type())
	}
	return boundCharMap{exprOf: exprOf[Expr]{e}, in: b, m: m}, nil
}

type boundCharMap struct {
	exprOf[Expr]
	in Bound
	m  charMap
}

func (e boundCharMap) Type() arrow.DataType { return arrow.BinaryTypes.String }

// Eval names the value errors this node raises (evalNamed).
func (e boundCharMap) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundCharMap) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.in.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	switch d := d.(type) {
	case *compute.ScalarDatum:
		s, ok := d.Value.(*scalar.String)
		if !ok || !s.IsValid() {
			return compute.NewDatum(scalar.MakeNullScalar(arrow.BinaryTypes.String)), nil
		}
		v, err := e.m.apply(string(s.Data()))
		if err != nil {
			return nil, err
		}
		return compute.NewDatum(scalar.NewStringScalar(v)), nil
	case *compute.ArrayDatum:
		a := d.MakeArray()
		defer a.Release()
		out, err := e.mapArray(mem, a.(*array.String))
		if err != nil {
			return nil, err
		}
		defer out.Release()
		return compute.NewDatum(out), nil
	}
	return nil, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
}

// mapArray maps every value of in into one new array; the first error
// stops it (the partial builder is released).
func (e boundCharMap) mapArray(mem memory.Allocator, in *array.String) (arrow.Array, error) {
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.Reserve(in.Len())
	if e.m.dataSize != nil {
		sb.ReserveData(e.m.dataSize(in))
	}
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			sb.AppendNull()
			continue
		}
		v, err := e.m.apply(in.Value(i))
		if err != nil {
			return nil, err
		}
		sb.Append(v)
	}
	return sb.NewArray(), nil
}
