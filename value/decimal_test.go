package value

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
)

// TestDecimalParseFormat: PostgreSQL 15's answers for numeric_in with a
// typmod, rounding half away from zero, and numeric_out.
func TestDecimalParseFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		p, s int32
		want string
	}{
		{"1.005", 10, 2, "1.01"}, {"-1.005", 10, 2, "-1.01"}, {"0.125", 5, 2, "0.13"}, {"-0.125", 5, 2, "-0.13"},
		{"2.5", 3, 0, "3"}, {"-2.5", 3, 0, "-3"}, {" 12 ", 5, 1, "12.0"}, {"1e3", 6, 2, "1000.00"}, {"-0.0005", 5, 3, "-0.001"},
		{"0.0004", 5, 3, "0.000"}, {".5", 2, 1, "0.5"}, {"5.", 2, 1, "5.0"}, {"+7", 1, 0, "7"}, {"1.5E-1", 3, 2, "0.15"},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999"},
	} {
		v, err := ParseDecimal(c.in, c.p, c.s)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, FormatDecimal(v, c.s), c.in)
	}
	for _, c := range []struct {
		in   string
		p, s int32
	}{{"99.9995", 5, 3}, {"1000", 5, 2}, {"100000000000000000000000000000000000000", 38, 0}, {"1e2000", 38, 0}} {
		_, err := ParseDecimal(c.in, c.p, c.s)
		require.ErrorIs(t, err, errkind.OutOfRange, c.in)
		require.Contains(t, err.Error(), "numeric field overflow")
	}
	for _, in := range []string{"", "abc", "1.2.3", "--1", "1e", "0x10", "1 2"} {
		_, err := ParseDecimal(in, 10, 2)
		require.ErrorIs(t, err, errkind.InvalidArgument, in)
	}
	// NaN and the infinities are valid numeric input that a decimal128
	// cannot hold: Unsupported, not a syntax error.
	for _, in := range []string{"NaN", " nan ", "Infinity", "-Infinity", "inf"} {
		_, err := ParseDecimal(in, 10, 2)
		require.ErrorIs(t, err, ErrNumericSpecial, in)
		require.ErrorIs(t, err, errkind.Unsupported, in)
	}
}

// TestDecimalAgainstBigRat checks rounding and formatting against
// math/big's exact rationals on random values.
func TestDecimalAgainstBigRat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		from, to := int32(r.IntN(10)), int32(r.IntN(10))
		b := big.NewInt(r.Int64N(1e15) - 5e14)
		v, err := RescaleDecimal(decimal128.FromBigInt(b), from, 38, to)
		require.NoError(t, err)
		// Oracle: b / 10^from, rounded half away from zero to to digits.
		rat := new(big.Rat).SetFrac(b, Pow10(from))
		scaled := new(big.Rat).Mul(rat, new(big.Rat).SetInt(Pow10(to)))
		q, m := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
		if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(scaled.Denom()) >= 0 {
			q.Add(q, big.NewInt(int64(b.Sign())))
		}
		require.Equal(t, q.String(), v.BigInt().String(), "%s at %d to %d", b, from, to)
		want := rat.FloatString(int(from))
		if from == 0 {
			want = b.String()
		}
		require.Equal(t, want, FormatDecimal(decimal128.FromBigInt(b), from))
	}
}

func TestDecimalConversions(t *testing.T) {
	v, err := DecimalFromFloat(0.1, 64, 10, 5)
	require.NoError(t, err)
	require.Equal(t, "0.10000", FormatDecimal(v, 5))
	v, err = DecimalFromFloat(1.0/3, 64, 20, 18)
	require.NoError(t, err)
	require.Equal(t, "0.333333333333333000", FormatDecimal(v, 18), "float8 to numeric keeps 15 digits")
	_, err = DecimalFromFloat(mathInf(), 64, 10, 0)
	require.ErrorIs(t, err, ErrNumericSpecial)
	n, err := DecimalToInt(decimal128.FromI64(-25), 1, -100, 100, "integer")
	require.NoError(t, err)
	require.Equal(t, int64(-3), n)
	_, err = DecimalToInt(decimal128.FromI64(32768), 0, -32768, 32767, "smallint")
	require.True(t, errors.Is(err, errkind.OutOfRange))
	require.Contains(t, err.Error(), "smallint out of range")
}

func mathInf() float64 { var z float64; return 1 / z }

// FuzzParseDecimal: any text is a numeric(p, s) or a typed error, and a
// value prints back to text that reads back to it.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"1.005", "-0.125", "1e3", "99.9995", " 12 ", "abc", "1e-40", "99999999999999999999999999999999999999"} {
		f.Add(s, int32(10), int32(2))
	}
	f.Fuzz(func(t *testing.T, s string, p, sc int32) {
		p = 1 + (p%38+38)%38
		sc = (sc%(p+1) + (p + 1)) % (p + 1)
		v, err := ParseDecimal(s, p, sc)
		if err != nil {
			if !errors.Is(err, errkind.OutOfRange) && !errors.Is(err, errkind.InvalidArgument) {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		back, err := ParseDecimal(FormatDecimal(v, sc), p, sc)
		if err != nil || back != v {
			t.Fatalf("%q -> %s -> %v, %v", s, FormatDecimal(v, sc), back, err)
		}
	})
}

// TestRescaleWidenMatchesBig checks the 128-bit widening path of
// RescaleDecimal against the big.Int one (fitDecimal) at the edges of
// every precision: values around ±10^k, scale steps up to 38, so both
// the precision check and a product past 128 bits are exercised (dropping
// either check fails it).
func TestRescaleWidenMatchesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		k := r.IntN(39)
		b := new(big.Int).Set(Pow10(int32(k)))
		b.Add(b, big.NewInt(r.Int64N(5)-2))
		if r.IntN(2) == 0 {
			b.Neg(b)
		}
		if b.BitLen() > 126 {
			continue
		}
		from := int32(r.IntN(10))
		to := from + int32(r.IntN(39-int(from)))
		p := int32(1 + r.IntN(38))
		v := decimal128.FromBigInt(b)
		got, err := RescaleDecimal(v, from, p, to)
		want, werr := fitDecimal(b, from, to, p)
		require.Equal(t, werr != nil, err != nil, "%s from %d to %d p %d: %v / %v", b, from, to, p, err, werr)
		if err == nil {
			require.Equal(t, want, got, "%s from %d to %d p %d", b, from, to, p)
		} else {
			require.ErrorIs(t, err, errkind.OutOfRange)
		}
	}
}
