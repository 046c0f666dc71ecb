package exec

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/value"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// stddev_samp, stddev_pop, var_samp and var_pop, as PostgreSQL 15
// computes them.
//
// Of real and double precision (float8_accum, float8_var_samp, ...): the
// Youngs-Cramer running N, Sx, Sxx of avg (floatSumAcc), then Sxx / (N-1)
// or Sxx / N, and its sqrt; double precision. Like float sum and avg the
// result depends on the order of the rows, so the aggregation stays serial
// (mergeable).
//
// Of smallint, integer, bigint and numeric (int8_accum, numeric_accum,
// numeric_stddev_internal): exact N, sumX and sumX2, then
// (N*sumX2 - sumX^2) / (N*(N-1)) (or N*N), rounded half away from zero at
// select_div_scale's rscale, and for stddev the square root rounded at the
// same rscale; numeric. The sums are exact integers (sumX in 192 bits, as
// sum(numeric)'s; sumX2, a sum of squares of values below 2^127, in 320
// unsigned bits), so partial states merge by addition and the answer is
// the serial plan's at every thread count. A numeric column has one scale:
// S = DecimalDivScale(s, 0), max(s, 20), for an argument of scale s (0
// for integers), avg's (PostgreSQL's rscale is at least 2s: a column of
// 2s digits would leave a quotient of scale 20 no integer digits, and 20
// digits are PostgreSQL's 16 significant ones for any result above about
// 1e-4); each value is rounded where
// PostgreSQL rounds it (its rscale) and padded to S; a result below about
// 1e-4, which PostgreSQL prints with more than S digits (16 significant
// ones), is PostgreSQL's value rounded once more to S. PostgreSQL's zero
// (a numerator <= 0) is 0 at scale S.

// statsKind is which of the four.
type statsKind struct{ sample, sqrt bool }

func statsKindOf(f AggregateFunc) statsKind {
	return statsKind{sample: f == AggStdDevSamp || f == AggVarSamp, sqrt: f == AggStdDevSamp || f == AggStdDevPop}
}

// isStats reports whether f is one of the four.
func isStats(f AggregateFunc) bool {
	return f == AggStdDevSamp || f == AggStdDevPop || f == AggVarSamp || f == AggVarPop
}

// statsSignature is aggSignature's rule for the four: double precision of
// a float, numeric(38, DecimalDivScale(s, 0)) of an integer or numeric.
func statsSignature(a Aggregate, arg arrow.DataType) (arrow.DataType, func() accumulator, error) {
	k := statsKindOf(a.Func)
	switch {
	case arg.ID() == arrow.FLOAT64 || arg.ID() == arrow.FLOAT32:
		return arrow.PrimitiveTypes.Float64, func() accumulator { return &floatStatsAcc{floatSumAcc: floatSumAcc{avg: true}, kind: k} }, nil
	case isIntegerType(arg) || arg.ID() == arrow.DECIMAL128:
		var s int32
		if d, ok := arg.(*arrow.Decimal128Type); ok {
			s = d.Scale
		}
		typ := numericStatsType(s)
		return typ, func() accumulator { return &numStatsAcc{kind: k, scale: s, typ: typ} }, nil
	}
	return nil, nil, fmt.Errorf("%w: %s(%s) is not supported", physexpr.ErrInvalidArgument, a.Func, arg)
}

// numericStatsType is the result type over an argument of scale s.
func numericStatsType(s int32) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: value.MaxDecimalPrecision, Scale: physexpr.DecimalDivScale(s, 0)}
}

// floatStatsAcc is the four of a float column: float8_accum's state (the
// same steps as avg's, with its overflow errors), PostgreSQL's final
// functions.
type floatStatsAcc struct {
	floatSumAcc
	kind statsKind
}

func (s *floatStatsAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.grow(n)
	defer func() {
		s.n, s.sx, s.sxx, s.set = dropFront(s.n, n), dropFront(s.sx, n), dropFront(s.sxx, n), dropFront(s.set, n)
	}()
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for g := range n {
		v, ok := floatStatsFinal(s.kind, s.n[g], s.sxx[g])
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// floatStatsFinal is float8_var_samp / float8_var_pop and the stddev
// ones: NULL (ok false) for N <= 1 (sample) or N = 0 (population).
func floatStatsFinal(k statsKind, n, sxx float64) (float64, bool) {
	d := n
	if k.sample {
		d = n - 1
	}
	if d <= 0 || n == 0 {
		return 0, false
	}
	v := sxx / d
	if k.sqrt {
		v = math.Sqrt(v)
	}
	return v, true
}

// uint320 is an unsigned 320-bit integer, little-endian words: a sum of
// squares of decimal128 values (each below 2^254) that fewer than 2^66
// additions cannot overflow.
type uint320 [5]uint64

// addAt adds hi:lo at word i.
func (u *uint320) addAt(i int, hi, lo uint64) {
	var c uint64
	u[i], c = bits.Add64(u[i], lo, 0)
	u[i+1], c = bits.Add64(u[i+1], hi, c)
	for j := i + 2; c != 0 && j < len(u); j++ {
		u[j], c = bits.Add64(u[j], 0, c)
	}
}

// addSquare adds v*v.
func (u *uint320) addSquare(v decimal128.Num) {
	if v.Sign() < 0 {
		v = v.Negate()
	}
	h, l := uint64(v.HighBits()), v.LowBits() // |v| = h*2^64 + l, h < 2^63
	sh, sl := bits.Mul64(l, l)
	u.addAt(0, sh, sl)
	mh, ml := bits.Mul64(h, l) // 2*h*l*2^64: added twice
	u.addAt(1, mh, ml)
	u.addAt(1, mh, ml)
	sh, sl = bits.Mul64(h, h)
	u.addAt(2, sh, sl)
}

// merge adds o.
func (u *uint320) merge(o uint320) {
	var c uint64
	for i := range u {
		u[i], c = bits.Add64(u[i], o[i], c)
	}
}

func (u uint320) bigInt() *big.Int {
	b := new(big.Int)
	for i := len(u) - 1; i >= 0; i-- {
		b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(u[i]))
	}
	return b
}

// numStatsAcc is the four of an integer or numeric column of scale scale:
// per group N, sumX and sumX2, exactly.
type numStatsAcc struct {
	kind   statsKind
	scale  int32
	typ    *arrow.Decimal128Type
	counts []int64
	sx     []value.Int192
	sxx    []uint320
}

func (s *numStatsAcc) grow(n int) {
	s.counts, s.sx, s.sxx = growTo(s.counts, n), growTo(s.sx, n), growTo(s.sxx, n)
}

func (s *numStatsAcc) drop(n int) {
	s.counts, s.sx, s.sxx = dropFront(s.counts, n), dropFront(s.sx, n), dropFront(s.sxx, n)
}

func (s *numStatsAcc) add(g uint32, v decimal128.Num) {
	s.counts[g]++
	s.sx[g].Add(v)
	s.sxx[g].addSquare(v)
}

func statsSigned[T int8 | int16 | int32 | int64](s *numStatsAcc, a arrow.Array, vals []T, groups []uint32) {
	for r, g := range groups {
		if g != skipRow && a.IsValid(r) {
			s.add(g, decimal128.FromI64(int64(vals[r])))
		}
	}
}

func statsUnsigned[T uint8 | uint16 | uint32 | uint64](s *numStatsAcc, a arrow.Array, vals []T, groups []uint32) {
	for r, g := range groups {
		if g != skipRow && a.IsValid(r) {
			s.add(g, decimal128.FromU64(uint64(vals[r])))
		}
	}
}

func (s *numStatsAcc) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	switch a := args[0].(type) {
	case *array.Decimal128:
		vals := a.Values()
		for r, g := range groups {
			if g != skipRow && a.IsValid(r) {
				s.add(g, vals[r])
			}
		}
	case *array.Int64:
		statsSigned(s, a, a.Int64Values(), groups)
	case *array.Int32:
		statsSigned(s, a, a.Int32Values(), groups)
	case *array.Int16:
		statsSigned(s, a, a.Int16Values(), groups)
	case *array.Int8:
		statsSigned(s, a, a.Int8Values(), groups)
	case *array.Uint64:
		statsUnsigned(s, a, a.Uint64Values(), groups)
	case *array.Uint32:
		statsUnsigned(s, a, a.Uint32Values(), groups)
	case *array.Uint16:
		statsUnsigned(s, a, a.Uint16Values(), groups)
	case *array.Uint8:
		statsUnsigned(s, a, a.Uint8Values(), groups)
	default:
		return fmt.Errorf("%w: variance of %s", physexpr.ErrInvalidArgument, a.DataType())
	}
	return nil
}

func (s *numStatsAcc) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	s.grow(n)
	defer s.drop(n)
	b := array.NewDecimal128Builder(mem, s.typ)
	defer b.Release()
	b.Reserve(n)
	for g := range n {
		if v, ok, handled := numericStatsFinal64(s.kind, s.scale, s.typ.Scale, s.counts[g], s.sx[g], s.sxx[g]); handled {
			if ok {
				b.Append(v)
			} else {
				b.AppendNull()
			}
			continue
		}
		v, ok, err := numericStatsFinal(s.kind, s.scale, s.typ.Scale, s.counts[g], s.sx[g].BigInt(), s.sxx[g].bigInt())
		if err != nil {
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// numericStatsFinal is numeric_stddev_internal over N, sumX and sumX2
// (unscaled, at scale s and 2s), as an unscaled value at scale to: NULL
// (ok false) for N = 0, or N <= 1 for the sample forms.
func numericStatsFinal(k statsKind, s, to int32, n int64, sx, sxx *big.Int) (decimal128.Num, bool, error) {
	if n == 0 || (k.sample && n <= 1) {
		return decimal128.Num{}, false, nil
	}
	bn := big.NewInt(n)
	// N*sumX2 - sumX*sumX, at scale 2s (mul_var at rscale 2*dscale(sumX)
	// is exact).
	num := new(big.Int).Mul(bn, sxx)
	num.Sub(num, new(big.Int).Mul(sx, sx))
	if num.Sign() <= 0 {
		return decimal128.Num{}, true, nil // "watch out for roundoff error producing a negative numerator": 0
	}
	den := new(big.Int).Mul(bn, bn)
	if k.sample {
		den.Sub(den, bn) // N*(N-1)
	}
	// PostgreSQL's value at its rscale r: the quotient rounded at r, its
	// square root rounded at r. A finer r than the column's (a result
	// below about 1e-4) is then rounded once more, to the column's scale.
	r := physexpr.DecimalDivRScale(num, 2*s, den, 0)
	q, err := physexpr.DivideDecimal(num, 2*s, den, 0, r)
	if err != nil {
		return decimal128.Num{}, false, err
	}
	if k.sqrt {
		q = sqrtRounded(q, r)
	}
	if r > to {
		q = roundHalfUp(q, r-to)
	} else {
		q.Mul(q, value.Pow10(to-r))
	}
	if q.CmpAbs(value.Pow10(value.MaxDecimalPrecision)) >= 0 {
		return decimal128.Num{}, false, value.ErrNumericOverflow
	}
	return decimal128.FromBigInt(q), true, nil
}

// sqrtRounded is the square root of v (unscaled, >= 0, at scale r) at
// scale r, rounded half up as sqrt_var rounds: the root truncated to one
// more digit decides the rounding exactly (an irrational root is never at
// the half; a rational one is exact there).
func sqrtRounded(v *big.Int, r int32) *big.Int {
	// sqrt(v / 10^r) * 10^(r+1) = sqrt(v * 10^(r+2)).
	t := new(big.Int).Mul(v, value.Pow10(r+2))
	t.Sqrt(t)
	t.Add(t, big.NewInt(5))
	return t.Quo(t, big.NewInt(10))
}

// roundHalfUp is v >= 0 divided by 10^d, rounded half up.
func roundHalfUp(v *big.Int, d int32) *big.Int {
	p := value.Pow10(d)
	q, m := new(big.Int).QuoRem(v, p, new(big.Int))
	if m.Lsh(m, 1).Cmp(p) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// numStatsStateFields are the partial state columns of measure name: N,
// sumX's three words and sumX2's five.
func numStatsStateFields(name string) []arrow.Field {
	f := []arrow.Field{
		{Name: name + "[count]", Type: arrow.PrimitiveTypes.Int64},
		{Name: name + "[sx.lo]", Type: arrow.PrimitiveTypes.Uint64},
		{Name: name + "[sx.mid]", Type: arrow.PrimitiveTypes.Uint64},
		{Name: name + "[sx.hi]", Type: arrow.PrimitiveTypes.Int64},
	}
	for i := range len(uint320{}) {
		f = append(f, arrow.Field{Name: fmt.Sprintf("%s[sxx.%d]", name, i), Type: arrow.PrimitiveTypes.Uint64})
	}
	return f
}

// numStatsState is a partial numStatsAcc: it emits its state.
type numStatsState struct{ *numStatsAcc }

func (s *numStatsState) emit(memory.Allocator, int) (arrow.Array, error) {
	return nil, fmt.Errorf("%w: a partial variance emits columns", ErrInternal)
}

func (s *numStatsState) emitColumns(mem memory.Allocator, n int) ([]arrow.Array, error) {
	s.grow(n)
	defer s.drop(n)
	cb := array.NewInt64Builder(mem)
	defer cb.Release()
	cb.AppendValues(s.counts[:n], nil)
	lb, mb, hb := array.NewUint64Builder(mem), array.NewUint64Builder(mem), array.NewInt64Builder(mem)
	defer lb.Release()
	defer mb.Release()
	defer hb.Release()
	wb := make([]*array.Uint64Builder, len(uint320{}))
	for i := range wb {
		wb[i] = array.NewUint64Builder(mem)
		defer wb[i].Release()
	}
	for g := range n {
		lb.Append(s.sx[g].Lo)
		mb.Append(s.sx[g].Mid)
		hb.Append(s.sx[g].Hi)
		for i, w := range s.sxx[g] {
			wb[i].Append(w)
		}
	}
	out := []arrow.Array{cb.NewArray(), lb.NewArray(), mb.NewArray(), hb.NewArray()}
	for _, b := range wb {
		out = append(out, b.NewArray())
	}
	return out, nil
}

// numStatsMerge adds partial states exactly and emits as numStatsAcc.
type numStatsMerge struct{ *numStatsAcc }

func (s *numStatsMerge) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	if len(args) != 4+len(uint320{}) {
		return fmt.Errorf("%w: variance state of %d columns", physexpr.ErrSchema, len(args))
	}
	cnt, ok1 := args[0].(*array.Int64)
	lo, ok2 := args[1].(*array.Uint64)
	mid, ok3 := args[2].(*array.Uint64)
	hi, ok4 := args[3].(*array.Int64)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fmt.Errorf("%w: variance state columns %s, %s, %s, %s", physexpr.ErrSchema, args[0].DataType(), args[1].DataType(), args[2].DataType(), args[3].DataType())
	}
	ws := make([]*array.Uint64, len(uint320{}))
	for i := range ws {
		w, ok := args[4+i].(*array.Uint64)
		if !ok {
			return fmt.Errorf("%w: variance state column %s", physexpr.ErrSchema, args[4+i].DataType())
		}
		ws[i] = w
	}
	for r, g := range groups {
		if g == skipRow || cnt.IsNull(r) { // NULL: the empty state (MergeOver)
			continue
		}
		s.counts[g] += cnt.Value(r)
		s.sx[g].Merge(value.Int192{Lo: lo.Value(r), Mid: mid.Value(r), Hi: hi.Value(r)})
		var u uint320
		for i, w := range ws {
			u[i] = w.Value(r)
		}
		s.sxx[g].merge(u)
	}
	return nil
}
