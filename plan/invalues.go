package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// A SingularOrList whose only option is a list literal is `x IN (the
// list's elements)`: the SQL front end's form of a long IN list of
// constants (plan/sql/constlist.go), one Substrait literal instead of an
// option per value. Its elements are i32, i64, fp64 or string literals of
// x's type, or NULLs; it plans as one exec.InValues, a typed slice and
// hash set.

// listOption returns the list literal a SingularOrList holds as its only
// option.
func listOption(e *expr.SingularOrList) (*expr.ListLiteral, bool) {
	if len(e.Options) != 1 {
		return nil, false
	}
	l, ok := e.Options[0].(*expr.ListLiteral)
	return l, ok
}

// inValues plans v IN (l's elements).
func inValues(v exec.Expr, vt arrow.DataType, l *expr.ListLiteral) (exec.Expr, error) {
	if len(l.Value) == 0 {
		return nil, fmt.Errorf("%w: empty IN list", ErrInvalidPlan)
	}
	null := false
	bad := func(i int) error {
		return fmt.Errorf("%w: IN list element %d is %s, the operand %s", ErrInvalidPlan, i, l.Value[i].GetType(), vt)
	}
	var values any
	switch vt.ID() {
	case arrow.INT32:
		values, null = elements[int32](l, bad)
	case arrow.INT64:
		values, null = elements[int64](l, bad)
	case arrow.FLOAT64:
		values, null = elements[float64](l, bad)
	case arrow.STRING:
		values, null = elements[string](l, bad)
	default:
		return nil, fmt.Errorf("%w: IN list literal over %s", errUnsupported("expression"), vt)
	}
	if err, ok := values.(error); ok {
		return nil, err
	}
	return exec.InValues{E: v, Values: values, Null: null}, nil
}

// elements reads the list's values as T (an error value when one is of
// another type) and whether it holds a NULL.
func elements[T int32 | int64 | float64 | string](l *expr.ListLiteral, bad func(int) error) (any, bool) {
	out := make([]T, 0, len(l.Value))
	null := false
	for i, el := range l.Value {
		switch x := el.(type) {
		case *expr.PrimitiveLiteral[T]:
			out = append(out, x.Value)
		case *expr.NullLiteral:
			null = true
		default:
			return bad(i), false
		}
	}
	return out, null
}
