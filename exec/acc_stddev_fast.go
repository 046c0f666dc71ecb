package exec

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"
)

// numericStatsFinal64 is numericStatsFinal without math/big for the
// common group: N*sumX2 - sumX^2 and the denominator below 10^18, and
// every step in 128 bits. handled is false when a step would leave
// them; numericStatsFinal then gives the answer. TPC-DS Q39 finishes
// 540,000 stddev_samp groups of four or five integers at SF 1: through
// math/big (and its decimal digit counts for the rscale) the emit was 60%
// of the query.
func numericStatsFinal64(k statsKind, s, to int32, n int64, sx value.Int192, sxx uint320) (v decimal128.Num, ok, handled bool) {
	if n == 0 || (k.sample && n <= 1) {
		return decimal128.Num{}, false, true
	}
	if sxx[1]|sxx[2]|sxx[3]|sxx[4] != 0 || n < 0 {
		return decimal128.Num{}, false, false
	}
	x, fits := sx.Num()
	if !fits {
		return decimal128.Num{}, false, false
	}
	xh, xl := value.Abs128(x)
	if xh != 0 {
		return decimal128.Num{}, false, false
	}
	// num = N*sumX2 - sumX^2, den = N*N or N*(N-1), all below 10^18.
	const lim = 1_000_000_000_000_000_000
	ph, pl := bits.Mul64(uint64(n), sxx[0])
	qh, ql := bits.Mul64(xl, xl)
	if ph != 0 || qh != 0 {
		return decimal128.Num{}, false, false
	}
	if pl <= ql {
		return decimal128.Num{}, true, true // PostgreSQL's zero for a numerator <= 0
	}
	num := pl - ql
	dh, den := bits.Mul64(uint64(n), uint64(n))
	if k.sample {
		den -= uint64(n)
	}
	if num >= lim || dh != 0 || den >= lim {
		return decimal128.Num{}, false, false
	}
	q, r, okq := physexpr.DivideDecimalAtRScale64(int64(num), 2*s, int64(den), 0)
	if !okq {
		return decimal128.Num{}, false, false
	}
	if k.sqrt {
		if q, okq = sqrtRounded128(q, r); !okq {
			return decimal128.Num{}, false, false
		}
	}
	if r > to {
		if q, okq = roundHalfUp128(q, r-to); !okq {
			return decimal128.Num{}, false, false
		}
	} else if q, okq = value.Mul128(q, value.Pow10x128(to-r)); !okq {
		return decimal128.Num{}, false, false // numericStatsFinal raises the overflow
	}
	if !value.Within(q, value.MaxOfPrecision(value.MaxDecimalPrecision)) {
		return decimal128.Num{}, false, false
	}
	return q, true, true
}

// sqrtRounded128 is sqrtRounded in 128 bits: floor(sqrt(v * 10^(r+2))),
// plus 5, over 10. ok is false when v * 10^(r+2) leaves 127 bits.
func sqrtRounded128(v decimal128.Num, r int32) (decimal128.Num, bool) {
	if r+2 > value.MaxDecimalPrecision || v.Sign() < 0 {
		return decimal128.Num{}, false
	}
	t, ok := value.Mul128(v, value.Pow10x128(r+2))
	if !ok {
		return decimal128.Num{}, false
	}
	root, ok := isqrt128(uint64(t.HighBits()), t.LowBits())
	if !ok {
		return decimal128.Num{}, false
	}
	return decimal128.FromU64((root + 5) / 10), true
}

// isqrt128 is floor(sqrt(hi:lo)) for hi:lo below 2^127: a float
// estimate (within about 2^11 of the root: 53 bits of a 64-bit root),
// Newton steps in 128/64-bit division, then an exact correction. ok is
// false if a step's quotient would leave 64 bits (no estimate is that
// far off).
func isqrt128(hi, lo uint64) (uint64, bool) {
	if hi == 0 && lo == 0 {
		return 0, true
	}
	x := uint64(math.Sqrt(float64(hi)*0x1p64 + float64(lo)))
	if x == 0 {
		x = 1
	}
	for range 4 {
		if hi >= x {
			return 0, false
		}
		q, _ := bits.Div64(hi, lo, x)
		nx := x/2 + q/2 + (x&q)&1
		if nx == x {
			break
		}
		x = nx
	}
	// Correct to the floor: x*x <= hi:lo < (x+1)*(x+1).
	for {
		sh, sl := bits.Mul64(x, x)
		if sh > hi || (sh == hi && sl > lo) {
			x--
			continue
		}
		break
	}
	for {
		y := x + 1
		sh, sl := bits.Mul64(y, y)
		if y == 0 || sh > hi || (sh == hi && sl > lo) {
			break
		}
		x = y
	}
	return x, true
}

// roundHalfUp128 is roundHalfUp of v >= 0 in 128 bits, for 10^d below
// 2^64.
func roundHalfUp128(v decimal128.Num, d int32) (decimal128.Num, bool) {
	if d > 19 || v.Sign() < 0 {
		return decimal128.Num{}, false
	}
	p := value.Pow10x128(d).LowBits()
	hi, lo := uint64(v.HighBits()), v.LowBits()
	qh, rh := hi/p, hi%p
	ql, rem := bits.Div64(rh, lo, p)
	if rem >= p-rem { // 2*rem >= p
		var c uint64
		ql, c = bits.Add64(ql, 1, 0)
		qh += c
	}
	return decimal128.New(int64(qh), ql), true
}
