package value

import (
	"math/big"
	"math/bits"

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

// Quotient128 is the 128-bit integer hi:lo divided by n, rounded once to
// the nearest double: avg of an integer column, whose exact total is
// kept in 128 bits.
func Quotient128(hi int64, lo uint64, n int64) float64 {
	const exact = 1 << 53 // integers a float64 holds exactly
	if v := int64(lo); hi == v>>63 && v > -exact && v < exact && n < exact {
		return float64(v) / float64(n) // IEEE division of exact operands rounds once
	}
	x := new(big.Int).Lsh(big.NewInt(hi), 64)
	x.Add(x, new(big.Int).SetUint64(lo))
	f, _ := new(big.Rat).SetFrac(x, big.NewInt(n)).Float64()
	return f
}
