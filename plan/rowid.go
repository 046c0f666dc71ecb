package plan

import (
	"context"
	"fmt"
	"math"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Row id values from outside.
//
// Inside, a row id is a uint64 (Arrow columns, the index, the table).
// Outside — SQL, Substrait, bound parameters — it is a bigint, since
// PostgreSQL has no unsigned type. This file is the one place a value from
// outside becomes a row id, in two steps:
//
//	bound Go integers ──bigints──> int64 (one value or a list)
//	    a uint64 above MaxInt64 is no bigint: ErrOutOfRange, as
//	    PostgreSQL's "value ... is out of range for type bigint"
//	bigint column ──toRowID──> uint64 row id
//	    a negative bigint is no row's id: NULL, so the key misses (in
//	    PostgreSQL t._rowid = -5 is simply false; the seed query's LEFT
//	    JOIN gives NULLs)
//
// The engine hands bound values over as the caller gave them; nothing
// upstream widens or reinterprets integers.

// bigint converts one bound Go integer to a bigint; ok is false for a Go
// type that is not an integer.
func bigint(ref int, v any) (x int64, ok bool, err error) {
	switch x := v.(type) {
	case int64:
		return x, true, nil
	case int:
		return int64(x), true, nil
	case int32:
		return int64(x), true, nil
	case int16:
		return int64(x), true, nil
	case int8:
		return int64(x), true, nil
	case uint32:
		return int64(x), true, nil
	case uint16:
		return int64(x), true, nil
	case uint64:
		return unsigned(ref, -1, x)
	case uint:
		return unsigned(ref, -1, uint64(x))
	}
	return 0, false, nil
}

// unsigned is x as a bigint, or ErrOutOfRange; i >= 0 names the list
// element.
func unsigned(ref, i int, x uint64) (int64, bool, error) {
	if x > math.MaxInt64 {
		at := ""
		if i >= 0 {
			at = fmt.Sprintf(" element %d", i+1)
		}
		return 0, true, fmt.Errorf("plan: $%d%s = %d is out of range for type bigint: %w", ref, at, x, ErrOutOfRange)
	}
	return int64(x), true, nil
}

// bigints converts a bound list of Go integers (or one integer: where a
// list is unnested, one value is the list of one) to []int64, or []*int64
// for a list with NULLs. ok is false for a Go type that is not one.
func bigints(ref int, v any) (out any, ok bool, err error) {
	switch l := v.(type) {
	case []int64, []*int64:
		return l, true, nil
	case []int:
		return widen(l), true, nil
	case []int32:
		return widen(l), true, nil
	case []int16:
		return widen(l), true, nil
	case []uint32:
		return widen(l), true, nil
	case []uint16:
		return widen(l), true, nil
	case []uint64:
		o := make([]int64, len(l))
		for i, x := range l {
			if o[i], _, err = unsigned(ref, i, x); err != nil {
				return nil, true, err
			}
		}
		return o, true, nil
	case []*uint64:
		o := make([]*int64, len(l))
		for i, x := range l {
			if x != nil {
				y, _, err := unsigned(ref, i, *x)
				if err != nil {
					return nil, true, err
				}
				o[i] = &y
			}
		}
		return o, true, nil
	}
	x, ok, err := bigint(ref, v)
	if !ok || err != nil {
		return nil, ok, err
	}
	return []int64{x}, true, nil
}

func widen[T int | int32 | int16 | uint32 | uint16](l []T) []int64 {
	o := make([]int64, len(l))
	for i, x := range l {
		o[i] = int64(x)
	}
	return o
}

// toRowID converts bigint values to uint64 row ids for a join against a
// row id column; a negative value (never a valid id) becomes NULL, so it
// misses instead of wrapping around to a huge id. A column without NULLs
// or negatives (the common case: ids a caller took from the table) is
// reinterpreted in place, with no copy.
type toRowID struct{ E physexpr.Expr }

func (e toRowID) String() string { return fmt.Sprintf("u64(%s)", e.E) }
func (e toRowID) DataType(s *arrow.Schema) (arrow.DataType, error) {
	t, err := e.E.DataType(s)
	if err != nil {
		return nil, err
	}
	if t.ID() != arrow.INT64 {
		return nil, fmt.Errorf("%w: u64() of %s", physexpr.ErrSchema, t)
	}
	return arrow.PrimitiveTypes.Uint64, nil
}
func (e toRowID) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := e.E.Evaluate(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	ia, ok := a.(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("%w: u64() of %s", physexpr.ErrSchema, a.DataType())
	}
	vals := ia.Int64Values()
	if ia.NullN() == 0 {
		var or int64
		for _, v := range vals {
			or |= v
		}
		if or >= 0 {
			d := a.Data()
			nd := array.NewData(arrow.PrimitiveTypes.Uint64, d.Len(), d.Buffers(), nil, 0, d.Offset())
			defer nd.Release()
			return array.MakeFromData(nd), nil
		}
	}
	ub := array.NewUint64Builder(mem)
	defer ub.Release()
	ub.Reserve(ia.Len())
	for i, v := range vals {
		if v >= 0 && ia.IsValid(i) {
			ub.UnsafeAppend(uint64(v))
		} else {
			ub.UnsafeAppendBoolToBitmap(false)
		}
	}
	return ub.NewArray(), nil
}
