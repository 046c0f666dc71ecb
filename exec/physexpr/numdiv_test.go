package physexpr

import (
	"encoding/binary"
	"math/big"
	"strings"
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
		q, err := DivideDecimal(x, s1, y, s2, to)
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
	_, err := DivideDecimal(big.NewInt(1), 0, new(big.Int), 2, 20)
	require.ErrorIs(t, err, ErrDivisionByZero)
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
		xa := arrowtest.DecimalArray(mem, lt, []decimal128.Num{decimal128.FromI64(xv)}, nil)
		ya := arrowtest.DecimalArray(mem, rt, []decimal128.Num{decimal128.FromI64(yv)}, nil)
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
		want := arrowtest.RefDivide(big.NewInt(xv), s1, big.NewInt(yv), s2, to)
		if new(big.Int).Abs(want).Cmp(value.Pow10(value.MaxDecimalPrecision)) >= 0 {
			require.ErrorIs(t, err, errkind.OutOfRange)
			return
		}
		require.NoError(t, err)
		defer out.Release()
		require.Equal(t, value.FormatBigDecimal(want, to), value.FormatDecimal(out.(*array.Decimal128).Value(0), to), "%d e-%d / %d e-%d", xv, s1, yv, s2)
	})
}

// TestDivideLane: numeric / numeric of values below 10^18 runs in
// laneDiv (divide64, 128-bit) and equals the independent reference
// (arrowtest.RefDivide) on every row, at the rscale edges (quotients
// near 10^4k, exact halves, scales 0 to 20) and on pseudo-random rows;
// rows past the lane's reach (the scaled divisor past 64 bits, a
// quotient past the precision) reach exactRow and still equal it. Its
// column of 1024 rows allocates a constant number of times: before the
// lane every row went to math/big (TPC-DS Q4: 3 µs a row).
func TestDivideLane(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	edges := []int64{0, 1, -1, 2, 3, 5, 7, 9, 10, 99, 100, 999, 1000, 9999, 10000, 10001, 99999, 123456789,
		999_999_999_999_999_999, -999_999_999_999_999_999, 500_000_000_000_000_000, 1 << 40, 33333333}
	seed := uint64(88172645463325252)
	next := func() int64 { // xorshift: deterministic rows
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		v := int64(seed % 2_000_000_000_000_000_000)
		return v - 1_000_000_000_000_000_000 + 1 // within ±(10^18 - 1)
	}
	for _, sc := range [][2]int32{{0, 0}, {2, 0}, {2, 2}, {4, 2}, {0, 7}, {7, 2}, {12, 3}, {18, 0}, {20, 20}, {19, 5}} {
		s1, s2 := sc[0], sc[1]
		lt := &arrow.Decimal128Type{Precision: 38, Scale: s1}
		rt := &arrow.Decimal128Type{Precision: 38, Scale: s2}
		var xs, ys []decimal128.Num
		for _, x := range edges {
			for _, y := range edges {
				if y != 0 {
					xs, ys = append(xs, decimal128.FromI64(x)), append(ys, decimal128.FromI64(y))
				}
			}
		}
		for range 1024 {
			x, y := next(), next()>>uint(seed%60)
			if y == 0 {
				y = 7
			}
			xs, ys = append(xs, decimal128.FromI64(x)), append(ys, decimal128.FromI64(y))
		}
		// Rows whose quotient overflows numeric(38, to) raise; the
		// batch keeps the others (FuzzDecimalDivide checks the error).
		to := DecimalDivScale(s1, s2)
		var keepX, keepY []decimal128.Num
		for i := range xs {
			want := arrowtest.RefDivide(xs[i].BigInt(), s1, ys[i].BigInt(), s2, to)
			if new(big.Int).Abs(want).Cmp(value.Pow10(value.MaxDecimalPrecision)) < 0 {
				keepX, keepY = append(keepX, xs[i]), append(keepY, ys[i])
			}
		}
		xs, ys = keepX, keepY
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: lt}, {Name: "y", Type: rt}}, nil)
		xa := arrowtest.DecimalArray(mem, lt, xs, nil)
		ya := arrowtest.DecimalArray(mem, rt, ys, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{xa, ya}, int64(len(xs)))
		xa.Release()
		ya.Release()
		e := DecimalArith{Op: OpDiv, L: Col{Index: 0}, R: Col{Index: 1}}
		b, err := e.Bind(schema)
		require.NoError(t, err)
		require.Equal(t, laneDiv, b.(boundDecimalArith).lane)
		out, err := e.Evaluate(t.Context(), mem, rec)
		if err != nil {
			rec.Release()
		}
		require.NoError(t, err)
		d := out.(*array.Decimal128)
		for i := range xs {
			want := arrowtest.RefDivide(xs[i].BigInt(), s1, ys[i].BigInt(), s2, to)
			require.Equal(t, value.FormatBigDecimal(want, to), value.FormatDecimal(d.Value(i), to), "%s e-%d / %s e-%d", xs[i].BigInt(), s1, ys[i].BigInt(), s2)
		}
		out.Release()
		rec.Release()
	}

	// Allocations of one 1024-row column of decimal(7,2) / 2: a few
	// (the output's buffers), not one or more per row.
	lt := &arrow.Decimal128Type{Precision: 7, Scale: 2}
	vals := make([]decimal128.Num, 1024)
	for i := range vals {
		vals[i] = decimal128.FromI64(int64(i*7919%1000000 - 500000))
	}
	xa := arrowtest.DecimalArray(mem, lt, vals, nil)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: lt}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{xa}, int64(len(vals)))
	xa.Release()
	defer rec.Release()
	e := DecimalArith{Op: OpDiv, L: Col{Index: 0}, R: Lit{Value: decimal128.FromI64(2), Type: &arrow.Decimal128Type{Precision: 1, Scale: 0}}}
	allocs := testing.AllocsPerRun(10, func() {
		out, err := e.Evaluate(t.Context(), mem, rec)
		require.NoError(t, err)
		out.Release()
	})
	require.Less(t, allocs, 100.0)
}
