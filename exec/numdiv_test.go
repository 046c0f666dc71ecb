package exec

import (
	"encoding/binary"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
	"github.com/stretchr/testify/require"
)

// unscaled reads a decimal literal as its unscaled integer and scale.
func unscaled(t testing.TB, s string) (*big.Int, int32) {
	i, f, _ := strings.Cut(s, ".")
	b, ok := new(big.Int).SetString(i+f, 10)
	require.True(t, ok, s)
	return b, int32(len(f))
}

// TestDivideDecimalPostgres: numeric_div's answers, printed by psql 15
// (SELECT x::numeric / y::numeric). The scale PostgreSQL picks is the
// number of digits it prints; the value, widened to our column's scale,
// is PostgreSQL's exactly when that scale is at most the column's.
func TestDivideDecimalPostgres(t *testing.T) {
	for _, c := range []struct{ x, y, pg string }{
		{"1", "3", "0.33333333333333333333"},
		{"10", "4", "2.5000000000000000"},
		{"9999", "10000", "0.99990000000000000000"},
		{"10000", "9999", "1.0001000100010001"},
		{"1.00", "3.000", "0.33333333333333333333"},
		{"-2.50", "0.007", "-357.1428571428571429"},
		{"0.0001", "3", "0.000033333333333333333333"},
		{"0.001", "7", "0.00014285714285714286"},
		{"123456.789", "0.03", "4115226.300000000000"},
		{"5", "-5", "-1.00000000000000000000"},
		{"0.00", "7", "0.00000000000000000000"},
		{"99999999", "0.00000001", "9999999900000000.00000000"},
		{"1", "9999", "0.00010001000100010001"},
		{"1", "10000", "0.000100000000000000000000"},
		{"1.5", "1", "1.50000000000000000000"},
		{"-1", "-8", "0.12500000000000000000"},
		{"2", "0.0003", "6666.6666666666666667"},
		{"12345", "12345", "1.00000000000000000000"},
	} {
		x, s1 := unscaled(t, c.x)
		y, s2 := unscaled(t, c.y)
		_, frac, _ := strings.Cut(c.pg, ".")
		rscale := pgDivScale(x, s1, y, s2)
		require.Equal(t, int32(len(frac)), rscale, "%s / %s", c.x, c.y)
		to := DecimalDivScale(s1, s2)
		q, err := divideDecimal(x, s1, y, s2, to)
		require.NoError(t, err)
		got := value.FormatBigDecimal(q, to)
		if rscale <= to {
			require.Equal(t, c.pg+strings.Repeat("0", int(to-rscale)), got, "%s / %s", c.x, c.y)
		} else {
			// Rounded once at the column's scale: PostgreSQL's digits cut
			// there (none of these cases rounds up).
			require.Equal(t, c.pg[:len(c.pg)-int(rscale-to)], got, "%s / %s", c.x, c.y)
		}
	}
	_, err := divideDecimal(big.NewInt(1), 0, new(big.Int), 2, 20)
	require.ErrorIs(t, err, ErrDivisionByZero)
}

// refDivScale is select_div_scale computed the way numeric.c sees its
// operands: the digits grouped in fours from the decimal point (base
// 10000), the weight of the first nonzero group and its value. An oracle
// independent of nbaseDigits' arithmetic.
func refDivScale(x *big.Int, s1 int32, y *big.Int, s2 int32) int32 {
	groups := func(v *big.Int, s int32) (int32, int64) {
		ds := new(big.Int).Abs(v).String()
		for int32(len(ds)) <= s {
			ds = "0" + ds
		}
		ip, fp := ds[:len(ds)-int(s)], ds[len(ds)-int(s):]
		for len(ip)%4 != 0 {
			ip = "0" + ip
		}
		for len(fp)%4 != 0 {
			fp += "0"
		}
		all := ip + fp
		w := int32(len(ip)/4) - 1 // weight of the first group
		for i := 0; i < len(all); i += 4 {
			g := new(big.Int)
			g.SetString(all[i:i+4], 10)
			if g.Sign() != 0 {
				return w - int32(i/4), g.Int64()
			}
		}
		return 0, 0
	}
	w1, f1 := groups(x, s1)
	w2, f2 := groups(y, s2)
	q := w1 - w2
	if f1 <= f2 {
		q--
	}
	return min(max(16-4*q, s1, s2, 0), 1000)
}

// refDivide is the exact quotient (big.Rat) rounded half away from zero
// to min(PostgreSQL's scale, to), as an unscaled integer at scale to.
func refDivide(x *big.Int, s1 int32, y *big.Int, s2 int32, to int32) *big.Int {
	r := min(refDivScale(x, s1, y, s2), to)
	q := new(big.Rat).SetFrac(new(big.Int).Mul(x, value.Pow10(s2)), new(big.Int).Mul(y, value.Pow10(s1)))
	q.Mul(q, new(big.Rat).SetInt(value.Pow10(r)))
	abs := new(big.Rat).Abs(q)
	abs.Add(abs, big.NewRat(1, 2))
	n := new(big.Int).Quo(abs.Num(), abs.Denom()) // floor(|q| + 1/2)
	if q.Sign() < 0 {
		n.Neg(n)
	}
	return n.Mul(n, value.Pow10(to-r))
}

// FuzzDecimalDivide checks the numeric / numeric kernel, through
// DecimalArith on Arrow arrays, against refDivide.
func FuzzDecimalDivide(f *testing.F) {
	for _, s := range [][]byte{
		{1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0xf6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0, 0, 0, 0, 0, 2, 3},
		{0x0f, 0x27, 0, 0, 0, 0, 0, 0, 0x10, 0x27, 0, 0, 0, 0, 0, 0, 0, 0},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0, 0, 18},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 18 {
			return
		}
		xv := int64(binary.LittleEndian.Uint64(data))
		yv := int64(binary.LittleEndian.Uint64(data[8:]))
		s1, s2 := int32(data[16]%30), int32(data[17]%30)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		lt := &arrow.Decimal128Type{Precision: 38, Scale: s1}
		rt := &arrow.Decimal128Type{Precision: 38, Scale: s2}
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: lt}, {Name: "y", Type: rt}}, nil)
		xa := decimalArray(mem, lt, []decimal128.Num{decimal128.FromI64(xv)}, nil)
		ya := decimalArray(mem, rt, []decimal128.Num{decimal128.FromI64(yv)}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{xa, ya}, 1)
		xa.Release()
		ya.Release()
		defer rec.Release()
		e := DecimalArith{Op: OpDiv, L: Col{Index: 0}, R: Col{Index: 1}}
		out, err := e.Evaluate(t.Context(), mem, rec)
		if yv == 0 {
			require.ErrorIs(t, err, ErrDivisionByZero)
			return
		}
		to := DecimalDivScale(s1, s2)
		want := refDivide(big.NewInt(xv), s1, big.NewInt(yv), s2, to)
		if new(big.Int).Abs(want).Cmp(value.Pow10(value.MaxDecimalPrecision)) >= 0 {
			require.ErrorIs(t, err, errkind.OutOfRange)
			return
		}
		require.NoError(t, err)
		defer out.Release()
		require.Equal(t, value.FormatBigDecimal(want, to), value.FormatDecimal(out.(*array.Decimal128).Value(0), to), "%d e-%d / %d e-%d", xv, s1, yv, s2)
	})
}

// avg(numeric) is the exact sum divided by the count by the same rule
// (psql 15: avg of 3.25, -1.50, 9999.99 is 3333.9133333333333333); NULLs
// are skipped, an empty group is NULL.
func TestDecimalAvg(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := &arrow.Decimal128Type{Precision: 6, Scale: 2}
	out, mk, err := aggSignature(Aggregate{Func: AggAvg}, []arrow.DataType{in})
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(out, &arrow.Decimal128Type{Precision: 38, Scale: 20}), "%s", out)
	acc := mk()
	a := decimalArray(mem, in, []decimal128.Num{decimal128.FromI64(325), decimal128.FromI64(-150), {}, decimal128.FromI64(999999)}, []bool{true, true, false, true})
	defer a.Release()
	require.NoError(t, acc.update([]arrow.Array{a}, []uint32{0, 0, 1, 0}, 2))
	res, err := acc.emit(mem, 2)
	require.NoError(t, err)
	defer res.Release()
	d := res.(*array.Decimal128)
	require.Equal(t, "3333.91333333333333330000", value.FormatDecimal(d.Value(0), 20))
	require.True(t, d.IsNull(1))
}
