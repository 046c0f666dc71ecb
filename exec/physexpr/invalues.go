package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// InValues is E IN (a list of constants) with In's SQL semantics, for the
// long lists the SQL front end passes as one list literal: the values are
// one typed Go slice instead of a Lit each, so a list of a million values
// costs the slice and, at bind time, the hash set; nothing per value is
// boxed or turned into a scalar, and EXPLAIN prints the count, not the
// values.
type InValues struct {
	E Expr
	// Values are the list's non-NULL values: []int32, []int64, []float64
	// or []string, of E's type.
	Values any
	// Null says the list also holds a NULL: a miss is then NULL.
	Null bool
}

func (e InValues) String() string {
	null := ""
	if e.Null {
		null = " and NULL"
	}
	return fmt.Sprintf("%s IN (%d values%s)", e.E, ValuesLen(e.Values), null)
}

// ValuesLen is the number of values in a list of InValues' kinds
// ([]int32, []int64, []float64 or []string; 0 for any other), exported
// for plan's packed list literal (plan.PackedList), whose values are the
// same slices.
func ValuesLen(values any) int {
	switch v := values.(type) {
	case []int32:
		return len(v)
	case []int64:
		return len(v)
	case []float64:
		return len(v)
	case []string:
		return len(v)
	}
	return 0
}

// DataType checks E's type against the values' without building the set.
func (e InValues) DataType(s *arrow.Schema) (arrow.DataType, error) {
	if _, err := e.operand(s); err != nil {
		return nil, err
	}
	return arrow.FixedWidthTypes.Boolean, nil
}

func (e InValues) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// operand binds E and checks its type is the values' type.
func (e InValues) operand(s *arrow.Schema) (Bound, error) {
	var want arrow.Type
	switch e.Values.(type) {
	case []int32:
		want = arrow.INT32
	case []int64:
		want = arrow.INT64
	case []float64:
		want = arrow.FLOAT64
	case []string:
		want = arrow.STRING
	default:
		return nil, fmt.Errorf("%w: IN values of %T", ErrInvalidArgument, e.Values)
	}
	if ValuesLen(e.Values) == 0 && !e.Null {
		return nil, fmt.Errorf("%w: empty IN list", ErrInvalidArgument)
	}
	x, err := Bind(e.E, s)
	if err != nil {
		return nil, err
	}
	if x.Type().ID() != want {
		return nil, fmt.Errorf("%w: %s IN (...): the values are %s, the operand %s (add a Cast)", ErrSchema, e.E, want, x.Type())
	}
	return x, nil
}

// Bind builds the set: for integers a flat one (intset.go), for doubles
// and strings the Go map In builds, from the slice.
func (e InValues) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.operand(s)
	if err != nil {
		return nil, err
	}
	switch v := e.Values.(type) {
	case []int32:
		return &boundSet[int32]{exprOf: exprOf[fmt.Stringer]{e}, x: x, ints: newIntSet(v), listNull: e.Null}, nil
	case []int64:
		return &boundSet[int64]{exprOf: exprOf[fmt.Stringer]{e}, x: x, ints: newIntSet(v), listNull: e.Null}, nil
	case []float64:
		return sliceSet(e, x, v, e.Null), nil
	}
	vals := e.Values.([]string)
	b := &boundStringSet{exprOf: exprOf[fmt.Stringer]{e}, x: x, set: make(map[string]struct{}, len(vals)), listNull: e.Null}
	for _, v := range vals {
		if _, dup := b.set[v]; !dup {
			b.items = append(b.items, []byte(v))
			b.set[v] = struct{}{}
		}
	}
	return b, nil
}

// sliceSet is bindSet over a slice, with its key normalization (-0 is 0,
// NaN a flag).
func sliceSet[T fixed](src fmt.Stringer, x Bound, vals []T, null bool) *boundSet[T] {
	b := &boundSet[T]{exprOf: exprOf[fmt.Stringer]{src}, x: x, set: make(map[T]struct{}, len(vals)), listNull: null}
	for _, v := range vals {
		switch {
		case isNaN(v):
			b.hasNaN = true
		case v == 0:
			b.set[0] = struct{}{}
		default:
			b.set[v] = struct{}{}
		}
	}
	return b
}
