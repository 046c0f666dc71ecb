package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// bitAcc is bit_and(x) or bit_or(x) of a smallint, integer or bigint
// column (PostgreSQL's int2and/int4and/int8and and the or ones as the
// transition of a strict aggregate): the non-NULL values ANDed or ORed,
// in the argument's type; NULL for a group with no value. The values are
// held as int64: AND and OR of sign-extended values are the narrower
// type's bits sign-extended.
type bitAcc struct {
	or   bool
	typ  arrow.DataType
	vals []int64
	set  []bool
}

// bitSignature: the argument's own type, smallint, integer or bigint.
func bitSignature(a Aggregate, arg arrow.DataType) (arrow.DataType, func() accumulator, error) {
	switch arg.ID() {
	case arrow.INT16, arrow.INT32, arrow.INT64:
		return arg, func() accumulator { return &bitAcc{or: a.Func == AggBitOr, typ: arg} }, nil
	}
	return nil, nil, fmt.Errorf("%w: %s(%s) is not supported", physexpr.ErrInvalidArgument, a.Func, arg)
}

// BitCombine is bit_and's (or, with or, bit_or's) step.
func BitCombine(or bool, a, b int64) int64 {
	if or {
		return a | b
	}
	return a & b
}

func (b *bitAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	b.vals, b.set = growTo(b.vals, ngroups), growTo(b.set, ngroups)
	x := args[0]
	for r, g := range groups {
		if g == skipRow || x.IsNull(r) {
			continue
		}
		var v int64
		switch a := x.(type) {
		case *array.Int16:
			v = int64(a.Value(r))
		case *array.Int32:
			v = int64(a.Value(r))
		case *array.Int64:
			v = a.Value(r)
		default:
			return fmt.Errorf("%w: bit_and/bit_or of %s", physexpr.ErrInvalidArgument, x.DataType())
		}
		if !b.set[g] {
			b.vals[g], b.set[g] = v, true
			continue
		}
		b.vals[g] = BitCombine(b.or, b.vals[g], v)
	}
	return nil
}

func (b *bitAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	b.vals, b.set = growTo(b.vals, n), growTo(b.set, n)
	defer func() { b.vals, b.set = dropFront(b.vals, n), dropFront(b.set, n) }()
	return BuildInts(mem, b.typ, b.vals[:n], b.set[:n])
}

// BuildInts is vals (valid where set) as a column of the integer type typ
// (smallint, integer or bigint; each value fits it).
func BuildInts(mem memory.Allocator, typ arrow.DataType, vals []int64, set []bool) (arrow.Array, error) {
	bld := array.NewBuilder(mem, typ)
	defer bld.Release()
	bld.Reserve(len(vals))
	for i, v := range vals {
		if !set[i] {
			bld.AppendNull()
			continue
		}
		switch bb := bld.(type) {
		case *array.Int16Builder:
			bb.UnsafeAppend(int16(v))
		case *array.Int32Builder:
			bb.UnsafeAppend(int32(v))
		case *array.Int64Builder:
			bb.UnsafeAppend(v)
		default:
			return nil, fmt.Errorf("%w: integers of %s", physexpr.ErrInvalidArgument, typ)
		}
	}
	return bld.NewArray(), nil
}
