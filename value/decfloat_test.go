package value

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"
)

// textFloat is the oracle: the decimal's text through strconv.ParseFloat
// (correctly rounded), with the exponent written out for negative scales.
func textFloat(t testing.TB, v decimal128.Num, scale int32) float64 {
	s := FormatDecimal(v, scale)
	if scale < 0 {
		s += "e" + strconv.Itoa(int(-scale))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		t.Fatalf("ParseFloat(%q): %v", s, err)
	}
	return f
}

func requireSameFloat(t testing.TB, want, got float64, v decimal128.Num, scale int32) {
	if math.Float64bits(want) != math.Float64bits(got) {
		t.Fatalf("%s scale %d: direct %v (%#x), text %v (%#x)", v.BigInt(), scale,
			got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

// TestDecimalFloat64 covers both paths' edges: 2^53 on either side, a
// halfway case that rounds to even, the decimal128 extremes and scales
// outside float64's range.
func TestDecimalFloat64(t *testing.T) {
	max := decimal128.MaxDecimal128
	cases := []struct {
		v     decimal128.Num
		scale int32
	}{
		{decimal128.FromI64(0), 5},
		{decimal128.FromI64(1), 0},
		{decimal128.FromI64(-1), 1},
		{decimal128.FromI64(12345), 2},
		{decimal128.FromI64(1 << 53), 0},
		{decimal128.FromI64(1<<53 + 1), 0}, // halfway between two floats: to even
		{decimal128.FromI64(1<<53 + 3), 0},
		{decimal128.FromI64(-(1<<53 + 1)), 3},
		{decimal128.FromI64(-(1 << 53)), 22},
		{decimal128.FromI64(9007199254740993), 23},
		{decimal128.FromI64(math.MaxInt64), 7},
		{decimal128.FromI64(math.MinInt64), 7},
		{decimal128.FromU64(math.MaxUint64), 4},
		{max, 0}, {max, 38}, {max.Negate(), 38},
		{decimal128.FromI64(7), 30},
		{decimal128.FromI64(3), -5},
		{decimal128.FromI64(-3), -22},
		{decimal128.FromI64(3), -23},
		{max, -270}, {max, -271}, {max.Negate(), -400},
		{decimal128.FromI64(5), 324}, {decimal128.FromI64(-5), 324}, {decimal128.FromI64(3), 325},
		{max, 400}, {max.Negate(), 1000},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.v.BigInt(), c.scale), func(t *testing.T) {
			requireSameFloat(t, textFloat(t, c.v, c.scale), DecimalToFloat(c.v, c.scale), c.v, c.scale)
		})
	}
	require.Equal(t, math.Inf(1), DecimalToFloat(decimal128.FromI64(1), -1000))
	require.Equal(t, math.Copysign(0, -1), DecimalToFloat(decimal128.FromI64(-1), 1000))
}

// FuzzDecimalFloat64: the direct conversion equals the text path bit for
// bit, for any decimal128 and scale in [-40, 80].
func FuzzDecimalFloat64(f *testing.F) {
	f.Add(int64(0), uint64(12345), int8(2))
	f.Add(int64(0), uint64(1<<53+1), int8(0))
	f.Add(int64(-1), uint64(1<<63), int8(10))
	f.Add(int64(1<<62), uint64(0), int8(38))
	f.Fuzz(func(t *testing.T, hi int64, lo uint64, s int8) {
		scale := int32(s)%61 + 20 // -40 .. 80
		v := decimal128.New(hi, lo)
		requireSameFloat(t, textFloat(t, v, scale), DecimalToFloat(v, scale), v, scale)
	})
}

// BenchmarkDecimalFloat64 compares the direct conversion with the text
// path it replaces, on TPC-H-sized numeric(15,2) values.
func BenchmarkDecimalFloat64(b *testing.B) {
	vals := make([]decimal128.Num, 1024)
	for i := range vals {
		vals[i] = decimal128.FromI64(int64(i)*7919311 + 104999)
	}
	var sink float64
	b.Run("direct", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sink += DecimalToFloat(vals[i%len(vals)], 2)
		}
	})
	b.Run("text", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sink += textFloat(b, vals[i%len(vals)], 2)
		}
	})
	// A stddev at numeric(38, 20): 22-digit mantissas, past the fast path.
	wide := make([]decimal128.Num, 1024)
	for i := range wide {
		wide[i] = decimal128.FromU64(uint64(i)*7919311 + 1<<60).Mul(decimal128.FromI64(1000 + int64(i)))
	}
	b.Run("scale20/digits", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sink += DecimalToFloat(wide[i%len(wide)], 20)
		}
	})
	b.Run("scale20/rat", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			v := wide[i%len(wide)]
			r := new(big.Rat).SetFrac(v.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
			f, _ := r.Float64()
			sink += f
		}
	})
	_ = sink
}
