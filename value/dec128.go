package value

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Checked 128-bit integer arithmetic on decimal128 values (two's
// complement hi:lo), for the decimal kernels: each operation reports
// whether the exact result fits in 128 bits, so a caller can fall back to
// math/big for the rare row where it does not and never keeps a wrapped
// value. decimal128.Num's own Add and Mul wrap silently.

// Add128 is x + y; ok is false when the sum wraps (two operands of one
// sign whose sum has the other).
func Add128(x, y decimal128.Num) (decimal128.Num, bool) {
	lo, c := bits.Add64(x.LowBits(), y.LowBits(), 0)
	hi := x.HighBits() + y.HighBits() + int64(c)
	ok := (x.HighBits() < 0) != (y.HighBits() < 0) || (hi < 0) == (x.HighBits() < 0)
	return decimal128.New(hi, lo), ok
}

// Sub128 is x - y, checked as Add128.
func Sub128(x, y decimal128.Num) (decimal128.Num, bool) {
	lo, b := bits.Sub64(x.LowBits(), y.LowBits(), 0)
	hi := x.HighBits() - y.HighBits() - int64(b)
	ok := (x.HighBits() < 0) == (y.HighBits() < 0) || (hi < 0) == (x.HighBits() < 0)
	return decimal128.New(hi, lo), ok
}

// Abs128 is |x| as an unsigned 128-bit magnitude (hi, lo); the smallest
// int128 has magnitude 2^127, which fits.
func Abs128(x decimal128.Num) (hi, lo uint64) {
	hi, lo = uint64(x.HighBits()), x.LowBits()
	if x.HighBits() < 0 {
		lo, b := bits.Sub64(0, lo, 0)
		hi, _ = bits.Sub64(0, hi, b)
		return hi, lo
	}
	return hi, lo
}

// Signed128 is the magnitude (hi, lo) with a sign; ok is false when it is
// not below 2^127 (2^127 itself only fits negative, which no caller
// needs: no decimal reaches it).
func Signed128(hi, lo uint64, neg bool) (decimal128.Num, bool) {
	if hi>>63 != 0 {
		return decimal128.Num{}, false
	}
	if neg {
		lo, b := bits.Sub64(0, lo, 0)
		hi, _ = bits.Sub64(0, hi, b)
		return decimal128.New(int64(hi), lo), true
	}
	return decimal128.New(int64(hi), lo), true
}

// Mul128 is x * y; ok is false when the product does not fit.
func Mul128(x, y decimal128.Num) (decimal128.Num, bool) {
	xh, xl := Abs128(x)
	yh, yl := Abs128(y)
	neg := (x.HighBits() < 0) != (y.HighBits() < 0)
	if xh != 0 && yh != 0 {
		return decimal128.Num{}, false // both magnitudes at least 2^64
	}
	if xh != 0 { // make x the one below 2^64
		xh, xl, yh, yl = yh, yl, xh, xl
	}
	// xl * (yh:yl) = xl*yl + (xl*yh) << 64
	h1, l1 := bits.Mul64(xl, yl)
	h2, l2 := bits.Mul64(xl, yh)
	hi, c := bits.Add64(h1, l2, 0)
	if h2 != 0 || c != 0 {
		return decimal128.Num{}, false
	}
	return Signed128(hi, l1, neg)
}

// Mul64x64 is the exact signed product of two int64s in 128 bits (it
// always fits): the unsigned high word corrected for negative operands.
func Mul64x64(a, b int64) decimal128.Num {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64((a >> 63) & b)
	hi -= uint64((b >> 63) & a)
	return decimal128.New(int64(hi), lo)
}

// Within reports |x| <= m for a non-negative bound m (a precision's
// largest value): one comparison per word of the magnitude.
func Within(x, m decimal128.Num) bool {
	hi, lo := Abs128(x)
	mh, ml := uint64(m.HighBits()), m.LowBits()
	return hi < mh || (hi == mh && lo <= ml)
}

// pow10x128 is 10^k for k in [0, 38].
var pow10x128 = func() (t [MaxDecimalPrecision + 1]decimal128.Num) {
	t[0] = decimal128.FromI64(1)
	for k := 1; k < len(t); k++ {
		t[k], _ = Mul128(t[k-1], decimal128.FromI64(10))
	}
	return t
}()

// Pow10x128 is 10^k for k in [0, 38].
func Pow10x128(k int32) decimal128.Num { return pow10x128[k] }

// MaxOfPrecision is 10^p - 1 for p in [0, 38]: the largest unscaled
// value of p digits (the bound Within checks a result of precision p
// against).
func MaxOfPrecision(p int32) decimal128.Num { return maxOfPrecision[p] }

// maxOfPrecision is 10^p - 1 for p in [0, 38]: the largest unscaled
// value of p digits.
var maxOfPrecision = func() (t [MaxDecimalPrecision + 1]decimal128.Num) {
	for k := range t {
		t[k], _ = Sub128(pow10x128[k], decimal128.FromI64(1))
	}
	return t
}()
