package physexpr

import (
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

// roundRef is the reference: v / 10^scale as an exact rational, times
// 10^digits, rounded by mode to an integer with big.Rat arithmetic, shown
// at scale max(digits, 0).
func roundRef(v int64, scale, digits int32, mode RoundMode) string {
	x := new(big.Rat).SetFrac(big.NewInt(v), value.Pow10(scale))
	m := new(big.Rat).SetInt(value.Pow10(max(digits, 0)))
	if digits < 0 {
		m.SetFrac(big.NewInt(1), value.Pow10(-digits))
	}
	y := new(big.Rat).Mul(x, m)
	fl := new(big.Int).Div(y.Num(), y.Denom()) // Euclidean: floor for a positive denominator
	var r *big.Int
	switch mode {
	case RoundFloor:
		r = fl
	case RoundCeil:
		r = fl
		if !y.IsInt() {
			r = new(big.Int).Add(fl, big.NewInt(1))
		}
	case RoundTrunc:
		r = fl
		if y.Sign() < 0 && !y.IsInt() {
			r = new(big.Int).Add(fl, big.NewInt(1))
		}
	default: // half away from zero: floor(|y| + 1/2) with y's sign
		a := new(big.Rat).Abs(y)
		a.Add(a, big.NewRat(1, 2))
		r = new(big.Int).Div(a.Num(), a.Denom())
		if y.Sign() < 0 {
			r.Neg(r)
		}
	}
	if digits < 0 {
		r.Mul(r, value.Pow10(-digits))
	}
	return value.FormatBigDecimal(r, max(digits, 0))
}

func roundOver(t testing.TB, mem memory.Allocator, v int64, scale, digits int32, mode RoundMode) (string, error) {
	typ := &arrow.Decimal128Type{Precision: 19, Scale: scale}
	b := array.NewDecimal128Builder(mem, typ)
	b.Append(decimal128.FromI64(v))
	b.AppendNull()
	a := b.NewArray()
	b.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
	batch := array.NewRecordBatch(sc, []arrow.Array{a}, 2)
	a.Release()
	defer batch.Release()
	s := value.DecimalRoundScale(digits)
	e := DecimalRound{E: Col{Index: 0}, Digits: digits, Mode: mode, To: &arrow.Decimal128Type{Precision: min(19-scale+1+s, value.MaxDecimalPrecision), Scale: s}}
	out, err := e.Evaluate(t.Context(), mem, batch)
	if err != nil {
		return "", err
	}
	defer out.Release()
	require.True(t, out.IsNull(1), "NULL in, NULL out")
	return value.FormatDecimal(out.(*array.Decimal128).Value(0), s), nil
}

// TestDecimalRoundPostgres: psql's answers (PostgreSQL 15).
func TestDecimalRoundPostgres(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range []struct {
		v             int64
		scale, digits int32
		mode          RoundMode
		want          string
	}{
		{25, 1, 0, RoundHalfAway, "3"},        // round(2.5)
		{-25, 1, 0, RoundHalfAway, "-3"},      // round(-2.5)
		{-225, 2, 1, RoundHalfAway, "-2.3"},   // round(-2.25, 1)
		{150, 2, 3, RoundHalfAway, "1.500"},   // round(1.50, 3)
		{12345, 1, -2, RoundHalfAway, "1200"}, // round(1234.5, -2)
		{9995, 2, 1, RoundHalfAway, "100.0"},  // round(99.95, 1)
		{-27, 1, 0, RoundTrunc, "-2"},         // trunc(-2.7)
		{-225, 2, 1, RoundTrunc, "-2.2"},      // trunc(-2.25, 1)
		{-5, 1, 0, RoundFloor, "-1"},          // floor(-0.5)
		{-5, 1, 0, RoundCeil, "0"},            // ceil(-0.5): numeric has no -0
		{42, 0, 0, RoundCeil, "42"},
	} {
		got, err := roundOver(t, mem, c.v, c.scale, c.digits, c.mode)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "%s(%d e-%d, %d)", roundModeNames[c.mode], c.v, c.scale, c.digits)
		require.Equal(t, c.want, roundRef(c.v, c.scale, c.digits, c.mode), "reference")
	}
	// 99.95 to 1 place needs a third integer digit: past numeric(3, 1).
	typ := &arrow.Decimal128Type{Precision: 4, Scale: 2}
	_, err := DecimalRound{E: Lit{Value: decimal128.FromI64(9995), Type: typ}, Digits: 1, To: &arrow.Decimal128Type{Precision: 3, Scale: 1}}.
		Bind(arrow.NewSchema(nil, nil))
	require.NoError(t, err)
	_, err = DecimalRound{E: Lit{Value: decimal128.FromI64(9995), Type: typ}, Digits: 1, To: &arrow.Decimal128Type{Precision: 3, Scale: 2}}.
		Bind(arrow.NewSchema(nil, nil))
	require.ErrorIs(t, err, errkind.InvalidArgument, "a result type whose scale is not the places'")
}

// FuzzDecimalRound checks every mode against the big.Rat reference.
func FuzzDecimalRound(f *testing.F) {
	for _, s := range [][]byte{{25, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0}, {0xd7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 3, 1}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 11 {
			return
		}
		v := int64(binary.LittleEndian.Uint64(data))
		scale := int32(data[8] % 19)
		digits := int32(data[9]%40) - 20
		mode := RoundMode(data[10] % 4)
		if mode == RoundFloor || mode == RoundCeil {
			digits = 0
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		got, err := roundOver(t, mem, v, scale, digits, mode)
		want := roundRef(v, scale, digits, mode)
		if err != nil {
			require.ErrorIs(t, err, errkind.OutOfRange)
			require.Greater(t, len(want), 38-1, "overflow only past the result's precision: %s", want)
			return
		}
		require.Equal(t, want, got, "%s(%d e-%d, %d)", roundModeNames[mode], v, scale, digits)
	})
}

// TestDecimalMod: numeric_mod's answers (psql): scale max(s1, s2), the
// dividend's sign, a zero divisor an error.
func TestDecimalMod(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := func(v int64, s int32) Lit {
		return Lit{Value: decimal128.FromI64(v), Type: &arrow.Decimal128Type{Precision: 10, Scale: s}}
	}
	one := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	b.Append(1)
	col := b.NewArray()
	b.Release()
	batch := array.NewRecordBatch(one, []arrow.Array{col}, 1)
	col.Release()
	defer batch.Release()
	for _, c := range []struct {
		x, y Lit
		want string
	}{
		{dec(150, 2), dec(4, 1), "0.30"},     // mod(1.50, 0.4)
		{dec(-225, 2), dec(4, 1), "-0.25"},   // mod(-2.25, 0.4)
		{dec(2675, 3), dec(150, 2), "1.175"}, // mod(2.675, 1.50)
		{dec(7, 0), dec(-225, 2), "0.25"},    // 7 % -2.25
		{dec(-225, 2), dec(-5, 3), "0.000"},  // no -0
	} {
		out, err := DecimalArith{Op: OpMod, L: c.x, R: c.y}.Evaluate(t.Context(), mem, batch)
		require.NoError(t, err)
		d := out.(*array.Decimal128)
		require.Equal(t, c.want, value.FormatDecimal(d.Value(0), d.DataType().(*arrow.Decimal128Type).Scale))
		out.Release()
	}
	_, err := DecimalArith{Op: OpMod, L: dec(1, 0), R: dec(0, 2)}.Evaluate(t.Context(), mem, batch)
	require.ErrorIs(t, err, ErrDivisionByZero)
}
