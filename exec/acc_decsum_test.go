package exec

import (
	"encoding/binary"
	"errors"
	"math/big"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
	"github.com/stretchr/testify/require"
)

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
	a := arrowtest.DecimalArray(mem, in, []decimal128.Num{decimal128.FromI64(325), decimal128.FromI64(-150), {}, decimal128.FromI64(999999)}, []bool{true, true, false, true})
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

	// Overflow: a final total past 38 digits, however it is reached
	// (past 2^127 too, where a 128-bit total would wrap to a wrong value).
	big38 := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	nines := decimal128.GetMaxValue(38)
	for _, vals := range [][]decimal128.Num{{nines, nines}, {nines.Negate(), nines.Negate()}, {nines, decimal128.FromI64(1)}} {
		_, err := decimalSums(mem, big38, false, vals)
		if !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("sum of %v: %v, want OutOfRange", vals, err)
		}
	}
	// A total that passes 38 digits (and 2^127) on the way and comes back
	// is exact, in every order the rows can arrive in.
	vals := []decimal128.Num{nines, nines, nines.Negate(), decimal128.FromI64(-5), nines.Negate(), nines}
	for i := range vals {
		rot := append(append([]decimal128.Num(nil), vals[i:]...), vals[:i]...)
		got, err := decimalSums(mem, big38, false, rot)
		if err != nil || got != nines.Sub(decimal128.FromI64(5)) {
			t.Fatalf("sum of %v: %v %v", rot, got, err)
		}
	}
}

// decimalSums is sum (or avg) of vals, one group, from one batch.
func decimalSums(mem memory.Allocator, t *arrow.Decimal128Type, avg bool, vals []decimal128.Num) (decimal128.Num, error) {
	acc := newDecimalSumAcc(avg, t)
	x := arrowtest.DecimalArray(mem, t, vals, nil)
	defer x.Release()
	if err := acc.update([]arrow.Array{x}, make([]uint32, len(vals)), 1); err != nil {
		return decimal128.Num{}, err
	}
	res, err := acc.emit(mem, 1)
	if err != nil {
		return decimal128.Num{}, err
	}
	defer res.Release()
	return res.(*array.Decimal128).Value(0), nil
}

// FuzzDecimalSum: sum and avg of decimals, in one phase from one sliced
// batch with NULLs and in two phases (the rows split across partial
// states, merged), equal the math/big reference exactly, including which
// inputs are "numeric field overflow" (totals past 38 digits, reached
// through partial totals past 2^127 as well).
func FuzzDecimalSum(f *testing.F) {
	f.Add([]byte{0, 2, 3, 1, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 1, 0, 0, 0, 0, 0, 0, 0, 0x13, 2, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 15, 4, 2, 0x00, 7, 1, 0, 0, 0, 0, 0, 0, 0x81, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{1, 38, 3, 5, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 5 {
			return
		}
		avg := data[0]&1 != 0
		p := int32(data[1]%38) + 1
		typ := &arrow.Decimal128Type{Precision: p, Scale: int32(data[2]) % (p + 1)}
		ngroups, parts := int(data[3]%3)+1, int(data[3]/3%4)+1
		body := data[4:]
		var vals []decimal128.Num
		var valid []bool
		var groups []uint32
		for i := 0; i+9 <= len(body) && i < 9*200; i += 9 {
			c := body[i]
			vals = append(vals, arrowtest.Num128(arrowtest.FuzzDecimal(c, binary.LittleEndian.Uint64(body[i+1:]), p)))
			valid = append(valid, c&0x80 == 0)
			groups = append(groups, uint32(int(body[i+1])%ngroups))
		}
		n := len(vals)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)

		// The reference.
		totals, counts := make([]*big.Int, ngroups), make([]int64, ngroups)
		for g := range totals {
			totals[g] = new(big.Int)
		}
		for r := range n {
			if valid[r] {
				totals[groups[r]].Add(totals[groups[r]], vals[r].BigInt())
				counts[groups[r]]++
			}
		}
		out := newDecimalSumAcc(avg, typ).typ
		var want []string
		overflow := false
		for g := range ngroups {
			switch {
			case counts[g] == 0:
				want = append(want, "NULL")
				continue
			case !avg:
				overflow = overflow || new(big.Int).Abs(totals[g]).Cmp(value.Pow10(38)) >= 0
				want = append(want, totals[g].String())
			default:
				q := arrowtest.RefDivide(totals[g], typ.Scale, big.NewInt(counts[g]), 0, out.Scale)
				overflow = overflow || new(big.Int).Abs(q).Cmp(value.Pow10(38)) >= 0
				want = append(want, q.String())
			}
		}
		check := func(res arrow.Array, err error, how string) {
			if overflow {
				require.ErrorIs(t, err, errkind.OutOfRange, how)
				return
			}
			require.NoError(t, err, how)
			defer res.Release()
			d := res.(*array.Decimal128)
			for g, w := range want {
				got := "NULL"
				if d.IsValid(g) {
					got = d.Value(g).BigInt().String()
				}
				require.Equal(t, w, got, "%s: group %d of %s", how, g, typ)
			}
		}

		// One phase, over the rows as a column sliced at offset 3.
		b := array.NewDecimal128Builder(mem, typ)
		b.AppendValues(make([]decimal128.Num, 3), nil)
		b.AppendValues(vals, valid)
		whole := b.NewArray()
		b.Release()
		col := array.NewSlice(whole, 3, int64(3+n))
		whole.Release()
		defer col.Release()
		single := newDecimalSumAcc(avg, typ)
		require.NoError(t, single.update([]arrow.Array{col}, groups, ngroups))
		res, err := single.emit(mem, ngroups)
		check(res, err, "one phase")

		// Two phases: parts partial states over consecutive row ranges,
		// merged in reverse order.
		merge := &decimalSumMerge{newDecimalSumAcc(avg, typ)}
		for k := parts - 1; k >= 0; k-- {
			lo, hi := k*n/parts, (k+1)*n/parts
			part := array.NewSlice(col, int64(lo), int64(hi))
			st := &decimalSumState{newDecimalSumAcc(avg, typ)}
			require.NoError(t, st.update([]arrow.Array{part}, groups[lo:hi], ngroups))
			part.Release()
			cols, err := st.emitColumns(mem, ngroups)
			require.NoError(t, err)
			ids := make([]uint32, ngroups)
			for g := range ids {
				ids[g] = uint32(g)
			}
			require.NoError(t, merge.update(cols, ids, ngroups))
			for _, c := range cols {
				c.Release()
			}
		}
		res, err = merge.emit(mem, ngroups)
		check(res, err, "two phases")
	})
}

// avg(numeric) is the exact sum divided by the count by the same rule,
// at PostgreSQL's scale for a mean of about 1 to 10^4 (psql 15: avg of
// 3.25, -1.50, 9999.99 is 3333.9133333333333333); NULLs are skipped, an
// empty group is NULL.
func TestDecimalAvg(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := &arrow.Decimal128Type{Precision: 6, Scale: 2}
	out, mk, err := aggSignature(Aggregate{Func: AggAvg}, []arrow.DataType{in})
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(out, &arrow.Decimal128Type{Precision: 38, Scale: 16}), "%s", out)
	acc := mk()
	a := arrowtest.DecimalArray(mem, in, []decimal128.Num{decimal128.FromI64(325), decimal128.FromI64(-150), {}, decimal128.FromI64(999999)}, []bool{true, true, false, true})
	defer a.Release()
	require.NoError(t, acc.update([]arrow.Array{a}, []uint32{0, 0, 1, 0}, 2))
	res, err := acc.emit(mem, 2)
	require.NoError(t, err)
	defer res.Release()
	d := res.(*array.Decimal128)
	require.Equal(t, "3333.9133333333333333", value.FormatDecimal(d.Value(0), 16))
	require.True(t, d.IsNull(1))
}

// avg(numeric)'s one column scale against PostgreSQL 15's per-value
// scale (numeric_avg through select_div_scale: max(16 - 4*qweight, s)),
// over means from 1e-3 to 1e15 of numeric(20, 2) values. pg is psql 15's
// text; a mean of qweight 0 prints it exactly, a larger one pads it with
// zeros to 16 digits, a smaller one rounds it to 16 (physexpr.DecimalAvgScale).
func TestDecimalAvgScale(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := &arrow.Decimal128Type{Precision: 20, Scale: 2}
	for _, c := range []struct {
		cents    []int64
		pg, want string
	}{
		{[]int64{225, 350, 100}, "2.2500000000000000", "2.2500000000000000"},
		{[]int64{-225, -350, -100}, "-2.2500000000000000", "-2.2500000000000000"},
		{[]int64{100, 300}, "2.0000000000000000", "2.0000000000000000"},
		{[]int64{1234567, 2345678, 100}, "11934.4833333333333333", "11934.4833333333333333"},
		{[]int64{999999, 999999, 999998}, "9999.9866666666666667", "9999.9866666666666667"},
		// qweight >= 1: PostgreSQL's 12 or 4 digits, padded here.
		{[]int64{12345678901, 200}, "61728395.505000000000", "61728395.5050000000000000"},
		{[]int64{123456789012345678, 100}, "617283945061728.8900", "617283945061728.8900000000000000"},
		// qweight -1: 20 digits there; the same value where its digits
		// end by the 16th, else rounded half away from zero.
		{[]int64{50, 25}, "0.37500000000000000000", "0.3750000000000000"},
		{[]int64{100, 100, 100}, "1.00000000000000000000", "1.0000000000000000"},
		{[]int64{1, 2, 2}, "0.01666666666666666667", "0.0166666666666667"},
		{[]int64{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "0.00272727272727272727", "0.0027272727272727"},
	} {
		_, mk, err := aggSignature(Aggregate{Func: AggAvg}, []arrow.DataType{in})
		require.NoError(t, err)
		acc := mk()
		vals := make([]decimal128.Num, len(c.cents))
		groups := make([]uint32, len(c.cents))
		for i, v := range c.cents {
			vals[i] = decimal128.FromI64(v)
		}
		a := arrowtest.DecimalArray(mem, in, vals, nil)
		require.NoError(t, acc.update([]arrow.Array{a}, groups, 1))
		a.Release()
		res, err := acc.emit(mem, 1)
		require.NoError(t, err)
		got := value.FormatDecimal(res.(*array.Decimal128).Value(0), 16)
		res.Release()
		require.Equal(t, c.want, got, "avg of %v (PostgreSQL %s)", c.cents, c.pg)
		// Whatever the scale, the value is PostgreSQL's rounded to 16 digits.
		pg, err := value.ParseDecimal(c.pg, 38, 16)
		require.NoError(t, err)
		require.Equal(t, value.FormatDecimal(pg, 16), got, "PostgreSQL's %s at 16 digits", c.pg)
	}
}
