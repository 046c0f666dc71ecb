package physexpr

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/value"
)

// MinMax is PostgreSQL's GREATEST(a, b, ...) and LEAST(a, b, ...): per row
// the largest (smallest) of the non-NULL arguments, NULL only when every
// argument is NULL (PostgreSQL's MinMaxExpr ignores NULLs, unlike the SQL
// standard's). Ties keep the earlier argument, as ExecEvalMinMax does
// (GREATEST(0.0, -0.0) is 0, its first); floats order as PostgreSQL's
// float8 does (NaN above everything, -0 = 0), text bytewise (the C
// collation), false below true. The arguments share one type (the
// planner casts them to their common type).
//
//	args --eval each as a column--> pick (argument, row) per row
//	     --concatenate, take--> result
//
// Every argument is evaluated for every row, as PostgreSQL evaluates them
// all, so an argument's error is raised whatever the others hold.
type MinMax struct {
	Greatest bool
	Args     []Expr
}

func (e MinMax) String() string {
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
	}
	name := "LEAST"
	if e.Greatest {
		name = "GREATEST"
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}
func (e MinMax) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e MinMax) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

func (e MinMax) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Args) == 0 {
		return nil, fmt.Errorf("%w: %s without arguments", ErrInvalidArgument, e)
	}
	bm := boundMinMax{exprOf: exprOf[MinMax]{e}}
	for _, a := range e.Args {
		v, err := Bind(a, s)
		if err != nil {
			return nil, err
		}
		if len(bm.args) == 0 {
			bm.typ = v.Type()
		} else if !arrow.TypeEqual(v.Type(), bm.typ) {
			return nil, fmt.Errorf("%w: GREATEST/LEAST arguments of types %s and %s (add a Cast)", ErrSchema, bm.typ, v.Type())
		}
		bm.args = append(bm.args, v)
	}
	if orderedCompare(bm.typ) == nil {
		return nil, fmt.Errorf("%w: GREATEST/LEAST of %s", ErrSchema, bm.typ)
	}
	return bm, nil
}

type boundMinMax struct {
	exprOf[MinMax]
	args   []Bound
	ofType // args[0]'s, kept
}

// Eval names the value errors this node raises (evalNamed).
func (e boundMinMax) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundMinMax) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	ds, err := evalBound(ctx, mem, b, e.args...)
	if err != nil {
		return nil, err
	}
	keep := -1 // the datum returned as it is, not released here
	defer func() {
		for i, d := range ds {
			if i != keep {
				d.Release()
			}
		}
	}()
	n, asScalar := rowsFor(int(b.NumRows()), ds...)
	if asScalar {
		n = 1 // every argument one value: the answer is one of them
	}
	if n == 0 || len(ds) == 1 {
		// No rows: any argument's empty column (one that is a column:
		// a scalar's empty array may lack its values buffer, which the
		// boolean kernels read).
		keep = 0
		for i, d := range ds {
			if !isScalar(d) {
				keep = i
			}
		}
		return ds[keep], nil
	}
	cols := make([]arrow.Array, len(ds))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, d := range ds {
		switch d := d.(type) {
		case *compute.ArrayDatum:
			cols[i] = d.MakeArray()
		case *compute.ScalarDatum:
			if cols[i], err = scalar.MakeArrayFromScalar(d.Value, n, mem); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
			}
		default:
			return nil, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
		}
	}
	less := orderedCompare(e.Type())
	pick := func(r int) int {
		best := -1
		for k, c := range cols {
			if c.IsNull(r) {
				continue
			}
			if best < 0 {
				best = k
				continue
			}
			c := less(c, r, cols[best], r)
			if e.src.Greatest && c > 0 || !e.src.Greatest && c < 0 {
				best = k
			}
		}
		return best
	}
	if asScalar {
		keep = max(pick(0), 0) // every argument NULL: the first, a NULL
		return ds[keep], nil
	}
	// idx[r] is row r's pick in the concatenation of the columns
	// (argument k's row r is k*n + r); NULL when every argument is NULL.
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	ib.Reserve(n)
	for r := 0; r < n; r++ {
		if best := pick(r); best < 0 {
			ib.AppendNull()
		} else {
			ib.Append(int64(best*n + r))
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	all, err := array.Concatenate(cols, mem)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	defer all.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), all, idx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	defer out.Release()
	return compute.NewDatum(out), nil
}

// orderedCompare is PostgreSQL's ordering of two non-NULL values of type
// t (row i of x against row j of y), or nil for a type without one.
func orderedCompare(t arrow.DataType) func(x arrow.Array, i int, y arrow.Array, j int) int {
	switch t.ID() {
	case arrow.INT8:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Int8).Value(i), y.(*array.Int8).Value(j))
		}
	case arrow.INT16:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Int16).Value(i), y.(*array.Int16).Value(j))
		}
	case arrow.INT32:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Int32).Value(i), y.(*array.Int32).Value(j))
		}
	case arrow.INT64:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Int64).Value(i), y.(*array.Int64).Value(j))
		}
	case arrow.UINT64:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Uint64).Value(i), y.(*array.Uint64).Value(j))
		}
	case arrow.FLOAT32:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return value.CompareFloat(x.(*array.Float32).Value(i), y.(*array.Float32).Value(j))
		}
	case arrow.FLOAT64:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return value.CompareFloat(x.(*array.Float64).Value(i), y.(*array.Float64).Value(j))
		}
	case arrow.DECIMAL128:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return x.(*array.Decimal128).Value(i).Cmp(y.(*array.Decimal128).Value(j))
		}
	case arrow.STRING:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return strings.Compare(x.(*array.String).Value(i), y.(*array.String).Value(j))
		}
	case arrow.BOOL:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			p, q := x.(*array.Boolean).Value(i), y.(*array.Boolean).Value(j)
			switch {
			case p == q:
				return 0
			case !p:
				return -1
			}
			return 1
		}
	case arrow.DATE32:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Date32).Value(i), y.(*array.Date32).Value(j))
		}
	case arrow.TIMESTAMP:
		return func(x arrow.Array, i int, y arrow.Array, j int) int {
			return cmp.Compare(x.(*array.Timestamp).Value(i), y.(*array.Timestamp).Value(j))
		}
	}
	return nil
}
