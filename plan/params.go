package plan

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/exec"
)

// paramUse records how the plan uses one dynamic parameter.
type paramUse struct {
	scalar arrow.DataType // type of a scalar use (nil: none)
	list   arrow.DataType // element type of an unnest use (nil: none): int64 or string
}

// paramsKey carries the bound parameters in the context of Next: physexpr.Expr
// gets no TaskContext, so a scalar parameter reads them from there.
type paramsKey struct{}

// paramExpr is a scalar dynamic parameter ($k), evaluated to a column of the
// bound value.
type paramExpr struct {
	ref int
	typ arrow.DataType
}

func (e paramExpr) String() string                                 { return fmt.Sprintf("$%d", e.ref) }
func (e paramExpr) DataType(*arrow.Schema) (arrow.DataType, error) { return e.typ, nil }
func (e paramExpr) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	s, err := e.EvalScalar(ctx)
	if err != nil {
		return nil, err
	}
	return scalar.MakeArrayFromScalar(s, int(b.NumRows()), mem)
}

// EvalScalar makes paramExpr an physexpr.ScalarExpr: bound into an operator's
// expression it stays one scalar per batch, never a column of copies.
func (e paramExpr) EvalScalar(ctx context.Context) (scalar.Scalar, error) {
	params, _ := ctx.Value(paramsKey{}).(map[int]any)
	v, ok := params[e.ref]
	if !ok {
		return nil, fmt.Errorf("plan: $%d: %w", e.ref, ErrMissingParam)
	}
	return paramScalar(e.ref, v, e.typ)
}

// paramScalar converts a bound Go value to a scalar of type t.
func paramScalar(ref int, v any, t arrow.DataType) (scalar.Scalar, error) {
	if v == nil {
		return scalar.MakeNullScalar(t), nil
	}
	if x, ok := v.(TextParam); ok {
		return textScalar(x, t)
	}
	lit := v
	if x, ok := v.(*int64); ok {
		if x == nil {
			return scalar.MakeNullScalar(t), nil
		}
		lit = *x
	} else if x, ok, err := bigint(ref, v); err != nil {
		return nil, err
	} else if ok {
		lit = x
	}
	if _, bytes := lit.([]byte); !bytes && (reflect.ValueOf(lit).Kind() == reflect.Slice || reflect.ValueOf(lit).Kind() == reflect.Array) {
		rv := reflect.ValueOf(lit)
		return nil, fmt.Errorf("plan: $%d is a list of %d values (%T), want one %s: %w", ref, rv.Len(), v, t, ErrParamType)
	}
	if c, ok := convertLiteral(lit, t); ok {
		lit = c
	}
	var s scalar.Scalar
	if d, ok := lit.(DecimalParam); ok && t.ID() == arrow.DECIMAL128 {
		n, err := d.fit(t.(*arrow.Decimal128Type))
		if err != nil {
			return nil, fmt.Errorf("plan: $%d: %w: %w", ref, ErrParamType, err)
		}
		s = scalar.NewDecimal128Scalar(n, t)
	} else if d, ok := lit.(decimal128.Num); ok && t.ID() == arrow.DECIMAL128 {
		s = scalar.NewDecimal128Scalar(d, t) // MakeScalar would type it decimal(38, 0)
	} else if ts, ok := lit.(arrow.Timestamp); ok && t.ID() == arrow.TIMESTAMP {
		// Microseconds, as bound (engine.ParamsFromArrow) or converted from
		// a date; MakeScalar has no unit to give it.
		s = scalar.NewTimestampScalar(ts, t)
	} else {
		s = makeScalar(lit)
	}
	if s == nil || !arrow.TypeEqual(s.DataType(), t) {
		return nil, fmt.Errorf("plan: $%d is %T, want %s: %w", ref, v, t, ErrParamType)
	}
	return s, nil
}

// makeScalar is scalar.MakeScalar, which panics on Go types it does not
// know (a struct, a map, a list); those give nil.
func makeScalar(v any) (s scalar.Scalar) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	return scalar.MakeScalar(v)
}

// ParamError is a bound parameter that does not fit the plan (missing, or
// of the wrong shape or type); Ref is its anchor, so a caller that knows
// the parameter's name (the SQL front end's :name) can say which one.
// errors.Is matches ErrMissingParam or ErrParamType through it.
type ParamError struct {
	Ref int
	Err error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// unnestList normalises a bound unnest list to what the planned
// UnnestExec of element type t takes: []int64 or []*int64 for int64 (any
// Go integer list, through bigints, the one conversion of integers from
// outside), []string or []*string for text. A streamed list
// (exec.ListSource) goes to the UnnestExec as it is, its values of type t.
func unnestList(ref int, v any, t arrow.DataType) (any, error) {
	if x, ok := v.(TextParam); ok {
		return textList(ref, x, t)
	}
	if src, ok := v.(exec.ListSource); ok {
		if et := src.ElemType(); !arrow.TypeEqual(et, t) {
			return nil, fmt.Errorf("plan: unnest $%d is a stream of %s, want a list of %s: %w", ref, et, t, ErrParamType)
		}
		return src, nil
	}
	if t.ID() == arrow.STRING {
		switch l := v.(type) {
		case []string, []*string:
			return l, nil
		case string:
			return []string{l}, nil // one value where a list is unnested: the list of one
		}
		return nil, fmt.Errorf("plan: unnest $%d is %T, want a list of text: %w", ref, v, ErrParamType)
	}
	// One id where a list is unnested is the list of one: a caller binding
	// values written as text (the CLI's -p 1=5) cannot tell a list of one
	// from a scalar, and here it can mean nothing else.
	l, ok, err := bigints(ref, v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("plan: unnest $%d is %T, want a list of integers: %w", ref, v, ErrParamType)
	}
	return l, nil
}

// paramsExec binds parameters for the plan below it: Execute checks every
// parameter the plan uses is bound, normalises unnest lists, and each Next
// carries the values in its context for paramExpr. It is transparent in
// EXPLAIN (it shows as its input).
type paramsExec struct {
	input exec.Node
	uses  map[int]paramUse
}

func (p *paramsExec) Name() string                { return p.input.Name() }
func (p *paramsExec) Schema() *arrow.Schema       { return p.input.Schema() }
func (p *paramsExec) Children() []exec.Node       { return p.input.Children() }
func (p *paramsExec) Properties() exec.Properties { return p.input.Properties() }
func (p *paramsExec) String() string              { return p.input.String() }
func (p *paramsExec) Metrics() *exec.Metrics      { return p.input.Metrics() }

// Execute implements exec.Node.
func (p *paramsExec) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	var bound map[int]any
	if tc != nil {
		bound = tc.Params
	}
	params := maps.Clone(bound)
	if params == nil {
		params = map[int]any{}
	}
	for _, ref := range slices.Sorted(maps.Keys(p.uses)) {
		v, ok := bound[ref]
		if !ok {
			return nil, &ParamError{Ref: ref, Err: fmt.Errorf("plan: $%d: %w", ref, ErrMissingParam)}
		}
		u := p.uses[ref]
		if u.list != nil {
			l, err := unnestList(ref, v, u.list)
			if err != nil {
				return nil, &ParamError{Ref: ref, Err: err}
			}
			params[ref] = l
		}
		if u.scalar != nil {
			if _, err := paramScalar(ref, v, u.scalar); err != nil {
				return nil, &ParamError{Ref: ref, Err: err}
			}
		}
	}
	tc2 := &exec.TaskContext{Params: params}
	if tc != nil {
		tc2.Mem, tc2.BatchSize = tc.Mem, tc.BatchSize
	}
	ctx = context.WithValue(ctx, paramsKey{}, params)
	in, err := p.input.Execute(ctx, tc2)
	if err != nil {
		return nil, err
	}
	return &paramsStream{Stream: in, params: params}, nil
}

type paramsStream struct {
	exec.Stream
	params map[int]any
}

// Next implements exec.Stream.
func (s *paramsStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return s.Stream.Next(context.WithValue(ctx, paramsKey{}, s.params))
}

// DecimalParam is a decimal bound from outside (an Arrow decimal128
// value): its digits and the scale they are at, which need not be the
// scale of the numeric(p, s) the plan types the parameter as.
type DecimalParam struct {
	Num   decimal128.Num
	Scale int32
}

// fit is d at t's scale, exactly: PostgreSQL types a parameter numeric
// without a modifier, so 1.234 compared with a numeric(10,2) column is
// compared as it is, never rounded to 1.23; a value that t cannot hold
// exactly is refused rather than rounded into a different answer.
func (d DecimalParam) fit(t *arrow.Decimal128Type) (decimal128.Num, error) {
	if d.Scale < 0 || d.Scale > physexpr.MaxDecimalPrecision {
		return decimal128.Num{}, fmt.Errorf("decimal scale %d (0..%d)", d.Scale, physexpr.MaxDecimalPrecision)
	}
	n, err := d.Num.Rescale(d.Scale, t.Scale)
	if err != nil || !n.FitsInPrecision(t.Precision) {
		return decimal128.Num{}, fmt.Errorf("%s does not fit numeric(%d,%d) exactly", d.Num.ToString(d.Scale), t.Precision, t.Scale)
	}
	return n, nil
}
