package physexpr

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/stablerow/stablerow/value"
)

// numeric / numeric. PostgreSQL chooses a quotient's scale per value
// (numeric.c, select_div_scale): with the operands in base-10000 digits,
// qweight = weight(x) - weight(y), one less when x's first nonzero digit
// is not above y's; rscale = 16 - 4*qweight, at least both operands'
// display scales, and the quotient is x/y rounded half away from zero to
// rscale digits (div_var with round). avg(numeric) is sum / count through
// the same rule (numeric_avg).
//
// A decimal128 column has one scale, so stablerow's quotient is
// numeric(38, S) with S = DecimalDivScale(s1, s2) = max(s1, s2, 20) (at
// most 38). Every row is rounded exactly where PostgreSQL rounds it (its
// rscale) and then widened to S with trailing zeros, so the value equals
// PostgreSQL's whenever rscale <= S: quotients of magnitude above about
// 1e-4 (qweight >= -1) with operands of scale <= 20. A smaller quotient
// (PostgreSQL keeps 16 significant digits past S) is rounded once, half
// away from zero, to S digits. And an operand that is itself a quotient
// has scale S here where PostgreSQL's value carries its own rscale (16
// for a quotient of about 1 to 10^4), which raises the next division's
// rscale: PostgreSQL's (10.00 / 3) / 0.7 is rounded at 16 digits
// (4.7619047619047619), stablerow's at 20 (4.76190476190476185714). A
// quotient of more than 38 - S integer digits is "numeric field
// overflow"; a zero divisor is "division by zero".

// minDivScale is the least scale of a quotient: PostgreSQL's rscale for
// qweight -1 (quotients from about 1e-4 to 1), so fractions such as
// TPC-H's shares and ratios keep every digit PostgreSQL prints.
const minDivScale = 20

// DecimalDivScale is the scale of numeric(·, s1) / numeric(·, s2).
func DecimalDivScale(s1, s2 int32) int32 {
	return min(max(s1, s2, minDivScale), value.MaxDecimalPrecision)
}

// avgScale is PostgreSQL's rscale for numeric_avg's sumX / N when the
// quotient's qweight is 0: NUMERIC_MIN_SIG_DIGITS, 16.
const avgScale = 16

// DecimalAvgScale is the scale of avg(numeric(·, s)): max(s, 16), at most
// 38. numeric_avg divides the sum by the count through select_div_scale,
// so PostgreSQL's scale is max(16 - 4*qweight, s) per value; one column
// scale can be PostgreSQL's for one qweight only, and 0 is the one of a
// mean of about 1 to 10^4 (2.25, 11934.48, the usual prices and
// quantities), where stablerow prints PostgreSQL's text. A mean whose
// qweight is higher (about 10^4 and up: 61728395.505000000000 there)
// has the same value padded with zeros to 16 digits here; one whose
// qweight is lower (below about 1, or a sum whose first base-10000 digit
// is not above the count's, as 3.00 / 3) has 20 or more digits there and
// is rounded once, half away from zero, to 16 here: the same value when
// its exact digits end by the 16th (0.375, 1), else PostgreSQL's rounded
// (0.01666666666666666667 there, 0.0166666666666667 here).
func DecimalAvgScale(s int32) int32 {
	return min(max(s, avgScale), value.MaxDecimalPrecision)
}

// nbaseDigits places |v| (unscaled, at scale s, nonzero) in PostgreSQL's
// base-10000 digits: the weight of its first nonzero digit (10000^weight
// is that digit's place) and the digit's value.
func nbaseDigits(v *big.Int, s int32) (weight int32, first int64) {
	a := new(big.Int).Abs(v)
	e := int32(len(a.String())) - 1 - s // 10^e <= |v| < 10^(e+1)
	weight = e / 4
	if e < 0 && e%4 != 0 {
		weight-- // floor division
	}
	shift := s + 4*weight // first = floor(|v| / 10000^weight)
	if shift >= 0 {
		a.Quo(a, value.Pow10(shift))
	} else {
		a.Mul(a, value.Pow10(-shift))
	}
	return weight, a.Int64()
}

// pgDivScale is select_div_scale for x (scale s1) / y (scale s2), y != 0.
func pgDivScale(x *big.Int, s1 int32, y *big.Int, s2 int32) int32 {
	var w1, w2 int32
	var f1, f2 int64
	if x.Sign() != 0 {
		w1, f1 = nbaseDigits(x, s1)
	}
	w2, f2 = nbaseDigits(y, s2)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := 16 - 4*qweight
	return min(max(rscale, s1, s2, 0), 1000)
}

// DivideDecimal is x (scale s1) / y (scale s2) as an unscaled integer at
// scale to: rounded half away from zero at PostgreSQL's rscale, or at to
// when rscale is finer, then widened to to.
func DivideDecimal(x *big.Int, s1 int32, y *big.Int, s2 int32, to int32) (*big.Int, error) {
	if y.Sign() == 0 {
		return nil, fmt.Errorf("%w", ErrDivisionByZero)
	}
	r := min(pgDivScale(x, s1, y, s2), to)
	// x/10^s1 / (y/10^s2) * 10^r = x*10^(s2+r) / (y*10^s1); s2+r >= 0.
	num := new(big.Int).Mul(x, value.Pow10(s2+r))
	den := new(big.Int).Mul(y, value.Pow10(s1))
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	rem.Abs(rem).Lsh(rem, 1)
	if rem.CmpAbs(den) >= 0 {
		if num.Sign() != den.Sign() {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q.Mul(q, value.Pow10(to-r)), nil
}

// DecimalDivRScale is PostgreSQL's rscale (select_div_scale) for x (scale
// s1) / y (scale s2), y != 0: numeric_stddev_internal divides at it and
// rounds the square root at it too (exec/acc_stddev.go).
func DecimalDivRScale(x *big.Int, s1 int32, y *big.Int, s2 int32) int32 {
	return pgDivScale(x, s1, y, s2)
}

// DivideDecimalAtRScale64 is x (scale s1) / y (scale s2) at PostgreSQL's
// rscale (select_div_scale) and that rscale, for |x|, |y| < 10^18, in
// 128-bit arithmetic: numeric_stddev_internal divides at the rscale and
// takes the square root at it (exec/acc_stddev.go), once per group. ok is
// false when the fast path does not apply (DivideDecimal and
// DecimalDivRScale then give the same answer through math/big).
func DivideDecimalAtRScale64(x int64, s1 int32, y int64, s2 int32) (q decimal128.Num, r int32, ok bool) {
	const lim = 1_000_000_000_000_000_000
	if y == 0 || x <= -lim || x >= lim || y <= -lim || y >= lim || s1 < 0 || s2 < 0 || s1 > 38 || s2 > 38 {
		return decimal128.Num{}, 0, false
	}
	if x == 0 {
		return decimal128.Num{}, 0, false // zero's rscale: the big path's
	}
	r = pgDivScale64(magnitude64(x), s1, magnitude64(y), s2)
	if r < 0 || r > 38 {
		return decimal128.Num{}, 0, false
	}
	// The quotient is bounded by 128 bits only: the caller rounds it to
	// its own column (max = 10^38 - 1 here is that bound's decimal one).
	q, ok = divide64(x, s1, y, s2, r, value.MaxOfPrecision(value.MaxDecimalPrecision))
	return q, r, ok
}

// divide64 is DivideDecimal for |x|, |y| < 10^18 (scales s1, s2 and to in
// [0, 38]) in 128-bit arithmetic, with no allocation: the same rscale
// (pgDivScale64), the same quotient rounded half away from zero, widened
// to to. ok is false, and the caller takes DivideDecimal (which has the
// row's error), when y is zero, when the scaled dividend x*10^(s2+r) is
// past 128 bits or the scaled divisor y*10^s1 past 64, or when the
// result is past max (its precision's largest value).
func divide64(x int64, s1 int32, y int64, s2 int32, to int32, max decimal128.Num) (decimal128.Num, bool) {
	if y == 0 || s1 > 19 {
		return decimal128.Num{}, false
	}
	if x == 0 {
		return decimal128.Num{}, true
	}
	ax, ay := magnitude64(x), magnitude64(y)
	r := min(pgDivScale64(ax, s1, ay, s2), to)
	if s2+r > value.MaxDecimalPrecision {
		return decimal128.Num{}, false
	}
	num, ok := value.Mul128(decimal128.New(0, ax), value.Pow10x128(s2+r))
	if !ok {
		return decimal128.Num{}, false
	}
	dh, den := bits.Mul64(ay, value.Pow10x128(s1).LowBits()) // 10^s1 < 2^64 for s1 <= 19
	if dh != 0 {
		return decimal128.Num{}, false
	}
	nh, nl := uint64(num.HighBits()), num.LowBits()
	qh, rh := nh/den, nh%den
	ql, rem := bits.Div64(rh, nl, den)
	if rem >= den-rem { // 2*rem >= den: half away from zero
		var c uint64
		ql, c = bits.Add64(ql, 1, 0)
		qh += c
	}
	q, ok := value.Signed128(qh, ql, (x < 0) != (y < 0))
	if !ok {
		return decimal128.Num{}, false
	}
	z, ok := value.Mul128(q, value.Pow10x128(to-r))
	if !ok || !value.Within(z, max) {
		return decimal128.Num{}, false
	}
	return z, true
}

func magnitude64(x int64) uint64 {
	m := x >> 63
	return uint64((x ^ m) - m)
}

// pow10u64 is 10^k for k in [0, 19].
var pow10u64 = func() (t [20]uint64) {
	t[0] = 1
	for k := 1; k < len(t); k++ {
		t[k] = t[k-1] * 10
	}
	return t
}()

// nbaseDigits64 is nbaseDigits for a nonzero magnitude below 10^18.
func nbaseDigits64(a uint64, s int32) (weight int32, first uint64) {
	d := int32(1) // a's decimal digits
	for d < 19 && a >= pow10u64[d] {
		d++
	}
	e := d - 1 - s
	weight = e / 4
	if e < 0 && e%4 != 0 {
		weight--
	}
	shift := s + 4*weight // in [-3, d-1]
	if shift >= 0 {
		return weight, a / pow10u64[shift]
	}
	return weight, a * pow10u64[-shift]
}

// pgDivScale64 is pgDivScale for nonzero magnitudes below 10^18.
func pgDivScale64(ax uint64, s1 int32, ay uint64, s2 int32) int32 {
	w1, f1 := nbaseDigits64(ax, s1)
	w2, f2 := nbaseDigits64(ay, s2)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	return min(max(16-4*qweight, s1, s2, 0), 1000)
}
