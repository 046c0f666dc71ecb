package exec

import (
	"fmt"
	"math/big"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// sum(numeric) and avg(numeric). Each group's total is kept exactly in a
// 192-bit integer (value.Int192): a decimal128 value is below 2^127 in
// magnitude, so no run of fewer than 2^63 additions can overflow it, and
// the total is the same whatever order the rows arrive in and however
// partitions split them. That is what lets the aggregation run in two
// phases (partition_agg.go: the partial state is the total's three words
// and the count, merged by 192-bit addition): the answer and the error
// are those of the serial plan for every thread count. Only the final
// total is checked: sum is "numeric field overflow" when it has more than
// 38 digits (PostgreSQL's numeric has no such limit; stablerow's decimals
// stop at 38), never a wrapped value; a total that passes 38 digits on
// the way and comes back is right, as PostgreSQL's is. avg divides the
// exact total, whatever its size, by the count.

// decimalSumAcc is sum (avg false) or avg of a decimal column of scale
// scale, into typ: decimalSumType or decimalAvgType of the input.
type decimalSumAcc struct {
	avg    bool
	scale  int32
	typ    *arrow.Decimal128Type
	sums   []value.Int192
	counts []int64
}

// decimalSumType is sum's result type over decimal t: 38 digits, t's scale.
func decimalSumType(t arrow.DataType) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: value.MaxDecimalPrecision, Scale: t.(*arrow.Decimal128Type).Scale}
}

// decimalAvgType is avg's result type over decimal t: PostgreSQL's
// numeric_avg divides sumX by N, rounded at select_div_scale's per-value
// scale, or at the column's when that is coarser, and widened to the
// column's: numeric(38, max(s, 16)) (physexpr.DecimalAvgScale says which
// means print as PostgreSQL's).
func decimalAvgType(t arrow.DataType) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: value.MaxDecimalPrecision, Scale: physexpr.DecimalAvgScale(t.(*arrow.Decimal128Type).Scale)}
}

func newDecimalSumAcc(avg bool, in arrow.DataType) *decimalSumAcc {
	typ := decimalSumType(in)
	if avg {
		typ = decimalAvgType(in)
	}
	return &decimalSumAcc{avg: avg, scale: in.(*arrow.Decimal128Type).Scale, typ: typ}
}

func (s *decimalSumAcc) grow(n int) {
	s.sums, s.counts = growTo(s.sums, n), growTo(s.counts, n)
}

func (s *decimalSumAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	a, ok := args[0].(*array.Decimal128)
	if !ok {
		return fmt.Errorf("%w: sum or avg of %s", physexpr.ErrInvalidArgument, args[0].DataType())
	}
	vals := a.Values()
	sums, counts := s.sums, s.counts
	if a.NullN() == 0 {
		for r, g := range groups {
			if g != skipRow {
				sums[g].Add(vals[r])
				counts[g]++
			}
		}
		return nil
	}
	for r, g := range groups {
		if g != skipRow && a.IsValid(r) {
			sums[g].Add(vals[r])
			counts[g]++
		}
	}
	return nil
}

func (s *decimalSumAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.grow(n)
	defer func() { s.sums, s.counts = dropFront(s.sums, n), dropFront(s.counts, n) }()
	b := array.NewDecimal128Builder(mem, s.typ)
	defer b.Release()
	b.Reserve(n)
	for g := range n {
		if s.counts[g] == 0 {
			b.AppendNull() // no values: NULL
			continue
		}
		if !s.avg {
			v, ok := s.sums[g].Num()
			if !ok {
				return nil, value.ErrNumericOverflow
			}
			b.Append(v)
			continue
		}
		q, err := physexpr.DivideDecimal(s.sums[g].BigInt(), s.scale, big.NewInt(s.counts[g]), 0, s.typ.Scale)
		if err != nil {
			return nil, err
		}
		if new(big.Int).Abs(q).Cmp(value.Pow10(s.typ.Precision)) >= 0 {
			return nil, value.ErrNumericOverflow // the mean has fewer digits than the sum, but not always fewer than 38 - scale
		}
		b.Append(decimal128.FromBigInt(q))
	}
	return b.NewArray(), nil
}

// decimalSumStateFields are the partial state columns of a decimal sum or
// avg named name: the total's three words and the count.
func decimalSumStateFields(name string) []arrow.Field {
	return []arrow.Field{
		{Name: name + "[lo]", Type: arrow.PrimitiveTypes.Uint64},
		{Name: name + "[mid]", Type: arrow.PrimitiveTypes.Uint64},
		{Name: name + "[hi]", Type: arrow.PrimitiveTypes.Int64},
		{Name: name + "[count]", Type: arrow.PrimitiveTypes.Int64},
	}
}

// decimalSumState is a partial decimal sum or avg: it emits its state.
type decimalSumState struct{ *decimalSumAcc }

func (s *decimalSumState) emit(memory.Allocator, int) (arrow.Array, error) {
	return nil, fmt.Errorf("%w: a partial sum emits columns", ErrInternal)
}

func (s *decimalSumState) emitColumns(mem memory.Allocator, n int) ([]arrow.Array, error) {
	s.grow(n)
	lb, mb := array.NewUint64Builder(mem), array.NewUint64Builder(mem)
	hb, cb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	defer lb.Release()
	defer mb.Release()
	defer hb.Release()
	defer cb.Release()
	lb.Reserve(n)
	mb.Reserve(n)
	hb.Reserve(n)
	for _, v := range s.sums[:n] {
		lb.UnsafeAppend(v.Lo)
		mb.UnsafeAppend(v.Mid)
		hb.UnsafeAppend(v.Hi)
	}
	cb.AppendValues(s.counts[:n], nil)
	s.sums, s.counts = dropFront(s.sums, n), dropFront(s.counts, n)
	return []arrow.Array{lb.NewArray(), mb.NewArray(), hb.NewArray(), cb.NewArray()}, nil
}

// decimalSumMerge adds partial decimal states exactly and emits as
// decimalSumAcc does.
type decimalSumMerge struct{ *decimalSumAcc }

func (s *decimalSumMerge) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	lo, ok1 := args[0].(*array.Uint64)
	mid, ok2 := args[1].(*array.Uint64)
	hi, ok3 := args[2].(*array.Int64)
	cnt, ok4 := args[3].(*array.Int64)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fmt.Errorf("%w: decimal sum state columns %s, %s, %s, %s", physexpr.ErrSchema, args[0].DataType(), args[1].DataType(), args[2].DataType(), args[3].DataType())
	}
	for r, g := range groups {
		if g == skipRow || cnt.IsNull(r) { // NULL: the empty state (MergeOver)
			continue
		}
		s.sums[g].Merge(value.Int192{Lo: lo.Value(r), Mid: mid.Value(r), Hi: hi.Value(r)})
		s.counts[g] += cnt.Value(r)
	}
	return nil
}
