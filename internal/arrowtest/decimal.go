package arrowtest

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The decimal test helpers below are shared by the tests of the decimal
// kernels (exec/physexpr) and of the decimal sum and avg accumulators
// (exec): the operands a fuzz target derives from its bytes, and the
// reference division PostgreSQL's numeric_div is checked against.

// pow10 is 10^n; arrowtest imports no package of the module, so not
// value.Pow10.
func pow10(n int32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// FuzzDecimal is a value of class c (low 3 bits; bit 4 negates) from the
// random word r, for a column of precision p.
func FuzzDecimal(c byte, r uint64, p int32) *big.Int {
	k := new(big.Int).SetUint64(r % 100)
	var v *big.Int
	switch c % 6 {
	case 0: // anywhere in the precision
		v = new(big.Int).Mod(new(big.Int).SetUint64(r), pow10(p))
	case 1: // at the precision's limit
		v = new(big.Int).Sub(pow10(p), big.NewInt(1))
		v.Sub(v, k)
	case 2: // around 10^18
		v = new(big.Int).Add(pow10(18), k)
		v.Sub(v, big.NewInt(50))
	case 3: // just below 10^38
		v = new(big.Int).Sub(pow10(38), big.NewInt(1))
		v.Sub(v, k)
	case 4: // just below 2^127
		v = new(big.Int).Lsh(big.NewInt(1), 127)
		v.Sub(v, big.NewInt(1))
		v.Sub(v, k)
	default:
		v = big.NewInt(int64(r % 3))
	}
	if c&0x10 != 0 {
		v.Neg(v)
		if c&0x20 != 0 && c%6 == 4 && r%100 == 0 {
			v.Sub(v, big.NewInt(1)) // -2^127, the smallest int128
		}
	}
	return v
}

// Num128 is v as decimal128; arrow's FromBigInt refuses -2^127, which
// fits.
func Num128(v *big.Int) decimal128.Num {
	if v.Cmp(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))) == 0 {
		return decimal128.New(-1<<63, 0)
	}
	return decimal128.FromBigInt(v)
}

// RefDivScale is select_div_scale computed the way numeric.c sees its
// operands: the digits grouped in fours from the decimal point (base
// 10000), the weight of the first nonzero group and its value. An oracle
// independent of nbaseDigits' arithmetic.
func RefDivScale(x *big.Int, s1 int32, y *big.Int, s2 int32) int32 {
	groups := func(v *big.Int, s int32) (int32, int64) {
		ds := new(big.Int).Abs(v).String()
		for int32(len(ds)) <= s {
			ds = "0" + ds
		}
		ip, fp := ds[:len(ds)-int(s)], ds[len(ds)-int(s):]
		for len(ip)%4 != 0 {
			ip = "0" + ip
		}
		for len(fp)%4 != 0 {
			fp += "0"
		}
		all := ip + fp
		w := int32(len(ip)/4) - 1 // weight of the first group
		for i := 0; i < len(all); i += 4 {
			g := new(big.Int)
			g.SetString(all[i:i+4], 10)
			if g.Sign() != 0 {
				return w - int32(i/4), g.Int64()
			}
		}
		return 0, 0
	}
	w1, f1 := groups(x, s1)
	w2, f2 := groups(y, s2)
	q := w1 - w2
	if f1 <= f2 {
		q--
	}
	return min(max(16-4*q, s1, s2, 0), 1000)
}

// RefDivide is the exact quotient (big.Rat) rounded half away from zero
// to min(PostgreSQL's scale, to), as an unscaled integer at scale to.
func RefDivide(x *big.Int, s1 int32, y *big.Int, s2 int32, to int32) *big.Int {
	r := min(RefDivScale(x, s1, y, s2), to)
	q := new(big.Rat).SetFrac(new(big.Int).Mul(x, pow10(s2)), new(big.Int).Mul(y, pow10(s1)))
	q.Mul(q, new(big.Rat).SetInt(pow10(r)))
	abs := new(big.Rat).Abs(q)
	abs.Add(abs, big.NewRat(1, 2))
	n := new(big.Int).Quo(abs.Num(), abs.Denom()) // floor(|q| + 1/2)
	if q.Sign() < 0 {
		n.Neg(n)
	}
	return n.Mul(n, pow10(to-r))
}

func DecimalArray(mem memory.Allocator, t *arrow.Decimal128Type, vals []decimal128.Num, valid []bool) arrow.Array {
	b := array.NewDecimal128Builder(mem, t)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}
