package exec

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
)

func decimalArray(mem memory.Allocator, t *arrow.Decimal128Type, vals []decimal128.Num, valid []bool) arrow.Array {
	b := array.NewDecimal128Builder(mem, t)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

// sum(numeric) is exact in the input's scale, as decimal(38, s); NULLs are
// skipped and an empty group is NULL; a total past 38 digits is an
// OutOfRange error, never a wrapped value (the oracle: exact big.Int sums).
func TestDecimalSum(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := &arrow.Decimal128Type{Precision: 6, Scale: 2}
	out, mk, err := aggSignature(Aggregate{Func: AggSum}, []arrow.DataType{in})
	if err != nil {
		t.Fatal(err)
	}
	if !arrow.TypeEqual(out, &arrow.Decimal128Type{Precision: 38, Scale: 2}) {
		t.Fatalf("sum(decimal(6,2)) type %s", out)
	}
	acc := mk()
	a := decimalArray(mem, in, []decimal128.Num{decimal128.FromI64(325), decimal128.FromI64(-150), {}, decimal128.FromI64(999999)}, []bool{true, true, false, true})
	defer a.Release()
	if err := acc.update([]arrow.Array{a}, []uint32{0, 0, 1, 0}, 2); err != nil {
		t.Fatal(err)
	}
	res, err := acc.emit(mem, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	d := res.(*array.Decimal128)
	if d.Value(0) != decimal128.FromI64(325-150+999999) || !d.IsNull(1) {
		t.Fatalf("sums %v", d)
	}

	// Overflow: two values of 38 nines.
	big38 := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	nines := decimal128.GetMaxValue(38)
	for _, vals := range [][]decimal128.Num{{nines, nines}, {nines.Negate(), nines.Negate()}, {nines, decimal128.FromI64(1)}} {
		acc := (&decimalSumAcc{typ: big38})
		x := decimalArray(mem, big38, vals, nil)
		err := acc.update([]arrow.Array{x}, []uint32{0, 0}, 1)
		x.Release()
		if !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("sum of %v: %v, want OutOfRange", vals, err)
		}
	}
}
