package engine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/plan"
)

// ParamsFromArrow converts parameter values bound as Arrow data (what a
// Flight SQL or ADBC client sends with a prepared statement) to one Go
// value per column of schema, in the forms Query and QuerySubstrait bind:
// column i is parameter $i+1 (see PositionalParams and AnchorParams).
//
// The rows of every batch of recs are one column of values per parameter,
// read in two shapes:
//   - a list column (list, large_list, fixed_size_list) of one row binds
//     that list: the ids of the seed query as one Arrow list<int64>;
//   - any other column binds its values as a list when it has several rows
//     ([]int64 for integers, []string for text; with NULLs []*int64, ...),
//     and one value when it has one row. Where a list is unnested one value
//     is the list of one, as everywhere.
//
// So a client takes rows by id with the ids as a column or as a list and
// never builds SQL text. Executing a statement once per parameter row
// (Flight SQL's batch of parameter sets) is not what this does: a column of
// several rows bound to a scalar parameter is refused by the planner
// ("list of N values, want one ...").
func ParamsFromArrow(schema *arrow.Schema, recs []arrow.RecordBatch) ([]any, error) {
	out := make([]any, schema.NumFields())
	for i, f := range schema.Fields() {
		cols := make([]arrow.Array, 0, len(recs))
		for _, r := range recs {
			if !arrow.TypeEqual(r.Schema().Field(i).Type, f.Type) {
				return nil, fmt.Errorf("%w: parameter $%d: batches of types %s and %s", ErrParam, i+1, f.Type, r.Schema().Field(i).Type)
			}
			cols = append(cols, r.Column(i))
		}
		v, err := arrowParam(f.Type, cols)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter $%d: %w", ErrParam, i+1, err)
		}
		out[i] = v
	}
	return out, nil
}

// PositionalParams keys values for Query: "1" for $1 and the first
// parameter a statement names, and so on (Query's bind falls back to the
// position when a :name is not bound by name).
func PositionalParams(vals []any) map[string]any {
	m := make(map[string]any, len(vals))
	for i, v := range vals {
		m[strconv.Itoa(i+1)] = v
	}
	return m
}

// AnchorParams keys values for QuerySubstrait: anchor 1 is the first.
func AnchorParams(vals []any) map[int]any {
	m := make(map[int]any, len(vals))
	for i, v := range vals {
		m[i+1] = v
	}
	return m
}

// arrowParam converts one parameter's column, in pieces, to its Go value.
func arrowParam(t arrow.DataType, cols []arrow.Array) (any, error) {
	n := 0
	for _, c := range cols {
		n += c.Len()
	}
	switch t.(type) {
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType:
		if n != 1 {
			return nil, fmt.Errorf("a list column binds one list, got %d rows", n)
		}
		for _, c := range cols {
			if c.Len() == 1 {
				l := c.(array.ListLike)
				if l.IsNull(0) {
					return nil, fmt.Errorf("the list is NULL")
				}
				start, end := l.ValueOffsets(0)
				vals := array.NewSlice(l.ListValues(), start, end)
				defer vals.Release()
				return listOf(vals.DataType(), []arrow.Array{vals}, int(end-start))
			}
		}
	}
	switch n {
	case 0:
		return nil, fmt.Errorf("no value (0 rows)")
	case 1:
		for _, c := range cols {
			if c.Len() == 1 {
				return scalarOf(c)
			}
		}
	}
	return listOf(t, cols, n)
}

// scalarOf is the one value of a column of one row.
func scalarOf(c arrow.Array) (any, error) {
	if c.IsNull(0) {
		return (*int64)(nil), nil // a NULL of whatever type the plan wants
	}
	switch a := c.(type) {
	case *array.Int64:
		return a.Value(0), nil
	case *array.Int32:
		return int64(a.Value(0)), nil
	case *array.Int16:
		return int64(a.Value(0)), nil
	case *array.Int8:
		return int64(a.Value(0)), nil
	case *array.Uint64:
		return a.Value(0), nil // above MaxInt64 the planner says out of range
	case *array.Uint32:
		return int64(a.Value(0)), nil
	case *array.Uint16:
		return int64(a.Value(0)), nil
	case *array.Uint8:
		return int64(a.Value(0)), nil
	case *array.Float64:
		return a.Value(0), nil
	case *array.Float32:
		return float64(a.Value(0)), nil
	case *array.Boolean:
		return a.Value(0), nil
	case *array.String:
		return a.Value(0), nil
	case *array.LargeString:
		return a.Value(0), nil
	case *array.Decimal128:
		// A numeric parameter's schema type; plan fits it to the scale.
		return plan.DecimalParam{Num: a.Value(0), Scale: a.DataType().(*arrow.Decimal128Type).Scale}, nil
	case *array.Date32:
		// A date parameter's type in the parameter schema (ParamSchema).
		return a.Value(0), nil
	case *array.Timestamp:
		// A timestamp parameter's schema type is microseconds, PostgreSQL's
		// precision; coarser units convert exactly, finer ones when exact.
		return timestampMicros(a.Value(0), a.DataType().(*arrow.TimestampType))
	}
	return nil, fmt.Errorf("%w: a value of type %s", ErrUnsupported, c.DataType())
}

// listOf is the n values of a column as a Go list: []int64 for signed and
// small unsigned integers, []uint64 for uint64 (the planner refuses ids
// above MaxInt64), []string for text; the pointer forms when a value is
// NULL.
func listOf(t arrow.DataType, cols []arrow.Array, n int) (any, error) {
	nulls := 0
	for _, c := range cols {
		nulls += c.NullN()
	}
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
		vals := make([]int64, 0, n)
		for _, c := range cols {
			vals = appendInts(vals, c)
		}
		if nulls == 0 {
			return vals, nil
		}
		return withNulls(vals, cols), nil
	case arrow.UINT64:
		vals := make([]uint64, 0, n)
		for _, c := range cols {
			vals = append(vals, c.(*array.Uint64).Uint64Values()...)
		}
		if nulls == 0 {
			return vals, nil
		}
		return withNulls(vals, cols), nil
	case arrow.STRING, arrow.LARGE_STRING:
		vals := make([]string, 0, n)
		for _, c := range cols {
			for j := 0; j < c.Len(); j++ {
				vals = append(vals, c.ValueStr(j))
			}
		}
		if nulls == 0 {
			return vals, nil
		}
		return withNulls(vals, cols), nil
	}
	return nil, fmt.Errorf("%w: a list of %d values of type %s (lists are of integers or text)", ErrUnsupported, n, t)
}

// appendInts appends an integer column's values widened to int64 (a NULL's
// slot holds whatever the buffer has; withNulls masks it).
func appendInts(dst []int64, c arrow.Array) []int64 {
	switch a := c.(type) {
	case *array.Int64:
		return append(dst, a.Int64Values()...)
	case *array.Int32:
		return widenInto(dst, a.Int32Values())
	case *array.Int16:
		return widenInto(dst, a.Int16Values())
	case *array.Int8:
		return widenInto(dst, a.Int8Values())
	case *array.Uint32:
		return widenInto(dst, a.Uint32Values())
	case *array.Uint16:
		return widenInto(dst, a.Uint16Values())
	case *array.Uint8:
		return widenInto(dst, a.Uint8Values())
	}
	panic(fmt.Sprintf("appendInts: %T", c)) // listOf switched on the type
}

func widenInto[T int8 | int16 | int32 | uint8 | uint16 | uint32](dst []int64, src []T) []int64 {
	for _, x := range src {
		dst = append(dst, int64(x))
	}
	return dst
}

// withNulls is vals with a nil pointer for every NULL of cols.
func withNulls[T any](vals []T, cols []arrow.Array) []*T {
	out := make([]*T, len(vals))
	k := 0
	for _, c := range cols {
		for j := 0; j < c.Len(); j++ {
			if c.IsValid(j) {
				out[k] = &vals[k]
			}
			k++
		}
	}
	return out
}

// timestampMicros is v in unit t.Unit as microseconds. A time zone is
// refused: timestamp without time zone has none, and shifting the value
// to one would be a guess.
func timestampMicros(v arrow.Timestamp, t *arrow.TimestampType) (any, error) {
	if t.TimeZone != "" {
		return nil, fmt.Errorf("%w: a timestamp with time zone %q (bind timestamp without time zone)", ErrUnsupported, t.TimeZone)
	}
	x := int64(v)
	switch t.Unit {
	case arrow.Second, arrow.Millisecond:
		m := int64(1_000_000)
		if t.Unit == arrow.Millisecond {
			m = 1000
		}
		if x > math.MaxInt64/m || x < math.MinInt64/m {
			return nil, fmt.Errorf("%w: timestamp %d%s out of range", ErrParam, x, t.Unit)
		}
		return arrow.Timestamp(x * m), nil
	case arrow.Nanosecond:
		if x%1000 != 0 {
			return nil, fmt.Errorf("%w: timestamp %dns has nanoseconds (timestamp holds microseconds)", ErrParam, x)
		}
		return arrow.Timestamp(x / 1000), nil
	}
	return v, nil
}
