package physexpr

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Bound is an expression compiled against one input schema. Binding walks
// the tree once: it resolves every type, checks operands, picks each
// node's kernel, turns literals into scalars, builds IN's hash set and
// flattens AND/OR chains. Evaluating a Bound then costs time linear in the
// expression's size per batch, with nothing re-derived.
//
//	Expr (plan node, immutable) --Bind(schema)--> Bound --Eval(batch)--> Datum
//
// Bound values are immutable and safe for concurrent use: operators bind
// at construction and share the result between streams.
type Bound interface {
	// Type is the Arrow type of the result.
	Type() arrow.DataType
	// Eval evaluates over b. The result is an array datum of b.NumRows()
	// rows, or a scalar datum that stands for every row (a literal is
	// never copied once per row). The caller releases it.
	Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error)
	String() string
}

// Binder is an Expr that compiles itself. Bind uses it when present; an
// Expr from another package without it is bound as an opaque node that
// calls its Evaluate per batch.
type Binder interface {
	Bind(schema *arrow.Schema) (Bound, error)
}

// ScalarExpr is an Expr whose value is the same for every row and known
// only when the query runs (a bound parameter). Bind keeps it a scalar.
type ScalarExpr interface {
	Expr
	EvalScalar(ctx context.Context) (scalar.Scalar, error)
}

// Bind compiles e against schema.
func Bind(e Expr, schema *arrow.Schema) (Bound, error) {
	if e == nil {
		return nil, fmt.Errorf("%w: missing expression", ErrInvalidArgument)
	}
	if b, ok := e.(Binder); ok {
		return b.Bind(schema)
	}
	t, err := e.DataType(schema)
	if err != nil {
		return nil, err
	}
	if s, ok := e.(ScalarExpr); ok {
		return boundParam{exprOf[ScalarExpr]{s}, ofType{t}}, nil
	}
	return boundForeign{exprOf[Expr]{e}, ofType{t}}, nil
}

// evaluate is Expr.Evaluate for this package's expressions: bind against
// the batch's schema and materialize the result as a column. Operators
// bind once instead; this keeps the one-shot API for other callers.
func evaluate(ctx context.Context, mem memory.Allocator, e Binder, b arrow.RecordBatch) (arrow.Array, error) {
	bd, err := e.Bind(b.Schema())
	if err != nil {
		return nil, err
	}
	return EvalArray(ctx, mem, bd, b)
}

// EvalArray evaluates bd over b as a column of b.NumRows() rows, the form
// an output column needs: a scalar result is broadcast here, once.
func EvalArray(ctx context.Context, mem memory.Allocator, bd Bound, b arrow.RecordBatch) (arrow.Array, error) {
	d, err := bd.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return materialize(d, int(b.NumRows()), mem)
}

// materialize turns a datum into an array of n rows.
func materialize(d compute.Datum, n int, mem memory.Allocator) (arrow.Array, error) {
	switch d := d.(type) {
	case *compute.ArrayDatum:
		return d.MakeArray(), nil
	case *compute.ScalarDatum:
		if s, ok := d.Value.(*scalar.String); ok && s.IsValid() && s.Value != nil &&
			int64(s.Value.Len())*int64(n) > math.MaxInt32 {
			// Arrow strings have 32-bit offsets: such a column cannot exist.
			return nil, fmt.Errorf("%w: %d copies of a %d-byte string exceed a column's 2 GiB", ErrOutOfRange, n, s.Value.Len())
		}
		a, err := scalar.MakeArrayFromScalar(d.Value, n, mem)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		return a, nil
	}
	return nil, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
}

// boundCol is a column of the input.
type boundCol struct {
	exprOf[Col]
	ofType
}

func (e boundCol) Eval(_ context.Context, _ memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	if e.src.Index >= int(b.NumCols()) || !arrow.TypeEqual(b.Column(e.src.Index).DataType(), e.typ) {
		return nil, fmt.Errorf("%w: %s: batch does not match the bound schema", ErrSchema, e.src)
	}
	return compute.NewDatum(b.Column(e.src.Index)), nil
}

// boundLit is a literal, a scalar made once at bind time.
type boundLit struct {
	exprOf[Lit]
	s scalar.Scalar
}

func (e boundLit) Type() arrow.DataType { return e.s.DataType() }
func (e boundLit) Eval(context.Context, memory.Allocator, arrow.RecordBatch) (compute.Datum, error) {
	return compute.NewDatumWithoutOwning(e.s), nil
}

// boundParam is a ScalarExpr, read per batch (its value comes with the
// query's context) and kept a scalar.
type boundParam struct {
	exprOf[ScalarExpr]
	ofType
}

func (e boundParam) Eval(ctx context.Context, _ memory.Allocator, _ arrow.RecordBatch) (compute.Datum, error) {
	s, err := e.src.EvalScalar(ctx)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(s.DataType(), e.typ) {
		return nil, fmt.Errorf("%w: %s is %s, bound as %s", ErrSchema, e.src, s.DataType(), e.typ)
	}
	return compute.NewDatum(s), nil
}

// boundForeign is an Expr of another package that does not bind itself:
// its Evaluate runs per batch.
type boundForeign struct {
	exprOf[Expr]
	ofType
}

func (e boundForeign) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	a, err := e.src.Evaluate(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if !arrow.TypeEqual(a.DataType(), e.typ) || a.Len() != int(b.NumRows()) {
		return nil, fmt.Errorf("%w: %s returned %d rows of %s, want %d of %s", ErrSchema, e.src, a.Len(), a.DataType(), b.NumRows(), e.typ)
	}
	return compute.NewDatum(a), nil
}

// evalBound evaluates bs in order, releasing what was made on error.
func evalBound(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, bs ...Bound) ([]compute.Datum, error) {
	out := make([]compute.Datum, 0, len(bs))
	for _, e := range bs {
		d, err := e.Eval(ctx, mem, b)
		if err != nil {
			releaseDatums(out)
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func releaseDatums(ds []compute.Datum) {
	for _, d := range ds {
		d.Release()
	}
}

func ReleaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// exprOf is a bound node's String, embedded in each Bound type: a bound
// node prints as the Expr it was bound from, so EXPLAIN and a row's error
// name the plan's expression (exprerror.go), and keeps that Expr (src) for
// the fields its kernels read (a Cast's To, a Func's name).
type exprOf[E fmt.Stringer] struct{ src E }

func (e exprOf[E]) String() string { return e.src.String() }

// ofType is a bound node's Type where the type was settled at Bind and is
// kept, embedded beside exprOf: the field typ (kernels read e.typ) and
// the one Type method.
type ofType struct{ typ arrow.DataType }

func (t ofType) Type() arrow.DataType { return t.typ }

// predicate is the Type of a bound node whose result is always boolean (a
// comparison, IN, LIKE, AND/OR/NOT, IS DISTINCT FROM), embedded so each
// says so by what it holds rather than by a method of its own.
type predicate struct{}

func (predicate) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }
