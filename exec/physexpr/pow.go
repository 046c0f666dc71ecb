package physexpr

import (
	"math"
	"math/big"
)

// pow is x^y correctly rounded to the nearest double (PostgreSQL calls
// the C library's pow, which glibc computes to within a hair of half an
// ulp; Go's math.Pow is off by an ulp or more: 0.3333333333333333^-3 is
// 27 there and 27.000000000000004 in PostgreSQL). The exact cases take
// one IEEE operation, which is correctly rounded already; the others are
// computed in 192-bit binary floating point (x^y = x^n * e^(f ln x) for y
// = n + f) and rounded once. x is finite and non-zero, y finite, and x is
// positive or y an integer (power checks these first).
func pow(x, y float64) float64 {
	switch y {
	case 1:
		return x
	case 2:
		return x * x
	case -1:
		return 1 / x
	case 0.5:
		return math.Sqrt(x)
	}
	neg := x < 0
	ax := math.Abs(x)
	n, f := math.Modf(y)
	odd := neg && math.Mod(n, 2) != 0
	if ax == 1 {
		if odd {
			return -1
		}
		return 1
	}
	// Far outside the double range (|log2 result| beyond 1100) the answer
	// is an infinity or a zero whatever the digits; within it the exact
	// computation below never leaves big.Float's exponent range, and the
	// integer part fits a uint64 (|y| < 1200 / log2(1 + 2^-52) < 2^64).
	if l := y * math.Log2(ax); l > 1100 || l < -1200 {
		v := math.Inf(1)
		if l < 0 {
			v = 0
		}
		if odd {
			v = -v
		}
		return v
	}
	r := new(big.Float).SetPrec(powPrec)
	r.SetFloat64(1)
	if n != 0 {
		b := new(big.Float).SetPrec(powPrec).SetFloat64(ax)
		e := uint64(math.Abs(n))
		for e > 0 { // square and multiply
			if e&1 == 1 {
				r.Mul(r, b)
			}
			b.Mul(b, b)
			e >>= 1
		}
		if n < 0 {
			r.Quo(new(big.Float).SetPrec(powPrec).SetFloat64(1), r)
		}
	}
	if f != 0 {
		t := bigLog(ax)
		t.Mul(t, new(big.Float).SetPrec(powPrec).SetFloat64(f))
		r.Mul(r, bigExp(t))
	}
	v, _ := r.Float64()
	if odd {
		v = -v
	}
	return v
}

const powPrec = 192

var ln2 = func() *big.Float {
	// ln 2 = 2 atanh(1/3)
	third := new(big.Float).SetPrec(powPrec).Quo(big.NewFloat(1).SetPrec(powPrec), big.NewFloat(3).SetPrec(powPrec))
	return atanh2(third)
}()

// atanh2 is 2 atanh(z) = 2 (z + z^3/3 + z^5/5 + ...), for |z| <= 1/3.
func atanh2(z *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(powPrec).Set(z)
	z2 := new(big.Float).SetPrec(powPrec).Mul(z, z)
	term := new(big.Float).SetPrec(powPrec).Set(z)
	q := new(big.Float).SetPrec(powPrec)
	for k := int64(3); k < 400; k += 2 {
		term.Mul(term, z2)
		q.Quo(term, new(big.Float).SetPrec(powPrec).SetInt64(k))
		if q.Sign() == 0 || q.MantExp(nil)-sum.MantExp(nil) < -powPrec-8 {
			break
		}
		sum.Add(sum, q)
	}
	return sum.Mul(sum, big.NewFloat(2))
}

// bigLog is ln x for finite x > 0: x = m 2^e, m in [1/sqrt2, sqrt2),
// ln x = e ln 2 + 2 atanh((m-1)/(m+1)).
func bigLog(x float64) *big.Float {
	m, e := math.Frexp(x) // m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	bm := new(big.Float).SetPrec(powPrec).SetFloat64(m)
	one := new(big.Float).SetPrec(powPrec).SetFloat64(1)
	num := new(big.Float).SetPrec(powPrec).Sub(bm, one)
	den := new(big.Float).SetPrec(powPrec).Add(bm, one)
	z := new(big.Float).SetPrec(powPrec).Quo(num, den)
	r := atanh2(z)
	le := new(big.Float).SetPrec(powPrec).Mul(ln2, new(big.Float).SetPrec(powPrec).SetInt64(int64(e)))
	return r.Add(r, le)
}

// bigExp is e^t: t = k ln 2 + s with |s| <= ln2/2, e^s by its Taylor
// series on s/2^8 squared eight times, then scaled by 2^k.
func bigExp(t *big.Float) *big.Float {
	kf, _ := new(big.Float).Quo(t, ln2).Float64()
	k := math.Round(kf)
	if math.Abs(k) > 1<<20 { // far beyond the double range either way
		if k > 0 {
			return new(big.Float).SetPrec(powPrec).SetMantExp(big.NewFloat(1), 1<<21)
		}
		return new(big.Float).SetPrec(powPrec).SetMantExp(big.NewFloat(1), -(1 << 21))
	}
	s := new(big.Float).SetPrec(powPrec).Mul(ln2, new(big.Float).SetPrec(powPrec).SetFloat64(k))
	s.Sub(t, s)
	s.SetMantExp(s, -8)
	sum := new(big.Float).SetPrec(powPrec).SetFloat64(1)
	term := new(big.Float).SetPrec(powPrec).SetFloat64(1)
	for i := int64(1); i < 60; i++ {
		term.Mul(term, s)
		term.Quo(term, new(big.Float).SetPrec(powPrec).SetInt64(i))
		if term.Sign() == 0 || term.MantExp(nil) < -powPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < 8; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}
