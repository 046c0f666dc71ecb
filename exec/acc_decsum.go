package exec

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decimalSumAcc is sum(numeric): the exact total of a decimal column, in
// its scale, as decimal(38, scale) (PostgreSQL's numeric sum keeps the
// inputs' scale and has no precision limit; stablerow's decimals stop at
// 38 digits, and a total past them is "numeric field overflow", never a
// wrapped value).
type decimalSumAcc struct {
	typ  arrow.DataType // decimalSumType of the input
	sums []decimal128.Num
	set  []bool
}

// maxDecimal38 is the largest unscaled value of 38 digits.
var maxDecimal38 = decimal128.GetMaxValue(MaxDecimalPrecision)

func (s *decimalSumAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.sums, s.set = growTo(s.sums, ngroups), growTo(s.set, ngroups)
	a, ok := args[0].(*array.Decimal128)
	if !ok {
		return fmt.Errorf("%w: sum of %s", ErrInvalidArgument, args[0].DataType())
	}
	for r, g := range groups {
		if g == skipRow || a.IsNull(r) {
			continue
		}
		sum, err := addDecimal38(s.sums[g], a.Value(r))
		if err != nil {
			return err
		}
		s.sums[g], s.set[g] = sum, true
	}
	return nil
}

// addDecimal38 is old + v, both below 10^38 in magnitude, or "numeric
// field overflow" when the total is not.
func addDecimal38(old, v decimal128.Num) (decimal128.Num, error) {
	sum := old.Add(v)
	// int128 overflow shows as a sign flip of two same-signed operands.
	if (old.Sign() == v.Sign() && old.Sign() != 0 && sum.Sign() != old.Sign()) || sum.Abs().Greater(maxDecimal38) {
		return decimal128.Num{}, errNumericOverflow
	}
	return sum, nil
}

func (s *decimalSumAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.sums, s.set = growTo(s.sums, n), growTo(s.set, n)
	defer func() { s.sums, s.set = dropFront(s.sums, n), dropFront(s.set, n) }()
	b := array.NewDecimal128Builder(mem, s.typ.(*arrow.Decimal128Type))
	defer b.Release()
	b.Reserve(n)
	for g := range n {
		if s.set[g] {
			b.Append(s.sums[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}

// decimalSumType is sum's result type over decimal t: 38 digits, t's scale.
func decimalSumType(t arrow.DataType) arrow.DataType {
	return &arrow.Decimal128Type{Precision: MaxDecimalPrecision, Scale: t.(*arrow.Decimal128Type).Scale}
}

// decimalAvgAcc is avg(numeric): the exact sum (as decimalSumAcc keeps
// it) divided by the count when the group is emitted, as PostgreSQL's
// numeric_avg divides sumX by N: rounded at select_div_scale's per-value
// scale and widened to the column's (numdiv.go). No rows: NULL.
type decimalAvgAcc struct {
	scale  int32 // the input's
	typ    *arrow.Decimal128Type
	sums   []decimal128.Num
	counts []int64
}

// decimalAvgType is avg's result type over decimal t.
func decimalAvgType(t arrow.DataType) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: MaxDecimalPrecision, Scale: DecimalDivScale(t.(*arrow.Decimal128Type).Scale, 0)}
}

func (s *decimalAvgAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.sums, s.counts = growTo(s.sums, ngroups), growTo(s.counts, ngroups)
	a, ok := args[0].(*array.Decimal128)
	if !ok {
		return fmt.Errorf("%w: avg of %s", ErrInvalidArgument, args[0].DataType())
	}
	for r, g := range groups {
		if g == skipRow || a.IsNull(r) {
			continue
		}
		sum, err := addDecimal38(s.sums[g], a.Value(r))
		if err != nil {
			return err
		}
		s.sums[g] = sum
		s.counts[g]++
	}
	return nil
}

func (s *decimalAvgAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.sums, s.counts = growTo(s.sums, n), growTo(s.counts, n)
	defer func() { s.sums, s.counts = dropFront(s.sums, n), dropFront(s.counts, n) }()
	b := array.NewDecimal128Builder(mem, s.typ)
	defer b.Release()
	b.Reserve(n)
	limit := pow10(s.typ.Precision)
	for g := range n {
		if s.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		q, err := divideDecimal(s.sums[g].BigInt(), s.scale, big.NewInt(s.counts[g]), 0, s.typ.Scale)
		if err != nil {
			return nil, err
		}
		if new(big.Int).Abs(q).Cmp(limit) >= 0 {
			return nil, errNumericOverflow // the mean is below the sum's 38 digits, but not always below 38 - scale
		}
		b.Append(decimal128.FromBigInt(q))
	}
	return b.NewArray(), nil
}
