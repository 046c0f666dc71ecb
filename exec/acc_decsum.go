package exec

import (
	"fmt"

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
		v, old := a.Value(r), s.sums[g]
		sum := old.Add(v)
		// Both below 10^38 in magnitude: int128 overflow shows as a sign
		// flip of two same-signed operands.
		if (old.Sign() == v.Sign() && old.Sign() != 0 && sum.Sign() != old.Sign()) || sum.Abs().Greater(maxDecimal38) {
			return errNumericOverflow
		}
		s.sums[g], s.set[g] = sum, true
	}
	return nil
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
