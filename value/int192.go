package value

import (
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Int192 is a signed 192-bit integer, two's complement Hi:Mid:Lo: the
// exact total of a sum over decimal128 values. A decimal128 value is
// below 2^127 in magnitude, so no run of fewer than 2^63 additions can
// overflow it, and the total is the same whatever order the values
// arrive in. GROUP BY's sum(numeric) keeps one per group and merges the
// partial totals of parallel partitions; the window operator keeps
// prefix totals and takes a frame's total as a difference.
type Int192 struct {
	Lo, Mid uint64
	Hi      int64
}

// Add adds v, sign-extended to 192 bits.
func (s *Int192) Add(v decimal128.Num) {
	var c uint64
	s.Lo, c = bits.Add64(s.Lo, v.LowBits(), 0)
	s.Mid, c = bits.Add64(s.Mid, uint64(v.HighBits()), c)
	s.Hi += v.HighBits()>>63 + int64(c)
}

// Merge adds another total.
func (s *Int192) Merge(o Int192) {
	var c uint64
	s.Lo, c = bits.Add64(s.Lo, o.Lo, 0)
	s.Mid, c = bits.Add64(s.Mid, o.Mid, c)
	s.Hi += o.Hi + int64(c)
}

// Minus is s - o.
func (s Int192) Minus(o Int192) Int192 {
	var c uint64
	var r Int192
	r.Lo, c = bits.Sub64(s.Lo, o.Lo, 0)
	r.Mid, c = bits.Sub64(s.Mid, o.Mid, c)
	r.Hi = s.Hi - o.Hi - int64(c)
	return r
}

// Num is the total as decimal128 when it has at most 38 digits.
func (s Int192) Num() (decimal128.Num, bool) {
	if s.Hi != int64(s.Mid)>>63 {
		return decimal128.Num{}, false
	}
	v := decimal128.New(int64(s.Mid), s.Lo)
	return v, Within(v, maxDecimal38)
}

// BigInt is the total as a big.Int.
func (s Int192) BigInt() *big.Int {
	b := big.NewInt(s.Hi)
	b.Lsh(b, 64).Add(b, new(big.Int).SetUint64(s.Mid))
	return b.Lsh(b, 64).Add(b, new(big.Int).SetUint64(s.Lo))
}

// maxDecimal38 is the largest unscaled value of 38 digits.
var maxDecimal38 = MaxOfPrecision(MaxDecimalPrecision)

// AvgQuotient128 is avg of an integer column whose exact total hi:lo
// (128 bits) over n rows is kept: PostgreSQL's numeric_div of the total
// by the count (int8_avg, numeric_poly_avg), which rounds half away from
// zero at the scale select_div_scale gives (at least 16 significant
// digits), then that numeric read as the nearest double, as numeric_float8
// does. The double nearest the exact quotient differs in the last bit
// where the decimal rounding crosses a midpoint between two doubles
// (683179138994376041 / 5 is ...208.2, nearest double ...216, while
// PostgreSQL rounds to ...208 and then to the even ...200: difftest seed
// 20261239 case 111923), so the decimal is formed first.
func AvgQuotient128(hi int64, lo uint64, n int64) float64 {
	if v := int64(lo); hi == v>>63 {
		if v%n == 0 {
			return float64(v / n) // exact: both roundings are the one of v/n
		}
		if f, ok := avgQuotient64(v, n); ok {
			return f
		}
	}
	return avgQuotientBig(hi, lo, n)
}

// avgQuotientBig is AvgQuotient128 in big integers, for any total.
func avgQuotientBig(hi int64, lo uint64, n int64) float64 {
	x := new(big.Int).Lsh(big.NewInt(hi), 64)
	x.Add(x, new(big.Int).SetUint64(lo))
	neg := x.Sign() < 0
	x.Abs(x)
	d := big.NewInt(n)
	scale := max(minSigDigits-divWeight(x, d)*4, 0)
	x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	q, r := x.QuoRem(x, d, new(big.Int))
	if r.Lsh(r, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1)) // half away from zero (round_var)
	}
	buf := make([]byte, 0, 48)
	if neg {
		buf = append(buf, '-')
	}
	buf = q.Append(buf, 10)
	buf = append(buf, 'e', '-')
	buf = strconv.AppendInt(buf, int64(scale), 10)
	f, _ := strconv.ParseFloat(string(buf), 64) // correctly rounded
	return f
}

// avgQuotient64 is AvgQuotient128 for a total that fits 64 bits, in
// machine words when the scaled total and the decimal quotient fit 64
// bits too (most averages: 12-19 digit quotients); ok is false when not.
func avgQuotient64(v, n int64) (float64, bool) {
	x := v
	if x < 0 {
		x = -x // v = MinInt64 stays negative: refused below
	}
	if x <= 0 {
		return 0, false
	}
	wa, fa := base10000Head64(uint64(x))
	wb, fb := base10000Head64(uint64(n))
	w := wa - wb
	if fa <= fb {
		w--
	}
	scale := max(minSigDigits-w*4, 0)
	// Long division in chunks of up to 19 digits: r < n before each, so
	// r·10^c / n fits one Div64; the quotient qh:ql grows by c digits
	// (16 to 20 of them in all, so 128 bits hold it).
	var qh uint64
	ql, r := uint64(x)/uint64(n), uint64(x)%uint64(n)
	for left := scale; left > 0; {
		c := min(left, len(pow10u64)-1)
		left -= c
		ph, pl := bits.Mul64(r, pow10u64[c])
		qc, rc := bits.Div64(ph, pl, uint64(n))
		hh, hl := bits.Mul64(qh, pow10u64[c])
		lh, ll := bits.Mul64(ql, pow10u64[c])
		ll, carry := bits.Add64(ll, qc, 0)
		hl, carry2 := bits.Add64(hl, lh, carry)
		if hh != 0 || carry2 != 0 {
			return 0, false
		}
		qh, ql, r = hl, ll, rc
	}
	if r >= uint64(n)-r {
		var carry uint64
		ql, carry = bits.Add64(ql, 1, 0) // half away from zero (round_var)
		qh += carry
	}
	var f float64
	switch {
	case qh == 0 && ql < 1<<53 && scale <= 22:
		f = float64(ql) / pow10f64[scale] // exact operands: one rounding
	case qh < pow10u64[19]:
		var buf [80]byte
		b := buf[:0]
		if qh == 0 {
			b = strconv.AppendUint(b, ql, 10)
		} else {
			top, low := bits.Div64(qh, ql, pow10u64[19])
			b = strconv.AppendUint(b, top, 10)
			lowDigits := strconv.AppendUint(buf[56:56], low, 10)
			for range 19 - len(lowDigits) {
				b = append(b, '0')
			}
			b = append(b, lowDigits...)
		}
		b = append(b, 'e', '-')
		b = strconv.AppendInt(b, int64(scale), 10)
		f, _ = strconv.ParseFloat(string(b), 64) // correctly rounded
	default:
		return 0, false
	}
	if v < 0 {
		f = -f
	}
	return f, true
}

// base10000Head64 is base10000Head of x > 0.
func base10000Head64(x uint64) (weight int, first int64) {
	for x >= 10000 {
		x /= 10000
		weight++
	}
	return weight, int64(x)
}

var pow10u64 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

var pow10f64 = func() (p [23]float64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10 // exact up to 1e22
	}
	return p
}()

// minSigDigits is NUMERIC_MIN_SIG_DIGITS: a quotient's scale gives it at
// least this many significant digits.
const minSigDigits = 16

// divWeight is select_div_scale's qweight for a / b (a, b > 0): the
// difference of their weights in base-10000 digits, one less when a's
// first base-10000 digit is not above b's.
func divWeight(a, b *big.Int) int {
	wa, fa := base10000Head(a)
	wb, fb := base10000Head(b)
	w := wa - wb
	if fa <= fb {
		w--
	}
	return w
}

// base10000Head is the weight of x's first base-10000 digit and that
// digit (x > 0).
func base10000Head(x *big.Int) (weight int, first int64) {
	digits := len(x.Text(10))
	weight = (digits - 1) / 4
	f := new(big.Int).Quo(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(weight*4)), nil))
	return weight, f.Int64()
}
