package value

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// exactPow10 are the powers of ten a float64 holds exactly (5^22 < 2^53).
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// decimalFloat64 is v / 10^scale as the nearest float64 (ties to even),
// the float strconv.ParseFloat gives for the decimal's text, without
// making the text: the cast numeric → double precision runs per row
// (TPC-H's avg and ratio expressions).
//
// Fast path (Clinger's): when |v| < 2^53 and |scale| <= 22 both v and
// 10^|scale| are exact float64s, and IEEE division or multiplication
// rounds their exact quotient or product once, correctly. Every other
// value goes through an exact rational, whose Float64 also rounds once.
func decimalFloat64(v decimal128.Num, scale int32) float64 {
	hi, lo := v.HighBits(), v.LowBits()
	var m float64
	switch {
	case hi == 0 && lo <= 1<<53:
		m = float64(lo)
	case hi == -1 && int64(lo) < 0 && int64(lo) >= -(1<<53):
		m = float64(int64(lo))
	default:
		return decimalFloat64Exact(v, scale)
	}
	switch {
	case scale == 0:
		return m
	case scale > 0 && scale < int32(len(exactPow10)):
		return m / exactPow10[scale]
	case scale < 0 && -scale < int32(len(exactPow10)):
		return m * exactPow10[-scale]
	}
	return decimalFloat64Exact(v, scale)
}

// decimalFloat64Digits is decimalFloat64 for a mantissa past 2^53 or a
// scale past 22: its digits and exponent through strconv.ParseFloat,
// which rounds once, correctly (Eisel-Lemire for up to 19 digits, exact
// big-decimal arithmetic beyond), about 15x faster than a big.Rat. A
// stddev or a quotient at scale 20 (TPC-DS Q39's coefficient of
// variation) has a 22-digit mantissa on every row. ok is false for the
// one mantissa without a positive twin (-2^127).
func decimalFloat64Digits(v decimal128.Num, scale int32) (float64, bool) {
	var buf [48]byte
	b := buf[:0]
	if v.Sign() < 0 {
		if v.HighBits() == math.MinInt64 && v.LowBits() == 0 {
			return 0, false
		}
		v = v.Negate()
		b = append(b, '-')
	}
	hi, lo := uint64(v.HighBits()), v.LowBits()
	if hi == 0 {
		b = strconv.AppendUint(b, lo, 10)
	} else {
		// hi < 2^63 < 10^19, so one division leaves a uint64 quotient.
		q, r := bits.Div64(hi, lo, 1e19)
		b = strconv.AppendUint(b, q, 10)
		var low [19]byte
		for i := len(low) - 1; i >= 0; i-- {
			low[i] = byte('0' + r%10)
			r /= 10
		}
		b = append(b, low[:]...)
	}
	b = append(b, 'e')
	b = strconv.AppendInt(b, int64(-scale), 10)
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true // ErrRange: ±Inf or ±0, as the exact quotient rounds
}

// decimalFloat64Exact is decimalFloat64 through math/big. Scales far past
// float64's range (|v| < 2^127 ≈ 1.7e38; float64 spans about 1e-324 to
// 1.8e308) give the signed zero or infinity without building 10^scale.
func decimalFloat64Exact(v decimal128.Num, scale int32) float64 {
	if scale >= -330 && scale <= 39+330 {
		if f, ok := decimalFloat64Digits(v, scale); ok {
			return f
		}
	}
	b := v.BigInt()
	sign := float64(b.Sign())
	switch {
	case sign == 0:
		return 0
	case scale > 39+324:
		return math.Copysign(0, sign)
	case scale < -309:
		return math.Inf(int(sign))
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(scale))), nil)
	var r big.Rat
	if scale >= 0 {
		r.SetFrac(b, p)
	} else {
		r.SetInt(b.Mul(b, p))
	}
	f, _ := r.Float64()
	return f
}

func abs32(n int32) int32 {
	if n < 0 {
		return -n
	}
	return n
}
