package physexpr

import (
	"fmt"
	"math/big"

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
